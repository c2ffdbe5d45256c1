#!/usr/bin/env bash
# Mutation testing of the protocol code (docs/mutants.md): installs cargo-mutants at the
# pinned version if it is missing, then runs one shard of the mutants with the project's
# configuration (.cargo/mutants.toml: which files are mutated, and the oracle).
#
#   scripts/mutants.sh            shard 0 of 200, the sample docs/mutants.md reports
#   scripts/mutants.sh 3/200      another shard of the same split
#   scripts/mutants.sh all        every mutant (days on a 2-core machine)
#   scripts/mutants.sh list       the mutants, without running any
#
# The output goes to mutants.out/ (outside git); the summary to stdout. Not part of
# .ci/run: one mutant is a rebuild of the model and the oracle's test targets.
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_MUTANTS_VERSION=27.1.0
if ! cargo mutants --version 2>/dev/null | grep -qx "cargo-mutants $CARGO_MUTANTS_VERSION"; then
    cargo install --locked cargo-mutants --version "$CARGO_MUTANTS_VERSION"
fi

shard=${1:-0/200}
# The mutants are listed in cargo-mutants' own order (by file, then position), not shuffled,
# and the shard takes every n-th one (round-robin), so a shard is the same set on every
# machine and samples every file.
# The baseline is skipped: cargo-mutants 27.1.0 builds it for the mutated package alone,
# which lacks the properties' test targets of the oracle, so it cannot build. The oracle
# passes on the unmutated tree (it is part of `cargo test --workspace`); the timeouts are
# set instead of measured: the oracle's tests take about 25 s on a lightly loaded 2-core machine and
# six minutes on a heavily loaded one.
common=(--no-shuffle --sharding round-robin --jobs 1 --output mutants.out
    --baseline skip --timeout 600 --build-timeout 1800)
case "$shard" in
    list) exec cargo mutants --list --no-shuffle ;;
    all) exec nice -n 19 cargo mutants "${common[@]}" ;;
    */*) exec nice -n 19 cargo mutants "${common[@]}" --shard "$shard" ;;
    *) echo "usage: scripts/mutants.sh [k/n|all|list]" >&2; exit 2 ;;
esac
