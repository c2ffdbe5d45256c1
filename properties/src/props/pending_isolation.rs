//! `pending_isolation`: pending transactional acknowledgements are invisible. The share
//! coordinator's committed state (and, in designs that stage there, the share-partition
//! leader's) never reflects an acknowledgement whose transaction the transaction
//! coordinator has not decided to commit: not while it is pending, not after an abort,
//! and not because a load replayed the staged record as committed state (S7).
//!
//! Twin `pending_across_restart`: the share coordinator restarted while its log held
//! pending acknowledgements.

use crate::view::View;

/// The violation, if any.
pub fn check(view: &View) -> Option<String> {
    let (sys, state) = (view.sys, view.state);
    let ghost = &state.ghost.share.txn_acks;
    view.applied_acks()
        .iter()
        .find(|(_, a)| ghost.outcome(a.ack.tag) != Some(true))
        .map(|(id, a)| {
            let why = match ghost.outcome(a.ack.tag) {
                Some(false) => "its transaction aborted",
                _ => "its transaction has not committed",
            };
            let how = if a.by_marker { "a marker" } else { "a load" };
            format!(
                "{} applied the ack of offset {} by {} (staged at {:?}/{:?}) through {how}, but {why}",
                sys.topology.name(*id),
                a.ack.offset,
                a.ack.tag,
                a.ack.producer.pid,
                a.ack.producer.epoch
            )
        })
}

/// Twin: the share coordinator restarted with pending acknowledgements in its log.
pub fn witness(view: &View) -> bool {
    let state = view.state;
    state.ghost.share.txn_acks.pending_across_restart
}
