//! The clients, as applications run them: the transactional producer
//! (`TransactionManager`), KIP-1310's `TransactionSession`, the share consumer, the Flink
//! source reader and its acknowledger, the Connect sink task, and KIP-939's 2PC writer,
//! committer and external participant.

pub mod committer;
pub mod external_participant;
pub mod producer;
pub mod producer_2pc;
pub mod producer_share;
pub mod resume_writer;
pub mod session_heartbeat;
pub mod session_resume;
pub mod share_acknowledger;
pub mod share_consumer;
pub mod share_sink_task;
pub mod source_reader;
pub mod transaction_session;
