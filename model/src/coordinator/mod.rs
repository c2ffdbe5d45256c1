//! The coordinators of the transaction protocol: the transaction coordinator
//! (`TransactionCoordinator`, `TransactionStateManager`, KIP-939's 2PC and KIP-1309's
//! heartbeats at its side) and the group coordinator (`__consumer_offsets`).

pub mod group_coordinator;
pub mod txn_coordinator;
pub mod txn_coordinator_2pc;
pub mod txn_state;

use crate::coordinator::group_coordinator::GroupCoordinatorState;
use crate::coordinator::txn_coordinator::TxnCoordinatorState;
use crate::world::node::NodeState;

impl NodeState {
    /// The state of the transaction coordinator.
    pub fn txn_coordinator(&self) -> Option<&TxnCoordinatorState> {
        match self {
            NodeState::TxnCoordinator(tc) => Some(tc),
            _ => None,
        }
    }

    /// The state of the group coordinator (the `__consumer_offsets` partition's leader).
    pub fn group_coordinator(&self) -> Option<&GroupCoordinatorState> {
        match self {
            NodeState::GroupCoordinator(gc) => Some(gc),
            _ => None,
        }
    }
}
