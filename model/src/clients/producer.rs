//! The transactional producer running the consume-transform-produce loop with a consumer
//! group (the `consumer-offsets` baseline): the client `TransactionManager`.
//!
//! Each incarnation calls `initTransactions()` (InitProducerId), fetches the group's
//! committed offset with `RequireStable`, then for each input record begins a
//! transaction, produces one output record to every output partition, commits the next
//! offset with `sendOffsetsToTransaction`, and commits or aborts by client choice. After
//! an abort it reprocesses the same input.
//!
//! Under TV0/1 the client adds partitions itself (AddPartitionsToTxn before the first
//! produce, AddOffsetsToTxn before TxnOffsetCommit); under TV2 it skips both and the
//! partition leaders add implicitly. One transaction-coordinator request is in flight at a
//! time. EndTxn waits until every produce and offset commit was answered
//! (`flush_before_end_txn`, `TransactionManager.nextRequest`). A request that times out
//! is resent up to `request_retries` times with the same sequence (its first copy may
//! still arrive: the outcome is unknown); after that a write fails the transaction
//! (abortable) and a coordinator request fails the client (fatal).
//!
//! Clients are volatile. The storage holds only an incarnation counter, a modelling device
//! that numbers restarts so that ghost tags of different incarnations differ.

use crate::clients::producer_share::{ShareClientState, ShareSource, STALL};
use crate::clients::share_sink_task::SinkTaskState;
use crate::clients::transaction_session::SessionProducerState;
use crate::coordinator::txn_state::TxnManagerState;
use crate::design::Design;
use crate::protocol::error::ErrorCode;
use crate::protocol::ghost::Ghost;
use crate::protocol::ids::*;
use crate::protocol::msg::*;
use crate::protocol::wait::{Answer, Down, Held, Reply, Wait};
use crate::protocol::width::{Counter, Epoch, Offset};
use crate::world::node::{Node, NodeStorage};
use serde::{Deserialize, Serialize};
use stateright::actor::{Id, Out};
use std::collections::BTreeMap;
use std::time::Duration;

/// A request the client waits on, with its resends left.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Outstanding {
    /// Where it went.
    pub dst: Id,
    /// The request.
    pub msg: Msg,
    /// Resends left after a request timeout.
    pub retries_left: u8,
}

/// The transaction the client is in.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct CurrentTxn {
    /// Ghost: which attempt this is.
    pub tag: Ghost<TxnTag>,
    /// The input record it processes.
    pub input: Offset,
    /// A write failed: the transaction can only abort.
    pub failed: bool,
    /// The application decided (commit = true).
    pub decision: Option<bool>,
    /// Writes have been issued (TV0/1: after the partitions were added).
    pub writes_issued: bool,
    /// KIP-939 `prepareTransaction()` was called: once every write is answered the client
    /// moves to PREPARED_TRANSACTION instead of ending the transaction.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prepare: bool,
}

/// The producer's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProducerState {
    /// `TransactionManager` state.
    pub tm: TxnManagerState,
    /// Which start of the process this is.
    pub incarnation: Epoch,
    /// The producer id and epoch in use.
    pub identity: Option<ProducerIdAndEpoch>,
    /// The next input record to process (from the committed offset).
    pub next_input: Offset,
    /// Transactions begun by this incarnation.
    pub attempts: u8,
    /// The transaction in progress.
    pub txn: Option<CurrentTxn>,
    /// The in-flight transaction-coordinator request (one at a time).
    pub coordinator: Option<Outstanding>,
    /// In-flight writes and the OffsetFetch, by key.
    pub requests: BTreeMap<RequestKey, Outstanding>,
    /// Next sequence per partition for the current epoch.
    pub seqs: BTreeMap<PartitionIndex, Counter>,
    /// All work is done (every input processed, or the attempt bound reached).
    pub done: bool,
    /// The `TransactionManager` moves the current handler made, in order; drained by the
    /// `System` after every handler, so every stored state has none.
    #[serde(skip)]
    pub transitions: Vec<(TxnManagerState, TxnManagerState)>,
    /// KIP-1289 mode: the share-consumer half (absent for the consumer-group loop, so
    /// transaction scenarios serialise as before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<ShareClientState>,
    /// KIP-939 `PreparedTxnState`: the producer id and epoch of the transaction this client
    /// prepared, or that `initTransactions(keepPreparedTxn=true)` found ongoing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prepared: Option<ProducerIdAndEpoch>,
    /// KIP-1310: the producer role's state when the client runs on a `TransactionSession`
    /// (absent otherwise, so other scenarios serialise as before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionProducerState>,
    /// KIP-1302: the Connect sink task's poll-thread state when the client is a
    /// `WorkerShareSinkTask` (absent otherwise, so other scenarios serialise as before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sink: Option<SinkTaskState>,
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
    /// KIP-1289 mode: consume from this share group and acknowledge in the transaction.
    pub share: Option<ShareSource>,
    /// KIP-1310: the client is a `TransactionSession` with a producer and the share
    /// consumer on it ([`crate::clients::transaction_session`]).
    pub session: bool,
    /// KIP-1302: the session client is Connect's `WorkerShareSinkTask`, whose poll thread
    /// goes on while its commit thread commits ([`crate::clients::share_sink_task`]).
    pub sink: bool,
}

impl Producer {
    /// Starts an incarnation: `initTransactions()`.
    pub fn on_start(&self, incarnation: Option<Epoch>, o: &mut Out<Node>) -> ProducerState {
        let incarnation = incarnation.map_or(0, |i| i + 1);
        o.save(NodeStorage::Producer { incarnation });
        self.start(incarnation, o)
    }

    /// `initTransactions()` for incarnation `incarnation`, whoever keeps the number (the
    /// producer's own storage, or the process that embeds this `TransactionManager`).
    pub(crate) fn start(&self, incarnation: Epoch, o: &mut Out<Node>) -> ProducerState {
        self.start_with(incarnation, InitProducerIdRequest::plain(self.txn), o)
    }

    /// `initTransactions()` with the InitProducerId `init` (KIP-939's `Enable2Pc` and
    /// `KeepPreparedTxn` set by the caller).
    pub(crate) fn start_with(
        &self,
        incarnation: Epoch,
        init: InitProducerIdRequest,
        o: &mut Out<Node>,
    ) -> ProducerState {
        let mut state = ProducerState {
            tm: TxnManagerState::Initializing,
            incarnation,
            identity: None,
            next_input: 0,
            attempts: 0,
            txn: None,
            coordinator: None,
            requests: BTreeMap::new(),
            seqs: BTreeMap::new(),
            done: false,
            transitions: Vec::new(),
            share: self.share.map(|src| ShareClientState {
                stalls_left: src.stalls,
                ..ShareClientState::default()
            }),
            prepared: None,
            session: self.session.then(SessionProducerState::default),
            sink: self.sink.then(SinkTaskState::default),
        };
        self.send_coordinator(&mut state, Msg::InitProducerId(init), o);
        state
    }

    /// Handles responses.
    pub fn on_msg(&self, state: &mut ProducerState, src: Id, msg: Msg, o: &mut Out<Node>) {
        if state.tm == TxnManagerState::FatalError {
            return;
        }
        match msg {
            Msg::InitProducerIdResponse(r) if self.awaits(state, "InitProducerId") => {
                self.on_init_producer_id(state, r, o)
            }
            Msg::AddPartitionsToTxnResponse(r)
                if r.mode == AddPartitionsMode::Client
                    && self.awaits(state, "AddPartitionsToTxn") =>
            {
                self.on_added(state, r.error, o, |p, s, o| p.after_partitions_added(s, o))
            }
            Msg::AddShareAcksToTxnResponse(r) if self.awaits(state, "AddShareAcksToTxn") => self
                .on_added(state, r.error, o, |p, s, o| {
                    p.send_txn_share_ack(s, o);
                    p.maybe_end(s, o);
                }),
            Msg::ShareFetchResponse(r) => self.on_share_fetch_response(state, src, r, o),
            Msg::TxnShareAcknowledgeResponse(r) if self.awaits_txn_share_ack(state, &r) => {
                self.on_write_response(state, RequestKey::TxnShareAcknowledge, r.error, o)
            }
            Msg::AddOffsetsToTxnResponse(r) if self.awaits(state, "AddOffsetsToTxn") => self
                .on_added(state, r.error, o, |p, s, o| {
                    p.send_offset_commit(s, o);
                    p.maybe_end(s, o);
                }),
            Msg::EndTxnResponse(r) if self.awaits(state, "EndTxn") => self.on_end_txn(state, r, o),
            Msg::TxnHeartbeatResponse(r) => self.on_heartbeat_response(state, r, o),
            Msg::OffsetFetchResponse(r) => self.on_offset_fetch(state, r, o),
            Msg::ProduceResponse(r) => {
                let key = RequestKey::Produce(r.partition);
                let matches = matches!(
                    state.requests.get(&key).map(|q| &q.msg),
                    Some(Msg::Produce(p)) if p.seq == r.seq && p.producer == r.producer
                );
                if matches {
                    self.on_write_response(state, key, r.error, o);
                }
            }
            Msg::TxnOffsetCommitResponse(r) => {
                let key = RequestKey::TxnOffsetCommit;
                let matches = matches!(
                    state.requests.get(&key).map(|q| &q.msg),
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
    pub fn on_timeout(&self, state: &mut ProducerState, timer: Timer, o: &mut Out<Node>) {
        if timer == Timer::TxnHeartbeat {
            self.on_heartbeat_timer(state, o);
            return;
        }
        let Timer::RequestTimeout(key) = timer else {
            return;
        };
        if state.tm == TxnManagerState::FatalError {
            return;
        }
        if key == RequestKey::Share {
            // `poll` returned nothing: the loop ends (the fetch may still be parked).
            if state.requests.remove(&key).is_some() && !self.poll_found_nothing(state, o) {
                if self.sink {
                    self.sink_polls_ended(state);
                } else {
                    state.done = true;
                }
            }
            return;
        }
        let slot = match key {
            RequestKey::Coordinator => state.coordinator.as_mut(),
            _ => state.requests.get_mut(&key),
        };
        let Some(req) = slot else {
            return;
        };
        if req.retries_left > 0 {
            req.retries_left -= 1;
            o.send(req.dst, req.msg.clone());
            o.set_timer(Timer::RequestTimeout(key), timeout());
            return;
        }
        match key {
            // `max.block.ms` ran out: the application gives up on this client.
            RequestKey::Coordinator => self.fatal(state, o),
            RequestKey::OffsetFetch => self.fatal(state, o),
            // The batch expired (`delivery.timeout.ms`): the transaction must abort.
            _ => {
                state.requests.remove(&key);
                self.fail_txn(state);
                self.maybe_end(state, o);
            }
        }
    }

    /// The application's decision: commit or abort.
    pub fn on_choice(&self, state: &mut ProducerState, choice: ClientChoice, o: &mut Out<Node>) {
        if choice == ClientChoice::Stall {
            self.on_stall(state, o);
            return;
        }
        if choice == ClientChoice::Handoff {
            self.on_handoff(state, o);
            return;
        }
        if state.tm == TxnManagerState::FatalError {
            // A fatal error (a heartbeat answered PRODUCER_FENCED) came while the
            // application was deciding: it gets the exception, not a commit.
            return;
        }
        let Some(txn) = state.txn.as_mut() else {
            return;
        };
        if txn.decision.is_some() {
            return;
        }
        txn.decision = Some(choice == ClientChoice::Commit);
        self.maybe_end(state, o);
    }

    fn awaits(&self, state: &ProducerState, name: &str) -> bool {
        state
            .coordinator
            .as_ref()
            .is_some_and(|c| c.msg.name() == name)
    }

    /// Recorded rather than asserted: `legal_transitions` judges each move.
    pub(crate) fn set_tm(state: &mut ProducerState, to: TxnManagerState) {
        state.transitions.push((state.tm, to));
        state.tm = to;
    }

    pub(crate) fn fatal(&self, state: &mut ProducerState, o: &mut Out<Node>) {
        Self::set_tm(state, TxnManagerState::FatalError);
        self.stop_heartbeat(state, o);
        if state.coordinator.take().is_some() {
            o.cancel_timer(Timer::RequestTimeout(RequestKey::Coordinator));
        }
        for key in std::mem::take(&mut state.requests).into_keys() {
            o.cancel_timer(Timer::RequestTimeout(key));
        }
    }

    fn fail_txn(&self, state: &mut ProducerState) {
        if let Some(txn) = state.txn.as_mut() {
            txn.failed = true;
            if state.tm == TxnManagerState::InTransaction {
                Self::set_tm(state, TxnManagerState::AbortableError);
            }
        }
    }

    pub(crate) fn send_coordinator(&self, state: &mut ProducerState, msg: Msg, o: &mut Out<Node>) {
        o.send(self.txn_coordinator, msg.clone());
        o.set_timer(Timer::RequestTimeout(RequestKey::Coordinator), timeout());
        state.coordinator = Some(Outstanding {
            dst: self.txn_coordinator,
            msg,
            retries_left: self.request_retries,
        });
    }

    pub(crate) fn send_request(
        &self,
        state: &mut ProducerState,
        key: RequestKey,
        dst: Id,
        msg: Msg,
        o: &mut Out<Node>,
    ) {
        o.send(dst, msg.clone());
        o.set_timer(Timer::RequestTimeout(key), timeout());
        state.requests.insert(
            key,
            Outstanding {
                dst,
                msg,
                retries_left: self.request_retries,
            },
        );
    }

    fn resend_coordinator(&self, state: &mut ProducerState, o: &mut Out<Node>) {
        if let Some(req) = &state.coordinator {
            o.send(req.dst, req.msg.clone());
        }
    }

    fn resolve_coordinator(&self, state: &mut ProducerState, o: &mut Out<Node>) {
        state.coordinator = None;
        o.cancel_timer(Timer::RequestTimeout(RequestKey::Coordinator));
    }

    pub(crate) fn identity(&self, state: &ProducerState) -> ProducerIdAndEpoch {
        state.identity.expect("initialised")
    }

    fn on_init_producer_id(
        &self,
        state: &mut ProducerState,
        r: InitProducerIdResponse,
        o: &mut Out<Node>,
    ) {
        match (r.error, r.producer) {
            (ErrorCode::None, Some(id)) => {
                self.resolve_coordinator(state, o);
                state.identity = Some(id);
                state.seqs.clear();
                self.session_identity_changed(state, o);
                if let Some(ongoing) = r.ongoing {
                    self.resume_prepared(state, ongoing);
                    return;
                }
                Self::set_tm(state, TxnManagerState::Ready);
                if self.share.is_some() {
                    // The share group keeps the position: nothing to fetch first.
                    self.begin_next(state, o);
                } else {
                    self.fetch_offset(state, o);
                }
            }
            (e, _) if e.is_retriable() => self.resend_coordinator(state, o),
            _ => self.fatal(state, o),
        }
    }

    fn fetch_offset(&self, state: &mut ProducerState, o: &mut Out<Node>) {
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

    fn on_offset_fetch(
        &self,
        state: &mut ProducerState,
        r: OffsetFetchResponse,
        o: &mut Out<Node>,
    ) {
        let Some(req) = state.requests.get(&RequestKey::OffsetFetch) else {
            return;
        };
        match r.error {
            ErrorCode::None => {
                state.requests.remove(&RequestKey::OffsetFetch);
                o.cancel_timer(Timer::RequestTimeout(RequestKey::OffsetFetch));
                state.next_input = r.offset;
                self.begin_next(state, o);
            }
            // KIP-447: wait until the pending offsets of a previous incarnation resolve.
            _ => o.send(req.dst, req.msg.clone()),
        }
    }

    fn begin_next(&self, state: &mut ProducerState, o: &mut Out<Node>) {
        if self.is_acknowledger() {
            // Idle until the application calls `commitAcknowledgements` again.
            state.done = true;
            return;
        }
        if self.sink {
            // A batch held for this transaction counts as begun: it was polled and put.
            self.sink_next(state, o);
            return;
        }
        let inputs_left = self.share.is_some() || state.next_input < self.inputs;
        if !inputs_left || state.attempts >= self.txns {
            state.done = true;
            return;
        }
        if self.share.is_some() {
            self.poll(state, o);
            return;
        }
        self.begin_txn(state, state.next_input, o);
    }

    /// `beginTransaction()` and the writes of the transaction processing `input`.
    pub(crate) fn begin_txn(&self, state: &mut ProducerState, input: Offset, o: &mut Out<Node>) {
        let tag = Ghost::new(TxnTag {
            client: self.txn.0,
            incarnation: state.incarnation,
            attempt: state.attempts,
        });
        state.attempts += 1;
        self.begin_attempt(state, input, tag, false, o);
    }

    /// `beginTransaction()` for attempt `tag`, whose output went out already when
    /// `writes_issued` (a Connect sink task's batch sent before its transaction began).
    pub(crate) fn begin_attempt(
        &self,
        state: &mut ProducerState,
        input: Offset,
        tag: Ghost<TxnTag>,
        writes_issued: bool,
        o: &mut Out<Node>,
    ) {
        Self::set_tm(state, TxnManagerState::InTransaction);
        state.txn = Some(CurrentTxn {
            tag,
            input,
            failed: false,
            decision: None,
            writes_issued,
            prepare: false,
        });
        self.start_heartbeat(state, o);
        if self.sink {
            // The poll thread goes on once the batch is the commit thread's.
            self.sink_poll_again(state, o);
        }
        if self.design.tv.bumps_epoch_per_txn() {
            if !writes_issued {
                self.issue_writes(state, o);
            }
            if self.share.is_some() {
                // The seed's client adds `__share_group_state` itself under every
                // transaction version (it defines no implicit add for it).
                self.send_add_share_acks(state, o);
            } else {
                self.send_offset_commit(state, o);
            }
            self.maybe_end(state, o);
        } else if self.partitions.is_empty() {
            // Nothing to produce (the standalone acknowledger): no partition to add.
            self.after_partitions_added(state, o);
        } else {
            let partitions = (0..self.partitions.len())
                .map(|i| TopicPartition::Output(PartitionIndex(i as u8)))
                .collect();
            let id = self.identity(state);
            self.send_coordinator(
                state,
                Msg::AddPartitionsToTxn(AddPartitionsToTxnRequest {
                    txn: self.txn,
                    producer: id,
                    partitions,
                    mode: AddPartitionsMode::Client,
                }),
                o,
            );
        }
    }

    fn on_added(
        &self,
        state: &mut ProducerState,
        error: ErrorCode,
        o: &mut Out<Node>,
        next: impl FnOnce(&Self, &mut ProducerState, &mut Out<Node>),
    ) {
        match error {
            ErrorCode::None => {
                self.resolve_coordinator(state, o);
                next(self, state, o);
            }
            e if e.is_retriable() => self.resend_coordinator(state, o),
            _ => self.fatal(state, o),
        }
    }

    fn after_partitions_added(&self, state: &mut ProducerState, o: &mut Out<Node>) {
        if !state.txn.as_ref().is_some_and(|t| t.writes_issued) {
            self.issue_writes(state, o);
        }
        if self.share.is_some() {
            self.send_add_share_acks(state, o);
            return;
        }
        let id = self.identity(state);
        self.send_coordinator(
            state,
            Msg::AddOffsetsToTxn(AddOffsetsToTxnRequest {
                txn: self.txn,
                producer: id,
            }),
            o,
        );
    }

    pub(crate) fn issue_writes(&self, state: &mut ProducerState, o: &mut Out<Node>) {
        if !self.may_send_writes(state) {
            // The producer holds its batches until it has the session's identity.
            return;
        }
        let txn = state.txn.as_mut().expect("in a transaction");
        txn.writes_issued = true;
        let (input, tag) = (txn.input, txn.tag);
        self.send_outputs(state, input, tag, o);
    }

    /// Sends one Produce of `record` to `partition`'s `leader` with the writer's identity
    /// and the partition's next sequence: the one place a sequence is taken.
    pub(crate) fn send_produce(
        &self,
        state: &mut ProducerState,
        partition: PartitionIndex,
        leader: Id,
        record: OutputRecord,
        o: &mut Out<Node>,
    ) {
        let producer = self.write_identity(state);
        let seq = state.seqs.entry(partition).or_insert(0);
        let req = ProduceRequest {
            txn: self.txn,
            producer,
            seq: *seq,
            partition,
            record,
        };
        *seq += 1;
        self.send_request(
            state,
            RequestKey::Produce(partition),
            leader,
            Msg::Produce(req),
            o,
        );
    }

    /// `producer.send` of the output derived from `input` to every output partition, for
    /// attempt `tag`, with the identity the producer has.
    pub(crate) fn send_outputs(
        &self,
        state: &mut ProducerState,
        input: Offset,
        tag: Ghost<TxnTag>,
        o: &mut Out<Node>,
    ) {
        let record = OutputRecord { input, tag };
        let only = self.output_partition(state);
        for (i, leader) in self.partitions.iter().enumerate() {
            if only.is_some_and(|k| k != i) {
                continue;
            }
            self.send_produce(state, PartitionIndex(i as u8), *leader, record, o);
        }
    }

    fn send_offset_commit(&self, state: &mut ProducerState, o: &mut Out<Node>) {
        let id = self.identity(state);
        let txn = state.txn.as_ref().expect("in a transaction");
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

    fn on_write_response(
        &self,
        state: &mut ProducerState,
        key: RequestKey,
        error: ErrorCode,
        o: &mut Out<Node>,
    ) {
        match error {
            ErrorCode::None | ErrorCode::DuplicateSequenceNumber => {
                state.requests.remove(&key);
                o.cancel_timer(Timer::RequestTimeout(key));
            }
            ErrorCode::ProducerFenced => {
                self.fatal(state, o);
                return;
            }
            e if e.is_retriable() => {
                let req = &state.requests[&key];
                o.send(req.dst, req.msg.clone());
                return;
            }
            _ => {
                state.requests.remove(&key);
                o.cancel_timer(Timer::RequestTimeout(key));
                self.fail_txn(state);
            }
        }
        self.session_after_write(state, o);
        self.sink_send_held(state, o);
        self.maybe_end(state, o);
    }

    /// Sends EndTxn when the transaction may end: the application decided (or a write
    /// failed) and, with `flush_before_end_txn`, no write is unanswered.
    pub(crate) fn maybe_end(&self, state: &mut ProducerState, o: &mut Out<Node>) {
        let Some(txn) = state.txn.as_ref() else {
            return;
        };
        if state.coordinator.is_some() || !txn.writes_issued {
            return;
        }
        let writes_pending = state.requests.keys().any(|k| {
            matches!(
                k,
                RequestKey::Produce(_)
                    | RequestKey::TxnOffsetCommit
                    | RequestKey::TxnShareAcknowledge
            )
        });
        if (self.flushes_before_end(state) || txn.prepare) && writes_pending {
            return;
        }
        if txn.prepare && !txn.failed && txn.decision.is_none() {
            // `prepareTransaction()` has flushed: PREPARED_TRANSACTION, nothing sent. The
            // coordinator still sees an ONGOING transaction (KIP-939 keeps no server state
            // for "prepared").
            if state.tm == TxnManagerState::InTransaction {
                Self::set_tm(state, TxnManagerState::PreparedTransaction);
                state.prepared = state.identity;
                self.stop_heartbeat(state, o);
            }
            return;
        }
        let commit = match (txn.failed, txn.decision) {
            (true, _) => false,
            (false, Some(d)) => d,
            (false, None) => {
                o.choose_random("end", vec![ClientChoice::Commit, ClientChoice::Abort]);
                return;
            }
        };
        o.remove_random("end");
        let next = if commit {
            TxnManagerState::CommittingTransaction
        } else {
            TxnManagerState::AbortingTransaction
        };
        Self::set_tm(state, next);
        self.stop_heartbeat(state, o);
        let id = self.identity(state);
        self.send_coordinator(
            state,
            Msg::EndTxn(EndTxnRequest {
                txn: self.txn,
                producer: id,
                commit,
            }),
            o,
        );
    }

    fn on_end_txn(&self, state: &mut ProducerState, r: EndTxnResponse, o: &mut Out<Node>) {
        let Some(Outstanding {
            msg: Msg::EndTxn(req),
            ..
        }) = &state.coordinator
        else {
            return;
        };
        if req.producer != r.request_producer || req.commit != r.commit {
            return;
        }
        let commit = req.commit;
        match r.error {
            ErrorCode::None => {
                self.resolve_coordinator(state, o);
                if let Some(id) = r.producer {
                    // On a session the sequences are the producer's: they reset when it
                    // takes the new identity.
                    if Some(id) != state.identity && state.session.is_none() {
                        state.seqs.clear();
                    }
                    state.identity = Some(id);
                    self.session_identity_changed(state, o);
                }
                Self::set_tm(state, TxnManagerState::Ready);
                state.txn = None;
                state.prepared = None;
                if let Some(sh) = state.share.as_mut() {
                    sh.fetched = None;
                    sh.acks.clear();
                    sh.stalled = false;
                    o.choose_random(STALL, Vec::new());
                }
                if commit {
                    state.next_input += 1;
                }
                self.begin_next(state, o);
            }
            e if e.is_retriable() => self.resend_coordinator(state, o),
            _ => self.fatal(state, o),
        }
    }
}

fn timeout() -> std::ops::Range<Duration> {
    Duration::ZERO..Duration::ZERO
}

/// What the client's timers wait for (see [`crate::protocol::wait`]).
impl Producer {
    /// What `timer` waits for: a request's answer from where it went (lost with a peer
    /// that is down, held while the peer parks it or verifies it), or the coordinator's
    /// view of the session's heartbeat.
    pub fn wait(&self, state: &ProducerState, timer: &Timer) -> Wait {
        match *timer {
            Timer::RequestTimeout(key) => match self.request_destination(state, key) {
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
        match key {
            RequestKey::Coordinator => state.coordinator.as_ref().map(|r| r.dst),
            _ => state.requests.get(&key).map(|r| r.dst),
        }
    }
}
