//! The transaction coordinator: leader of the `__transaction_state` partition.
//!
//! It owns `TransactionMetadata` per transactional id, moves it along Kafka's
//! `TransactionState` table, allocates producer ids and bumps epochs (InitProducerId
//! fencing; TV2's bump on every EndTxn), adds partitions (AddPartitionsToTxn from TV0/1
//! clients, AddOffsetsToTxn, and the implicit add and verification that partition leaders
//! ask for under KIP-890), decides commit or abort (EndTxn), writes the decision to every
//! participant (WriteTxnMarkers) and completes the transaction when all have answered.
//! An ongoing transaction that outlives its timeout is fenced and aborted.
//!
//! Durable state is the compacted `__transaction_state` log: the latest
//! `TransactionLogValue` per transactional id. A log append and the transition it records
//! happen in one step (the model's writes are acks=all and do not fail), so the transient
//! `pendingState` is never observable except as `PrepareEpochFence`, which Kafka never
//! completes either. A restart is a coordinator failover: the coordinator epoch moves on,
//! PREPARE_* transactions have their markers re-sent, ONGOING ones wait for the client or
//! the timeout (`TransactionStateManager.loadTransactionsForTxnTopicPartition`).

use crate::coordinator::metadata_cache::MetadataCache;
use crate::coordinator::txn_state::TransactionState;
use crate::design::Design;
use crate::protocol::error::ErrorCode;
use crate::protocol::ids::*;
use crate::protocol::msg::*;
use crate::protocol::output::{Host, Saves};
use crate::protocol::txn_share_msg::{AddShareAcksToTxnRequest, AddShareAcksToTxnResponse};
use crate::protocol::wait::{self, Answer, Down, Duty, Held, Wait};
use serde::{Deserialize, Serialize};
use stateright::actor::{Command, Id, Out};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// `TransactionMetadata` (what `TransactionLogValue` persists).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TransactionMetadata {
    /// The producer id.
    pub pid: ProducerId,
    /// The current epoch.
    pub epoch: ProducerEpoch,
    /// The epoch before the last bump (TV2 recognises retried EndTxn by it).
    pub last_epoch: Option<ProducerEpoch>,
    /// The state.
    pub state: TransactionState,
    /// `topicPartitions`: the participants of the ongoing transaction.
    pub partitions: BTreeSet<TopicPartition>,
    /// KIP-939: the client enabled 2PC (Kafka stores `txnTimeoutMs = Int.MaxValue`), so
    /// the transaction timeout never aborts this transactional id's transactions.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub two_phase: bool,
    /// KIP-939: the pair the ongoing transaction was begun with, when `KeepPreparedTxn`
    /// kept it across a new incarnation's epoch bump (KIP-939's log keeps both pairs), so
    /// that a retried InitProducerId returns it again. Cleared when the transaction ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<ProducerIdAndEpoch>,
}

impl TransactionMetadata {
    pub(crate) fn identity(&self) -> ProducerIdAndEpoch {
        ProducerIdAndEpoch {
            pid: self.pid,
            epoch: self.epoch,
        }
    }
}

/// Markers sent and not yet answered, for one transaction.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PendingMarkers {
    /// Producer id and the markers' epoch.
    pub producer: ProducerIdAndEpoch,
    /// COMMIT or ABORT.
    pub commit: bool,
    /// Partitions that have not answered.
    pub partitions: BTreeSet<TopicPartition>,
    /// Resends left; `None` without limit (Kafka). Written as the count when bounded, so
    /// a trace recorded with bounded resends keeps its digests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries_left: Option<u8>,
}

impl PendingMarkers {
    /// Whether a resend is left (always, unbounded).
    fn may_resend(&self) -> bool {
        self.retries_left != Some(0)
    }
}

/// The coordinator's durable log (compacted): what a new leader loads.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TxnLog {
    /// The coordinator epoch of the last leader that loaded it.
    pub coordinator_epoch: CoordinatorEpoch,
    /// The next producer id to allocate (Kafka allocates blocks from the controller).
    pub next_pid: ProducerId,
    /// The latest metadata per transactional id.
    pub txns: BTreeMap<TransactionalId, TransactionMetadata>,
}

/// The coordinator's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TxnCoordinatorState {
    /// This leader's coordinator epoch.
    pub coordinator_epoch: CoordinatorEpoch,
    /// The next producer id to allocate.
    pub next_pid: ProducerId,
    /// Transaction metadata by transactional id.
    pub txns: BTreeMap<TransactionalId, TransactionMetadata>,
    /// Markers in flight by transactional id (volatile: re-sent from the log on load).
    pub markers: BTreeMap<TransactionalId, PendingMarkers>,
    /// Requests that would be answered CONCURRENT_TRANSACTIONS, waiting for the
    /// transaction to complete (volatile).
    pub parked: Vec<(Id, Msg)>,
    /// The table moves the current handler made, in order. The `System` drains them after
    /// every handler to judge `legal_transitions`, so every stored state has none.
    #[serde(skip)]
    pub transitions: Vec<(TransactionState, TransactionState)>,
}

/// The transaction coordinator's configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TxnCoordinator {
    /// The design (transaction version).
    pub design: Design,
    /// Where the participants are: the leaders it sends markers to and the clients
    /// that own its transactional ids.
    pub topology: MetadataCache,
    /// Marker resends after a timeout (`None`: without limit, as Kafka).
    pub marker_retries: Option<u8>,
}

type Reply = (ErrorCode, Option<ProducerIdAndEpoch>);

/// InitProducerId's answer: the error, the pair granted, and the ongoing transaction's
/// pair when `KeepPreparedTxn` kept one.
pub(crate) type InitReply = (
    ErrorCode,
    Option<ProducerIdAndEpoch>,
    Option<ProducerIdAndEpoch>,
);

impl TxnCoordinator {
    /// Loads the coordinator from its log (first start or failover).
    pub fn on_start<A: Saves<TxnLog>>(
        &self,
        storage: Option<&TxnLog>,
        o: &mut Out<A>,
    ) -> TxnCoordinatorState {
        let (coordinator_epoch, next_pid, txns) = match storage {
            Some(log) => (
                CoordinatorEpoch(log.coordinator_epoch.0 + 1),
                log.next_pid,
                log.txns.clone(),
            ),
            None => (CoordinatorEpoch(0), ProducerId(0), BTreeMap::new()),
        };
        let mut state = TxnCoordinatorState {
            coordinator_epoch,
            next_pid,
            txns,
            markers: BTreeMap::new(),
            parked: Vec::new(),
            transitions: Vec::new(),
        };
        let ids: Vec<TransactionalId> = state.txns.keys().copied().collect();
        for txn in ids {
            let meta = state.txns[&txn].clone();
            match meta.state {
                TransactionState::PrepareCommit | TransactionState::PrepareAbort => {
                    let commit = meta.state == TransactionState::PrepareCommit;
                    self.send_markers(&mut state, txn, commit, o);
                }
                TransactionState::Ongoing => self.arm_ongoing_timers(&meta, txn, o),
                _ => {}
            }
        }
        self.save(&state, o);
        state
    }

    pub(crate) fn save<A: Saves<TxnLog>>(&self, state: &TxnCoordinatorState, o: &mut Out<A>) {
        o.save(
            TxnLog {
                coordinator_epoch: state.coordinator_epoch,
                next_pid: state.next_pid,
                txns: state.txns.clone(),
            }
            .into(),
        );
    }

    /// Handles a request or a marker response.
    ///
    /// CONCURRENT_TRANSACTIONS (a transaction is writing its markers) makes Kafka's
    /// clients and partition leaders retry with a backoff until the transaction completes.
    /// Polling changes no state, so the model lets the request wait at the coordinator
    /// instead and answers it when the transaction completes: the same answers, without
    /// the busy loops that would multiply the state space. A waiting request dies with
    /// the coordinator, as an unanswered one does.
    pub fn on_msg<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        src: Id,
        msg: Msg,
        o: &mut Out<A>,
    ) {
        let mut out = Out::<A>::new();
        self.handle(state, src, msg.clone(), &mut out);
        let waits = out.iter().any(|c| {
            matches!(c, Command::Send(dst, m) if *dst == src
                && m.response_error() == Some(ErrorCode::ConcurrentTransactions))
        });
        if waits {
            let mut kept = Out::new();
            for c in out {
                if !matches!(&c, Command::Send(dst, m) if *dst == src
                    && m.response_error() == Some(ErrorCode::ConcurrentTransactions))
                {
                    kept.append_command(c);
                }
            }
            replay_into(o, kept);
            if !state.parked.iter().any(|(s, m)| *s == src && *m == msg) {
                state.parked.push((src, msg));
            }
        } else {
            replay_into(o, out);
        }
    }

    fn wake_parked<A: Saves<TxnLog>>(&self, state: &mut TxnCoordinatorState, o: &mut Out<A>) {
        for (src, msg) in std::mem::take(&mut state.parked) {
            self.on_msg(state, src, msg, o);
        }
    }

    fn handle<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        src: Id,
        msg: Msg,
        o: &mut Out<A>,
    ) {
        match msg {
            Msg::InitProducerId(req) => self.handle_init_producer_id(state, src, req, o),
            Msg::TxnHeartbeat(req) => {
                let response = self.txn_heartbeat(state, &req, o);
                o.send(src, Msg::TxnHeartbeatResponse(response));
            }
            Msg::AddPartitionsToTxn(req) => {
                self.handle_add_partitions_to_transaction(state, src, req, o)
            }
            Msg::AddOffsetsToTxn(req) => self.handle_add_offsets_to_txn(state, src, req, o),
            Msg::AddShareAcksToTxn(req) => self.handle_add_share_acks_to_txn(state, src, req, o),
            Msg::EndTxn(req) => self.handle_end_transaction(state, src, req, o),
            Msg::WriteTxnMarkersResponse(resp) => self.on_marker_response(state, resp, o),
            _ => {}
        }
    }

    /// `TransactionCoordinator.handleInitProducerId`, answered to `src`.
    fn handle_init_producer_id<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        src: Id,
        req: InitProducerIdRequest,
        o: &mut Out<A>,
    ) {
        let (error, producer, ongoing) = self.init_producer_id(state, &req, o);
        o.send(
            src,
            Msg::InitProducerIdResponse(InitProducerIdResponse {
                txn: req.txn,
                error,
                producer,
                ongoing,
                connection: req.connection,
            }),
        );
    }

    /// `TransactionCoordinator.handleAddPartitionsToTransaction` for a client or a
    /// partition leader's implicit add (KIP-890), `handleVerifyPartitionsInTransaction`
    /// for a leader's verification; answered to `src`.
    fn handle_add_partitions_to_transaction<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        src: Id,
        req: AddPartitionsToTxnRequest,
        o: &mut Out<A>,
    ) {
        let error = match req.mode {
            AddPartitionsMode::VerifyOnly { .. } => self.verify(state, &req),
            AddPartitionsMode::Client | AddPartitionsMode::BrokerAdd { .. } => {
                self.add_partitions(state, req.txn, req.producer, &req.partitions, o)
            }
        };
        o.send(
            src,
            Msg::AddPartitionsToTxnResponse(AddPartitionsToTxnResponse {
                txn: req.txn,
                producer: req.producer,
                partitions: req.partitions,
                mode: req.mode,
                error,
            }),
        );
    }

    /// `KafkaApis.handleAddOffsetsToTxnRequest`: adds the group's `__consumer_offsets`
    /// partition; answered to `src`.
    fn handle_add_offsets_to_txn<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        src: Id,
        req: AddOffsetsToTxnRequest,
        o: &mut Out<A>,
    ) {
        let partition = [TopicPartition::ConsumerOffsets];
        let error = self.add_partitions(state, req.txn, req.producer, &partition, o);
        o.send(
            src,
            Msg::AddOffsetsToTxnResponse(AddOffsetsToTxnResponse {
                txn: req.txn,
                producer: req.producer,
                error,
            }),
        );
    }

    /// KIP-1289: as AddOffsetsToTxn, for the share group's state partition; answered to
    /// `src`.
    fn handle_add_share_acks_to_txn<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        src: Id,
        req: AddShareAcksToTxnRequest,
        o: &mut Out<A>,
    ) {
        let partition = [TopicPartition::ShareGroupState];
        let error = self.add_partitions(state, req.txn, req.producer, &partition, o);
        o.send(
            src,
            Msg::AddShareAcksToTxnResponse(AddShareAcksToTxnResponse {
                txn: req.txn,
                producer: req.producer,
                error,
                group: req.group,
            }),
        );
    }

    /// `TransactionCoordinator.handleEndTransaction`, answered to `src`.
    fn handle_end_transaction<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        src: Id,
        req: EndTxnRequest,
        o: &mut Out<A>,
    ) {
        let (error, producer) = self.end_txn(state, &req, o);
        o.send(
            src,
            Msg::EndTxnResponse(EndTxnResponse {
                txn: req.txn,
                request_producer: req.producer,
                commit: req.commit,
                error,
                producer,
                connection: req.connection,
            }),
        );
    }

    /// Handles the transaction timeout and marker resends.
    pub fn on_timeout<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        timer: Timer,
        o: &mut Out<A>,
    ) {
        match timer {
            Timer::TxnTimeout(txn) => {
                let Some(meta) = state.txns.get(&txn) else {
                    return;
                };
                // `abortTimedOutTransactions` skips 2PC transactions (timeout Int.MaxValue).
                if meta.state == TransactionState::Ongoing && !meta.two_phase {
                    // `abortTimedOutTransactions`: prepareFenceProducerEpoch, then an
                    // internal EndTxn(ABORT) with the bumped epoch.
                    self.fence_and_abort(state, txn, o);
                }
            }
            Timer::TxnHeartbeatExpiry(txn) => self.on_heartbeat_expiry(state, txn, o),
            Timer::MarkerRetry(txn) => {
                // `TransactionMarkerRequestCompletionHandler.onComplete`: a disconnected
                // request's markers are re-enqueued, with no limit, while the coordinator
                // epoch is unchanged (a new epoch is a new incarnation here, which sent
                // them afresh at its load).
                let Some(pending) = state.markers.get_mut(&txn) else {
                    return;
                };
                if !pending.may_resend() {
                    return;
                }
                if let Some(left) = &mut pending.retries_left {
                    *left -= 1;
                }
                let pending = pending.clone();
                for tp in &pending.partitions {
                    self.send_marker(state.coordinator_epoch, &pending, *tp, o);
                }
                if pending.may_resend() {
                    o.set_timer(Timer::MarkerRetry(txn), timeout());
                }
            }
            // Timers of other actors never reach the coordinator.
            _ => {}
        }
    }

    /// Every move is recorded rather than asserted, so that `legal_transitions` judges
    /// each single step of the table (a handler may make several) and reports a broken
    /// design as a violation with a trace instead of a panic.
    pub(crate) fn transition(
        trail: &mut Vec<(TransactionState, TransactionState)>,
        meta: &mut TransactionMetadata,
        to: TransactionState,
    ) {
        trail.push((meta.state, to));
        meta.state = to;
    }

    fn init_producer_id<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        req: &InitProducerIdRequest,
        o: &mut Out<A>,
    ) -> InitReply {
        let txn = req.txn;
        if req.enable_2pc && !self.design.two_phase_commit {
            // `transaction.two.phase.commit.enable=false` on the broker: Kafka answers this
            // rather than an UNSUPPORTED_* error, so a client cannot probe the setting.
            return (ErrorCode::TransactionalIdAuthorizationFailed, None, None);
        }
        if let Some(reply) = self.keep_prepared(state, req, o) {
            return reply;
        }
        let (error, producer) =
            self.init_producer_id_v5(state, txn, req.enable_2pc, req.expected, o);
        (error, producer, None)
    }

    /// InitProducerId as Kafka answers it without `KeepPreparedTxn`; a granted pair records
    /// whether the client enabled 2PC (Kafka's `txnTimeoutMs`, set by every InitProducerId).
    /// With `expected` (KIP-360, a client's epoch bump) a pair of another producer id is
    /// fenced (`prepareInitProducerIdTransit`'s `isValidProducerId`; producer ids are never
    /// exhausted here), and the epoch is bumped only from the expected one.
    fn init_producer_id_v5<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        txn: TransactionalId,
        two_phase: bool,
        expected: Option<ProducerIdAndEpoch>,
        o: &mut Out<A>,
    ) -> Reply {
        let Some(meta) = state.txns.get(&txn) else {
            return self.register_txn(state, txn, two_phase, o);
        };
        if expected.is_some_and(|e| e.pid != meta.pid) {
            return (ErrorCode::ProducerFenced, None);
        }
        match meta.state {
            TransactionState::PrepareCommit
            | TransactionState::PrepareAbort
            | TransactionState::PrepareEpochFence => (ErrorCode::ConcurrentTransactions, None),
            TransactionState::Ongoing => {
                // A new incarnation fences the old one: its transaction is aborted with
                // the bumped epoch, and the caller retries until the abort completes.
                self.fence_and_abort(state, txn, o);
                (ErrorCode::ConcurrentTransactions, None)
            }
            TransactionState::Empty
            | TransactionState::CompleteCommit
            | TransactionState::CompleteAbort => {
                let meta = state.txns.get_mut(&txn).expect("present");
                let Some(bump) = self.epoch_bump(meta, expected.map(|e| e.epoch)) else {
                    return (ErrorCode::ProducerFenced, None);
                };
                if bump {
                    meta.epoch = meta.epoch.bump();
                }
                meta.partitions.clear();
                meta.two_phase = two_phase;
                Self::transition(&mut state.transitions, meta, TransactionState::Empty);
                let id = meta.identity();
                self.save(state, o);
                (ErrorCode::None, Some(id))
            }
            TransactionState::Dead => (ErrorCode::InvalidTxnState, None),
        }
    }

    /// A first InitProducerId for `txn`: a new producer id at epoch 0.
    fn register_txn<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        txn: TransactionalId,
        two_phase: bool,
        o: &mut Out<A>,
    ) -> Reply {
        let pid = state.next_pid;
        state.next_pid = ProducerId(pid.0 + 1);
        let meta = TransactionMetadata {
            pid,
            epoch: ProducerEpoch(0),
            last_epoch: None,
            state: TransactionState::Empty,
            partitions: BTreeSet::new(),
            two_phase,
            kept: None,
        };
        let id = meta.identity();
        state.txns.insert(txn, meta);
        self.save(state, o);
        (ErrorCode::None, Some(id))
    }

    /// `prepareIncrementProducerEpoch` for a transaction with none in flight: whether its
    /// epoch is bumped (`Some(false)`: a bump already answered, written again at the current
    /// epoch), with the last epoch set for it; `None` if `expected` is fenced.
    fn epoch_bump(
        &self,
        meta: &mut TransactionMetadata,
        expected: Option<ProducerEpoch>,
    ) -> Option<bool> {
        match expected {
            // No expected epoch (a new incarnation): no last epoch, so the previous
            // incarnation's EndTxn is fenced rather than taken for a retry of a
            // bumped EndTxn; `init_pid_clears_last_epoch=false` keeps the old
            // epoch, the model's earlier rule (docs/fidelity.md, D6).
            None => {
                meta.last_epoch = (!self.design.init_pid_clears_last_epoch).then_some(meta.epoch);
                Some(true)
            }
            // The current epoch: the producer goes on after an abortable error, and
            // the epoch it held becomes the last epoch.
            Some(e) if e == meta.epoch => {
                meta.last_epoch = Some(meta.epoch);
                Some(true)
            }
            // The last epoch: a retry of a bump already answered.
            Some(e) if Some(e) == meta.last_epoch => Some(false),
            Some(_) => None,
        }
    }

    pub(crate) fn check_producer(
        meta: &TransactionMetadata,
        producer: ProducerIdAndEpoch,
    ) -> ErrorCode {
        if meta.pid != producer.pid {
            ErrorCode::InvalidProducerIdMapping
        } else if meta.epoch != producer.epoch {
            ErrorCode::ProducerFenced
        } else if meta.state.is_prepare() || meta.state == TransactionState::PrepareEpochFence {
            ErrorCode::ConcurrentTransactions
        } else {
            ErrorCode::None
        }
    }

    fn verify(&self, state: &TxnCoordinatorState, req: &AddPartitionsToTxnRequest) -> ErrorCode {
        let Some(meta) = state.txns.get(&req.txn) else {
            return ErrorCode::InvalidProducerIdMapping;
        };
        match Self::check_producer(meta, req.producer) {
            ErrorCode::None => {}
            e => return e,
        }
        let all_in = req.partitions.iter().all(|p| meta.partitions.contains(p));
        if meta.state == TransactionState::Ongoing && all_in {
            ErrorCode::None
        } else {
            ErrorCode::TransactionAbortable
        }
    }

    fn add_partitions<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        txn: TransactionalId,
        producer: ProducerIdAndEpoch,
        partitions: &[TopicPartition],
        o: &mut Out<A>,
    ) -> ErrorCode {
        let Some(meta) = state.txns.get_mut(&txn) else {
            return ErrorCode::InvalidProducerIdMapping;
        };
        match Self::check_producer(meta, producer) {
            ErrorCode::None => {}
            e => return e,
        }
        let all_in = partitions.iter().all(|p| meta.partitions.contains(p));
        if meta.state == TransactionState::Ongoing && all_in {
            return ErrorCode::None;
        }
        if meta.state != TransactionState::Ongoing {
            // EMPTY / COMPLETE_* -> ONGOING: the transaction (and its timeout) starts at
            // the first partition add, not at the client's beginTransaction.
            meta.partitions.clear();
            meta.kept = None;
            self.arm_ongoing_timers(meta, txn, o);
        }
        meta.partitions.extend(partitions.iter().copied());
        Self::transition(&mut state.transitions, meta, TransactionState::Ongoing);
        self.save(state, o);
        ErrorCode::None
    }

    /// `TransactionCoordinator.endTransaction` (Kafka 4.0): validates the producer, answers
    /// a retried EndTxn (TV2), fences a stale epoch, checks the state allows the end, then
    /// moves to PREPARE_COMMIT or PREPARE_ABORT and writes the markers.
    fn end_txn<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        req: &EndTxnRequest,
        o: &mut Out<A>,
    ) -> Reply {
        let Some(meta) = state.txns.get(&req.txn) else {
            return (ErrorCode::InvalidProducerIdMapping, None);
        };
        if meta.pid != req.producer.pid {
            return (ErrorCode::InvalidProducerIdMapping, None);
        }
        let (prepare, complete) = if req.commit {
            (
                TransactionState::PrepareCommit,
                TransactionState::CompleteCommit,
            )
        } else {
            (
                TransactionState::PrepareAbort,
                TransactionState::CompleteAbort,
            )
        };
        let bumps = self.design.tv.bumps_epoch_per_txn();
        if bumps && self.retries_on_epoch_bump(meta, req) {
            return Self::answer_retried_end_txn(meta, prepare, complete);
        }
        if req.producer.epoch != meta.epoch {
            return (ErrorCode::ProducerFenced, None);
        }
        let allowed = if bumps {
            self.end_txn_allowed_v2(meta, req.commit)
        } else {
            Self::end_txn_allowed(meta, prepare, complete)
        };
        if let Err(reply) = allowed {
            return reply;
        }
        self.prepare_abort_or_commit(state, req, prepare, o)
    }

    /// `retryOnEpochBump` (TV2): the EndTxn carries the epoch before our last bump, so the
    /// client did not see our answer to it. Kafka's `isValidEpoch` (`handleEndTransaction`,
    /// 4.0) asks it by the current epoch alone, and only while the transaction is PREPARE_*
    /// or COMPLETE_* (docs/conformance.md TC-2). In ONGOING or EMPTY the epoch must be the
    /// current one, so a late copy of an old EndTxn is fenced there; without
    /// `ongoing_end_txn_fenced` the model takes it for a retry when its last epoch matches
    /// (docs/conformance.md TC-1).
    fn retries_on_epoch_bump(&self, meta: &TransactionMetadata, req: &EndTxnRequest) -> bool {
        let ended = matches!(
            meta.state,
            TransactionState::PrepareCommit
                | TransactionState::PrepareAbort
                | TransactionState::CompleteCommit
                | TransactionState::CompleteAbort
        );
        let bumped_from = req.producer.epoch.bump() == meta.epoch;
        if ended {
            bumped_from
        } else {
            !self.design.ongoing_end_txn_fenced
                && meta.last_epoch == Some(req.producer.epoch)
                && bumped_from
        }
    }

    /// The answer to a retried EndTxn (TV2): the bumped pair if the transaction completed
    /// the way asked, wait while its markers are written, an error if it ended otherwise.
    fn answer_retried_end_txn(
        meta: &TransactionMetadata,
        prepare: TransactionState,
        complete: TransactionState,
    ) -> Reply {
        if meta.state == complete {
            (ErrorCode::None, Some(meta.identity()))
        } else if meta.state == prepare {
            (ErrorCode::ConcurrentTransactions, None)
        } else {
            (ErrorCode::InvalidTxnState, None)
        }
    }

    /// Whether the state lets a TV2 EndTxn end the transaction: an ongoing one, or an
    /// abort with none ongoing (TV2 lets a client abort an empty transaction to bump its
    /// epoch). `Err` holds the answer otherwise.
    fn end_txn_allowed_v2(&self, meta: &TransactionMetadata, commit: bool) -> Result<(), Reply> {
        match meta.state {
            TransactionState::Ongoing => Ok(()),
            TransactionState::Empty
            | TransactionState::CompleteCommit
            | TransactionState::CompleteAbort
                if !commit =>
            {
                Ok(())
            }
            // Not a retry (handled before), so Kafka's `handleEndTransaction` fences it
            // rather than answering CONCURRENT_TRANSACTIONS (docs/conformance.md TC-3).
            TransactionState::PrepareCommit | TransactionState::PrepareAbort
                if self.design.prepared_end_txn_fenced =>
            {
                Err((ErrorCode::ProducerFenced, None))
            }
            TransactionState::PrepareCommit
            | TransactionState::PrepareAbort
            | TransactionState::PrepareEpochFence => Err((ErrorCode::ConcurrentTransactions, None)),
            _ => Err((ErrorCode::InvalidTxnState, None)),
        }
    }

    /// Whether the state lets a TV0/1 EndTxn end the transaction: only an ongoing one; a
    /// retry of the end already reached succeeds without a second end. `Err` holds the
    /// answer otherwise.
    fn end_txn_allowed(
        meta: &TransactionMetadata,
        prepare: TransactionState,
        complete: TransactionState,
    ) -> Result<(), Reply> {
        match meta.state {
            TransactionState::Ongoing => Ok(()),
            s if s == complete => Err((ErrorCode::None, None)),
            s if s == prepare => Err((ErrorCode::ConcurrentTransactions, None)),
            TransactionState::PrepareEpochFence => Err((ErrorCode::ConcurrentTransactions, None)),
            _ => Err((ErrorCode::InvalidTxnState, None)),
        }
    }

    /// `TransactionMetadata.prepareAbortOrCommit`: under TV2 the epoch is bumped first (and
    /// an aborted empty transaction has no partitions), then the state moves to `prepare`,
    /// the timeout is cancelled, the log appended and the markers sent. TV2 answers the
    /// bumped pair.
    fn prepare_abort_or_commit<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        req: &EndTxnRequest,
        prepare: TransactionState,
        o: &mut Out<A>,
    ) -> Reply {
        let bumps = self.design.tv.bumps_epoch_per_txn();
        let meta = state.txns.get_mut(&req.txn).expect("present");
        if bumps {
            meta.last_epoch = Some(meta.epoch);
            meta.epoch = meta.epoch.bump();
            if meta.state != TransactionState::Ongoing {
                meta.partitions.clear();
            }
        }
        Self::transition(&mut state.transitions, meta, prepare);
        let granted = bumps.then(|| meta.identity());
        self.cancel_ongoing_timers(req.txn, o);
        self.save(state, o);
        self.send_markers(state, req.txn, req.commit, o);
        (ErrorCode::None, granted)
    }

    pub(crate) fn fence_and_abort<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        txn: TransactionalId,
        o: &mut Out<A>,
    ) {
        let meta = state.txns.get_mut(&txn).expect("present");
        Self::transition(
            &mut state.transitions,
            meta,
            TransactionState::PrepareEpochFence,
        );
        meta.last_epoch = Some(meta.epoch);
        meta.epoch = meta.epoch.bump();
        Self::transition(&mut state.transitions, meta, TransactionState::PrepareAbort);
        self.cancel_ongoing_timers(txn, o);
        self.save(state, o);
        self.send_markers(state, txn, false, o);
    }

    fn send_markers<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        txn: TransactionalId,
        commit: bool,
        o: &mut Out<A>,
    ) {
        let meta = &state.txns[&txn];
        let pending = PendingMarkers {
            producer: meta.identity(),
            commit,
            partitions: meta.partitions.clone(),
            retries_left: self.marker_retries,
        };
        if pending.partitions.is_empty() {
            self.complete(state, txn, o);
            return;
        }
        for tp in &pending.partitions {
            self.send_marker(state.coordinator_epoch, &pending, *tp, o);
        }
        if pending.may_resend() {
            o.set_timer(Timer::MarkerRetry(txn), timeout());
        }
        state.markers.insert(txn, pending);
    }

    fn send_marker<A: Saves<TxnLog>>(
        &self,
        coordinator_epoch: CoordinatorEpoch,
        pending: &PendingMarkers,
        tp: TopicPartition,
        o: &mut Out<A>,
    ) {
        o.send(
            self.topology.leader_of(tp),
            Msg::WriteTxnMarkers(WriteTxnMarkersRequest {
                producer: pending.producer,
                commit: pending.commit,
                coordinator_epoch,
                partition: tp,
                tv: self.design.tv.0,
            }),
        );
    }

    fn on_marker_response<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        resp: WriteTxnMarkersResponse,
        o: &mut Out<A>,
    ) {
        if resp.coordinator_epoch != state.coordinator_epoch {
            return; // an answer to an earlier leader of this partition
        }
        let Some((&txn, pending)) = state.markers.iter_mut().find(|(_, p)| {
            p.producer == resp.producer
                && p.commit == resp.commit
                && p.partitions.contains(&resp.partition)
        }) else {
            return;
        };
        match resp.error {
            ErrorCode::None => {
                pending.partitions.remove(&resp.partition);
                if pending.partitions.is_empty() {
                    state.markers.remove(&txn);
                    o.cancel_timer(Timer::MarkerRetry(txn));
                    self.complete(state, txn, o);
                }
            }
            ErrorCode::InvalidProducerEpoch | ErrorCode::TransactionCoordinatorFenced => {
                // `TransactionMarkerRequestCompletionHandler`: stop sending this
                // transaction's markers; it stays in PREPARE_* until a reload.
                state.markers.remove(&txn);
                o.cancel_timer(Timer::MarkerRetry(txn));
            }
            _ => {
                let pending = pending.clone();
                self.send_marker(state.coordinator_epoch, &pending, resp.partition, o);
            }
        }
    }

    fn complete<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        txn: TransactionalId,
        o: &mut Out<A>,
    ) {
        let meta = state.txns.get_mut(&txn).expect("present");
        let to = match meta.state {
            TransactionState::PrepareCommit => TransactionState::CompleteCommit,
            _ => TransactionState::CompleteAbort,
        };
        Self::transition(&mut state.transitions, meta, to);
        meta.partitions.clear();
        meta.kept = None;
        self.save(state, o);
        self.wake_parked(state, o);
    }
}

trait AppendCommand<A: Host> {
    fn append_command(&mut self, c: Command<Msg, Timer, ClientChoice, A::Storage>);
}

impl<A: Host> AppendCommand<A> for Out<A> {
    fn append_command(&mut self, c: Command<Msg, Timer, ClientChoice, A::Storage>) {
        match c {
            Command::Send(dst, m) => self.send(dst, m),
            Command::SetTimer(t, d) => self.set_timer(t, d),
            Command::CancelTimer(t) => self.cancel_timer(t),
            Command::ChooseRandom(k, r) => self.choose_random(k, r),
            Command::Save(s) => self.save(s),
        }
    }
}

fn replay_into<A: Host>(o: &mut Out<A>, out: Out<A>) {
    for c in out {
        o.append_command(c);
    }
}

/// Timer durations are ignored by the exhaustive checker (any armed timer may fire) and
/// set by the simulator from its own settings.
pub(crate) fn timeout() -> std::ops::Range<Duration> {
    Duration::ZERO..Duration::ZERO
}

/// What the coordinator's timers wait for, and the requests it holds (see
/// [`crate::protocol::wait`]).
impl TxnCoordinator {
    /// What `timer` waits for.
    pub fn wait(&self, state: &TxnCoordinatorState, timer: &Timer) -> Wait {
        let client = |txn: TransactionalId, duty| {
            self.topology
                .client_of(txn)
                .map_or(Wait::Always, |client| Wait::Client { client, duty })
        };
        match *timer {
            // The abort scan is due once the transaction's own client is gone (down or
            // failed for good): nothing else ends the transaction.
            Timer::TxnTimeout(txn) => client(txn, Duty::EndTxn),
            // Due once the transaction's owner neither ends it nor heartbeats for it.
            Timer::TxnHeartbeatExpiry(txn) => client(txn, Duty::Heartbeat),
            // A resend is due once one of this transaction's markers or its answer is
            // lost. While a leader is down its marker waits for the restart: Kafka's
            // `InterBrokerSendThread` cannot connect, the request times out as
            // disconnected and is re-enqueued, so at most one is outstanding per broker,
            // and it reaches the broker once it is back.
            Timer::MarkerRetry(txn) => Wait::Any(
                state
                    .markers
                    .get(&txn)
                    .into_iter()
                    .flat_map(|pending| {
                        pending.partitions.iter().map(|tp| {
                            Wait::Reply(wait::Reply {
                                peer: self.topology.leader_of(*tp),
                                answer: Answer::Marker {
                                    partition: *tp,
                                    producer: pending.producer,
                                },
                                held: None,
                                down: Down::Waits,
                            })
                        })
                    })
                    .collect(),
            ),
            _ => Wait::Always,
        }
    }

    /// Whether the coordinator holds `held` from `from` unanswered: a parked request
    /// (waiting for its pending markers), or, for a heartbeat, the transaction still being
    /// that pair's (an answer would be no error, or a retriable one).
    pub fn holds(&self, state: &TxnCoordinatorState, from: Id, held: &Held) -> bool {
        match *held {
            Held::Request(_) => state.parked.iter().any(|(src, _)| *src == from),
            Held::Verification { producer, guard } => state
                .parked
                .iter()
                .any(|(src, msg)| *src == from && wait::carries_verification(msg, producer, guard)),
            Held::Heartbeat { txn, producer } => state.txns.get(&txn).is_some_and(|meta| {
                let error = TxnCoordinator::check_producer(meta, producer);
                error == ErrorCode::None || error.is_retriable()
            }),
            _ => false,
        }
    }
}
