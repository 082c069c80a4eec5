#!/usr/bin/env bash
# The loops behind issue 26's 100/100 figures: each evidence scenario run ROUNDS times (default
# 100) by the real harness. Build first: `swift build` here and in both Examples packages.
set -uo pipefail
cd "$(dirname "$0")"
rounds=${ROUNDS:-100}
chaos=$(cd ../.. && swift build --show-bin-path)/chaos
for scenario in "${@:-ref-owners.yaml ref-pid1.yaml kvd-pid1.yaml hbkv-owners.yaml hbkv-pid1.yaml}"; do
  for file in $scenario; do
    echo "== $file × $rounds"
    "$chaos" run "$file" --repeat "$rounds" --jobs 2 --artifacts "/tmp/evidence-stops/${file%.yaml}" | tail -2
  done
done
