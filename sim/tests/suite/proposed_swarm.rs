//! KIP-1289's `proposed` design on `ctp` in the simulator's wide swarm: up to eight records,
//! three KIP-1289 clients, and crashes of the share-partition leader, the share
//! coordinator, the transaction coordinator and the clients. Two of `proposed`'s choices
//! were found here, beyond the exhaustive checker's default bounds; each test below turns
//! one off and finds its counterexample again at the seed that first showed it.

use crate::swarm;
use sharetxn_model::{Design, Scenario};

/// The swarm of the finding: the `--set` lines of `sharetxn sim`.
const WIDE: &[&str] = &[
    "swarm_records=1..=8",
    "swarm_producers=1..=3",
    "swarm_consumers=1..=2",
    "crashable=share-partition,share-coordinator,txn-coordinator,producer",
];

/// The violations of `seeds` on `proposed` with `knobs` on top of the wide swarm.
fn violations(knobs: &[&str], seeds: std::ops::Range<u64>) -> Vec<(u64, String)> {
    let sets: Vec<&str> = WIDE.iter().chain(knobs).copied().collect();
    swarm::violations(Design::proposed(), Scenario::ctp(), &sets, seeds)
}

#[test]
fn proposed_survives_the_wide_swarm() {
    assert_eq!(violations(&[], 0..600), Vec::new());
}

/// One outbox entry per producer id: the second transaction's outcome replaces the first's,
/// whose TxnShareAcksResolved was lost, and the first's record stays TX_PENDING at the
/// leader (seed 440 is the first of 2,000 to show it).
#[test]
fn one_outcome_per_producer_leaves_a_record_tx_pending() {
    assert_eq!(
        violations(&["outcome_per_transaction=false"], 440..441),
        vec![(440, "cache_agrees".to_string())]
    );
    assert_eq!(violations(&[], 440..441), Vec::new());
}

/// A staging forwarded by a leader that crashed lands after the new leader read the state:
/// the record is delivered again while the old staging is pending, and the old
/// transaction's abort reopens the record after the new one committed it (seed 5099 is the
/// first of 20,000 to show it).
#[test]
fn an_unfenced_staging_of_a_crashed_leader_processes_a_record_twice() {
    assert_eq!(
        violations(&["stage_leader_epoch=false"], 5099..5100),
        vec![(5099, "no_duplicate_processing".to_string())]
    );
    assert_eq!(violations(&[], 5099..5100), Vec::new());
}
