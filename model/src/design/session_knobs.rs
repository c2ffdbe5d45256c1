//! KIP-1310's choices for a `TransactionSession` shared by a producer and a share consumer:
//! one `Design` knob per point the seed leaves open. The seed's values are the defaults,
//! left out of traces, so designs and traces without sessions are what they were.

use serde::{Deserialize, Serialize};

/// How the producer on an external session learns the producer epoch after the session
/// ended a transaction (transaction version 2 bumps the epoch at every EndTxn; docs/kafka-cases.md
/// S16).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum EpochHandoff {
    /// The seed: the session talks to the coordinator "independently" on its own network
    /// client and the producer's Sender thread only sends Produce, so the producer picks
    /// the new identity up at some later point, not at the moment the session has it. A
    /// batch built in between carries the old epoch.
    #[default]
    Async,
    /// The identity (producer id, epoch, sequences reset) is swapped in one step with "no
    /// batch in flight": the producer sends nothing while a batch of the old epoch is
    /// unanswered, and after that every batch carries the session's current identity.
    Atomic,
}

impl EpochHandoff {
    /// Every value, in `--set` order.
    pub const ALL: [EpochHandoff; 2] = [EpochHandoff::Async, EpochHandoff::Atomic];

    /// The `--set` spelling.
    pub fn name(self) -> &'static str {
        match self {
            EpochHandoff::Async => "async",
            EpochHandoff::Atomic => "atomic",
        }
    }
}

/// What `TransactionSession.resume(txnId, producerId, epoch)` does (the seed's 3.5;
/// docs/kafka-cases.md S17).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum ResumeMode {
    /// The seed taken literally: "creates a TransactionSession in IN_TRANSACTION state with
    /// the given identity" under "no new wire protocol". The identity is installed locally;
    /// nothing tells the coordinator, so the incarnation that prepared the transaction is
    /// not fenced and keeps writing with the same pair.
    #[default]
    Install,
    /// KIP-939's recovery, which the seed says resume "may call under the covers":
    /// InitProducerId(keepPreparedTxn=true) bumps the epoch (fencing the old incarnation at
    /// the coordinator) and returns the kept transaction's pair, which the session then
    /// completes with `completeTransaction(preparedTxnState)`.
    Fence,
}

impl ResumeMode {
    /// Every value, in `--set` order.
    pub const ALL: [ResumeMode; 2] = [ResumeMode::Install, ResumeMode::Fence];

    /// The `--set` spelling.
    pub fn name(self) -> &'static str {
        match self {
            ResumeMode::Install => "install",
            ResumeMode::Fence => "fence",
        }
    }
}

/// Who sends a transaction's KIP-1309 heartbeats on a client whose application can be busy
/// for long (a Connect sink task's `task.put()`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum HeartbeatOwner {
    /// The session seed: the `TransactionSession`'s own network client heartbeats,
    /// independent of the application thread, so a long `task.put()` does not stop it.
    #[default]
    Session,
    /// Without KIP-1310 (the seed's point 4 of KIP-1302's problem): the heartbeat runs
    /// inside the producer, which is idle while the application is in `task.put()`, so a
    /// long put() silences it.
    Producer,
}

impl HeartbeatOwner {
    /// Every value, in `--set` order.
    pub const ALL: [HeartbeatOwner; 2] = [HeartbeatOwner::Session, HeartbeatOwner::Producer];

    /// The `--set` spelling.
    pub fn name(self) -> &'static str {
        match self {
            HeartbeatOwner::Session => "session",
            HeartbeatOwner::Producer => "producer",
        }
    }
}
