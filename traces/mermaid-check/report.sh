#!/usr/bin/env bash
# Writes the report page of the README's main job with every corpus trace on it, and checks
# it in headless Chromium (report.mjs): no network, every diagram drawn, every link landing,
# every matrix cell a link, every Mermaid source rendering to the same diagram. Needs what
# run.sh needs. Output: target/report/ (index.html, traces/, report.png).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/target/report}"
cd "$root"
if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  echo "report-check: no Chromium at ${CHROMIUM:-/usr/bin/chromium} (apt-get install chromium, or set CHROMIUM)" >&2
  exit 2
fi
if [ ! -d "$here/node_modules/mermaid" ] || [ ! -d "$here/node_modules/playwright-core" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi
cargo build -q --release -p sharetxn
bin="${CARGO_TARGET_DIR:-$root/target}/release/sharetxn"
"$bin" report --out "$out" --designs seed,draft,proposed \
  --scenarios session,session-resume,connect-share-sink --unclaimed-max-states 100000 \
  --threads 2 traces/counterexamples/*.json
node "$here/report.mjs" "$out/index.html" "$out"
