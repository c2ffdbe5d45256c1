//! `legal_transitions`: the coordinator's `TransactionState` and the client's
//! `TransactionManager` state only move along Kafka's transition tables, epochs never go
//! back, and a coordinator failover reloads exactly what its log holds.
//!
//! Twin `coordinator_restart`: the coordinator restarted with a transaction in flight.

use sharetxn_model::{System, SystemState};

/// The violation, if any.
pub fn check(_sys: &System, state: &SystemState) -> Option<String> {
    state.ghost.illegal_transition.clone()
}

/// Twin: a coordinator failover with a transaction in flight.
pub fn witness(_sys: &System, state: &SystemState) -> bool {
    state.ghost.coordinator_restart
}
