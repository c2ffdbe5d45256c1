//! The clients, as applications run them: the transactional producer, KIP-1310's
//! `TransactionSession`, the share consumer, the Flink source reader and its acknowledger,
//! the Connect sink task, and KIP-939's 2PC writer, committer and external participant.
//!
//! **One `TransactionManager`, one role per client.** Every transactional client has the
//! same component, Kafka's `TransactionManager` ([`transaction_manager`]): its state
//! machine, producer id and epoch, transaction, coordinator request, sequences, and the
//! InitProducerId / AddPartitionsToTxn / EndTxn protocol with its timeouts and resends.
//! What a client does around it is its role, a value rather than flags
//! ([`client_role::ClientRole`] in the configuration, [`client_role::RoleState`] in the
//! state, one variant each, so a role has exactly the state it needs):
//!
//! | role | what it adds | its file |
//! |---|---|---|
//! | `GroupLoop` | the consumer-group loop: OffsetFetch, produce, `sendOffsetsToTransaction` | [`producer`] |
//! | `ShareLoop` | KIP-1289's loop: ShareFetch, produce, `sendShareAcksToTransaction` (of two share groups: [`producer_share_groups`]) | [`producer_share`] |
//! | `Acknowledger` | KIP-1289 3.2: commits the acknowledgements it is handed | [`share_acknowledger`] |
//! | `Session` | KIP-1310: the producer stamps batches with its view of the session's identity | [`transaction_session`], [`session_heartbeat`] |
//! | `SinkTask` | KIP-1302: a poll thread that goes on while the commit thread commits | [`share_sink_task`] |
//! | `TwoPhaseSession` | KIP-939 on a session: prepare, resume, complete | [`session_resume`], [`producer_2pc`] |
//!
//! As in openraft's split of its `Engine` (the protocol's decisions) from its handlers
//! (what the application does with them), the `TransactionManager` decides the protocol
//! and, at the few points where clients differ (initialised, next transaction, what was
//! consumed goes into the transaction, which identity a batch carries, a write answered,
//! the transaction ended), calls a hook of [`client_role`]; each hook is one `match` over
//! the role whose arms call the role's file. The processes that embed a
//! `TransactionManager` are actors of their own that call it: the Flink source reader
//! ([`source_reader`], with an `Acknowledger`), the 2PC writer ([`resume_writer`]) and the
//! committer ([`committer`]), both with a `TwoPhaseSession`.

pub mod client_role;
pub mod committer;
pub mod committer_recovery;
pub mod external_participant;
pub mod producer;
pub mod producer_2pc;
pub mod producer_share;
pub mod producer_share_acks;
pub mod producer_share_groups;
pub mod resume_writer;
pub mod session_heartbeat;
pub mod session_resume;
pub mod share_acknowledger;
pub mod share_consumer;
pub mod share_sink_task;
pub mod source_reader;
pub mod transaction_manager;
pub mod transaction_session;
