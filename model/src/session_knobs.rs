//! KIP-1310's choices for a `TransactionSession` shared by a producer and a share consumer:
//! one `Design` knob per point the seed leaves open. The seed's values are the defaults,
//! left out of traces, so designs and traces without sessions are what they were.

use serde::{Deserialize, Serialize};

/// How the producer on an external session learns the producer epoch after the session
/// ended a transaction (transaction version 2 bumps the epoch at every EndTxn; research
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
