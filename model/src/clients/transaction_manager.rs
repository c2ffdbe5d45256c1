//! Kafka's `org.apache.kafka.clients.producer.internals.TransactionManager` (4.0), the one
//! component every transactional client of the model has: the producer of either loop,
//! KIP-1310's `TransactionSession`, KIP-1289's `TransactionalShareAcknowledger` (inside the
//! Flink source reader), the Connect sink task, the 2PC writer and its committer.
//!
//! It keeps what `TransactionManager` keeps: the state (`currentState`), the producer id
//! and epoch (`producerIdAndEpoch`), the transaction in progress, the one
//! transaction-coordinator request in flight, the in-flight writes and their sequences
//! (`TxnPartitionMap`), and KIP-939's `PreparedTxnState`. Its operations are the
//! coordinator protocol: InitProducerId, AddPartitionsToTxn under TV0/1, the writes, EndTxn
//! (with the epoch the coordinator bumped under TV2), request timeouts and resends.
//!
//! One transaction-coordinator request is in flight at a time. EndTxn waits until every
//! write was answered (`flush_before_end_txn`, `TransactionManager.nextRequest`). A request
//! that times out is resent up to `request_retries` times with the same sequence (its
//! first copy may still arrive: the outcome is unknown); after that a write fails the
//! transaction (abortable) and a coordinator request fails the client (fatal).
//!
//! What a client does between transactions (which input it reads, what it acknowledges,
//! which identity its batches carry) is its role's ([`crate::clients`]); the
//! `TransactionManager` asks the role at the points where they differ.

use crate::clients::producer::{Producer, ProducerState};
use crate::coordinator::txn_state::TxnManagerState;
use crate::protocol::error::ErrorCode;
use crate::protocol::ghost::Ghost;
use crate::protocol::ids::*;
use crate::protocol::msg::*;
use crate::protocol::output::Host;
use crate::protocol::width::{Counter, Epoch, Offset};
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

/// The `TransactionManager`'s state.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TransactionManager {
    /// `TransactionManager` state.
    pub tm: TxnManagerState,
    /// Which start of the process this is.
    pub incarnation: Epoch,
    /// The producer id and epoch in use.
    pub identity: Option<ProducerIdAndEpoch>,
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
    /// KIP-939 `PreparedTxnState`: the producer id and epoch of the transaction this client
    /// prepared, or that `initTransactions(keepPreparedTxn=true)` found ongoing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prepared: Option<ProducerIdAndEpoch>,
    /// The connection its coordinator requests go out on: answers that come back on
    /// another (an earlier session's, a closed process's) are not its own.
    #[serde(default, skip_serializing_if = "Connection::is_default")]
    pub connection: Connection,
    /// `epochBumpRequired` (4.0's `clientSideEpochBumpRequired`): a TV0/1 client that met
    /// an abortable error bumps its epoch with InitProducerId once its abort is answered.
    /// Left out of traces when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub epoch_bump_required: bool,
}

impl TransactionManager {
    /// A `TransactionManager` of incarnation `incarnation` before InitProducerId is sent.
    pub(crate) fn new(incarnation: Epoch) -> TransactionManager {
        TransactionManager {
            tm: TxnManagerState::Initializing,
            incarnation,
            identity: None,
            attempts: 0,
            txn: None,
            coordinator: None,
            requests: BTreeMap::new(),
            seqs: BTreeMap::new(),
            done: false,
            transitions: Vec::new(),
            prepared: None,
            connection: Connection::default(),
            epoch_bump_required: false,
        }
    }

    /// Recorded rather than asserted: `legal_transitions` judges each move.
    pub(crate) fn set_tm(&mut self, to: TxnManagerState) {
        self.transitions.push((self.tm, to));
        self.tm = to;
    }

    /// The producer id and epoch, once InitProducerId was answered.
    pub(crate) fn identity(&self) -> ProducerIdAndEpoch {
        self.identity.expect("initialised")
    }

    /// Whether the coordinator request in flight is the request named `name`.
    pub(crate) fn awaits(&self, name: &str) -> bool {
        self.coordinator
            .as_ref()
            .is_some_and(|c| c.msg.name() == name)
    }

    /// A write failed for good: the transaction can only abort (ABORTABLE_ERROR).
    pub(crate) fn fail_txn(&mut self) {
        if let Some(txn) = self.txn.as_mut() {
            txn.failed = true;
            if self.tm == TxnManagerState::InTransaction {
                self.set_tm(TxnManagerState::AbortableError);
            }
        }
    }

    /// Whether a write of the transaction (a produce, an offset commit, a share
    /// acknowledgement) is unanswered.
    pub(crate) fn writes_pending(&self) -> bool {
        self.requests.keys().any(|k| {
            matches!(
                k,
                RequestKey::Produce(_)
                    | RequestKey::TxnOffsetCommit
                    | RequestKey::TxnShareAcknowledge
                    | RequestKey::TxnShareAcknowledgeOf(_)
            )
        })
    }

    /// Whether a produce is unanswered.
    pub(crate) fn produce_in_flight(&self) -> bool {
        self.requests
            .keys()
            .any(|k| matches!(k, RequestKey::Produce(_)))
    }

    /// Where the outstanding request `key` went, if one is outstanding.
    pub fn request_destination(&self, key: RequestKey) -> Option<Id> {
        match key {
            RequestKey::Coordinator => self.coordinator.as_ref().map(|r| r.dst),
            _ => self.requests.get(&key).map(|r| r.dst),
        }
    }
}

/// The `TransactionManager`'s operations, with the client's configuration.
impl Producer {
    pub(crate) fn fatal<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        state.manager.set_tm(TxnManagerState::FatalError);
        self.stop_heartbeat(o);
        if state.manager.coordinator.take().is_some() {
            o.cancel_timer(Timer::RequestTimeout(RequestKey::Coordinator));
        }
        for key in std::mem::take(&mut state.manager.requests).into_keys() {
            o.cancel_timer(Timer::RequestTimeout(key));
        }
    }

    pub(crate) fn send_coordinator<A: Host>(
        &self,
        state: &mut ProducerState,
        msg: Msg,
        o: &mut Out<A>,
    ) {
        o.send(self.txn_coordinator, msg.clone());
        o.set_timer(Timer::RequestTimeout(RequestKey::Coordinator), timeout());
        state.manager.coordinator = Some(Outstanding {
            dst: self.txn_coordinator,
            msg,
            retries_left: self.request_retries,
        });
    }

    pub(crate) fn send_request<A: Host>(
        &self,
        state: &mut ProducerState,
        key: RequestKey,
        dst: Id,
        msg: Msg,
        o: &mut Out<A>,
    ) {
        o.send(dst, msg.clone());
        o.set_timer(Timer::RequestTimeout(key), timeout());
        state.manager.requests.insert(
            key,
            Outstanding {
                dst,
                msg,
                retries_left: self.request_retries,
            },
        );
    }

    pub(crate) fn resend_coordinator<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        if let Some(req) = &state.manager.coordinator {
            o.send(req.dst, req.msg.clone());
        }
    }

    pub(crate) fn resolve_coordinator<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        state.manager.coordinator = None;
        o.cancel_timer(Timer::RequestTimeout(RequestKey::Coordinator));
    }

    pub(crate) fn on_init_producer_id<A: Host>(
        &self,
        state: &mut ProducerState,
        r: InitProducerIdResponse,
        o: &mut Out<A>,
    ) {
        match (r.error, r.producer) {
            (ErrorCode::None, Some(id)) => {
                self.resolve_coordinator(state, o);
                state.manager.identity = Some(id);
                state.manager.seqs.clear();
                self.session_identity_changed(state, o);
                if let Some(ongoing) = r.ongoing {
                    self.resume_prepared(state, ongoing);
                    return;
                }
                state.manager.set_tm(TxnManagerState::Ready);
                if std::mem::take(&mut state.manager.epoch_bump_required) {
                    // The bump's answer (`InitProducerIdHandler` with `isEpochBump`): on to
                    // the next transaction at the new epoch.
                    self.begin_next(state, o);
                } else {
                    self.after_init(state, o);
                }
            }
            (e, _) if e.is_retriable() => self.resend_coordinator(state, o),
            _ => self.fatal(state, o),
        }
    }

    /// `beginTransaction()` and the writes of the transaction processing `input`.
    pub(crate) fn begin_txn<A: Host>(
        &self,
        state: &mut ProducerState,
        input: Offset,
        o: &mut Out<A>,
    ) {
        let tag = Ghost::new(TxnTag {
            client: self.txn.0,
            incarnation: state.manager.incarnation,
            attempt: state.manager.attempts,
        });
        state.manager.attempts += 1;
        self.begin_attempt(state, input, tag, false, o);
    }

    /// `beginTransaction()` for attempt `tag`, whose output went out already when
    /// `writes_issued` (a Connect sink task's batch sent before its transaction began).
    pub(crate) fn begin_attempt<A: Host>(
        &self,
        state: &mut ProducerState,
        input: Offset,
        tag: Ghost<TxnTag>,
        writes_issued: bool,
        o: &mut Out<A>,
    ) {
        state.manager.set_tm(TxnManagerState::InTransaction);
        state.manager.txn = Some(CurrentTxn {
            tag,
            input,
            failed: false,
            decision: None,
            writes_issued,
            prepare: false,
        });
        self.start_heartbeat(o);
        self.txn_begun(state, o);
        if self.design.tv.bumps_epoch_per_txn() {
            if !writes_issued {
                self.issue_writes(state, o);
            }
            self.add_consumed(state, o);
            self.maybe_end(state, o);
        } else if !self.writes_output(state) {
            // Nothing to produce (the standalone acknowledger, or a record the application
            // RELEASEs or REJECTs): no partition to add.
            self.after_partitions_added(state, o);
        } else {
            let partitions = (0..self.partitions.len())
                .map(|i| TopicPartition::Output(PartitionIndex(i as u8)))
                .collect();
            let id = state.manager.identity();
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

    pub(crate) fn on_added<A: Host>(
        &self,
        state: &mut ProducerState,
        error: ErrorCode,
        o: &mut Out<A>,
        next: impl FnOnce(&Self, &mut ProducerState, &mut Out<A>),
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

    pub(crate) fn issue_writes<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        if !self.may_send_writes(state) {
            // The producer holds its batches until it has the session's identity.
            return;
        }
        let txn = state.manager.txn.as_mut().expect("in a transaction");
        txn.writes_issued = true;
        let (input, tag) = (txn.input, txn.tag);
        self.send_outputs(state, input, tag, o);
    }

    /// Sends one Produce of `record` to `partition`'s `leader` with the writer's identity
    /// and the partition's next sequence: the one place a sequence is taken.
    pub(crate) fn send_produce<A: Host>(
        &self,
        state: &mut ProducerState,
        partition: PartitionIndex,
        leader: Id,
        record: OutputRecord,
        o: &mut Out<A>,
    ) {
        let producer = self.write_identity(state);
        let seq = state.manager.seqs.entry(partition).or_insert(0);
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
    pub(crate) fn send_outputs<A: Host>(
        &self,
        state: &mut ProducerState,
        input: Offset,
        tag: Ghost<TxnTag>,
        o: &mut Out<A>,
    ) {
        if !self.writes_output(state) {
            return;
        }
        if let Some(outputs) = self.group_outputs(state) {
            self.send_group_outputs(state, outputs, tag, o);
            return;
        }
        let record = OutputRecord { input, tag };
        let only = self.output_partition(state);
        for (i, leader) in self.partitions.iter().enumerate() {
            if only.is_some_and(|k| k != i) {
                continue;
            }
            self.send_produce(state, PartitionIndex(i as u8), *leader, record, o);
        }
    }

    pub(crate) fn on_write_response<A: Host>(
        &self,
        state: &mut ProducerState,
        key: RequestKey,
        error: ErrorCode,
        o: &mut Out<A>,
    ) {
        match error {
            ErrorCode::None | ErrorCode::DuplicateSequenceNumber => {
                state.manager.requests.remove(&key);
                o.cancel_timer(Timer::RequestTimeout(key));
            }
            ErrorCode::ProducerFenced => {
                self.fatal(state, o);
                return;
            }
            e if key == RequestKey::TxnOffsetCommit && self.offset_commit_error_is_fatal(e) => {
                self.fatal(state, o);
                return;
            }
            e if e.is_retriable() => {
                let req = &state.manager.requests[&key];
                o.send(req.dst, req.msg.clone());
                return;
            }
            _ => {
                state.manager.requests.remove(&key);
                o.cancel_timer(Timer::RequestTimeout(key));
                self.abortable_error(state);
            }
        }
        self.write_answered(state, o);
        self.maybe_end(state, o);
    }

    /// `maybeTransitionToErrorState` for an abortable error: the transaction can only abort
    /// and, under TV0/1 unless the client is completing already, the epoch is to be bumped
    /// after the abort (`needToTriggerEpochBumpFromClient`: the coordinator bumps it itself
    /// at every TV2 EndTxn).
    fn abortable_error(&self, state: &mut ProducerState) {
        let completing = matches!(
            state.manager.tm,
            TxnManagerState::CommittingTransaction | TxnManagerState::AbortingTransaction
        );
        if !self.design.tv.bumps_epoch_per_txn() && !completing && state.manager.txn.is_some() {
            state.manager.epoch_bump_required = true;
        }
        state.manager.fail_txn();
    }

    /// `TxnOffsetCommitHandler.handleResponse`: INVALID_PRODUCER_EPOCH is fatal
    /// (`isFatalException`), and so is every code the handler does not list ("Unexpected
    /// error in TxnOffsetCommitResponse"), which is what a failed KIP-890 verification's
    /// INVALID_TXN_STATE is to a client before TV2. A TV2 client's TxnOffsetCommit (v5)
    /// gets TRANSACTION_ABORTABLE for it instead (`AddPartitionsToTxnManager` converts it
    /// only for older versions), an abortable error, as a Produce's INVALID_TXN_STATE is
    /// (`TransactionManager.maybeTransitionToErrorState`).
    fn offset_commit_error_is_fatal(&self, error: ErrorCode) -> bool {
        match error {
            ErrorCode::InvalidProducerEpoch => true,
            ErrorCode::InvalidTxnState => !self.design.tv.bumps_epoch_per_txn(),
            _ => false,
        }
    }

    /// Sends EndTxn when the transaction may end: the application decided (or a write
    /// failed) and, with `flush_before_end_txn`, no write is unanswered.
    pub(crate) fn maybe_end<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        let Some(txn) = state.manager.txn.as_ref() else {
            return;
        };
        if state.manager.coordinator.is_some() || !txn.writes_issued {
            return;
        }
        if (self.flushes_before_end() || txn.prepare) && state.manager.writes_pending() {
            return;
        }
        if txn.prepare && !txn.failed && txn.decision.is_none() {
            // `prepareTransaction()` has flushed: PREPARED_TRANSACTION, nothing sent. The
            // coordinator still sees an ONGOING transaction (KIP-939 keeps no server state
            // for "prepared").
            if state.manager.tm == TxnManagerState::InTransaction {
                state.manager.set_tm(TxnManagerState::PreparedTransaction);
                state.manager.prepared = state.manager.identity;
                self.stop_heartbeat(o);
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
        state.manager.set_tm(next);
        self.stop_heartbeat(o);
        let id = state.manager.identity();
        self.send_coordinator(
            state,
            Msg::EndTxn(EndTxnRequest {
                txn: self.txn,
                producer: id,
                commit,
                connection: state.manager.connection,
            }),
            o,
        );
    }

    pub(crate) fn on_end_txn<A: Host>(
        &self,
        state: &mut ProducerState,
        r: EndTxnResponse,
        o: &mut Out<A>,
    ) {
        let Some(Outstanding {
            msg: Msg::EndTxn(req),
            ..
        }) = &state.manager.coordinator
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
                    self.took_identity(state, id, o);
                }
                state.manager.txn = None;
                state.manager.prepared = None;
                self.txn_ended(state, o);
                if commit {
                    state.next_input += 1;
                }
                if state.manager.epoch_bump_required {
                    self.bump_epoch(state, o);
                    return;
                }
                state.manager.set_tm(TxnManagerState::Ready);
                self.begin_next(state, o);
            }
            e if e.is_retriable() => self.resend_coordinator(state, o),
            _ => self.fatal(state, o),
        }
    }

    /// `completeTransaction` with `epochBumpRequired`: INITIALIZING, and the InitProducerId
    /// that `beginCompletingTransaction` queued behind the EndTxn, with the pair the client
    /// holds (`initializeTransactions(producerIdAndEpoch)`).
    fn bump_epoch<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        state.manager.set_tm(TxnManagerState::Initializing);
        let init = InitProducerIdRequest {
            expected: state.manager.identity,
            connection: state.manager.connection,
            ..InitProducerIdRequest::plain(self.txn)
        };
        self.send_coordinator(state, Msg::InitProducerId(init), o);
    }

    /// A request other than the share consumer's timed out: resend it, or give up on it.
    pub(crate) fn on_request_timeout<A: Host>(
        &self,
        state: &mut ProducerState,
        key: RequestKey,
        o: &mut Out<A>,
    ) {
        let slot = match key {
            RequestKey::Coordinator => state.manager.coordinator.as_mut(),
            _ => state.manager.requests.get_mut(&key),
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
                state.manager.requests.remove(&key);
                self.abortable_error(state);
                self.maybe_end(state, o);
            }
        }
    }
}

/// The exhaustive checker ignores durations; the simulator gives the request timeout.
pub(crate) fn timeout() -> std::ops::Range<Duration> {
    Duration::ZERO..Duration::ZERO
}
