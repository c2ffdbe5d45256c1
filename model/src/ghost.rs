//! Ghost state: what the properties need to know about the run that no actor records.
//! The system updates it from the steps it executes (like stateright's message history,
//! but it also sees crashes, timers and choices). Protocol logic never reads it.

use crate::ids::{TopicPartition, TxnTag};
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
}

impl Ghost {
    /// Records a transition-table violation (the first one wins, so the trace ends there).
    pub fn illegal(&mut self, what: String) {
        if self.illegal_transition.is_none() {
            self.illegal_transition = Some(what);
        }
    }
}
