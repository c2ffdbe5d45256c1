//! docs/kafka-cases.md S23 on scenario `ctp-implicit-add`: the KIP-1289 client adds
//! `__share_group_state` implicitly (TxnShareAcknowledge alone, as a TV2 client sends
//! TxnOffsetCommit v5 alone) or stages before its AddShareAcksToTxn was answered (KIP-890's
//! buggy client). The implicit add is the staging's verification at the share coordinator;
//! without it (`stage_verification=false`) nothing adds the partition, so the transaction's
//! marker never reaches the staged acknowledgements.

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Report, Status};

fn run(design: Design, sets: &[&str]) -> Report {
    let (mut design, mut scenario) = (design, Scenario::ctp_implicit_add());
    for s in sets {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    let report = check(&System::new(design, scenario), CheckOptions::default());
    assert!(report.exhaustive);
    report
}

/// `proposed` without `stage_verification`: the client's implicit add staged the ack at the
/// share coordinator unverified, so the transaction coordinator never added
/// `__share_group_state`; the abort (after the produce's early timeout) sends it no marker,
/// and the ack stays pending for good (`no_orphan_acks`, 19 steps), the leader holding the
/// record TX_PENDING (`cache_agrees`), never acknowledged (`at_least_once`), the client
/// waiting (`txn_completes`).
#[test]
fn an_implicit_add_needs_the_stagings_verification() {
    let report = run(Design::proposed(), &["stage_verification=false"]);
    assert_eq!(
        report.violated(),
        [
            "txn_completes",
            "at_least_once",
            "cache_agrees",
            "no_orphan_acks"
        ]
    );
    assert_eq!(report.status("no_orphan_acks"), Some(Status::Violated));
    let steps = report
        .property("no_orphan_acks")
        .expect("judged")
        .actions
        .len();
    assert_eq!(steps, 19);
    assert_eq!(
        report.unique_states, 187_059,
        "pinned: a change here is a model change"
    );
}
