//! `proposed` on `flink-acknowledger`: the Flink acknowledger made safe by KIP-939's
//! two-phase commit (`acknowledger_commit=two-phase` with `two_phase_commit`). Each test
//! reverts one of the two knobs alone and asserts the property that then fails; the first
//! pins the design's own run at the scenario's default bounds.

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Report, Status};

fn run(sets: &[&str]) -> Report {
    let (mut design, mut scenario) = (Design::proposed(), Scenario::flink_acknowledger());
    for s in sets {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    let report = check(&System::new(design, scenario), CheckOptions::default());
    assert!(report.exhaustive);
    report
}

fn message(report: &Report, name: &str) -> String {
    report
        .property(name)
        .and_then(|p| p.message.clone())
        .unwrap_or_default()
}

#[test]
fn the_two_phase_acknowledger_processes_each_record_once_and_is_pinned() {
    let report = run(&[]);
    assert_eq!(report.violated(), Vec::<&str>::new());
    assert_eq!(
        report.unique_states, 11_309,
        "pinned: a change here is a model change"
    );
    assert_eq!(report.max_depth, 53);
    for twin in [
        "share_ack_committed",
        "share_ack_aborted",
        "commit_reached",
        "abort_reached",
        "commit_after_fault",
        "zombie_fenced",
        "limit_archived",
    ] {
        assert_eq!(report.status(twin), Some(Status::Witnessed), "{twin}");
    }
    // 2PC exempts every transaction of the scenario from the transaction timeout.
    assert_eq!(report.status("timeout_abort"), Some(Status::NotApplicable));
}

#[test]
fn committing_at_notify_checkpoint_complete_processes_a_record_twice() {
    let report = run(&["acknowledger_commit=notify"]);
    assert_eq!(
        report.status("no_duplicate_processing"),
        Some(Status::Violated)
    );
    assert!(
        message(&report, "no_duplicate_processing").contains("i0cp0 (delivery m0#1) and i0cp1"),
        "{}",
        message(&report, "no_duplicate_processing")
    );
    assert_eq!(
        report.unique_states, 7_607,
        "the seed's loop, as before (7,273 before the verification timeout)"
    );
}

#[test]
fn without_two_phase_commit_the_timeout_aborts_a_prepared_checkpoint() {
    let report = run(&["two_phase_commit=false"]);
    assert_eq!(
        report.status("no_duplicate_processing"),
        Some(Status::Violated)
    );
    assert!(
        message(&report, "no_duplicate_processing").contains("i0cp0 (delivery m0#1) and i1cp0"),
        "{}",
        message(&report, "no_duplicate_processing")
    );
    assert_eq!(report.status("timeout_abort"), Some(Status::Witnessed));
    assert_eq!(report.unique_states, 17_750);
}

/// Why the scenario's `delivery_limit` is 3: at 4 (and at Kafka's default of 5) the bounded
/// loop never delivers the record often enough to archive it, while everything else holds.
#[test]
fn at_a_delivery_limit_of_four_no_run_archives_the_record() {
    let report = run(&["delivery_limit=4"]);
    assert_eq!(report.violated(), Vec::<&str>::new());
    assert_eq!(report.status("limit_archived"), Some(Status::Unreached));
    assert_eq!(report.unique_states, 12_107);
}

/// At Kafka's default `group.share.delivery.count.limit` of 5 no run archives the record
/// either, in as many states as at 4.
#[test]
fn at_kafkas_default_delivery_limit_no_run_archives_the_record() {
    let report = run(&["delivery_limit=5"]);
    assert_eq!(report.violated(), Vec::<&str>::new());
    assert_eq!(report.status("limit_archived"), Some(Status::Unreached));
    assert_eq!(report.unique_states, 12_107);
}
