//! Partition leaders that take transactional writes: an output partition (`Partition`,
//! `UnifiedLog`, `ProducerStateManager`), and the KIP-890 verification every transactional
//! leader shares (`AddPartitionsToTxnManager`).

pub mod data_partition;
pub mod leader;
pub mod parked_write;
pub mod partition_log;
