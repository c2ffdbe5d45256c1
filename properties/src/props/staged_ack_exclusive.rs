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
//! The KIP-1289 client's own plain paths (`ctp-acks`, S14) are judged the same way from the
//! moment they are applied: its implicit ACCEPT on the next poll, or the release of its
//! `close()`, of a record its own transaction still holds pending, is a violation whatever
//! the type (a released record goes to the next poll while the transaction may still
//! commit it). A design forbids it by holding the record TX_PENDING at the leader, which
//! answers a plain acknowledgement of it INVALID_RECORD_STATE.
//!
//! Twin `plain_after_abort`: a record staged in a transaction that aborted was later made
//! terminal by a plain acknowledgement.

use crate::view::View;

/// The violation, if any.
pub fn check(view: &View) -> Option<String> {
    let state = view.state;
    let acks = &state.ghost.share.txn_acks;
    acks.settled_while_staged
        .clone()
        .or_else(|| acks.own_plain_while_staged.clone())
}

/// Twin: after an abort, a plain acknowledgement settled the record.
pub fn witness(view: &View) -> bool {
    let state = view.state;
    state.ghost.share.txn_acks.plain_after_abort
}
