//! `no_lost_record`: an acknowledgement of a transaction that aborted never makes a record
//! terminal. If the transaction coordinator aborted the transaction (or the client did),
//! the record must stay deliverable: neither the share coordinator's persisted state nor
//! the share-partition leader's may hold it ACKNOWLEDGED or ARCHIVED at the delivery that
//! aborted acknowledgement was made for (KIP-1289: "Share acks are discarded -> records
//! return to AVAILABLE -> re-delivered").
//!
//! Twin `redelivered_after_abort`: a record whose acknowledgement was aborted is delivered
//! again.

use crate::view::{share_coordinator_state_of, share_partition_state_of, View};

/// The violation, if any.
pub fn check(view: &View) -> Option<String> {
    let (sys, state) = (view.sys, view.state);
    let ghost = &state.ghost;
    for (id, a) in view.applied_acks() {
        let tag = a.ack.tag;
        let aborted = ghost.share.txn_acks.outcome(tag) == Some(false)
            || ghost.decisions.get(&tag) == Some(&false);
        if !aborted {
            continue;
        }
        let offset = a.ack.offset;
        let persisted = share_coordinator_state_of(sys, state, offset)
            .and_then(|s| s.state_of(offset))
            .filter(|(st, dc)| st.is_terminal() && *dc == a.ack.delivery_count)
            .map(|(st, _)| ("SC".to_string(), st));
        // The leader is named only in a violation's message: this runs on every state.
        let leader = || {
            sys.topology
                .share_partition_leader(sys.scenario.share_partition_of(offset))
                .map(|id| sys.topology.name(id))
                .unwrap_or_default()
        };
        let cached = || {
            share_partition_state_of(sys, state, offset)
                .and_then(|s| s.records.get(&offset))
                .filter(|r| r.state.is_terminal() && r.delivery_count == a.ack.delivery_count)
                .map(|r| (leader(), r.state))
        };
        if let Some((holder, st)) = persisted.or_else(cached) {
            return Some(format!(
                "{holder} holds offset {offset} {st:?} at delivery {} from the ack of aborted transaction {tag} (applied by {})",
                a.ack.delivery_count,
                sys.topology.name(*id)
            ));
        }
    }
    None
}

/// Twin: a record whose transactional acknowledgement was aborted was delivered again.
pub fn witness(view: &View) -> bool {
    let state = view.state;
    state.ghost.share.txn_acks.redelivered_after_abort
}
