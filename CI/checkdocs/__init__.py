"""The rules of CI/check-docs, one module a kind: paths, claims, the self-test."""
