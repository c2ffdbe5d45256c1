# Sourced by run.sh and report.sh: finds Chromium, installs the pinned npm packages
# (package-lock.json) into node_modules on first use, builds the release CLI, and sets
# $here, $root and $bin.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  echo "$(basename "$0"): no Chromium at ${CHROMIUM:-/usr/bin/chromium} (apt-get install chromium, or set CHROMIUM)" >&2
  exit 2
fi
if [ ! -d "$here/node_modules/mermaid" ] || [ ! -d "$here/node_modules/playwright-core" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi
cargo build -q --release -p sharetxn
bin="${CARGO_TARGET_DIR:-$root/target}/release/sharetxn"
