//! # sharetxn-model: Kafka's transaction protocol as a closed world
//!
//! The actors are Kafka's processes, each a pure function from (state, message or timer)
//! to (new state, commands), implementing stateright's `Actor`:
//!
//! | actor | stands for | durable |
//! |---|---|---|
//! | [`txn_coordinator::TxnCoordinator`] | the `__transaction_state` leader | its log |
//! | [`data_partition::DataPartition`] | an output partition leader | its log |
//! | [`group_coordinator::GroupCoordinator`] | the `__consumer_offsets` leader | its log |
//! | [`producer::Producer`] | a transactional client (`TransactionManager`) | nothing |
//! | [`source_reader::SourceReader`] | a Flink source task: a share consumer and a [`share_acknowledger::TransactionalShareAcknowledger`] | its checkpoint |
//! | [`resume_writer::ResumeWriter`] | a writer on a `TransactionSession` that prepares and hands over | nothing |
//! | [`committer::Committer`] | a 2PC coordinator application that resumes the writer's session | its decision log |
//! | [`external_participant::ExternalParticipant`] | the 2PC's external participant (a database) | its log |
//!
//! [`system::System`] wraps them in one `stateright::Model` with message loss,
//! duplication, reordering, timers that fire at any time, crashes and restarts from
//! durable storage, and client choices, under total fault budgets. Protocol logic lives
//! only here; the properties, the checkers, the simulator and replay all drive
//! [`system::System::step`].
//!
//! Message flow of one transaction under TV2 (the default):
//!
//! ```text
//! P0 --InitProducerId--> TC           P0 --OffsetFetch--> GC
//! P0 --Produce--> D0 --AddPartitionsToTxn(add)--> TC      (KIP-890 implicit add)
//! P0 --TxnOffsetCommit--> GC --AddPartitionsToTxn(add)--> TC
//! P0 --EndTxn--> TC --WriteTxnMarkers--> D0, D1, GC --> TC: CompleteCommit
//! ```
// The settings JSON (settings.rs) lists every knob in one `json!`, deeper than the default limit.
#![recursion_limit = "256"]

pub mod committer;
pub mod data_partition;
pub mod design;
pub mod design_kip1289;
pub mod design_kip939;
pub mod design_scope;
pub mod effects;
pub mod error;
pub mod external_msg;
pub mod external_participant;
pub mod ghost;
pub mod group_coordinator;
pub mod ids;
pub mod leader;
pub mod msg;
pub mod network;
pub mod node;
pub mod parked_write;
pub mod partition_log;
pub mod producer;
pub mod producer_2pc;
pub mod producer_share;
pub mod record_state;
pub mod resume_ghost;
pub mod resume_system;
pub mod resume_writer;
pub mod scenario;
pub mod session_ghost;
pub mod session_heartbeat;
pub mod session_knobs;
pub mod session_resume;
pub mod settings;
pub mod share_acknowledger;
pub mod share_consumer;
pub mod share_coordinator;
pub mod share_coordinator_notify;
pub mod share_coordinator_txn;
pub mod share_msg;
pub mod share_partition;
pub mod share_partition_txn;
pub mod share_sink_task;
pub mod share_state;
pub mod share_timing;
pub mod shared;
pub mod sink_knobs;
pub mod source_reader;
pub mod spl_knobs;
pub mod system;
pub mod timing;
pub mod topology;
pub mod transaction_session;
pub mod txn_ack_ghost;
pub mod txn_acks;
pub mod txn_coordinator;
pub mod txn_coordinator_2pc;
pub mod txn_heartbeat_msg;
pub mod txn_share_msg;
pub mod txn_state;
pub mod width;

pub use design::Design;
pub use scenario::Scenario;
pub use system::{Action, Envelope, System, SystemState};
