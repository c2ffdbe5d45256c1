//! `stale_acks_fenced`: an admin's offset reset of the share group (KIP-932
//! `AlterShareGroupOffsets`; docs/kafka-cases.md S20) reinitialises the share partition's
//! state at a new state epoch. Acknowledgements a transaction staged before it were made
//! for the state the reset discarded (its deliveries, its delivery counts); applying them
//! to the new state would mark records the new state has not delivered as processed. So a
//! COMMIT (or a load that applies a staging) never applies acknowledgements staged under an
//! older state epoch than the state they would be applied to, as `ShareCoordinatorShard`
//! refuses a WriteShareGroupState of an older `StateEpoch` (FENCED_STATE_EPOCH).
//!
//! Twin `stale_acks_resolved`: acknowledgements staged before a reset are resolved after
//! it (by a COMMIT, fenced or not, or by an ABORT).

use crate::view::{share_coordinator_txn_state, View};

/// The violation, if any: a resolution that applied acknowledgements of an older state
/// epoch (the share coordinator records each resolution in its ghost log).
pub fn check(view: &View) -> Option<String> {
    let sc = share_coordinator_txn_state(view.sys, view.state)?;
    sc.resolved
        .open()
        .iter()
        .find(|r| r.commit && !r.fenced && r.acks.state_epoch < r.state_epoch)
        .map(|r| {
            let offsets: Vec<_> = r.acks.batches.iter().map(|b| b.offset).collect();
            format!(
                "the acknowledgements of records {offsets:?} staged by {:?} under state epoch {} were applied to the state of state epoch {}",
                r.acks.producer, r.acks.state_epoch, r.state_epoch
            )
        })
}

/// Twin: acknowledgements staged before a reset were resolved after it.
pub fn witness(view: &View) -> bool {
    share_coordinator_txn_state(view.sys, view.state).is_some_and(|sc| {
        sc.resolved
            .open()
            .iter()
            .any(|r| r.acks.state_epoch < r.state_epoch)
    })
}
