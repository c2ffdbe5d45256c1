//! `ack_owner`: an acknowledgement is applied only to an acquisition of the member that
//! made it, and, where it is committed in a transaction (KIP-1289), only to the very
//! delivery it was made for.
//!
//! A consumer that stalled past its lock may still send its acknowledgement after the
//! record was redelivered to another member; the share-partition leader must reject it
//! (INVALID_RECORD_STATE), not apply it to the new holder's acquisition. Kafka checks the
//! member id, the offset and the state, not the delivery: a late acknowledgement of
//! delivery 1 that reaches the leader while the same member holds delivery 2 is applied to
//! delivery 2. Under KIP-932 that keeps at-least-once (the member processed delivery 1 and
//! is processing delivery 2), so a plain acknowledgement (ShareFetch, ShareAcknowledge) is
//! judged by its member only, in every scenario: Kafka applies it, since the share session
//! epoch does not tell the sessions apart (`SharePartitionManager.newContext`, 1eb7644,
//! starts a replacing session at epoch 1, so a late request of the replaced session at
//! epoch 1 passes, and `SharePartition.acknowledge` checks the member and the state). A
//! transactional acknowledgement (KIP-1289's TxnShareAcknowledge) commits with the outputs
//! of delivery 1's processing and must not settle delivery 2 (docs/kafka-cases.md S3), so
//! for it the delivery counts too. Each acknowledgement carries a ghost tag of its
//! delivery, which the protocol never reads.
//!
//! The converse holds too: a plain acknowledgement whose every record is ACQUIRED by its
//! member, with no transition in progress, is applied, not rejected (KIP-932;
//! `SharePartition.acknowledge`, 1eb7644, fails a batch only for a record in another state
//! or held by another member). Without it, a leader that rejected every acknowledgement
//! would pass every share property: its records reach the delivery limit and are archived,
//! which `at_least_once` and `delivery_limit` accept.
//!
//! Twin `late_ack_rejected`: an acknowledgement was rejected with INVALID_RECORD_STATE.

use crate::view::View;

/// The violation, if any.
pub fn check(view: &View) -> Option<String> {
    let state = view.state;
    let share = &state.ghost.share;
    // `misapplied_plain_delivery` is not judged: Kafka applies such an acknowledgement.
    share
        .misapplied_ack
        .clone()
        .or_else(|| share.misapplied_delivery.clone())
        .or_else(|| share.rejected_held.clone())
}

/// Twin: an acknowledgement was rejected.
pub fn witness(view: &View) -> bool {
    let state = view.state;
    state.ghost.share.late_ack_rejected
}
