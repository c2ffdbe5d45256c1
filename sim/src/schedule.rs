//! An explicit fault schedule: the faults of a run as data rather than rates. The swarm
//! draws its timed faults into this form, and proptest generates whole schedules, so a
//! failing schedule can be shrunk to the few faults that matter.

use crate::ratio::Ratio;
use serde::{Deserialize, Serialize};

/// A fault at a point of virtual time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timed {
    /// When it happens (only during the fault phase).
    pub at_ms: u64,
    /// What happens.
    pub event: FaultEvent,
}

/// A timed fault. Actors are named by index modulo the candidates when it happens, so a
/// schedule stays meaningful when shrinking changes the scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultEvent {
    /// One of the actors the scenario lets crash (and that is up) crashes.
    Crash {
        /// Which of them.
        actor: u8,
        /// How long until it restarts.
        downtime_ms: u64,
    },
    /// The actors whose bit is set lose contact with the others.
    Partition {
        /// One side of the split (bit `i` is actor `i`).
        side: u32,
        /// How long until it heals.
        duration_ms: u64,
        /// Messages across are held until the heal (true) or lost (false).
        hold: bool,
    },
    /// An actor stops acting (a client stall or a GC pause).
    Stall {
        /// Which actor.
        actor: u8,
        /// For how long.
        duration_ms: u64,
    },
}

/// A message fault, by the message's number in the order messages are sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MessageFault {
    /// The message is lost.
    Lose,
    /// The message (a client request) is duplicated.
    Duplicate,
    /// The message is delayed this much beyond its latency.
    Delay {
        /// Extra delay.
        ms: u32,
    },
}

/// Every fault of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedule {
    /// Timed faults.
    pub timed: Vec<Timed>,
    /// Message faults: (the message's number from 0, the fault).
    pub messages: Vec<(u32, MessageFault)>,
    /// How likely a client is to abort rather than commit.
    pub abort: Ratio,
}

impl Schedule {
    /// How many faults it lists.
    pub fn len(&self) -> usize {
        self.timed.len() + self.messages.len()
    }

    /// Whether it lists no fault.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
