//! Seeds on which the simulator once found `proposed` violated on `ctp`, each pinned to the
//! model fix that answered it.

use sharetxn_model::{Design, Scenario};
use sharetxn_sim::{run_seed, SimOptions};

/// A duplicated ShareFetch parks at the leader while the record is TX_PENDING, and the
/// TxnShareAcknowledgeResponse to the client is lost. The parked poll used to count as
/// the leader "still answering" the staging, so the staging's request timeout was never
/// due, the transaction stayed open and the run went quiet with the leader's TX_PENDING
/// record disagreeing with the coordinator (`cache_agrees`, `txn_completes`). The poll
/// now counts for the poll only (`model/src/world/timing.rs`).
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

/// The share coordinator's KIP-890 verification of a staging is lost. Every resend of the
/// staging joined the parked verification, and the coordinator had no inter-broker
/// request timeout, so the share-partition leader resent every 30 virtual seconds for
/// ever (seed 82214, `heal_deadline`). The verification now times out as
/// `AddPartitionsToTxnManager`'s does: the staging is answered NETWORK_EXCEPTION and
/// verified afresh (`model/src/partition/parked_write.rs`). With only that, the leader rolled the
/// staging back on the NETWORK_EXCEPTION while a resend was still on its way; SC verified
/// and staged the resend, and its late answer was taken for the answer to the client's
/// next staging (seed 32665, `cache_agrees`). The leader now sends the staging again on a
/// retriable answer (`model/src/share/share_partition_txn.rs`).
#[test]
fn a_lost_verification_times_out_and_the_staging_is_sent_again() {
    let design = Design::by_name("proposed").expect("proposed");
    for seed in [82214, 32665] {
        let outcome = run_seed(&design, &Scenario::ctp(), &SimOptions::default(), seed);
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

/// `ctp-acks` seed 1: a staging whose verification timed out is rolled back to ACQUIRED, the
/// transaction times out and aborts, and the client's next poll ACCEPTs the record
/// implicitly: settled with no committed transaction having processed it
/// (`staged_ack_exclusive`). `exclude_txn_records` (the client leaves the records it handed
/// to a transaction out of its implicit ACCEPT and `close()`) answers it.
#[test]
fn the_client_leaves_its_transactions_records_out_of_its_implicit_accept() {
    let mut design = Design::by_name("proposed").expect("proposed");
    let options = SimOptions::default();
    let scenario = Scenario::ctp_acks();
    let outcome = run_seed(&design, &scenario, &options, 1);
    assert!(
        outcome.passed(),
        "{:?}",
        outcome.violation.map(|v| v.message)
    );
    design.exclude_txn_records = false;
    let outcome = run_seed(&design, &scenario, &options, 1);
    assert_eq!(
        outcome.violation.map(|v| v.property.to_string()),
        Some("staged_ack_exclusive".to_string())
    );
}
