//! Share groups (KIP-932) and KIP-1289's transactional acknowledgements: the share-partition
//! leader (`SharePartition`), the share coordinator (`ShareCoordinatorShard`) and the share
//! group's timers.

pub mod share_coordinator;
pub mod share_coordinator_notify;
pub mod share_coordinator_prune;
pub mod share_coordinator_txn;
pub mod share_partition;
pub mod share_partition_txn;
pub mod share_timing;

use crate::share::share_coordinator::ShareCoordinatorState;
use crate::share::share_partition::SharePartitionState;
use crate::world::node::NodeState;

impl NodeState {
    /// The state of the share coordinator.
    pub fn share_coordinator(&self) -> Option<&ShareCoordinatorState> {
        match self {
            NodeState::ShareCoordinator(sc) => Some(sc),
            _ => None,
        }
    }

    /// The state of the share-partition leader.
    pub fn share_partition(&self) -> Option<&SharePartitionState> {
        match self {
            NodeState::SharePartition(sp) => Some(sp),
            _ => None,
        }
    }
}
