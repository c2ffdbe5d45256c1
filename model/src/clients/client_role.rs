//! Which transactional client a [`Producer`] is: its role, and the places where the shared
//! [`TransactionManager`](crate::clients::transaction_manager) hands over to it.
//!
//! A role is a value ([`ClientRole`] in the configuration, [`RoleState`] in the state), not a
//! set of flags: each client is exactly one role, and a role has exactly the state it needs.
//! The `TransactionManager` runs the coordinator protocol and, where clients differ, calls
//! one of the hooks below; each hook is one `match` over the role, whose arms call that
//! role's own file.

use crate::clients::producer::{Producer, ProducerState};
use crate::clients::producer_share::{ShareClientState, ShareSource, STALL};
use crate::clients::share_sink_task::SinkTaskState;
use crate::clients::transaction_session::SessionProducerState;
use crate::protocol::msg::{AddOffsetsToTxnRequest, Msg, ProducerIdAndEpoch};
use crate::protocol::output::Host;
use crate::protocol::share_msg::AcquiredRecord;
use serde::{Deserialize, Serialize};
use stateright::actor::Out;

/// Which transactional client a [`Producer`] is, with what configures that role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClientRole {
    /// The consume-transform-produce loop over a consumer group
    /// ([`crate::clients::producer`]).
    GroupLoop,
    /// KIP-1289's loop over a share group: the share consumer and the producer in one
    /// client ([`crate::clients::producer_share`]).
    ShareLoop(ShareSource),
    /// KIP-1289 3.2's `TransactionalShareAcknowledger`: it commits the acknowledgements it
    /// is handed and never polls ([`crate::clients::share_acknowledger`]).
    Acknowledger(ShareSource),
    /// KIP-1310's `TransactionSession` with a producer and a share consumer on it
    /// ([`crate::clients::transaction_session`]).
    Session(ShareSource),
    /// KIP-1302's `WorkerShareSinkTask` on a session ([`crate::clients::share_sink_task`]).
    SinkTask(ShareSource),
    /// The `TransactionSession` of KIP-939's 2PC writer or of its committer, with no share
    /// group ([`crate::clients::session_resume`]).
    TwoPhaseSession,
}

/// The role's state beside the `TransactionManager`. Serialised flat into the client's
/// object, each variant with its own fields (`share`, `session`, `sink`), so a trace shows
/// a client as it did when these were optional fields. (Deserialising cannot tell
/// `ShareLoop` from `Acknowledger`, whose fields are the same; the model never reads a
/// state back, and the actor's [`ClientRole`] is what decides.)
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
#[allow(missing_docs)] // each field is the part of the client it names
pub enum RoleState {
    /// [`ClientRole::SinkTask`].
    SinkTask {
        share: ShareClientState,
        session: SessionProducerState,
        sink: SinkTaskState,
    },
    /// [`ClientRole::Session`].
    Session {
        share: ShareClientState,
        session: SessionProducerState,
    },
    /// [`ClientRole::TwoPhaseSession`].
    TwoPhaseSession { session: SessionProducerState },
    /// [`ClientRole::ShareLoop`].
    ShareLoop { share: ShareClientState },
    /// [`ClientRole::Acknowledger`].
    Acknowledger { share: ShareClientState },
    /// [`ClientRole::GroupLoop`].
    GroupLoop {},
}

impl ClientRole {
    /// The share group the role consumes from or acknowledges to.
    pub fn share_source(&self) -> Option<ShareSource> {
        match *self {
            ClientRole::ShareLoop(src)
            | ClientRole::Acknowledger(src)
            | ClientRole::Session(src)
            | ClientRole::SinkTask(src) => Some(src),
            ClientRole::GroupLoop | ClientRole::TwoPhaseSession => None,
        }
    }

    /// Whether the client runs on a KIP-1310 `TransactionSession`: the session owns the
    /// identity, the producer on it stamps its batches with its own view of it.
    pub fn on_session(&self) -> bool {
        matches!(
            self,
            ClientRole::Session(_) | ClientRole::SinkTask(_) | ClientRole::TwoPhaseSession
        )
    }

    /// The role's state when an incarnation starts.
    pub(crate) fn initial_state(&self) -> RoleState {
        let share = |src: ShareSource| ShareClientState {
            stalls_left: src.stalls,
            ..ShareClientState::default()
        };
        match *self {
            ClientRole::GroupLoop => RoleState::GroupLoop {},
            ClientRole::ShareLoop(src) => RoleState::ShareLoop { share: share(src) },
            ClientRole::Acknowledger(src) => RoleState::Acknowledger { share: share(src) },
            ClientRole::Session(src) => RoleState::Session {
                share: share(src),
                session: SessionProducerState::default(),
            },
            ClientRole::SinkTask(src) => RoleState::SinkTask {
                share: share(src),
                session: SessionProducerState::default(),
                sink: SinkTaskState::default(),
            },
            ClientRole::TwoPhaseSession => RoleState::TwoPhaseSession {
                session: SessionProducerState::default(),
            },
        }
    }
}

impl RoleState {
    /// The share consumer's state, in the roles that have one.
    pub fn share(&self) -> Option<&ShareClientState> {
        match self {
            RoleState::SinkTask { share, .. }
            | RoleState::Session { share, .. }
            | RoleState::ShareLoop { share }
            | RoleState::Acknowledger { share } => Some(share),
            RoleState::TwoPhaseSession { .. } | RoleState::GroupLoop {} => None,
        }
    }

    /// The share consumer's state, mutable.
    pub(crate) fn share_mut(&mut self) -> Option<&mut ShareClientState> {
        match self {
            RoleState::SinkTask { share, .. }
            | RoleState::Session { share, .. }
            | RoleState::ShareLoop { share }
            | RoleState::Acknowledger { share } => Some(share),
            RoleState::TwoPhaseSession { .. } | RoleState::GroupLoop {} => None,
        }
    }

    /// The state of the producer on a `TransactionSession`, in the session roles.
    pub fn session(&self) -> Option<&SessionProducerState> {
        match self {
            RoleState::SinkTask { session, .. }
            | RoleState::Session { session, .. }
            | RoleState::TwoPhaseSession { session } => Some(session),
            _ => None,
        }
    }

    /// The session producer's state, mutable.
    pub(crate) fn session_mut(&mut self) -> Option<&mut SessionProducerState> {
        match self {
            RoleState::SinkTask { session, .. }
            | RoleState::Session { session, .. }
            | RoleState::TwoPhaseSession { session } => Some(session),
            _ => None,
        }
    }

    /// The sink task's poll-thread state.
    pub fn sink(&self) -> Option<&SinkTaskState> {
        match self {
            RoleState::SinkTask { sink, .. } => Some(sink),
            _ => None,
        }
    }

    /// The sink task's poll-thread state, mutable.
    pub(crate) fn sink_mut(&mut self) -> Option<&mut SinkTaskState> {
        match self {
            RoleState::SinkTask { sink, .. } => Some(sink),
            _ => None,
        }
    }
}

/// The hooks: where the `TransactionManager` hands over to the role.
impl Producer {
    /// InitProducerId was answered: the consumer-group loops fetch their committed offset
    /// first; a share group keeps the position, so the share roles go straight on.
    pub(crate) fn after_init<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        match self.role {
            ClientRole::GroupLoop | ClientRole::TwoPhaseSession => self.fetch_offset(state, o),
            _ => self.begin_next(state, o),
        }
    }

    /// The client is ready for its next transaction (initialised, or the last one ended).
    pub(crate) fn begin_next<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        match self.role {
            // Idle until the application calls `commitAcknowledgements` again.
            ClientRole::Acknowledger(_) => state.manager.done = true,
            // A batch held for this transaction counts as begun: it was polled and put.
            ClientRole::SinkTask(_) => self.sink_next(state, o),
            ClientRole::ShareLoop(_) | ClientRole::Session(_) => {
                if state.manager.attempts >= self.txns {
                    self.close_share(state, o);
                    state.manager.done = true;
                } else {
                    self.poll(state, o);
                }
            }
            ClientRole::GroupLoop | ClientRole::TwoPhaseSession => self.next_input(state, o),
        }
    }

    /// `beginTransaction()` moved to IN_TRANSACTION: a sink task's poll thread goes on once
    /// the batch is the commit thread's.
    pub(crate) fn txn_begun<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        if let ClientRole::SinkTask(_) = self.role {
            self.sink_poll_again(state, o);
        }
    }

    /// The transaction's partitions are in it (TV0/1 added them, TV2 adds implicitly):
    /// what was consumed goes into the transaction. The share roles add
    /// `__share_group_state` themselves under every transaction version (the seed defines
    /// no implicit add for it); the consumer-group loops send their offsets.
    pub(crate) fn add_consumed<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        match self.role {
            ClientRole::GroupLoop | ClientRole::TwoPhaseSession => {
                if self.design.tv.bumps_epoch_per_txn() {
                    self.send_offset_commit(state, o);
                } else {
                    let producer = state.manager.identity();
                    let msg = Msg::AddOffsetsToTxn(AddOffsetsToTxnRequest {
                        txn: self.txn,
                        producer,
                    });
                    self.send_coordinator(state, msg, o);
                }
            }
            _ => self.add_share_acks(state, o),
        }
    }

    /// The identity a Produce carries: the producer's view on a session, the
    /// `TransactionManager`'s own otherwise.
    pub(crate) fn write_identity(&self, state: &ProducerState) -> ProducerIdAndEpoch {
        match state.role.session().and_then(|s| s.view) {
            Some(view) => view,
            None => state.manager.identity(),
        }
    }

    /// Whether EndTxn waits for every write of the transaction: the session's knob on a
    /// session, `flush_before_end_txn` in the `TransactionManager` of today.
    pub(crate) fn flushes_before_end(&self) -> bool {
        if self.role.on_session() {
            self.design.session_commit_flush
        } else {
            self.design.flush_before_end_txn
        }
    }

    /// Whether this client sends KIP-1309 heartbeats: a session, with the knob on.
    pub(crate) fn heartbeats(&self) -> bool {
        self.role.on_session() && self.design.txn_heartbeat
    }

    /// A write was answered: a session producer may take the session's new identity and
    /// send what waited for it; a sink task may send the batch it holds.
    pub(crate) fn write_answered<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        match self.role {
            ClientRole::Session(_) | ClientRole::TwoPhaseSession => {
                self.session_after_write(state, o)
            }
            ClientRole::SinkTask(_) => {
                self.session_after_write(state, o);
                self.sink_send_held(state, o);
            }
            _ => {}
        }
    }

    /// EndTxn answered with producer id and epoch `id` (TV2 bumped it). On a session the
    /// sequences are the producer's: they reset when it takes the new identity.
    pub(crate) fn took_identity<A: Host>(
        &self,
        state: &mut ProducerState,
        id: ProducerIdAndEpoch,
        o: &mut Out<A>,
    ) {
        if Some(id) != state.manager.identity && !self.role.on_session() {
            state.manager.seqs.clear();
        }
        state.manager.identity = Some(id);
        self.session_identity_changed(state, o);
    }

    /// The transaction ended: a share role lets go of what it acquired or was handed.
    pub(crate) fn txn_ended<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        self.keep_batch(state);
        self.groups_txn_ended(state);
        if let Some(sh) = state.role.share_mut() {
            sh.fetched = None;
            sh.acks.clear();
            sh.stalled = false;
            sh.add = None;
            o.choose_random(STALL, Vec::new());
        }
    }

    /// A poll found `record`: it begins a transaction, or, on a sink task whose commit
    /// thread's transaction is open, the poll thread holds it for the next one.
    pub(crate) fn polled<A: Host>(
        &self,
        state: &mut ProducerState,
        record: AcquiredRecord,
        o: &mut Out<A>,
    ) {
        if let ClientRole::SinkTask(_) = self.role {
            if state.manager.txn.is_some() {
                self.sink_hold(state, record, o);
                return;
            }
        }
        self.begin_polled(state, record, o);
    }

    /// A poll found nothing (or `poll` returned nothing): the loop ends; a sink task is
    /// done once its last transaction ended.
    pub(crate) fn polls_ended(&self, state: &mut ProducerState) {
        match self.role {
            ClientRole::SinkTask(_) => self.sink_polls_ended(state),
            _ => state.manager.done = true,
        }
    }
}
