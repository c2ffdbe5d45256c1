//! Partition leaders that take transactional writes: an output partition (`Partition`,
//! `UnifiedLog`, `ProducerStateManager`), and the KIP-890 verification every transactional
//! leader shares (`AddPartitionsToTxnManager`).

pub mod data_partition;
pub mod leader;
pub mod parked_write;
pub mod partition_log;

use crate::partition::data_partition::DataPartitionState;
use crate::world::node::NodeState;

impl NodeState {
    /// The state of an output partition's leader.
    pub fn data_partition(&self) -> Option<&DataPartitionState> {
        match self {
            NodeState::DataPartition(dp) => Some(dp),
            _ => None,
        }
    }
}
