//! `staged_ack_exclusive`: a record whose acknowledgement a transaction staged (KIP-1289)
//! is never made terminal through a non-transactional path (a plain share consumer's
//! ShareFetch or ShareAcknowledge) before that transaction resolves; after an abort the
//! record is available again, and any member may then settle it.
//!
//! A share consumer beside the transactional clients (docs/kafka-cases.md S14) acknowledges
//! records outright. While a transaction's acknowledgement of a record is pending at the
//! share coordinator, its COMMIT marker will make the record ACKNOWLEDGED with the
//! transaction's outputs; a plain acknowledgement that settles it first (for example after
//! a share-partition leader failover forgot TX_PENDING and redelivered it) means the record
//! is settled twice, once outside the transaction. The share-partition leader observes each
//! plain settle; the record's pending acknowledgement is read from the share coordinator.
//!
//! Twin `plain_after_abort`: a record staged in a transaction that aborted was later made
//! terminal by a plain acknowledgement.

use sharetxn_model::{System, SystemState};

/// The violation, if any.
pub fn check(_sys: &System, state: &SystemState) -> Option<String> {
    state.ghost.share.txn_acks.settled_while_staged.clone()
}

/// Twin: after an abort, a plain acknowledgement settled the record.
pub fn witness(_sys: &System, state: &SystemState) -> bool {
    state.ghost.share.txn_acks.plain_after_abort
}
