#!/usr/bin/env bash
# Renders every corpus trace's Mermaid diagram with the real Mermaid library in headless
# Chromium, and fails if any does not parse or render. Needs Debian's chromium
# (/usr/bin/chromium, or CHROMIUM=...) and Node.js with npm; installs the pinned npm
# packages (package-lock.json) into node_modules on first use. Output: target/mermaid/
# (NAME.mmd, NAME.svg, NAME.png per trace) and one line per diagram.
set -euo pipefail
source "$(dirname "$0")/setup.sh"
out="${1:-$root/target/mermaid}"
mkdir -p "$out"
diagrams=()
for trace in traces/counterexamples/*.json; do
  name="$(basename "$trace" .json)"
  "$bin" render "$trace" --format mermaid > "$out/$name.mmd"
  diagrams+=("$out/$name.mmd")
done
node "$here/render.mjs" "$out" "${diagrams[@]}"
