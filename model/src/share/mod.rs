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
