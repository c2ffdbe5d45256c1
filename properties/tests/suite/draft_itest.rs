//! Scenario `draft-itest` (the public KIP-1289 draft's `ShareGroupTransactionIntegrationTest`,
//! three share partitions each with its own share-partition leader) at a bound that ends
//! in seconds: two share partitions of one record each, two sink partitions and two
//! transactions. `proposed` holds every applicable property there, exhaustively, with
//! every applicable twin witnessed; the full scenario's checks are in docs/findings.md.

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Report, Status};

fn small(design: Design) -> Report {
    let mut design = design;
    let mut scenario = Scenario::draft_itest();
    for s in ["share_partitions=2", "partitions=2", "records=1", "txns=2"] {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    check(&System::new(design, scenario), CheckOptions::default())
}

#[test]
fn proposed_holds_on_two_share_partitions() {
    let report = small(Design::proposed());
    assert!(report.exhaustive);
    assert!(report.passed());
    // 84,181 states before `outcome_per_transaction` and `stage_leader_epoch` joined `proposed`.
    assert_eq!((report.unique_states, report.max_depth), (109_237, 63));
    for twin in [
        "share_ack_committed",
        "share_ack_aborted",
        "redelivered_after_abort",
    ] {
        assert_eq!(report.status(twin), Some(Status::Witnessed), "{twin}");
    }
}
