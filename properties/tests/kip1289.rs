//! KIP-1289 as the seed writes it, on the consume-transform-produce scenario: the finding
//! the seed's silence about the share-partition leader leads to is pinned by property name.

use sharetxn_model::{settings, Design, Scenario, System};
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
        .properties
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("{name} not judged"))
        .status
}

/// Without any fault: the first transaction commits its output and its acknowledgement,
/// the share-partition leader is never told, the lock expires, the record is redelivered
/// and a second transaction commits an output for the same input.
#[test]
fn seed_processes_a_record_twice() {
    let report = run(&["timeouts=0"]);
    assert!(report.exhaustive);
    assert_eq!(status(&report, "no_duplicate_processing"), Status::Violated);
    assert_eq!(status(&report, "share_ack_committed"), Status::Witnessed);
    assert_eq!(status(&report, "commit_reached"), Status::Witnessed);
    assert_eq!(status(&report, "txn_atomicity"), Status::Holds);
    let dup = report
        .properties
        .iter()
        .find(|p| p.name == "no_duplicate_processing")
        .unwrap();
    assert!(dup
        .message
        .as_deref()
        .is_some_and(|m| m.contains("input record 0")));
}

/// With the scenario's one early timeout, a retried TV2 marker of the first transaction
/// (carrying the epoch the next transaction stages with) commits the next transaction's
/// acknowledgements although its output is never committed.
#[test]
fn seed_lets_a_retried_marker_commit_the_next_transactions_acks() {
    let report = run(&[]);
    assert!(report.exhaustive);
    assert_eq!(status(&report, "txn_atomicity"), Status::Violated);
    assert_eq!(status(&report, "no_duplicate_processing"), Status::Violated);
}
