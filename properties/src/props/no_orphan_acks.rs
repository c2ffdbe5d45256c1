//! `no_orphan_acks` (liveness): at quiescence no staged acknowledgement is still pending
//! for a transaction that has completed or that the transaction coordinator no longer
//! has in flight (hanging share acknowledgements: a marker that matched nothing, S8, or a
//! late TxnShareAcknowledge staged after its transaction ended, S13). The transaction an
//! acknowledgement belongs to is in flight while the coordinator holds its producer id
//! ONGOING at the staged epoch, or PREPARE_* at the staged epoch or the one above it.
//!
//! Twin `resolved_after_restart`: a marker resolved pending acknowledgements after the
//! share coordinator reloaded them from its log.

use crate::view::View;
use sharetxn_model::coordinator::txn_state::TransactionState;
use sharetxn_model::history::txn_acks::pending_acks;

/// The violation, if any (judged only in quiescent states).
pub fn check(view: &View) -> Option<String> {
    let (sys, state) = (view.sys, view.state);
    if !view.is_quiescent() {
        return None;
    }
    let tc = state.node(sys.topology.txn_coordinator).txn_coordinator()?;
    for (id, ack) in pending_acks(sys, state) {
        let staged = ack.producer;
        let live = tc.txns.values().find(|m| m.pid == staged.pid);
        let in_flight = live.is_some_and(|m| match m.state {
            TransactionState::Ongoing => m.epoch == staged.epoch,
            TransactionState::PrepareCommit | TransactionState::PrepareAbort => {
                m.epoch == staged.epoch || m.epoch == staged.epoch.bump()
            }
            _ => false,
        });
        if !in_flight {
            let tc_side = live.map_or("no transaction".to_string(), |m| {
                format!("{:?} at {:?}/{:?}", m.state, m.pid, m.epoch)
            });
            return Some(format!(
                "at quiescence {} still holds the ack of offset {} by {} staged at {:?}/{:?} pending; TC has {tc_side}",
                sys.topology.name(id),
                ack.offset,
                ack.tag,
                staged.pid,
                staged.epoch
            ));
        }
    }
    None
}

/// Twin: pending acknowledgements reloaded by the share coordinator were resolved.
pub fn witness(view: &View) -> bool {
    let state = view.state;
    state.ghost.share.txn_acks.resolved_after_restart
}
