"""`CI/check-docs --self-test`: each rule must be seen failing on a line planted for it.

Copies the repository's files (the working tree) to a temporary folder, checks that the copy
passes, plants one bad line per rule, runs CI/check-docs on the copy once more, and expects a
failure at each planted line, with its rule's words. Fails naming each rule that stayed quiet.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# (file, rule, how to plant, words the failure says); a plant either appends a line (the text),
# or replaces the first match of a pattern (a pair). The planted line is the one that holds `mark`.
PLANTS = [
    ("README.md", "paragraph length", "x" * 620, "paragraph of"),
    ("README.md", "table cell length", "| a | " + "y" * 310 + " |", "table cell 2 has"),
    ("README.md", "tag claims", "Release 9.9.9 is tagged in this repository.", "claims a tag"),
    ("README.md", "paths in code spans", "Run `Scenarios/no-such-folder/missing.yaml` first.", "which does not exist"),
    ("README.md", "paths in links", "See [the page](Docs/NoSuchPage.md).", "a link, relative to the document"),
    ("Docs/Platforms.md", "links relative to the document", "See [it](../NoSuchFile.md).", "a link, relative"),
    ("README.md", "glibc version", "`CI/glibc-check` links everything against glibc 2.17.", "claims glibc 2.17"),
    ("README.md", "CI images", "CI runs the `swift:5.10-focal` image.", "which no workflow"),
    ("README.md", "Swift version beside an image", "| Swift 6.0 | `swift:6.3-bookworm` |", "says Swift 6.0"),
    ("README.md", "scenario counts", "`Scenarios/counting/` holds 999 scenarios.", "says 999 scenarios"),
    ("CONTRIBUTING.md", "CI/test inventory: a step CI/test does not run",
     (r"^(1\. `actionlint`.*)$", r"\1\n2. `CI/no-such-step 5`: planted."), "which CI/test does not run"),
    ("CONTRIBUTING.md", "CI/test inventory: a script the list leaves out",
     (r"^\d+\. `CI/fuzz 30`.*$", "22. Fuzzers, unnamed."), "CI/test runs CI/fuzz, which the list"),
    ("CONTRIBUTING.md", "commit subjects since a commit",
     (r"since `[0-9a-f]+`", "since `ceaf3cd`"), "reword it before it is merged"),
    ("README.md", "manifest lines of a chaos build",
     (r'condition: \.when\(traits: \["Chaos"\]\)', 'condition: .when(traits: ["Chaos2"])'), "which Examples/"),
    ("README.md", "README length", "\n".join(["z"] * 10), "lines (at most 200)"),
]


def copy_tree(repository: str, target: str) -> None:
    listed = subprocess.run(["git", "-c", f"safe.directory={repository}", "-C", repository, "ls-files", "-z",
                             "--cached", "--others", "--exclude-standard"], capture_output=True, check=True)
    for path in listed.stdout.decode().split("\0"):
        source = os.path.join(repository, path)
        if path and os.path.isfile(source):
            os.makedirs(os.path.join(target, os.path.dirname(path)), exist_ok=True)
            shutil.copy2(source, os.path.join(target, path))


def run(script: str, root: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, script, "--root", root], capture_output=True, text=True)


def plant(root: str) -> list[tuple[str, str, str, str]]:
    """Plants every line; returns (file, rule, words, marker text) for each."""
    planted = []
    for path, rule, how, words in PLANTS:
        full = os.path.join(root, path)
        text = open(full, encoding="utf-8").read()
        if isinstance(how, tuple):
            pattern, replacement = how
            match = re.search(pattern, text, re.M)
            if not match:
                sys.exit(f"CI/check-docs --self-test: {path} has no line matching {pattern!r} to plant "
                         f"the {rule} case in: update CI/checkdocs/selftest.py")
            new = match.expand(replacement)
            text = text[: match.start()] + new + text[match.end():]
            marker = new.split("\n")[-1]
        else:
            text = text.rstrip("\n") + "\n\n" + how + "\n"
            marker = how.split("\n")[0] if rule != "README length" else None
        if rule.endswith("a script the list leaves out"):
            marker = None  # reported at the list's heading
        open(full, "w", encoding="utf-8").write(text)
        planted.append((path, rule, words, marker))
    return planted


def line_of(root: str, path: str, marker: str | None) -> str:
    if marker is None:
        return ""
    lines = open(os.path.join(root, path), encoding="utf-8").read().split("\n")
    for number, line in enumerate(lines, 1):
        if marker in line:
            return str(number)
    return "?"


def self_test(script: str, repository: str) -> int:
    with tempfile.TemporaryDirectory(prefix="check-docs-") as root:
        copy_tree(repository, root)
        clean = run(script, root)
        if clean.returncode != 0:
            print(clean.stderr, file=sys.stderr)
            print("CI/check-docs --self-test: the unplanted copy fails already (above)", file=sys.stderr)
            return 1
        planted = plant(root)
        result = run(script, root)
        quiet = []
        for path, rule, words, marker in planted:
            number = line_of(root, path, marker)
            prefix = f"{path}:{number}:" if number else f"{path}:"
            if not any(line.startswith(prefix) and words in line for line in result.stderr.split("\n")):
                quiet.append(f"{rule} (planted in {prefix} expected '{words}')")
        if result.returncode != 1 or quiet:
            print(result.stderr, file=sys.stderr)
            for rule in quiet:
                print(f"CI/check-docs --self-test: no failure for the rule {rule}", file=sys.stderr)
            return 1
    print(f"CI/check-docs --self-test: each of {len(PLANTS)} planted lines failed its rule")
    return 0
