//! What the transaction coordinator knows of the cluster: which broker leads each
//! partition it writes markers to, and which client owns each transactional id. Kafka's
//! coordinator reads the leaders from its broker's `MetadataCache`
//! (`TransactionMarkerChannelManager.addTxnMarkersToBrokerQueue`, 4.1); the world builds
//! this copy from its topology when it assembles the actors.

use crate::protocol::ids::{PartitionIndex, TopicPartition, TransactionalId};
use stateright::actor::Id;

/// The coordinator's view of the cluster's metadata (fixed for a run).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MetadataCache {
    /// The data partitions' leaders, by partition index.
    pub partitions: Vec<Id>,
    /// The `__consumer_offsets` partition's leader (the group coordinator).
    pub group_coordinator: Id,
    /// The `__share_group_state` partition's leader (the share coordinator), if any.
    pub share_coordinator: Option<Id>,
    /// The transactional clients, by transactional id.
    pub txn_clients: Vec<Id>,
}

impl MetadataCache {
    /// The leader of a transaction partition.
    pub fn leader_of(&self, tp: TopicPartition) -> Id {
        partition_leader(
            tp,
            &self.partitions,
            self.group_coordinator,
            self.share_coordinator,
        )
    }

    /// The transactional client that owns a transactional id.
    pub fn client_of(&self, txn: TransactionalId) -> Option<Id> {
        self.txn_clients.get(usize::from(txn.0)).copied()
    }
}

/// The leader of `tp` among the data partitions' leaders `partitions`, the group
/// coordinator and the share coordinator (the rule both the world's topology and the
/// coordinator's cache answer with).
pub fn partition_leader(
    tp: TopicPartition,
    partitions: &[Id],
    group_coordinator: Id,
    share_coordinator: Option<Id>,
) -> Id {
    match tp {
        TopicPartition::Output(PartitionIndex(i)) => partitions[usize::from(i)],
        TopicPartition::ConsumerOffsets => group_coordinator,
        TopicPartition::ShareGroupState => share_coordinator
            .expect("__share_group_state is only added when the scenario has a share group"),
    }
}
