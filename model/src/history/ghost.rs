//! Ghost state: what the properties need to know about the run that no actor records.
//! The system updates it from the steps it executes (like stateright's message history,
//! but it also sees crashes, timers and choices). Protocol logic never reads it.

use crate::clients::source_reader::CheckpointId;
use crate::history::ghost_value;
use crate::history::session_ghost::SessionGhost;
use crate::protocol::ids::{MemberId, TopicPartition, TxnTag};
use crate::protocol::msg::ProducerIdAndEpoch;
use crate::protocol::share_msg::DeliveryTag;
use crate::protocol::width::{Epoch, Offset};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Facts about the run so far.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Ghost {
    /// Every write each client transaction attempt issued, by partition.
    pub writes: BTreeMap<ghost_value::Ghost<TxnTag>, BTreeSet<TopicPartition>>,
    /// What the client asked EndTxn to do for each attempt (commit = true).
    pub decisions: BTreeMap<ghost_value::Ghost<TxnTag>, bool>,
    /// The first step that left a transition table, described.
    pub illegal_transition: Option<String>,
    /// A partition or the coordinator rejected a request for carrying a fenced epoch.
    pub zombie_fenced: bool,
    /// The coordinator aborted a transaction because it timed out.
    pub timeout_abort: bool,
    /// The coordinator restarted with a transaction in flight in its log.
    pub coordinator_restart: bool,
    /// A message was lost or duplicated, or an actor crashed.
    pub fault: bool,
    /// A transaction completed its commit after a fault.
    pub commit_after_fault: bool,
    /// Facts about the share group (left out of traces while empty, so the transaction
    /// scenarios' state digests are what they were before share groups).
    #[serde(default, skip_serializing_if = "ShareGhost::is_empty")]
    pub share: ShareGhost,
    /// KIP-1310 facts about sessions (left out of traces while empty).
    #[serde(default, skip_serializing_if = "SessionGhost::is_empty")]
    pub session: SessionGhost,
    /// KIP-1310 resume facts (left out of traces while empty).
    #[serde(
        default,
        skip_serializing_if = "crate::history::resume_ghost::ResumeGhost::is_empty"
    )]
    pub resume: crate::history::resume_ghost::ResumeGhost,
}

/// Ghost facts about the share group.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShareGhost {
    /// Acquisitions (deliveries) of each offset so far, across leader failovers.
    pub deliveries: BTreeMap<Offset, u8>,
    /// Share-partition leader restarts so far.
    pub failovers: Epoch,
    /// Deliveries of each offset that the current leader cannot know of: at its load, the
    /// deliveries so far minus the persisted delivery count it started from (acquisitions
    /// are not persisted, and a lost state write loses the counts it carried).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub forgotten: BTreeMap<Offset, u8>,
    /// Offsets whose acquisition lock expired, with the member that held them.
    pub expired: BTreeMap<Offset, MemberId>,
    /// A record whose lock expired was delivered to another member.
    pub lock_redelivered: bool,
    /// A record was archived at the delivery count limit.
    pub limit_archived: bool,
    /// A late or foreign acknowledgement was rejected with INVALID_RECORD_STATE.
    pub late_ack_rejected: bool,
    /// The first acknowledgement applied to another member's acquisition.
    pub misapplied_ack: Option<String>,
    /// The first acknowledgement applied to a later delivery of the same record to the same
    /// member (Kafka validates member id, offset and state, not the delivery).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub misapplied_delivery: Option<String>,
    /// The share-partition leader restarted and loaded a state with a terminal record.
    pub spl_rebuilt: bool,
    /// The first persisted terminal state that went back.
    pub terminal_regressed: Option<String>,
    /// KIP-1289 facts (left out of traces while empty, so share-basic's digests stay).
    #[serde(default, skip_serializing_if = "TxnAckGhost::is_empty")]
    pub txn_acks: TxnAckGhost,
    /// Flink source readers: for each input offset, the completed checkpoints that cover
    /// a processing of it, with the delivery processed (left out of traces while empty).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub processed: BTreeMap<Offset, Vec<(CheckpointId, DeliveryTag)>>,
}

/// Ghost facts about transactional share acknowledgements (KIP-1289).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TxnAckGhost {
    /// What each attempt's TxnShareAcknowledge carried: the producer id and epoch it was
    /// staged with, and the offsets it acknowledged.
    pub staged: BTreeMap<ghost_value::Ghost<TxnTag>, StagedAck>,
    /// The transaction coordinator's decisions, by the producer id and epoch the
    /// transaction wrote with (its staging identity); under TV0/1 two transactions of one
    /// producer share it, and the later decision is kept.
    pub decided: BTreeMap<ProducerIdAndEpoch, TcDecision>,
    /// The transaction coordinator's decision for each attempt that staged acks or was the
    /// client's transaction when it was decided (commit = true).
    pub outcomes: BTreeMap<ghost_value::Ghost<TxnTag>, bool>,
    /// The first marker that resolved acks of another transaction, or left its own
    /// pending.
    pub marker_mismatch: Option<String>,
    /// An ABORT marker discarded staged acks.
    pub abort_discarded: bool,
    /// The share coordinator restarted while its log held pending acks.
    pub pending_across_restart: bool,
    /// The share coordinator's load left acks pending.
    pub reloaded_pending: bool,
    /// A marker resolved pending acks after a load left acks pending.
    pub resolved_after_restart: bool,
    /// A record whose transactional acknowledgement was aborted was delivered again.
    pub redelivered_after_abort: bool,
}

/// What one attempt's TxnShareAcknowledge carried.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct StagedAck {
    /// The producer id and epoch the acks were written with.
    pub producer: ProducerIdAndEpoch,
    /// The offsets acknowledged.
    pub offsets: Vec<Offset>,
}

/// A decision of the transaction coordinator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TcDecision {
    /// The producer id and epoch its markers carry.
    pub marker: ProducerIdAndEpoch,
    /// COMMIT (true) or ABORT.
    pub commit: bool,
}

impl TxnAckGhost {
    /// Nothing recorded (always the case without KIP-1289).
    pub fn is_empty(&self) -> bool {
        *self == TxnAckGhost::default()
    }

    /// The transaction coordinator's decision for attempt `tag`, if it decided.
    pub fn outcome(&self, tag: ghost_value::Ghost<TxnTag>) -> Option<bool> {
        self.outcomes.get(&tag).copied()
    }

    /// The staging identities of the transactions whose markers are `marker`/`commit`.
    pub fn stagings_of(&self, marker: ProducerIdAndEpoch, commit: bool) -> Vec<ProducerIdAndEpoch> {
        self.decided
            .iter()
            .filter(|(_, d)| d.marker == marker && d.commit == commit)
            .map(|(s, _)| *s)
            .collect()
    }
}

impl ShareGhost {
    /// Nothing recorded (always the case without a share group).
    pub fn is_empty(&self) -> bool {
        *self == ShareGhost::default()
    }

    /// The share-partition leader applied an acknowledgement of `offset`, made for the
    /// delivery its ghost tag `ack` names, to `acquisition`: records the first one applied
    /// to another member's acquisition, and the first applied to a later delivery to the
    /// same member.
    pub fn observe_ack_applied(
        &mut self,
        offset: Offset,
        ack: ghost_value::Ghost<DeliveryTag>,
        acquisition: DeliveryTag,
    ) {
        let ack = *ack.open();
        let slot = if ack.member != acquisition.member {
            &mut self.misapplied_ack
        } else {
            &mut self.misapplied_delivery
        };
        if ack != acquisition && slot.is_none() {
            *slot = Some(format!(
                "SP0 applied an acknowledgement of offset {offset} made for delivery {ack:?} to acquisition {acquisition:?}"
            ));
        }
    }
}

impl Ghost {
    /// Records a transition-table violation (the first one wins, so the trace ends there).
    pub fn illegal(&mut self, what: String) {
        if self.illegal_transition.is_none() {
            self.illegal_transition = Some(what);
        }
    }
}
