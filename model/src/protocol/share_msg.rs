//! Payloads of the share-group RPCs: ShareFetch (78) and ShareAcknowledge (79) between
//! share consumers and the share-partition leader, ReadShareGroupState (84) and
//! WriteShareGroupState (85) between the share-partition leader and the share
//! coordinator. One topic, so topic fields are left out; the state RPCs name the share
//! partition (0 unless the scenario has several).

use crate::protocol::error::ErrorCode;
use crate::protocol::ghost::Ghost;
use crate::protocol::ids::MemberId;
use crate::protocol::record_state::AckType;
use crate::protocol::share_state::{ShareState, StateBatch};
use crate::protocol::width::{Counter, Epoch, Offset};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Ghost: the delivery an acknowledgement was made for (which member got the record and
/// with which delivery count). An `AcknowledgementBatch` carries offsets and types only
/// (KIP-932), so on a message it rides in a [`Ghost`] no handler can open; `ack_owner`
/// compares it with the acquisition the acknowledgement is applied to.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct DeliveryTag {
    /// The member the record was delivered to.
    pub member: MemberId,
    /// The delivery count of that delivery.
    pub delivery_count: u8,
}

impl fmt::Debug for DeliveryTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}#{}", self.member, self.delivery_count)
    }
}

/// One acknowledgement (an `AcknowledgementBatch` of one offset and one type).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Acknowledgement {
    /// The offset acknowledged.
    pub offset: Offset,
    /// The acknowledgement type.
    pub ack: AckType,
    /// Ghost: the delivery it was made for.
    pub tag: Ghost<DeliveryTag>,
}

impl fmt::Debug for Acknowledgement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{:?}({:?})", self.offset, self.ack, self.tag)
    }
}

/// An `AcquiredRecords` entry of a ShareFetch response.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct AcquiredRecord {
    /// The offset.
    pub offset: Offset,
    /// Its delivery count, this delivery included.
    pub delivery_count: u8,
}

impl fmt::Debug for AcquiredRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.offset, self.delivery_count)
    }
}

/// ShareFetch request: fetch records, piggybacking the acknowledgements of earlier ones.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ShareFetchRequest {
    /// `MemberId`.
    pub member: MemberId,
    /// `ShareSessionEpoch`: 0 opens a session, then +1 per request.
    pub session_epoch: Counter,
    /// `MaxRecords`.
    pub max_records: u8,
    /// `AcknowledgementBatches`.
    pub acks: Vec<Acknowledgement>,
}

/// ShareFetch response.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ShareFetchResponse {
    /// The member of the request.
    pub member: MemberId,
    /// The session epoch of the request (the client matches responses by it).
    pub session_epoch: Counter,
    /// The top-level or partition error (session errors, NOT_LEADER_OR_FOLLOWER).
    pub error: ErrorCode,
    /// `AcknowledgeErrorCode`: the outcome of the piggybacked acknowledgements.
    pub ack_error: ErrorCode,
    /// `AcquiredRecords`.
    pub acquired: Vec<AcquiredRecord>,
}

/// ShareAcknowledge request: acknowledgements only.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ShareAcknowledgeRequest {
    /// `MemberId`.
    pub member: MemberId,
    /// `ShareSessionEpoch` (never 0: acknowledgements need an open session).
    pub session_epoch: Counter,
    /// `AcknowledgementBatches`.
    pub acks: Vec<Acknowledgement>,
}

/// ShareAcknowledge response.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ShareAcknowledgeResponse {
    /// The member of the request.
    pub member: MemberId,
    /// The session epoch of the request.
    pub session_epoch: Counter,
    /// The session error, or the acknowledgements' error.
    pub error: ErrorCode,
}

/// ReadShareGroupState request: a share-partition leader loads its state.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ReadShareGroupStateRequest {
    /// The reader's leader epoch (a higher one fences older leaders' writes).
    pub leader_epoch: Epoch,
    /// KIP-1289 `rebuild_pending`: the leader asks for the pending transactional acks too.
    #[serde(default, skip_serializing_if = "is_false")]
    pub pending: bool,
    /// `PartitionIndex`: which share partition's state (left out of traces at 0, the only
    /// one but in `draft-itest`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub partition: u8,
    /// KIP-1289 `refresh-guarded`: the read is a refresh's, echoed in the answer (the
    /// model's stand-in for the persister completing each read's own future, so a late
    /// answer to a load's resent read is not taken for the refresh's).
    #[serde(default, skip_serializing_if = "is_false")]
    pub refresh: bool,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// ReadShareGroupState response.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ReadShareGroupStateResponse {
    /// The leader epoch of the request.
    pub leader_epoch: Epoch,
    /// FENCED_LEADER_EPOCH, or `None`.
    pub error: ErrorCode,
    /// The persisted state, on success.
    pub state: Option<ShareState>,
    /// KIP-1289: the transactional acks pending at the share coordinator, when asked for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<crate::protocol::txn_share_msg::PendingAcks>,
    /// KIP-1289 `refresh-guarded`: the request's `refresh`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub refresh: bool,
}

/// WriteShareGroupState request: a share-partition leader persists state changes.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct WriteShareGroupStateRequest {
    /// The writer's leader epoch.
    pub leader_epoch: Epoch,
    /// The writer's state epoch.
    pub state_epoch: Epoch,
    /// Which write of this leader (the model's stand-in for the correlation id).
    pub write: Counter,
    /// The writer's share-partition start offset.
    pub start_offset: Offset,
    /// The changed offsets.
    pub batches: Vec<StateBatch>,
    /// `PartitionIndex`: which share partition's state (left out of traces at 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub partition: u8,
}

/// WriteShareGroupState response.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct WriteShareGroupStateResponse {
    /// The leader epoch of the request.
    pub leader_epoch: Epoch,
    /// The write of the request.
    pub write: Counter,
    /// FENCED_LEADER_EPOCH, FENCED_STATE_EPOCH, or `None`.
    pub error: ErrorCode,
}

/// InitializeShareGroupState request (KIP-932; apiKey 83 at 1eb7644): the group coordinator
/// (re)initialises a share partition's state, as an admin's offset reset
/// (`AlterShareGroupOffsets`, `kafka-share-groups --reset-offsets`) does, at a new state
/// epoch. `GroupId` and `TopicId` are left out as everywhere.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct InitializeShareGroupStateRequest {
    /// `StateEpoch`: the state epoch the state is initialised at.
    pub state_epoch: Epoch,
    /// `StartOffset`: the share-partition start offset the state starts from.
    pub start_offset: Offset,
    /// `Partition`: which share partition's state (left out of traces at 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub partition: u8,
}

/// InitializeShareGroupState response.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct InitializeShareGroupStateResponse {
    /// The state epoch of the request (echo).
    pub state_epoch: Epoch,
    /// FENCED_STATE_EPOCH (an older state epoch than the stored one), or `None`.
    pub error: ErrorCode,
}

/// Where an admin's offset reset moves the share-partition start offset
/// (`kafka-share-groups --reset-offsets --to-earliest | --to-latest`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResetTo {
    /// Offset 0: every record is delivered again, processed or not.
    Earliest,
    /// The log end: every record not yet delivered is skipped.
    Latest,
}
