//! The messages: one variant per RPC request and response, named as Kafka names them.
//! API keys are symbolic (the seeds' numbers collide with existing ones).

use crate::protocol::error::ErrorCode;
use crate::protocol::ghost::Ghost;
use crate::protocol::ids::*;
use crate::protocol::keyed::Keyed;
use crate::protocol::record_state::AckType;
use crate::protocol::share_msg::*;
use crate::protocol::txn_heartbeat_msg::*;
use crate::protocol::txn_share_msg::*;
use crate::protocol::width::{Counter, Epoch, Offset};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A producer id with the epoch a request or record carries: Kafka's fencing token.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ProducerIdAndEpoch {
    /// The producer id.
    pub pid: ProducerId,
    /// The epoch.
    pub epoch: ProducerEpoch,
}

impl fmt::Debug for ProducerIdAndEpoch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}/{:?}", self.pid, self.epoch)
    }
}

/// An output record: the transformed input. `tag` is ghost state (which client
/// transaction attempt wrote it), a [`Ghost`] the protocol cannot open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct OutputRecord {
    /// The input record's offset this output was derived from.
    pub input: Offset,
    /// Ghost: the client transaction attempt that wrote it.
    pub tag: Ghost<TxnTag>,
}

/// KIP-890's `VerificationGuard`: a token unique to one verification at one partition
/// leader incarnation, so that a late answer never unlocks a newer append.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct VerificationGuard {
    /// The leader incarnation (bumped by every restart); at the share coordinator, whose
    /// counter is its log end, the share partition whose key the staging is for (each
    /// key's verification is its own, as each partition's `VerificationStateEntry` is).
    pub generation: Epoch,
    /// The verification's number within that incarnation.
    pub counter: Counter,
}

impl fmt::Debug for VerificationGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "g{}.{}", self.generation, self.counter)
    }
}

/// Who sends an AddPartitionsToTxn and why (v0-3 from clients; v4+ from brokers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum AddPartitionsMode {
    /// A TV0/TV1 client adding partitions before it writes to them.
    Client,
    /// KIP-890 part 1: a partition leader checks the partition is in the ongoing
    /// transaction before the first transactional append (`VerifyOnly=true`).
    VerifyOnly {
        /// The leader's `VerificationGuard`, echoed in the response.
        guard: VerificationGuard,
    },
    /// KIP-890 part 2 (TV2): the partition leader adds the partition implicitly.
    BrokerAdd {
        /// The leader's `VerificationGuard`, echoed in the response.
        guard: VerificationGuard,
    },
}

/// InitProducerId (22) request.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct InitProducerIdRequest {
    /// The transactional id.
    pub txn: TransactionalId,
    /// KIP-939 `Enable2Pc` (v6): the client's `transaction.two.phase.commit.enable`; the
    /// coordinator then never aborts its transactions on the transaction timeout (Kafka
    /// sets the timeout to `Int.MaxValue`). Left out of traces when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub enable_2pc: bool,
    /// KIP-939 `KeepPreparedTxn` (v6): fence the previous incarnation by an epoch bump but
    /// keep its ongoing transaction, for `completeTransaction`. Left out of traces when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_prepared_txn: bool,
    /// KIP-360 `ProducerId` and `ProducerEpoch` (v3+): the pair a client already holds when
    /// it asks for an epoch bump after an abortable error (TV0/1,
    /// `TransactionManager.beginCompletingTransaction`); none on a first InitProducerId.
    /// Left out of traces when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<ProducerIdAndEpoch>,
    /// The connection it went out on (not a wire field, [`Connection`]). Left out of
    /// traces when it is the default.
    #[serde(default, skip_serializing_if = "Connection::is_default")]
    pub connection: Connection,
}

impl InitProducerIdRequest {
    /// `initTransactions()` without KIP-939's fields: what every pre-2PC client sends.
    pub fn plain(txn: TransactionalId) -> InitProducerIdRequest {
        InitProducerIdRequest {
            txn,
            enable_2pc: false,
            keep_prepared_txn: false,
            expected: None,
            connection: Connection::default(),
        }
    }
}

/// InitProducerId response.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct InitProducerIdResponse {
    /// The transactional id.
    pub txn: TransactionalId,
    /// The error, `None` on success.
    pub error: ErrorCode,
    /// The producer id and epoch granted, on success.
    pub producer: Option<ProducerIdAndEpoch>,
    /// KIP-939 `OngoingTxnProducerId` / `OngoingTxnProducerEpoch` (v6): the pair of the
    /// ongoing transaction that `KeepPreparedTxn` kept, `None` (Kafka's -1/-1) when none
    /// was kept. Left out of traces when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ongoing: Option<ProducerIdAndEpoch>,
    /// The connection of the request it answers, echoed (not a wire field,
    /// [`Connection`]). Left out of traces when it is the default.
    #[serde(default, skip_serializing_if = "Connection::is_default")]
    pub connection: Connection,
}

/// AddPartitionsToTxn (24) request.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct AddPartitionsToTxnRequest {
    /// The transactional id.
    pub txn: TransactionalId,
    /// The producer id and epoch of the writer.
    pub producer: ProducerIdAndEpoch,
    /// The partitions to add or verify.
    pub partitions: Vec<TopicPartition>,
    /// Client add, broker verification, or broker implicit add.
    pub mode: AddPartitionsMode,
}

impl AddPartitionsToTxnRequest {
    /// What a participant sends before it takes a transactional write (KIP-890): under TV2
    /// the broker adds its partition itself, before that it only verifies the client added
    /// it. Data partitions, the group coordinator and the share coordinator all do this.
    pub fn verification(
        tv: TransactionVersion,
        txn: TransactionalId,
        producer: ProducerIdAndEpoch,
        partition: TopicPartition,
        guard: VerificationGuard,
    ) -> Msg {
        let mode = if tv.bumps_epoch_per_txn() {
            AddPartitionsMode::BrokerAdd { guard }
        } else {
            AddPartitionsMode::VerifyOnly { guard }
        };
        Msg::AddPartitionsToTxn(AddPartitionsToTxnRequest {
            txn,
            producer,
            partitions: vec![partition],
            mode,
        })
    }
}

/// AddPartitionsToTxn response (one error for the whole request: the model's requests
/// fail or succeed together, as Kafka's do for authorization and fencing errors).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct AddPartitionsToTxnResponse {
    /// The transactional id.
    pub txn: TransactionalId,
    /// The producer id and epoch of the request.
    pub producer: ProducerIdAndEpoch,
    /// The partitions of the request.
    pub partitions: Vec<TopicPartition>,
    /// The request's mode (with its guard).
    pub mode: AddPartitionsMode,
    /// The error, `None` on success.
    pub error: ErrorCode,
}

/// AddOffsetsToTxn (25) request: adds the group's `__consumer_offsets` partition.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct AddOffsetsToTxnRequest {
    /// The transactional id.
    pub txn: TransactionalId,
    /// The producer id and epoch.
    pub producer: ProducerIdAndEpoch,
}

/// AddOffsetsToTxn response.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct AddOffsetsToTxnResponse {
    /// The transactional id.
    pub txn: TransactionalId,
    /// The producer id and epoch of the request.
    pub producer: ProducerIdAndEpoch,
    /// The error, `None` on success.
    pub error: ErrorCode,
}

/// Produce (0) request: one transactional batch of one record.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ProduceRequest {
    /// The transactional id (Produce v3+ carries it).
    pub txn: TransactionalId,
    /// The producer id and epoch of the batch.
    pub producer: ProducerIdAndEpoch,
    /// The batch's base sequence.
    pub seq: Counter,
    /// The partition written.
    pub partition: PartitionIndex,
    /// The record.
    pub record: OutputRecord,
}

/// Produce response.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ProduceResponse {
    /// The partition written.
    pub partition: PartitionIndex,
    /// The producer id and epoch of the batch.
    pub producer: ProducerIdAndEpoch,
    /// The batch's base sequence.
    pub seq: Counter,
    /// The error, `None` on success (a duplicate batch is a success).
    pub error: ErrorCode,
}

/// TxnOffsetCommit (28) request, sent to the group coordinator.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TxnOffsetCommitRequest {
    /// The transactional id.
    pub txn: TransactionalId,
    /// The producer id and epoch.
    pub producer: ProducerIdAndEpoch,
    /// The committed offset: the next input record to process.
    pub offset: Offset,
    /// Ghost: the client transaction attempt that wrote it.
    pub tag: Ghost<TxnTag>,
}

/// TxnOffsetCommit response.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TxnOffsetCommitResponse {
    /// The producer id and epoch of the request.
    pub producer: ProducerIdAndEpoch,
    /// The offset of the request.
    pub offset: Offset,
    /// The error, `None` on success.
    pub error: ErrorCode,
}

/// OffsetFetch (9) request with `RequireStable` (KIP-447).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct OffsetFetchRequest {
    /// `RequireStable`: answer UNSTABLE_OFFSET_COMMIT while offsets are pending.
    pub require_stable: bool,
}

/// OffsetFetch response.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct OffsetFetchResponse {
    /// The error, `None` on success.
    pub error: ErrorCode,
    /// The committed offset (0 when none was committed).
    pub offset: Offset,
}

/// EndTxn (26) request.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct EndTxnRequest {
    /// The transactional id.
    pub txn: TransactionalId,
    /// The producer id and epoch.
    pub producer: ProducerIdAndEpoch,
    /// Commit (true) or abort (false).
    pub commit: bool,
    /// The connection it went out on (not a wire field, [`Connection`]). Left out of
    /// traces when it is the default.
    #[serde(default, skip_serializing_if = "Connection::is_default")]
    pub connection: Connection,
}

/// EndTxn response. Under TV2 (v5) it carries the bumped producer id and epoch.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct EndTxnResponse {
    /// The transactional id.
    pub txn: TransactionalId,
    /// The producer id and epoch of the request.
    pub request_producer: ProducerIdAndEpoch,
    /// Commit (true) or abort (false), as requested.
    pub commit: bool,
    /// The error, `None` on success.
    pub error: ErrorCode,
    /// TV2: the producer id and epoch to use from now on.
    pub producer: Option<ProducerIdAndEpoch>,
    /// The connection of the request it answers, echoed (not a wire field,
    /// [`Connection`]). Left out of traces when it is the default.
    #[serde(default, skip_serializing_if = "Connection::is_default")]
    pub connection: Connection,
}

/// WriteTxnMarkers (27) request for one partition, from the transaction coordinator.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct WriteTxnMarkersRequest {
    /// The producer id and the marker's epoch.
    pub producer: ProducerIdAndEpoch,
    /// COMMIT (true) or ABORT (false).
    pub commit: bool,
    /// The coordinator epoch of the sender.
    pub coordinator_epoch: CoordinatorEpoch,
    /// The partition to write the marker to.
    pub partition: TopicPartition,
    /// The transaction version the marker was written under (v2, KIP-1228).
    pub tv: u8,
}

impl WriteTxnMarkersRequest {
    /// The answer every marker participant (data partition, group coordinator, share
    /// coordinator) sends: the request's identity with the participant's error.
    pub fn response(&self, error: ErrorCode) -> Msg {
        Msg::WriteTxnMarkersResponse(WriteTxnMarkersResponse {
            producer: self.producer,
            commit: self.commit,
            coordinator_epoch: self.coordinator_epoch,
            partition: self.partition,
            error,
        })
    }
}

/// WriteTxnMarkers response.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct WriteTxnMarkersResponse {
    /// The producer id and the marker's epoch.
    pub producer: ProducerIdAndEpoch,
    /// COMMIT (true) or ABORT (false).
    pub commit: bool,
    /// The coordinator epoch of the request.
    pub coordinator_epoch: CoordinatorEpoch,
    /// The partition.
    pub partition: TopicPartition,
    /// The error, `None` on success.
    pub error: ErrorCode,
}

/// Every message of the closed world.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[allow(missing_docs)] // each variant is its payload's RPC
pub enum Msg {
    InitProducerId(InitProducerIdRequest),
    InitProducerIdResponse(InitProducerIdResponse),
    AddPartitionsToTxn(AddPartitionsToTxnRequest),
    AddPartitionsToTxnResponse(AddPartitionsToTxnResponse),
    AddOffsetsToTxn(AddOffsetsToTxnRequest),
    AddOffsetsToTxnResponse(AddOffsetsToTxnResponse),
    Produce(ProduceRequest),
    ProduceResponse(ProduceResponse),
    TxnOffsetCommit(TxnOffsetCommitRequest),
    TxnOffsetCommitResponse(TxnOffsetCommitResponse),
    OffsetFetch(OffsetFetchRequest),
    OffsetFetchResponse(OffsetFetchResponse),
    EndTxn(EndTxnRequest),
    EndTxnResponse(EndTxnResponse),
    WriteTxnMarkers(WriteTxnMarkersRequest),
    WriteTxnMarkersResponse(WriteTxnMarkersResponse),
    ShareFetch(ShareFetchRequest),
    ShareFetchResponse(ShareFetchResponse),
    ShareAcknowledge(ShareAcknowledgeRequest),
    ShareAcknowledgeResponse(ShareAcknowledgeResponse),
    ReadShareGroupState(ReadShareGroupStateRequest),
    ReadShareGroupStateResponse(ReadShareGroupStateResponse),
    WriteShareGroupState(WriteShareGroupStateRequest),
    WriteShareGroupStateResponse(WriteShareGroupStateResponse),
    InitializeShareGroupState(InitializeShareGroupStateRequest),
    InitializeShareGroupStateResponse(InitializeShareGroupStateResponse),
    AddShareAcksToTxn(AddShareAcksToTxnRequest),
    AddShareAcksToTxnResponse(AddShareAcksToTxnResponse),
    TxnShareAcknowledge(TxnShareAcknowledgeRequest),
    TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse),
    TxnShareAcksResolved(TxnShareAcksResolvedRequest),
    TxnShareAcksResolvedResponse(TxnShareAcksResolvedResponse),
    TxnHeartbeat(TxnHeartbeatRequest),
    TxnHeartbeatResponse(TxnHeartbeatResponse),
    Committable(crate::protocol::external_msg::Committable),
    WriterFailed(crate::protocol::external_msg::WriterFailed),
    ExternalRequest(crate::protocol::external_msg::ExternalRequest),
    ExternalResponse(crate::protocol::external_msg::ExternalResponse),
}

impl Msg {
    /// The RPC name (Kafka's), for rendering.
    pub fn name(&self) -> &'static str {
        match self {
            Msg::InitProducerId(_) => "InitProducerId",
            Msg::InitProducerIdResponse(_) => "InitProducerIdResponse",
            Msg::AddPartitionsToTxn(_) => "AddPartitionsToTxn",
            Msg::AddPartitionsToTxnResponse(_) => "AddPartitionsToTxnResponse",
            Msg::AddOffsetsToTxn(_) => "AddOffsetsToTxn",
            Msg::AddOffsetsToTxnResponse(_) => "AddOffsetsToTxnResponse",
            Msg::Produce(_) => "Produce",
            Msg::ProduceResponse(_) => "ProduceResponse",
            Msg::TxnOffsetCommit(_) => "TxnOffsetCommit",
            Msg::TxnOffsetCommitResponse(_) => "TxnOffsetCommitResponse",
            Msg::OffsetFetch(_) => "OffsetFetch",
            Msg::OffsetFetchResponse(_) => "OffsetFetchResponse",
            Msg::EndTxn(_) => "EndTxn",
            Msg::EndTxnResponse(_) => "EndTxnResponse",
            Msg::WriteTxnMarkers(_) => "WriteTxnMarkers",
            Msg::WriteTxnMarkersResponse(_) => "WriteTxnMarkersResponse",
            Msg::ShareFetch(_) => "ShareFetch",
            Msg::ShareFetchResponse(_) => "ShareFetchResponse",
            Msg::ShareAcknowledge(_) => "ShareAcknowledge",
            Msg::ShareAcknowledgeResponse(_) => "ShareAcknowledgeResponse",
            Msg::ReadShareGroupState(_) => "ReadShareGroupState",
            Msg::ReadShareGroupStateResponse(_) => "ReadShareGroupStateResponse",
            Msg::WriteShareGroupState(_) => "WriteShareGroupState",
            Msg::WriteShareGroupStateResponse(_) => "WriteShareGroupStateResponse",
            Msg::InitializeShareGroupState(_) => "InitializeShareGroupState",
            Msg::InitializeShareGroupStateResponse(_) => "InitializeShareGroupStateResponse",
            Msg::AddShareAcksToTxn(_) => "AddShareAcksToTxn",
            Msg::AddShareAcksToTxnResponse(_) => "AddShareAcksToTxnResponse",
            Msg::TxnShareAcknowledge(_) => "TxnShareAcknowledge",
            Msg::TxnShareAcknowledgeResponse(_) => "TxnShareAcknowledgeResponse",
            Msg::TxnShareAcksResolved(_) => "TxnShareAcksResolved",
            Msg::TxnShareAcksResolvedResponse(_) => "TxnShareAcksResolvedResponse",
            Msg::TxnHeartbeat(_) => "TxnHeartbeat",
            Msg::TxnHeartbeatResponse(_) => "TxnHeartbeatResponse",
            Msg::Committable(_) => "Committable",
            Msg::WriterFailed(_) => "WriterFailed",
            Msg::ExternalRequest(r) => match r.op {
                crate::protocol::external_msg::ExternalOp::Prepare => "ExternalPrepare",
                crate::protocol::external_msg::ExternalOp::Commit => "ExternalCommit",
                crate::protocol::external_msg::ExternalOp::Abort => "ExternalAbort",
            },
            Msg::ExternalResponse(_) => "ExternalResponse",
        }
    }

    /// The error a response carries, if this is a response.
    pub fn response_error(&self) -> Option<ErrorCode> {
        match self {
            Msg::InitProducerIdResponse(r) => Some(r.error),
            Msg::AddPartitionsToTxnResponse(r) => Some(r.error),
            Msg::AddOffsetsToTxnResponse(r) => Some(r.error),
            Msg::ProduceResponse(r) => Some(r.error),
            Msg::TxnOffsetCommitResponse(r) => Some(r.error),
            Msg::OffsetFetchResponse(r) => Some(r.error),
            Msg::EndTxnResponse(r) => Some(r.error),
            Msg::WriteTxnMarkersResponse(r) => Some(r.error),
            Msg::ShareFetchResponse(r) => Some(r.error),
            Msg::ShareAcknowledgeResponse(r) => Some(r.error),
            Msg::ReadShareGroupStateResponse(r) => Some(r.error),
            Msg::WriteShareGroupStateResponse(r) => Some(r.error),
            Msg::InitializeShareGroupStateResponse(r) => Some(r.error),
            Msg::AddShareAcksToTxnResponse(r) => Some(r.error),
            Msg::TxnShareAcknowledgeResponse(r) => Some(r.error),
            Msg::TxnHeartbeatResponse(r) => Some(r.error),
            Msg::ExternalResponse(_) => Some(ErrorCode::None),
            _ => None,
        }
    }
}

/// Timers, one enum for every actor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Timer {
    /// A client's `request.timeout.ms` for one outstanding request: the outcome is unknown.
    RequestTimeout(RequestKey),
    /// The coordinator's transaction timeout for an ongoing transaction (the abort scan).
    TxnTimeout(TransactionalId),
    /// The coordinator's marker resend for a transaction whose markers are unanswered.
    MarkerRetry(TransactionalId),
    /// A share-partition leader's acquisition lock on one offset
    /// (`group.share.record.lock.duration.ms`).
    AcquisitionLock(Offset),
    /// A share-partition leader's persister request (a write, by its number) unanswered:
    /// the persister retries it.
    PersisterTimeout(Counter),
    /// A share-partition leader's ReadShareGroupState unanswered: it is sent again.
    ReadStateTimeout,
    /// KIP-1289: a share-partition leader's staging of transactional acknowledgements at
    /// the share coordinator unanswered: it is sent again.
    StageRetry,
    /// KIP-1289 `refresh`: the share-partition leader re-reads the persisted state to
    /// resolve its durable TX_PENDING records.
    TxnRefresh,
    /// KIP-1289 `notify`: the share coordinator's TxnShareAcksResolved unanswered.
    ResolvedRetry,
    /// KIP-1309: the transaction coordinator heard no TxnHeartbeat from an ongoing
    /// transaction's owner within its liveness interval.
    TxnHeartbeatExpiry(TransactionalId),
    /// A leader's KIP-890 verification of a producer id at one of its keys (the share
    /// coordinator's `SharePartitionKey`; 0 at every other leader) unanswered within the
    /// inter-broker `request.timeout.ms` (`AddPartitionsToTxnManager`): the waiting write
    /// is answered NETWORK_EXCEPTION.
    VerificationTimeout(Keyed<ProducerId>),
    /// KIP-1309 on a KIP-1310 session: the session's heartbeat interval, after which it
    /// sends the next TxnHeartbeat for its open transaction.
    TxnHeartbeat,
    /// Scenario `spl-move`: the old share-partition leader's broker applies the metadata
    /// that moved the share partition's leadership to another broker (it is a follower
    /// now), at its own pace.
    LeaderMove,
    /// The share coordinator's snapshot and prune cadence
    /// (`share.coordinator.state.topic.prune.interval.ms`, scenario field `sc_prunes`).
    SharePrune,
    /// Scenario `session-resume` with `vote_timeout`: the 2PC coordinator application's
    /// wait for the Kafka leg's vote (the writer's committable; Flink's
    /// `execution.checkpointing.timeout` for the checkpoint that carries it).
    VoteTimeout,
}

/// Which outstanding client request a timeout belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum RequestKey {
    /// The single in-flight request to the transaction coordinator.
    Coordinator,
    /// The in-flight produce to one partition.
    Produce(PartitionIndex),
    /// The in-flight TxnOffsetCommit.
    TxnOffsetCommit,
    /// The in-flight OffsetFetch.
    OffsetFetch,
    /// A share consumer's one in-flight ShareFetch or ShareAcknowledge.
    Share,
    /// Scenario `reader_members`: the one in-flight ShareFetch of a Flink reader's share
    /// consumer after the first (0 for the second member), beside the first one's `Share`.
    ShareOf(u8),
    /// KIP-1289's in-flight TxnShareAcknowledge to the share coordinator.
    TxnShareAcknowledge,
    /// Scenario `ctp-two-groups`: the in-flight TxnShareAcknowledge of the transaction's
    /// second share group (1), beside the first group's `TxnShareAcknowledge`.
    TxnShareAcknowledgeOf(u8),
    /// Scenario `session-resume`: the coordinator application's in-flight request to the
    /// external participant.
    External,
}

/// A client decision, explored exhaustively like any other nondeterminism.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ClientChoice {
    /// `commitTransaction()`.
    Commit,
    /// `abortTransaction()`.
    Abort,
    /// A share consumer's `acknowledge(record, type)` in explicit mode.
    Ack {
        /// The record's offset.
        offset: Offset,
        /// The type chosen.
        ack: AckType,
    },
    /// A share consumer's next `poll()` (implicit mode: it accepts what was delivered).
    Poll,
    /// A share consumer stalls past the acquisition lock of the records it holds.
    Stall,
    /// A Flink source reader's checkpoint completes: `snapshotState` saved the pending
    /// acknowledgements and `notifyCheckpointComplete` arrives.
    Checkpoint,
    /// KIP-1310 with `epoch_handoff=async`: the producer on a `TransactionSession` picks up
    /// the identity the session got at its last InitProducerId or EndTxn.
    Handoff,
    /// Scenario `session-resume`: the writer that prepared its transaction dies for good
    /// (the job starts its next writer on another transactional id).
    Vanish,
    /// Scenario `session-resume`: the writer that prepared its transaction wakes from a
    /// stall not knowing it was replaced, and its application goes on: one more `send()`,
    /// then `close()`.
    Wake,
    /// Scenario `ctp-implicit-add`: how the KIP-1289 client puts `__share_group_state`
    /// into the transaction it is beginning (docs/kafka-cases.md S23).
    ShareAdd(crate::protocol::txn_share_msg::ShareAdd),
    /// Scenario field `resets`: an admin resets the share group's start offset
    /// (`AlterShareGroupOffsets`, KIP-932), which the group coordinator carries out.
    ShareGroupReset(crate::protocol::share_msg::ResetTo),
}

/// The `transaction.version` feature level the brokers finalise: TV0 is the original
/// protocol, TV1 adds flexible log records, TV2 (KIP-890 part 2) bumps the producer epoch
/// on every EndTxn and adds partitions implicitly from the partition leader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TransactionVersion(pub u8);

impl TransactionVersion {
    /// Whether the epoch is bumped per transaction (TV2).
    pub fn bumps_epoch_per_txn(self) -> bool {
        self.0 >= 2
    }
}
