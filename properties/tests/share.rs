//! Share groups: the pinned state count of a small share-basic configuration, the bug
//! knobs each found by the property they break, and the fixed defaults passing.

use sharetxn_model::{settings, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Report, Status};
mod common;

fn run(sets: &[&str]) -> Report {
    let mut design = Design::consumer_offsets();
    let mut scenario = Scenario::share_basic();
    for s in sets {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    check(&System::new(design, scenario), CheckOptions::default())
}

fn summary(sets: &[&str], report: &Report) -> String {
    common::summary(sets, report, false)
}

/// No faults, no stalls: small enough for the test profile.
const SMALL: &[&str] = &["drops=0", "duplicates=0", "crashes=0", "stalls=0"];

#[test]
fn share_basic_without_faults_is_pinned_and_passes_what_it_reaches() {
    let report = run(SMALL);
    insta::assert_snapshot!(summary(SMALL, &report));
    assert!(report.exhaustive);
    for p in &report.properties {
        assert_ne!(p.status, Status::Violated, "{}", p.name);
    }
    assert_eq!(report.status("txn_atomicity"), Some(Status::NotApplicable));
    assert_eq!(report.status("at_least_once"), Some(Status::Holds));
    assert_eq!(report.status("limit_archived"), Some(Status::Witnessed));
}

#[test]
fn kafka_19476_lock_timer_race_breaks_legal_transitions() {
    let mut sets = SMALL.to_vec();
    sets.push("lock_timer_race=true");
    let report = run(&sets);
    assert_eq!(report.status("legal_transitions"), Some(Status::Violated));
    let message = report
        .property("legal_transitions")
        .unwrap()
        .message
        .clone();
    assert!(
        message
            .as_deref()
            .unwrap_or("")
            .contains("ACKNOWLEDGED to AVAILABLE"),
        "{message:?}"
    );
}

#[test]
fn without_the_member_check_a_late_ack_lands_on_a_newer_acquisition() {
    let sets = [
        "drops=0",
        "duplicates=0",
        "crashes=0",
        "stalls=1",
        "records=1",
        "ack_member_check=false",
    ];
    let report = run(&sets);
    assert_eq!(report.status("ack_owner"), Some(Status::Violated));
    let fixed = run(&sets[..5]);
    assert_eq!(fixed.status("ack_owner"), Some(Status::Holds));
    assert_eq!(fixed.status("late_ack_rejected"), Some(Status::Witnessed));
    assert_eq!(fixed.status("lock_redelivered"), Some(Status::Witnessed));
}

/// Today's Kafka: a duplicated epoch-0 ShareFetch opens a new session for the same member
/// (`SharePartitionManager.newContext` replaces the session without releasing records) and
/// re-acquires the record, so the member's acknowledgement of delivery 1 lands on delivery 2.
#[test]
fn a_duplicated_initial_share_fetch_lets_an_old_ack_land_on_a_new_delivery() {
    let sets = [
        "drops=0",
        "duplicates=1",
        "crashes=0",
        "stalls=1",
        "records=1",
    ];
    let report = run(&sets);
    assert_eq!(report.status("ack_owner"), Some(Status::Violated));
    let message = report
        .property("ack_owner")
        .unwrap()
        .message
        .clone()
        .unwrap();
    assert!(
        message.contains("made for delivery m0#1 to acquisition m0#2"),
        "{message}"
    );
    // Without the duplicate the same bounds hold.
    let mut without = sets;
    without[1] = "duplicates=0";
    assert_eq!(run(&without).status("ack_owner"), Some(Status::Holds));
}

#[test]
fn txn_basic_reports_share_properties_as_not_applicable() {
    let mut design = Design::consumer_offsets();
    let mut scenario = Scenario::txn_basic();
    for s in ["inputs=1", "txns=1", "crashes=0"] {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    let report = check(&System::new(design, scenario), CheckOptions::default());
    for name in [
        "at_least_once",
        "lock_redelivered",
        "ack_owner",
        "cache_agrees",
    ] {
        assert_eq!(report.status(name), Some(Status::NotApplicable), "{name}");
    }
    assert_eq!(report.status("txn_atomicity"), Some(Status::Holds));
}

/// The full scenario: minutes in release, so left to the CLI and run on demand.
#[test]
#[ignore]
fn share_basic_passes() {
    let report = run(&[]);
    assert!(report.exhaustive);
    assert!(report.passed(), "{:?}", report.properties);
}
