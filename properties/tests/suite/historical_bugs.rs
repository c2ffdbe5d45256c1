//! The checker rediscovers Kafka's historical transaction bugs when their fix is turned
//! off, and not when it is on. Bounds are the smallest that still exhibit each bug, so
//! the suite stays fast; `sharetxn check` runs the same checks at the scenario defaults.

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Report, Status};

fn run(sets: &[&str]) -> Report {
    let mut design = Design::consumer_offsets();
    let mut scenario = Scenario::txn_basic();
    for s in sets {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    let report = check(&System::new(design, scenario), CheckOptions::default());
    assert!(
        report.exhaustive,
        "the bounded space must be explored completely"
    );
    report
}

/// One lost-or-delayed produce is all it takes: a client whose produce timed out aborts,
/// the delayed produce lands after the abort marker and opens a transaction no
/// coordinator knows (KIP-664; the KIP-890 part 1 motivation).
const LATE_PRODUCE: &[&str] = &[
    "partitions=1",
    "drops=0",
    "duplicates=0",
    "crashes=0",
    "timeouts=1",
];

#[test]
fn kip_890_part_1_hanging_transaction_without_verification() {
    let mut sets = LATE_PRODUCE.to_vec();
    sets.extend(["tv=0", "verification=false"]);
    let report = run(&sets);
    assert_eq!(
        report.status("no_hanging_transaction"),
        Some(Status::Violated)
    );
    let p = report.property("no_hanging_transaction").unwrap();
    assert!(p
        .message
        .as_ref()
        .unwrap()
        .contains("last stable offset is stuck"));
    assert!(!p.actions.is_empty());
}

#[test]
fn kip_890_part_1_verification_prevents_the_hanging_transaction() {
    let mut sets = LATE_PRODUCE.to_vec();
    sets.extend(["tv=0", "verification=true"]);
    let report = run(&sets);
    assert_eq!(report.status("no_hanging_transaction"), Some(Status::Holds));
}

#[test]
fn kip_890_part_2_late_write_lands_in_the_next_transaction_under_tv1() {
    let mut sets = LATE_PRODUCE.to_vec();
    sets.push("tv=1");
    let report = run(&sets);
    assert_eq!(report.status("txn_atomicity"), Some(Status::Violated));
    // The early commit also exposes a record of a transaction the client then aborted.
    assert_eq!(report.status("no_aborted_read"), Some(Status::Violated));
}

#[test]
fn tv2_epoch_bump_per_transaction_keeps_transactions_atomic() {
    let report = run(LATE_PRODUCE);
    assert!(report.violated().is_empty(), "{:?}", report.violated());
    assert_eq!(report.status("txn_atomicity"), Some(Status::Holds));
    assert_eq!(report.status("no_hanging_transaction"), Some(Status::Holds));
}

/// The torn transaction: EndTxn decided while a produce of the same transaction is in
/// flight; the produce is then fenced by the bumped epoch, but the commit stands.
const ONE_TXN: &[&str] = &[
    "partitions=1",
    "inputs=1",
    "txns=1",
    "drops=0",
    "duplicates=0",
    "crashes=0",
    "timeouts=0",
];

#[test]
fn torn_transaction_without_flush_before_end_txn() {
    let mut sets = ONE_TXN.to_vec();
    sets.push("flush_before_end_txn=false");
    let report = run(&sets);
    assert_eq!(report.status("txn_atomicity"), Some(Status::Violated));
}

#[test]
fn flush_before_end_txn_keeps_the_transaction_whole() {
    let report = run(ONE_TXN);
    assert_eq!(report.status("txn_atomicity"), Some(Status::Holds));
    assert!(report.violated().is_empty(), "{:?}", report.violated());
}
