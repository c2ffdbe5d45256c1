//! KIP-1289 as the seed writes it, on the consume-transform-produce scenario: each finding
//! is pinned by property name, at bounds small enough for the test profile, and each
//! share-coordinator finding disappears when its knob alone is set to the fix (the other
//! two already at theirs, so nothing else reports the same property).

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Report, Status};

fn run(sets: &[&str]) -> Report {
    let mut design = Design::seed();
    let mut scenario = Scenario::ctp();
    for s in sets {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    check(&System::new(design, scenario), CheckOptions::default())
}

fn status(report: &Report, name: &str) -> Status {
    report
        .status(name)
        .unwrap_or_else(|| panic!("{name} not judged"))
}

fn message(report: &Report, name: &str) -> String {
    report
        .property(name)
        .and_then(|p| p.message.clone())
        .unwrap_or_default()
}

/// The three share-coordinator knobs at their fixes.
const SC_FIXED: [&str; 3] = [
    "marker_match=txn-epoch",
    "sc_replay_pending=true",
    "stage_verification=true",
];

/// `sets` with the share-coordinator knobs at their fixes except the ones `sets` moves.
fn fixed_but(sets: &[&'static str]) -> Vec<&'static str> {
    let mut out: Vec<&str> = SC_FIXED
        .iter()
        .copied()
        .filter(|f| {
            let key = f.split('=').next().unwrap();
            !sets.iter().any(|s| s.starts_with(key))
        })
        .collect();
    out.extend_from_slice(sets);
    out
}

/// Without any fault: the first transaction commits its output; its COMMIT marker (TV2,
/// the bumped epoch) finds no acknowledgement staged with exactly that epoch, the
/// share-partition leader is never told either, the lock expires, the record is
/// redelivered and a second transaction commits an output for the same input.
#[test]
fn seed_processes_a_record_twice() {
    let report = run(&["crashes=0"]);
    assert!(report.exhaustive);
    assert_eq!(status(&report, "no_duplicate_processing"), Status::Violated);
    assert_eq!(status(&report, "commit_reached"), Status::Unreached);
    assert_eq!(status(&report, "txn_atomicity"), Status::Holds);
    assert_eq!(
        status(&report, "redelivered_after_abort"),
        Status::Witnessed
    );
    assert!(message(&report, "no_duplicate_processing").contains("input record 0"));
}

/// (ii) A TV2 marker whose epoch does not match the epoch the acks were staged with: the
/// COMMIT finds nothing, the output is committed without the ack, the ack stays pending
/// forever. With `marker_match=txn-epoch` the marker finds them.
#[test]
fn seed_tv2_marker_misses_the_staged_epoch() {
    let sets = fixed_but(&["marker_match=exact-epoch", "crashes=0", "txns=1"]);
    let report = run(&sets);
    assert!(report.exhaustive);
    assert_eq!(status(&report, "marker_match"), Status::Violated);
    assert!(
        message(&report, "marker_match").contains("COMMIT marker pid0/e1 at SC left the ack"),
        "{}",
        message(&report, "marker_match")
    );
    assert_eq!(status(&report, "no_orphan_acks"), Status::Violated);
    let fixed = run(&fixed_but(&["crashes=0", "txns=1"]));
    assert_eq!(status(&fixed, "marker_match"), Status::Holds);
    assert_eq!(status(&fixed, "no_orphan_acks"), Status::Holds);
    assert_eq!(status(&fixed, "share_ack_aborted"), Status::Witnessed);
    assert_eq!(status(&fixed, "share_ack_committed"), Status::Witnessed);
}

/// (i) Pending acks applied as committed after a share coordinator restart: the load
/// replays the staged record as a ShareUpdate although the transaction aborted (or has not
/// decided). With `sc_replay_pending=true` the load keeps them pending.
#[test]
fn seed_restart_applies_pending_acks() {
    let sets = fixed_but(&["sc_replay_pending=false", "txns=1"]);
    let report = run(&sets);
    assert!(report.exhaustive);
    assert_eq!(status(&report, "pending_isolation"), Status::Violated);
    assert!(
        message(&report, "pending_isolation").contains("through a load"),
        "{}",
        message(&report, "pending_isolation")
    );
    assert_eq!(status(&report, "no_lost_record"), Status::Violated);
    let fixed = run(&fixed_but(&["txns=1"]));
    assert_eq!(status(&fixed, "pending_isolation"), Status::Holds);
    assert_eq!(status(&fixed, "no_lost_record"), Status::Holds);
    assert_eq!(status(&fixed, "pending_across_restart"), Status::Witnessed);
    assert_eq!(status(&fixed, "resolved_after_restart"), Status::Witnessed);
}

/// (iii) A late TxnShareAcknowledge after its transaction ended: under TV2 the marker's
/// bumped epoch fences it in `__share_group_state`'s log, so it takes TV1. The first copy
/// times out early, the client resends, the transaction ends (the shortest trace commits;
/// an abort goes the same way); the late copy is staged unverified under an epoch no
/// marker will come for. With `stage_verification=true` the coordinator refuses it (the
/// transaction is no longer ongoing).
#[test]
fn late_staging_after_an_abort_hangs_without_verification() {
    let bounds = [
        "tv=1",
        "txns=1",
        "crashes=0",
        "timeouts=1",
        "request_retries=1",
    ];
    let mut sets = bounds.to_vec();
    sets.push("stage_verification=false");
    let report = run(&fixed_but(&sets));
    assert!(report.exhaustive);
    assert_eq!(status(&report, "no_orphan_acks"), Status::Violated);
    assert!(
        message(&report, "no_orphan_acks").contains("TC has Complete"),
        "{}",
        message(&report, "no_orphan_acks")
    );
    let fixed = run(&fixed_but(&bounds));
    assert_eq!(status(&fixed, "no_orphan_acks"), Status::Holds);
}

/// With the scenario's earlier budget (one early timeout, no crash), a retried TV2 marker
/// of the first transaction carries the epoch the next transaction stages with; matched
/// exactly (or by producer id) it commits the next transaction's acknowledgements,
/// although their output is never committed.
#[test]
fn seed_lets_a_retried_marker_commit_the_next_transactions_acks() {
    let bounds = ["timeouts=1", "crashes=0", "request_retries=1"];
    let report = run(&bounds);
    assert!(report.exhaustive);
    assert_eq!(status(&report, "txn_atomicity"), Status::Violated);
    assert_eq!(status(&report, "pending_isolation"), Status::Violated);
    let mut sets = bounds.to_vec();
    sets.push("marker_match=producer-id");
    let by_pid = run(&fixed_but(&sets));
    assert_eq!(status(&by_pid, "marker_match"), Status::Violated);
    assert!(
        message(&by_pid, "marker_match").contains("not its own transaction's"),
        "{}",
        message(&by_pid, "marker_match")
    );
}
