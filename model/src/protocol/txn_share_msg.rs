//! Payloads of KIP-1289's RPCs: AddShareAcksToTxn (client to transaction coordinator: add
//! the `__share_group_state` partition to the transaction, as AddOffsetsToTxn adds
//! `__consumer_offsets`) and TxnShareAcknowledge (client to share coordinator: stage
//! acknowledgements as pending within the transaction, as TxnOffsetCommit stages offsets).
//! Both name the share group whose acknowledgements they carry (`GroupId`, left out of the
//! wire's serialised form for the first group); topic and partition fields are left out.

use crate::protocol::error::ErrorCode;
use crate::protocol::ghost::Ghost;
use crate::protocol::ids::{GroupId, MemberId, TransactionalId, TxnTag};
use crate::protocol::keyed::Keyed;
use crate::protocol::msg::ProducerIdAndEpoch;
use crate::protocol::share_msg::{Acknowledgement, AcquiredRecord};
use crate::protocol::share_state::StateBatch;
use crate::protocol::width::{Epoch, Offset};
use serde::{Deserialize, Serialize};
use stateright::actor::Id;

/// How a KIP-1289 client puts `__share_group_state` into its transaction
/// (docs/kafka-cases.md S23). Without a choice (every scenario but `ctp-implicit-add`) it
/// sends AddShareAcksToTxn and stages once that was answered, as the seed's text gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ShareAdd {
    /// No AddShareAcksToTxn: TxnShareAcknowledge alone, whose verification at the staging
    /// broker adds the partition, as a TV2 client's `sendOffsetsToTransaction` sends
    /// TxnOffsetCommit v5 alone (`TransactionManager`, Kafka 4.0; the version maps to
    /// `addPartition` in `AddPartitionsToTxnManager`). Under TV0/1 the verification only
    /// verifies, so this is KIP-890's buggy client that never adds.
    Implicit,
    /// AddShareAcksToTxn and TxnShareAcknowledge sent together, the staging before the add
    /// was answered: KIP-890's buggy client, whose write may reach its broker before the
    /// coordinator added the partition.
    Early,
}

/// AddShareAcksToTxnRequest: `TransactionalId ProducerId ProducerEpoch GroupId [Topics]`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct AddShareAcksToTxnRequest {
    /// The transactional id.
    pub txn: TransactionalId,
    /// The producer id and epoch of the transaction.
    pub producer: ProducerIdAndEpoch,
    /// The share group (KIP-1289 4.2 `GroupId`): whose `__share_group_state` key it is for.
    #[serde(default, skip_serializing_if = "GroupId::is_first")]
    pub group: GroupId,
}

/// AddShareAcksToTxnResponse.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct AddShareAcksToTxnResponse {
    /// The transactional id.
    pub txn: TransactionalId,
    /// The producer id and epoch the request carried.
    pub producer: ProducerIdAndEpoch,
    /// The error, as for AddOffsetsToTxn (fencing, invalid mapping, concurrent transactions).
    pub error: ErrorCode,
    /// The group the request named (echo).
    #[serde(default, skip_serializing_if = "GroupId::is_first")]
    pub group: GroupId,
}

/// TxnShareAcknowledgeRequest (mirrors TxnOffsetCommitRequest).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TxnShareAcknowledgeRequest {
    /// The transactional id.
    pub txn: TransactionalId,
    /// The producer id and epoch the acks are written with.
    pub producer: ProducerIdAndEpoch,
    /// The share group (`GroupId`, as TxnOffsetCommit's and the draft's): the share
    /// partition leader and the share coordinator stage only for the group they hold.
    #[serde(default, skip_serializing_if = "GroupId::is_first")]
    pub group: GroupId,
    /// The share-group member that acquired the records.
    pub member: MemberId,
    /// The acknowledgements to stage.
    pub acks: Vec<Acknowledgement>,
    /// Ghost: the client attempt that staged them (never read by protocol logic).
    pub tag: Ghost<TxnTag>,
    /// With `stage_at_leader`: the acquisitions acknowledged (offset and delivery count),
    /// which the leader's `acquisition` owner check compares with the record's current one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deliveries: Vec<AcquiredRecord>,
    /// With `stage_owner_check=acquisition`: the member of each acknowledgement whose
    /// acquisition is another member's than `member` (one transaction carrying several
    /// members' acknowledgements, docs/kafka-cases.md S22), as a batch's MemberId beside its
    /// DeliveryCount; empty when every acknowledgement is `member`'s.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<AckMember>,
    /// Set by a staging share-partition leader with `leader_resolution=notify`: the share
    /// coordinator tells it when a marker resolves these acknowledgements.
    #[serde(default, skip_serializing_if = "is_false")]
    pub notify: bool,
    /// Set by a staging share-partition leader with `stage_leader_epoch`: its leader epoch,
    /// which the share coordinator fences as it fences WriteShareGroupState's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leader_epoch: Option<Epoch>,
    /// Set by a staging share-partition leader with `sc_state_epoch_fence`: the state epoch
    /// of the state it loaded, which the share coordinator fences as it fences
    /// WriteShareGroupState's `StateEpoch` (FENCED_STATE_EPOCH below the stored one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_epoch: Option<Epoch>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// TxnShareAcksResolved (share coordinator to share-partition leader, `notify`): a marker
/// resolved acknowledgements the leader staged. Resent until answered.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TxnShareAcksResolvedRequest {
    /// The producer id and epoch the acknowledgements were staged with.
    pub producer: ProducerIdAndEpoch,
    /// COMMIT (apply) or ABORT (discard).
    pub commit: bool,
    /// The offsets resolved.
    pub offsets: Vec<Offset>,
    /// With `stage_leader_epoch`: the share partition's leader epoch as the share
    /// coordinator has stored it when it sends the outcome. A leader with an older epoch
    /// has been replaced (a leader move) and must neither apply nor answer it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leader_epoch: Option<Epoch>,
}

/// TxnShareAcksResolvedResponse: the leader applied the outcome (or had nothing staged).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TxnShareAcksResolvedResponse {
    /// The producer id and epoch of the request.
    pub producer: ProducerIdAndEpoch,
    /// `outcome_per_transaction`: the outcome and the offsets answered, so that the share
    /// coordinator retires exactly what this answer covers (an answer to an earlier
    /// request must not retire offsets merged in since). Empty otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered: Option<(bool, Vec<Offset>)>,
    /// With `stage_leader_epoch`: the answering leader's epoch. The share coordinator
    /// ignores the answer of a leader older than the stored epoch (a late answer of a
    /// leader that has moved away), so the outcome stays queued for the new leader.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leader_epoch: Option<Epoch>,
}

/// The member whose acquisition an acknowledgement of a TxnShareAcknowledge is for, where
/// it is not the request's `member`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct AckMember {
    /// The offset acknowledged.
    pub offset: Offset,
    /// The member that acquired it.
    pub member: MemberId,
}

/// TxnShareAcknowledgeResponse.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TxnShareAcknowledgeResponse {
    /// The producer id and epoch the request carried.
    pub producer: ProducerIdAndEpoch,
    /// The error.
    pub error: ErrorCode,
    /// The group the request named (echo).
    #[serde(default, skip_serializing_if = "GroupId::is_first")]
    pub group: GroupId,
    /// The leader epoch the request carried (a share-partition leader's forwarded staging
    /// with `stage_leader_epoch`; none from a client). The leader takes only an answer to
    /// its own epoch, as it takes WriteShareGroupState's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leader_epoch: Option<Epoch>,
}

/// Acknowledgements staged within a transaction, not yet resolved by a marker.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PendingAcks {
    /// The producer id and epoch they were written with.
    pub producer: ProducerIdAndEpoch,
    /// Ghost: the client attempt that staged them.
    pub tag: Ghost<TxnTag>,
    /// The state batches a COMMIT applies.
    pub batches: Vec<StateBatch>,
    /// KIP-1289 `notify`: the share-partition leader that staged them and asked to be
    /// told their outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notify: Option<Id>,
    /// The state epoch of the share state they were staged under (the share
    /// coordinator's own, when it wrote them; left out of traces at 0). An offset reset
    /// moves the state epoch on, and `sc_state_epoch_fence` applies no staging of an older
    /// state epoch at COMMIT.
    #[serde(default, skip_serializing_if = "is_zero_epoch")]
    pub state_epoch: Epoch,
    /// The share partition whose `SharePartitionKey` they are staged under (a
    /// `__share_group_state` record's key names it, as a `ShareUpdate`'s does; left out at
    /// 0, the only key but in `draft-itest` and `ctp-two-groups`).
    #[serde(default, skip_serializing_if = "is_zero_partition")]
    pub partition: u8,
}

impl PendingAcks {
    /// Where the share coordinator keeps them: their key and their producer id and epoch.
    pub fn at(&self) -> Keyed<ProducerIdAndEpoch> {
        Keyed::new(self.partition, self.producer)
    }
}

fn is_zero_partition(p: &u8) -> bool {
    *p == 0
}

fn is_zero_epoch(e: &Epoch) -> bool {
    *e == 0
}
