#!/usr/bin/env bash
# Mutation testing of the protocol code (docs/mutants.md): installs cargo-mutants at the
# pinned version if it is missing, then runs one shard of the mutants with the project's
# configuration (.cargo/mutants.toml: which files are mutated, and the oracle).
#
#   scripts/mutants.sh            shard 0 of 20, the sample docs/mutants.md reports
#   scripts/mutants.sh 3/20       another shard of the same split
#   scripts/mutants.sh all        every mutant (about a day on a 2-core machine)
#   scripts/mutants.sh list       the mutants, without running any
#   scripts/mutants.sh 0/20 ARGS  further arguments go to cargo-mutants as they are
#                                 (`-f model/src/share/share_partition.rs`, one file)
#
# The mutants are applied in place (cargo-mutants --in-place) in a scratch git worktree of
# the current commit, `<this checkout>-run` beside it (or $SHARETXN_MUTANTS_TREE), never in
# this checkout: in-place mutation rewrites the sources while it runs, and copying the tree
# with its target directory for every run costs more than the run. The scratch worktree
# keeps its own target directory between runs, so only the first run builds from scratch.
# Uncommitted changes are not tested. The output goes to mutants.out/ in the scratch
# worktree (outcomes.json, caught.txt, missed.txt, timeout.txt, unviable.txt, a log per
# mutant); the summary to stdout. Not part of .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

CARGO_MUTANTS_VERSION=27.1.0
if ! cargo mutants --version 2>/dev/null | grep -qx "cargo-mutants $CARGO_MUTANTS_VERSION"; then
    cargo install --locked cargo-mutants --version "$CARGO_MUTANTS_VERSION"
fi

shard=${1:-0/20}
shift || true
# The mutants are listed in cargo-mutants' own order (by file, then position), not shuffled,
# and the shard takes every n-th one (round-robin), so a shard is the same set on every
# machine and samples every file.
# In place means one mutant at a time (cargo-mutants refuses --jobs with --in-place).
# The baseline is skipped: cargo-mutants 27.1.0 builds it for the mutated package alone,
# which lacks the properties' test targets of the oracle. The oracle passes on the
# unmutated tree (it is part of `cargo test --workspace`; docs/mutants.md gives its time),
# and the test timeout is set from that time with room for a loaded machine.
common=(--no-shuffle --sharding round-robin --in-place
    --baseline skip --timeout 120 --build-timeout 600)
case "$shard" in
    list) exec cargo mutants --list --no-shuffle "$@" ;;
    all) args=() ;;
    */*) args=(--shard "$shard") ;;
    *) echo "usage: scripts/mutants.sh [k/n|all|list] [cargo-mutants arguments]" >&2; exit 2 ;;
esac

tree=${SHARETXN_MUTANTS_TREE:-$repo-run}
commit=$(git rev-parse HEAD)
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
    echo "mutants.sh: uncommitted changes are not tested; the run is of $commit" >&2
fi
if [ ! -e "$tree/.git" ]; then
    git worktree add --detach "$tree" "$commit"
fi
# A run stopped hard can leave a mutant in the sources: reset before checking out.
git -C "$tree" reset --quiet --hard
git -C "$tree" checkout --quiet --detach "$commit"
cd "$tree"
exec cargo mutants "${common[@]}" "${args[@]}" "$@"
