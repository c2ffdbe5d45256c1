#!/usr/bin/env bash
# Renders every corpus trace's Mermaid diagram with the real Mermaid library in headless
# Chromium, and fails if any does not parse or render. Needs Debian's chromium
# (/usr/bin/chromium, or CHROMIUM=...) and Node.js with npm; installs the pinned npm
# packages (package-lock.json) into node_modules on first use. Output: target/mermaid/
# (NAME.mmd, NAME.svg, NAME.png per trace) and one line per diagram.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/target/mermaid}"
cd "$root"
if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  echo "mermaid-check: no Chromium at ${CHROMIUM:-/usr/bin/chromium} (apt-get install chromium, or set CHROMIUM)" >&2
  exit 2
fi
if [ ! -d "$here/node_modules/mermaid" ] || [ ! -d "$here/node_modules/playwright-core" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi
cargo build -q --release -p sharetxn
bin="${CARGO_TARGET_DIR:-$root/target}/release/sharetxn"
mkdir -p "$out"
diagrams=()
for trace in traces/counterexamples/*.json; do
  name="$(basename "$trace" .json)"
  "$bin" render "$trace" --format mermaid > "$out/$name.mmd"
  diagrams+=("$out/$name.mmd")
done
node "$here/render.mjs" "$out" "${diagrams[@]}"
