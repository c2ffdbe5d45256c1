//! `legal_transitions`: the coordinator's `TransactionState`, the client's
//! `TransactionManager` state and the share-partition leader's `RecordState`s only move
//! along Kafka's transition tables, epochs never go back, and a coordinator failover
//! reloads exactly what its log holds.
//!
//! Twin `coordinator_restart`: the transaction coordinator restarted with a transaction in
//! flight, or the share coordinator restarted with persisted share state to replay (so the
//! twin is reachable in share scenarios too, where there is no transaction).

use crate::view::View;

/// The violation, if any.
pub fn check(view: &View) -> Option<String> {
    let state = view.state;
    state.ghost.illegal_transition.clone()
}

/// Twin: a coordinator failover with state in flight (transaction or share state).
pub fn witness(view: &View) -> bool {
    let state = view.state;
    state.ghost.coordinator_restart
}
