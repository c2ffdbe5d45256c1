#!/usr/bin/env bash
# Writes the report page of the README's main job with every corpus trace on it, and checks
# it in headless Chromium (report.mjs): no network, every diagram drawn, every link landing,
# every matrix cell a link, every Mermaid source rendering to the same diagram. Needs what
# run.sh needs. Output: target/report/ (index.html, traces/, report.png).
set -euo pipefail
source "$(dirname "$0")/setup.sh"
out="${1:-$root/target/report}"
"$bin" report --out "$out" --designs seed,draft,proposed \
  --scenarios session,session-resume,connect-share-sink --unclaimed-max-states 100000 \
  --threads 2 traces/counterexamples/*.json
node "$here/report.mjs" "$out/index.html" "$out"
