//! KIP-1310's `TransactionSession` on the `session` scenario (the seed's 4.6 loop): the
//! seed's torn commit and its epoch hand-off, pinned by property name; `proposed` holds
//! every property exhaustively; each of its two session knobs reverted alone gives its
//! counterexample.

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Report, Status};

fn system(design: Design, sets: &[&str]) -> System {
    let (mut design, mut scenario) = (design, Scenario::session());
    for s in sets {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    System::new(design, scenario)
}

/// The shortest run that shows `property` (a breadth-first search that stops at the first
/// level showing it: the seed's full space is large).
fn first(design: Design, sets: &[&str], property: &str) -> Report {
    let options = CheckOptions {
        focus: Some(property),
        ..CheckOptions::default()
    };
    check(&system(design, sets), options)
}

fn message(report: &Report, name: &str) -> String {
    report
        .property(name)
        .and_then(|p| p.message.clone())
        .unwrap_or_default()
}

#[test]
fn proposed_holds_every_property_on_the_session_and_is_pinned() {
    let report = check(&system(Design::proposed(), &[]), CheckOptions::default());
    assert!(report.exhaustive);
    assert_eq!(report.violated(), Vec::<&str>::new());
    assert!(report.passed(), "every applicable twin witnessed");
    assert_eq!(
        report.unique_states, 4_353,
        "pinned: a change here is a model change"
    );
    for twin in ["flushed_commit", "commit_reached", "share_ack_committed"] {
        assert_eq!(report.status(twin), Some(Status::Witnessed), "{twin}");
    }
}

#[test]
fn the_seeds_session_commits_with_a_produce_in_flight() {
    let report = first(Design::seed(), &[], "flush_before_commit");
    assert_eq!(report.status("flush_before_commit"), Some(Status::Violated));
    let why = message(&report, "flush_before_commit");
    assert!(why.contains("a Produce"), "{why}");
}

#[test]
fn the_seeds_torn_commit_loses_a_write_of_a_committed_transaction() {
    // The seed's share coordinator has flaws of its own (KIP-1289 findings); with them
    // fixed, the torn transaction is the session's alone.
    let report = first(
        Design::proposed(),
        &["session_commit_flush=false"],
        "txn_atomicity",
    );
    assert_eq!(report.status("txn_atomicity"), Some(Status::Violated));
    let why = message(&report, "txn_atomicity");
    assert!(
        why.contains("committed on") && why.contains("lost on"),
        "{why}"
    );
}

#[test]
fn reverting_the_commit_flush_alone_breaks_flush_before_commit() {
    let report = first(
        Design::proposed(),
        &["session_commit_flush=false"],
        "flush_before_commit",
    );
    assert_eq!(report.status("flush_before_commit"), Some(Status::Violated));
}

#[test]
fn reverting_the_atomic_hand_off_alone_lands_a_record_in_the_wrong_transaction() {
    let report = check(
        &system(Design::proposed(), &["epoch_handoff=async"]),
        CheckOptions::default(),
    );
    assert!(report.exhaustive);
    assert_eq!(report.violated(), vec!["txn_atomicity"]);
    let why = message(&report, "txn_atomicity");
    // Transaction 2's output, stamped with transaction 1's epoch, joined transaction 1.
    assert!(why.contains("i0a1"), "{why}");
    assert_eq!(report.unique_states, 9_575, "pinned");
}

#[test]
fn the_session_properties_apply_only_to_sessions() {
    let report = first(Design::seed(), &["session=false"], "txn_atomicity");
    assert_eq!(
        report.status("flush_before_commit"),
        Some(Status::NotApplicable)
    );
}
