//! What a transactional partition leader keeps besides its log: the KIP-890 verifications
//! in progress. Shared by data partitions and the group coordinator, which both verify a
//! producer's first write of a transaction with the transaction coordinator.

pub use crate::partition::parked_write::Parked;
use crate::partition::parked_write::Verifying;
use crate::partition::partition_log::{LogEntry, PartitionLog};
use crate::protocol::msg::VerificationGuard;
use crate::protocol::width::{Counter, Epoch};
use serde::{Deserialize, Serialize};
use stateright::actor::Id;
use std::collections::BTreeMap;

/// Durable state of a partition leader: its log, and how often it has started (so that a
/// verification guard of an earlier incarnation never matches one of this incarnation).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LeaderStorage {
    /// Incarnations so far.
    pub generation: Epoch,
    /// The log.
    pub entries: Vec<LogEntry>,
    /// Group coordinator only: the share group's state epoch as its last offset reset set
    /// it (Kafka keeps it in `__consumer_offsets`; 0 until a reset, left out of traces).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub share_state_epoch: Epoch,
}

fn is_zero(e: &Epoch) -> bool {
    *e == 0
}

/// A partition leader's state: the log plus volatile verification state.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LeaderState<R> {
    /// This incarnation's generation.
    pub generation: Epoch,
    /// The log and its producer state.
    pub log: PartitionLog,
    /// Verifications in progress, one per producer id (a newer one replaces the older).
    pub verifying: Verifying<R>,
    /// Clients whose OffsetFetch(RequireStable) waits for pending offsets to resolve
    /// (group coordinator only).
    pub waiting_fetches: Vec<Id>,
    /// Group coordinator only: the share group's state epoch, durable
    /// ([`LeaderStorage::share_state_epoch`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub share_state_epoch: Epoch,
}

impl<R: Clone> LeaderState<R> {
    /// Loads a leader from its durable storage: the log is replayed, verification state is
    /// gone (it lived in memory), and the generation moves on.
    pub fn load(storage: &Option<LeaderStorage>) -> (LeaderState<R>, LeaderStorage) {
        let (generation, entries, share_state_epoch) = match storage {
            Some(s) => (s.generation + 1, s.entries.clone(), s.share_state_epoch),
            None => (0, Vec::new(), 0),
        };
        let state = LeaderState {
            generation,
            log: PartitionLog::load(entries.clone()),
            verifying: BTreeMap::new(),
            waiting_fetches: Vec::new(),
            share_state_epoch,
        };
        (
            state,
            LeaderStorage {
                generation,
                entries,
                share_state_epoch,
            },
        )
    }

    /// What to save after the log changed.
    pub fn storage(&self) -> LeaderStorage {
        LeaderStorage {
            generation: self.generation,
            entries: self.log.entries.clone(),
            share_state_epoch: self.share_state_epoch,
        }
    }

    /// The guard a verification parked now carries.
    ///
    /// Kafka's guard is an object identity. Here it is the leader incarnation and the log
    /// end offset: a marker between verification and append moves the log end, so an
    /// answer to a verification made before the marker never unlocks an append after it
    /// (the ABA race KIP-890 closes), and the guard space stays bounded.
    pub fn guard(&self) -> VerificationGuard {
        VerificationGuard {
            generation: self.generation,
            counter: Counter::try_from(self.log.entries.len())
                .expect("a log shorter than 2^32 entries"),
        }
    }
}
