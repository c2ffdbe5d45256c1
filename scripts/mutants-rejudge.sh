#!/usr/bin/env bash
# Re-judges the survivors of a mutation run (docs/mutants.md, "After the fixes") on the
# current commit: each mutant of <run>/missed.txt is applied from the diff cargo-mutants
# recorded for it, the oracle of .cargo/mutants.toml is built and run, and the tree is
# reset. Prints one line per mutant: caught, missed, timeout (240 s of tests) or unviable,
# its seconds, its name and the oracle's failing tests.
#
#   scripts/mutants-rejudge.sh <checkout>-run/mutants.out
#
# Like scripts/mutants.sh it works in the scratch worktree (`<checkout>-run`, or
# $SHARETXN_MUTANTS_TREE), checked out at this checkout's commit, never in this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
run=$(realpath "${1:?usage: scripts/mutants-rejudge.sh <mutants.out of a run>}")
if [ ! -f "$run/missed.txt" ] || [ ! -f "$run/outcomes.json" ]; then
    echo "mutants-rejudge.sh: $run is not a cargo-mutants output directory" >&2
    exit 2
fi
# The oracle's test name filters: the quoted strings of additional_cargo_test_args.
mapfile -t filters < <(sed -n '/^additional_cargo_test_args/,/^]/p' .cargo/mutants.toml |
    grep -o '"[^"]*"' | tr -d '"')
commit=$(git rev-parse HEAD)
tree=${SHARETXN_MUTANTS_TREE:-$repo-run}
[ -e "$tree/.git" ] || git worktree add --detach "$tree" "$commit"
cd "$tree"
git reset --quiet --hard
git checkout --quiet --detach "$commit"
suite=(-p sharetxn-model -p sharetxn-properties -p sharetxn-traces --test suite)
while IFS= read -r name; do
    [ -n "$name" ] || continue
    # The mutant's diff, as outcomes.json records it for that name.
    diff=$(python3 -c 'import json, sys
for x in json.load(open(sys.argv[1]))["outcomes"]:
    m = x["scenario"]
    if isinstance(m, dict) and m["Mutant"]["name"] == sys.argv[2]:
        print(x["diff_path"])' "$run/outcomes.json" "$name")
    start=$SECONDS
    patch --silent -p0 < "$run/$diff"
    log=$(mktemp)
    if ! cargo test -q "${suite[@]}" --no-run </dev/null >"$log" 2>&1; then
        outcome=unviable
    else
        status=0
        timeout 240 cargo test -q "${suite[@]}" "${filters[@]}" </dev/null >"$log" 2>&1 || status=$?
        case $status in 0) outcome=missed ;; 124) outcome=timeout ;; *) outcome=caught ;; esac
    fi
    failing=$(grep -E '^    [a-z0-9_:]+$' "$log" | tr -d ' ' | sort -u | tr '\n' ' ' || true)
    rm -f "$log"
    git reset --quiet --hard
    echo "$outcome $((SECONDS - start))s $name :: $failing"
done < "$run/missed.txt"
