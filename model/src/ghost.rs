//! Ghost state: what the properties need to know about the run that no actor records.
//! The system updates it from the steps it executes (like stateright's message history,
//! but it also sees crashes, timers and choices). Protocol logic never reads it.

use crate::ids::{MemberId, TopicPartition, TxnTag};
use crate::share_msg::DeliveryTag;
use crate::source_reader::CheckpointId;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Facts about the run so far.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Ghost {
    /// Every write each client transaction attempt issued, by partition.
    pub writes: BTreeMap<TxnTag, BTreeSet<TopicPartition>>,
    /// What the client asked EndTxn to do for each attempt (commit = true).
    pub decisions: BTreeMap<TxnTag, bool>,
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
}

/// Ghost facts about the share group.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShareGhost {
    /// Acquisitions (deliveries) of each offset so far, across leader failovers.
    pub deliveries: BTreeMap<u8, u8>,
    /// Share-partition leader restarts so far.
    pub failovers: u8,
    /// Offsets whose acquisition lock expired, with the member that held them.
    pub expired: BTreeMap<u8, MemberId>,
    /// A record whose lock expired was delivered to another member.
    pub lock_redelivered: bool,
    /// A record was archived at the delivery count limit.
    pub limit_archived: bool,
    /// A late or foreign acknowledgement was rejected with INVALID_RECORD_STATE.
    pub late_ack_rejected: bool,
    /// The first acknowledgement applied to an acquisition it was not made for.
    pub misapplied_ack: Option<String>,
    /// The share-partition leader restarted and loaded a state with a terminal record.
    pub spl_rebuilt: bool,
    /// The first persisted terminal state that went back.
    pub terminal_regressed: Option<String>,
    /// Flink source readers: for each input offset, the completed checkpoints that cover
    /// a processing of it, with the delivery processed (left out of traces while empty).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub processed: BTreeMap<u8, Vec<(CheckpointId, DeliveryTag)>>,
}

impl ShareGhost {
    /// Nothing recorded (always the case without a share group).
    pub fn is_empty(&self) -> bool {
        *self == ShareGhost::default()
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
