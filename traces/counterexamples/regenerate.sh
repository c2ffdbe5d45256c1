#!/usr/bin/env bash
# Rebuilds the reviewed counterexamples after a model change: each is the checker's
# breadth-first trace, shrunk by ddmin alone (--ddmin-only keeps the row's scenario, which
# the file name describes). Review the diff (and the insta snapshots) before committing.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d)
run_in() { # scenario design name property knobs...
  local scenario=$1 design=$2 name=$3 property=$4; shift 4
  local sets=()
  for kv in "$@"; do sets+=(--set "$kv"); done
  cargo run -q --release -p sharetxn -- check --scenario "$scenario" --design "$design" \
    --threads 1 "${sets[@]}" --trace-out "$out/$name" >/dev/null || true
  cargo run -q --release -p sharetxn -- shrink --ddmin-only "$out/$name/$design-$scenario-$property.json" \
    -o "traces/counterexamples/$property--$name.json" >/dev/null
}
run() { run_in txn-basic consumer-offsets "$@"; }
run consumer-offsets-tv0-no-verification no_hanging_transaction verification=false tv=0 partitions=1 crashes=0 drops=0 duplicates=0 timeouts=1
run consumer-offsets-tv1 txn_atomicity tv=1 partitions=1 crashes=0 drops=0 duplicates=0 timeouts=1
run consumer-offsets-tv1 no_aborted_read tv=1 partitions=1 crashes=0 drops=0 duplicates=0 timeouts=1
run consumer-offsets-no-flush-before-end-txn txn_atomicity flush_before_end_txn=false inputs=1 txns=1 partitions=1 crashes=0 drops=0 duplicates=0
run_in ctp seed seed-ctp no_duplicate_processing
rm -rf "$out"
