//! Seeds on which the simulator once found `proposed` violated on `ctp`, each pinned to the
//! model fix that answered it.

use sharetxn_model::{Design, Scenario};
use sharetxn_sim::{run_seed, SimOptions};

/// A duplicated ShareFetch parks at the leader while the record is TX_PENDING, and the
/// TxnShareAcknowledgeResponse to the client is lost. The parked poll used to count as
/// the leader "still answering" the staging, so the staging's request timeout was never
/// due, the transaction stayed open and the run went quiet with the leader's TX_PENDING
/// record disagreeing with the coordinator (`cache_agrees`, `txn_completes`). The poll
/// now counts for the poll only (`model/src/timing.rs`).
#[test]
fn a_parked_poll_does_not_hold_back_the_staging_timeout() {
    let design = Design::by_name("proposed").expect("proposed");
    let options = SimOptions::default();
    for seed in [3205, 9059, 45366, 48610, 60586, 62320, 81792, 94939, 95273] {
        let outcome = run_seed(&design, &Scenario::ctp(), &options, seed);
        assert!(
            outcome.passed(),
            "seed {seed}: {:?}",
            outcome
                .violation
                .as_ref()
                .map(|v| (&v.property, &v.message))
        );
    }
}
