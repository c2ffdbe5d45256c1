//! Scenario `ctp-acks` (docs/kafka-cases.md S14, S21): the KIP-1289 client stages ACCEPT,
//! RELEASE or REJECT by choice, and its share consumer ACCEPTs the batch its transaction was
//! handed implicitly on the next poll and releases it on `close()`. `draft` and `proposed`
//! hold every applicable property exhaustively (their leader holds the record TX_PENDING and
//! rejects the plain acknowledgement); the seed's leader, which never learns of the
//! staging, applies the implicit ACCEPT while the share coordinator holds the transaction's
//! acknowledgement pending.

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Report, Status};

fn run(design: Design) -> Report {
    check(
        &System::new(design, Scenario::ctp_acks()),
        CheckOptions::default(),
    )
}

fn summary(r: &Report) -> String {
    let mut out = format!("states {} depth {}\n", r.unique_states, r.max_depth);
    for p in &r.properties {
        out.push_str(&format!("{} {:?}\n", p.name, p.status));
    }
    out
}

#[test]
fn proposed_holds_with_every_ack_type_and_the_plain_paths() {
    let report = run(Design::proposed());
    assert!(report.exhaustive);
    assert!(report.passed(), "{}", summary(&report));
    assert_eq!(report.status("staged_ack_exclusive"), Some(Status::Holds));
    assert_eq!(
        report.status("redelivered_after_abort"),
        Some(Status::Witnessed)
    );
    assert_eq!((report.unique_states, report.max_depth), (13_915, 62));
}

/// `exclude_txn_records` reverted: without faults the leader's TX_PENDING still rejects the
/// implicit ACCEPT (the simulator's rolled-back staging is what breaks it, seed 1).
#[test]
fn proposed_without_the_exclusion_holds_without_faults() {
    let mut design = Design::proposed();
    let mut scenario = Scenario::ctp_acks();
    settings::apply(&mut design, &mut scenario, "exclude_txn_records=false").unwrap();
    let report = check(&System::new(design, scenario), CheckOptions::default());
    assert!(report.passed(), "{}", summary(&report));
    assert_eq!((report.unique_states, report.max_depth), (21_611, 64));
}

#[test]
fn draft_holds_with_every_ack_type_and_the_plain_paths() {
    let report = run(Design::draft());
    assert!(report.exhaustive);
    assert!(report.passed(), "{}", summary(&report));
    assert_eq!((report.unique_states, report.max_depth), (24_974, 66));
}

/// The seed stages at the share coordinator only, so its leader still holds the record
/// ACQUIRED by the client when the next poll's implicit ACCEPT arrives, before the COMMIT
/// marker reached the share coordinator.
#[test]
fn the_seeds_implicit_accept_settles_a_staged_record() {
    let report = run(Design::seed());
    assert!(report.exhaustive);
    assert_eq!(
        report.status("staged_ack_exclusive"),
        Some(Status::Violated)
    );
    let trace = &report
        .property("staged_ack_exclusive")
        .expect("a property")
        .actions;
    assert_eq!(trace.len(), 17);
    assert_eq!((report.unique_states, report.max_depth), (388, 28));
}

/// With the marker matching that lets the seed's commits apply, the violation stays.
#[test]
fn the_seed_fails_on_the_plain_path_with_commits_applied() {
    let mut design = Design::seed();
    let mut scenario = Scenario::ctp_acks();
    settings::apply(&mut design, &mut scenario, "marker_match=txn-epoch").unwrap();
    let report = check(&System::new(design, scenario), CheckOptions::default());
    assert_eq!(
        report.status("staged_ack_exclusive"),
        Some(Status::Violated)
    );
    assert_eq!(report.unique_states, 548);
}
