//! # sharetxn-model: Kafka's transaction protocol as a closed world
//!
//! The actors are Kafka's processes, each a pure function from (state, message or timer)
//! to (new state, commands), implementing stateright's `Actor`:
//!
//! | actor | stands for | durable |
//! |---|---|---|
//! | [`coordinator::txn_coordinator::TxnCoordinator`] | the `__transaction_state` leader | its log |
//! | [`partition::data_partition::DataPartition`] | an output partition leader | its log |
//! | [`coordinator::group_coordinator::GroupCoordinator`] | the `__consumer_offsets` leader | its log |
//! | [`clients::producer::Producer`] | a transactional client (`TransactionManager`) | nothing |
//! | [`clients::source_reader::SourceReader`] | a Flink source task: a share consumer and a [`clients::share_acknowledger::TransactionalShareAcknowledger`] | its checkpoint |
//! | [`clients::resume_writer::ResumeWriter`] | a writer on a `TransactionSession` that prepares and hands over | nothing |
//! | [`clients::committer::Committer`] | a 2PC coordinator application that resumes the writer's session | its decision log |
//! | [`clients::external_participant::ExternalParticipant`] | the 2PC's external participant (a database) | its log |
//!
//! [`world::system::System`] wraps them in one `stateright::Model` with message loss,
//! duplication, reordering, timers that fire at any time, crashes and restarts from
//! durable storage, and client choices, under total fault budgets. Protocol logic lives
//! only here; the properties, the checkers, the simulator and replay all drive
//! [`world::system::System::step`].
//!
//! Message flow of one transaction under TV2 (the default):
//!
//! ```text
//! P0 --InitProducerId--> TC           P0 --OffsetFetch--> GC
//! P0 --Produce--> D0 --AddPartitionsToTxn(add)--> TC      (KIP-890 implicit add)
//! P0 --TxnOffsetCommit--> GC --AddPartitionsToTxn(add)--> TC
//! P0 --EndTxn--> TC --WriteTxnMarkers--> D0, D1, GC --> TC: CompleteCommit
//! ```
//!
//! The source is laid out by Kafka's components, each folder depending only on the ones
//! above it in this table, with no exception (`model/tests/suite/layers.rs`). Two seams turn
//! the dependencies that would point down it around: a handler writes stateright's
//! `Out<A>` for any host actor `A` ([`protocol::output`]), and the world is generic over
//! the history it records into ([`world::record::Record`]); [`System`] and [`SystemState`]
//! below name the world over [`history::History`].
//!
//! | folder | what it holds |
//! |---|---|
//! | [`protocol`] | the wire: requests, responses, ids, error codes, share record states, the persisted share state, ghost values, what a timer waits for, a handler's output |
//! | [`design`] | the design under check: every knob and the named designs |
//! | [`partition`] | output partition leaders and KIP-890 verification |
//! | [`coordinator`] | the transaction and group coordinators, the transaction coordinator's metadata cache |
//! | [`share`] | the share-partition leader and the share coordinator |
//! | [`clients`] | the producer, `TransactionSession`, share consumer, Flink and Connect clients, 2PC |
//! | [`world`] | `System` (generic over its history), the actor enum, its storage and the accessors into each actor's state, the network, topology, scenarios, the `--set` keys and settings JSON, timers, and each design's wire format |
//! | [`history`] | the ghost state the properties read |
// The settings JSON (world/settings.rs) lists every knob in one `json!`, deeper than the default limit.
#![recursion_limit = "256"]

pub mod clients;
pub mod coordinator;
pub mod design;
pub mod history;
pub mod partition;
pub mod protocol;
pub mod share;
pub mod world;

pub use design::Design;
pub use world::scenario::Scenario;
pub use world::system::{Action, Envelope};

/// The closed world over the run's [`history::History`] (the world is generic over its
/// history, [`world::record::Record`]; every engine uses this one).
pub type System = world::system::System<history::History>;

/// A state of the closed world over the run's [`history::History`].
pub type SystemState = world::state::SystemState<history::History>;
