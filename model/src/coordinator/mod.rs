//! The coordinators of the transaction protocol: the transaction coordinator
//! (`TransactionCoordinator`, `TransactionStateManager`, KIP-939's 2PC and KIP-1309's
//! heartbeats at its side) and the group coordinator (`__consumer_offsets`, and a share
//! group's offset reset in `share_group_admin`), with the
//! transaction coordinator's copy of the cluster's metadata (`metadata_cache`).

pub mod group_coordinator;
pub mod metadata_cache;
pub mod share_group_admin;
pub mod txn_coordinator;
pub mod txn_coordinator_2pc;
pub mod txn_state;
