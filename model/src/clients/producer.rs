//! The transactional producer: the client configuration every role shares
//! ([`Producer`], [`ProducerState`]), its handlers, and the `GroupLoop` role, the
//! consume-transform-produce loop with a consumer group (the `consumer-offsets` baseline).
//!
//! Each incarnation calls `initTransactions()` (InitProducerId), fetches the group's
//! committed offset with `RequireStable`, then for each input record begins a
//! transaction, produces one output record to every output partition, commits the next
//! offset with `sendOffsetsToTransaction`, and commits or aborts by client choice. After
//! an abort it reprocesses the same input. Under TV0/1 the client adds partitions itself
//! (AddPartitionsToTxn before the first produce, AddOffsetsToTxn before TxnOffsetCommit);
//! under TV2 it skips both and the partition leaders add implicitly. The coordinator
//! protocol is the [`TransactionManager`]'s.
//!
//! Clients are volatile. The storage holds only an incarnation counter, a modelling device
//! that numbers restarts so that ghost tags of different incarnations differ.

use crate::clients::client_role::{ClientRole, RoleState};
use crate::clients::transaction_manager::TransactionManager;
use crate::coordinator::txn_state::TxnManagerState;
use crate::design::Design;
use crate::protocol::error::ErrorCode;
use crate::protocol::ids::*;
use crate::protocol::msg::*;
use crate::protocol::output::{Host, Saves};
use crate::protocol::wait::{Answer, Down, Held, Reply, Wait};
use crate::protocol::width::{Epoch, Offset};
use serde::{Deserialize, Serialize};
use stateright::actor::{Id, Out};

/// The producer's state: its `TransactionManager`, flattened so that a trace shows the
/// client's fields as one object, and the application's loop around it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProducerState {
    /// The `TransactionManager` every transactional client has.
    #[serde(flatten)]
    pub manager: TransactionManager,
    /// The next input record to process (from the committed offset).
    pub next_input: Offset,
    /// The state of the client's role, flattened as well.
    #[serde(flatten)]
    pub role: RoleState,
}

/// The producer's configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Producer {
    /// Its transactional id.
    pub txn: TransactionalId,
    /// The transaction coordinator.
    pub txn_coordinator: Id,
    /// The group coordinator.
    pub group_coordinator: Id,
    /// The output partition leaders.
    pub partitions: Vec<Id>,
    /// The design.
    pub design: Design,
    /// Input records.
    pub inputs: Offset,
    /// Transactions per incarnation.
    pub txns: u8,
    /// Resends after a request timeout.
    pub request_retries: u8,
    /// Which transactional client this is.
    pub role: ClientRole,
}

/// What a producer saves: its incarnation number, which start of the process this is (a
/// modelling device; a client keeps nothing else across a crash).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProducerStorage {
    /// Which start of the process.
    pub incarnation: Epoch,
}

impl Producer {
    /// Starts an incarnation: `initTransactions()`.
    pub fn on_start<A: Saves<ProducerStorage>>(
        &self,
        incarnation: Option<Epoch>,
        o: &mut Out<A>,
    ) -> ProducerState {
        let incarnation = incarnation.map_or(0, |i| i + 1);
        o.save(ProducerStorage { incarnation }.into());
        self.start(incarnation, o)
    }

    /// `initTransactions()` for incarnation `incarnation`, whoever keeps the number (the
    /// producer's own storage, or the process that embeds this `TransactionManager`).
    pub(crate) fn start<A: Host>(&self, incarnation: Epoch, o: &mut Out<A>) -> ProducerState {
        self.start_with(incarnation, InitProducerIdRequest::plain(self.txn), o)
    }

    /// `initTransactions()` with the InitProducerId `init` (KIP-939's `Enable2Pc` and
    /// `KeepPreparedTxn` set by the caller).
    pub(crate) fn start_with<A: Host>(
        &self,
        incarnation: Epoch,
        init: InitProducerIdRequest,
        o: &mut Out<A>,
    ) -> ProducerState {
        let mut state = ProducerState {
            manager: TransactionManager {
                connection: init.connection,
                ..TransactionManager::new(incarnation)
            },
            next_input: 0,
            role: self.role.initial_state(),
        };
        self.send_coordinator(&mut state, Msg::InitProducerId(init), o);
        state
    }

    /// Handles responses.
    pub fn on_msg<A: Host>(&self, state: &mut ProducerState, src: Id, msg: Msg, o: &mut Out<A>) {
        if state.manager.tm == TxnManagerState::FatalError {
            return;
        }
        match msg {
            // An answer that came back on another connection is not this client's.
            Msg::InitProducerIdResponse(r) if r.connection != state.manager.connection => {}
            Msg::EndTxnResponse(r) if r.connection != state.manager.connection => {}
            Msg::InitProducerIdResponse(r) if state.manager.awaits("InitProducerId") => {
                self.on_init_producer_id(state, r, o)
            }
            Msg::AddPartitionsToTxnResponse(r)
                if r.mode == AddPartitionsMode::Client
                    && state.manager.awaits("AddPartitionsToTxn") =>
            {
                self.on_added(state, r.error, o, |p, s, o| p.after_partitions_added(s, o))
            }
            Msg::AddShareAcksToTxnResponse(r) if state.manager.awaits("AddShareAcksToTxn") => {
                self.on_added(state, r.error, o, |p, s, o| p.share_acks_added(s, o))
            }
            Msg::ShareFetchResponse(r) => self.on_share_fetch_response(state, src, r, o),
            Msg::TxnShareAcknowledgeResponse(r) => {
                let Some(key) = self.awaits_txn_share_ack(state, &r) else {
                    return;
                };
                if r.error == ErrorCode::NotLeaderOrFollower {
                    self.leader_moved(state);
                }
                if r.error == ErrorCode::None && self.stage_next_member(state, o) {
                    return;
                }
                self.on_write_response(state, key, r.error, o)
            }
            Msg::AddOffsetsToTxnResponse(r) if state.manager.awaits("AddOffsetsToTxn") => self
                .on_added(state, r.error, o, |p, s, o| {
                    p.send_offset_commit(s, o);
                    p.maybe_end(s, o);
                }),
            Msg::EndTxnResponse(r) if state.manager.awaits("EndTxn") => {
                self.on_end_txn(state, r, o)
            }
            Msg::TxnHeartbeatResponse(r) => self.on_heartbeat_response(state, r, o),
            Msg::OffsetFetchResponse(r) => self.on_offset_fetch(state, r, o),
            Msg::ProduceResponse(r) => {
                let key = RequestKey::Produce(r.partition);
                let matches = matches!(
                    state.manager.requests.get(&key).map(|q| &q.msg),
                    Some(Msg::Produce(p)) if p.seq == r.seq && p.producer == r.producer
                );
                if matches {
                    self.on_write_response(state, key, r.error, o);
                }
            }
            Msg::TxnOffsetCommitResponse(r) => {
                let key = RequestKey::TxnOffsetCommit;
                let matches = matches!(
                    state.manager.requests.get(&key).map(|q| &q.msg),
                    Some(Msg::TxnOffsetCommit(c)) if c.offset == r.offset && c.producer == r.producer
                );
                if matches {
                    self.on_write_response(state, key, r.error, o);
                }
            }
            _ => {}
        }
    }

    /// A request timed out: resend it, or give up on it.
    pub fn on_timeout<A: Host>(&self, state: &mut ProducerState, timer: Timer, o: &mut Out<A>) {
        if timer == Timer::TxnHeartbeat {
            self.on_heartbeat_timer(state, o);
            return;
        }
        let Timer::RequestTimeout(key) = timer else {
            return;
        };
        if state.manager.tm == TxnManagerState::FatalError {
            return;
        }
        if key == RequestKey::Share {
            // `poll` returned nothing: the loop ends (the fetch may still be parked).
            if state.manager.requests.remove(&key).is_some() && !self.poll_found_nothing(state, o) {
                self.polls_ended(state);
            }
            return;
        }
        self.on_request_timeout(state, key, o);
    }

    /// The application's decision: commit or abort.
    pub fn on_choice<A: Host>(
        &self,
        state: &mut ProducerState,
        choice: ClientChoice,
        o: &mut Out<A>,
    ) {
        if choice == ClientChoice::Stall {
            self.on_stall(state, o);
            return;
        }
        if choice == ClientChoice::Handoff {
            self.on_handoff(state, o);
            return;
        }
        if let ClientChoice::ShareAdd(add) = choice {
            self.on_share_add(state, add, o);
            return;
        }
        if state.manager.tm == TxnManagerState::FatalError {
            // A fatal error (a heartbeat answered PRODUCER_FENCED) came while the
            // application was deciding: it gets the exception, not a commit.
            return;
        }
        if let ClientChoice::Ack { offset, ack } = choice {
            self.on_ack_type(state, offset, ack, o);
            return;
        }
        let Some(txn) = state.manager.txn.as_mut() else {
            return;
        };
        if txn.decision.is_some() {
            return;
        }
        txn.decision = Some(choice == ClientChoice::Commit);
        self.maybe_end(state, o);
    }

    pub(crate) fn fetch_offset<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        self.send_request(
            state,
            RequestKey::OffsetFetch,
            self.group_coordinator,
            Msg::OffsetFetch(OffsetFetchRequest {
                require_stable: true,
            }),
            o,
        );
    }

    fn on_offset_fetch<A: Host>(
        &self,
        state: &mut ProducerState,
        r: OffsetFetchResponse,
        o: &mut Out<A>,
    ) {
        let Some(req) = state.manager.requests.get(&RequestKey::OffsetFetch) else {
            return;
        };
        match r.error {
            ErrorCode::None => {
                state.manager.requests.remove(&RequestKey::OffsetFetch);
                o.cancel_timer(Timer::RequestTimeout(RequestKey::OffsetFetch));
                state.next_input = r.offset;
                self.begin_next(state, o);
            }
            // KIP-447: wait until the pending offsets of a previous incarnation resolve.
            _ => o.send(req.dst, req.msg.clone()),
        }
    }

    /// The consumer-group loop's next transaction: the next input record, if any is left
    /// and the attempt bound allows.
    pub(crate) fn next_input<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        if state.next_input >= self.inputs || state.manager.attempts >= self.txns {
            state.manager.done = true;
            return;
        }
        self.begin_txn(state, state.next_input, o);
    }

    /// TV0/1: the partitions were added; the writes go out, then what was consumed.
    pub(crate) fn after_partitions_added<A: Host>(
        &self,
        state: &mut ProducerState,
        o: &mut Out<A>,
    ) {
        if !state.manager.txn.as_ref().is_some_and(|t| t.writes_issued) {
            self.issue_writes(state, o);
        }
        self.add_consumed(state, o);
    }

    pub(crate) fn send_offset_commit<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        let id = state.manager.identity();
        let txn = state.manager.txn.as_ref().expect("in a transaction");
        let req = TxnOffsetCommitRequest {
            txn: self.txn,
            producer: id,
            offset: txn.input + 1,
            tag: txn.tag,
        };
        self.send_request(
            state,
            RequestKey::TxnOffsetCommit,
            self.group_coordinator,
            Msg::TxnOffsetCommit(req),
            o,
        );
    }
}

/// What the client's timers wait for (see [`crate::protocol::wait`]).
impl Producer {
    /// What `timer` waits for: a request's answer from where it went (lost with a peer
    /// that is down, held while the peer parks it or verifies it), or the coordinator's
    /// view of the session's heartbeat.
    pub fn wait(&self, state: &ProducerState, timer: &Timer) -> Wait {
        match *timer {
            Timer::RequestTimeout(key) => match state.manager.request_destination(key) {
                Some(peer) => Wait::Reply(Reply {
                    peer,
                    answer: Answer::Any,
                    held: Some(Held::Request(key)),
                    down: Down::Lost,
                }),
                None => Wait::Always,
            },
            Timer::TxnHeartbeat => self.heartbeat_wait(state),
            _ => Wait::Always,
        }
    }

    /// Where the outstanding request `key` went, if one is outstanding.
    pub fn request_destination(&self, state: &ProducerState, key: RequestKey) -> Option<Id> {
        state.manager.request_destination(key)
    }
}
