//! The faults a run can suffer and what decides them. A message's fate is decided when it
//! is sent (lost, duplicated, delayed by a spike); crashes, partitions and stalls are
//! timed events. Either the seed's swarm draws them with its rates, or an explicit
//! [`Schedule`] lists them (what proptest generates and shrinks).

use crate::ratio::Ratio;
use crate::rng::SimRng;
use crate::schedule::{MessageFault, Schedule, Timed};
use crate::swarm::Swarm;
use serde::{Deserialize, Serialize};

/// A kind of fault the swarm can turn on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    /// A message is lost (the sender sees a timeout).
    Loss,
    /// A client request is sent twice (a retry whose first copy is still in flight).
    Duplication,
    /// A message is delayed far beyond its link's latency.
    Spike,
    /// The network splits the actors in two groups until it heals.
    Partition,
    /// An actor the scenario lets crash crashes, and restarts after a downtime.
    Crash,
    /// An actor stops acting for a while (a client stall, a GC pause).
    Stall,
}

impl FaultKind {
    /// Every kind, in a fixed order.
    pub const ALL: [FaultKind; 6] = [
        FaultKind::Loss,
        FaultKind::Duplication,
        FaultKind::Spike,
        FaultKind::Partition,
        FaultKind::Crash,
        FaultKind::Stall,
    ];

    /// The name used by `--set faults=...` and in the output.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Loss => "loss",
            FaultKind::Duplication => "duplication",
            FaultKind::Spike => "spike",
            FaultKind::Partition => "partition",
            FaultKind::Crash => "crash",
            FaultKind::Stall => "stall",
        }
    }
}

/// What becomes of a message, decided when it is sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MessageFate {
    /// It is lost when it would arrive.
    pub lost: bool,
    /// A second copy enters the network when it would arrive (client requests only).
    pub duplicated: bool,
    /// Extra delay beyond the link's latency.
    pub spike_ms: u64,
}

/// Where a run's faults come from.
#[derive(Clone, Debug)]
pub enum FaultPlan {
    /// Drawn with the swarm's rates.
    Swarm(Swarm),
    /// Exactly the listed faults.
    Schedule(Schedule),
}

impl FaultPlan {
    /// The fate of the `nth` message sent in the run (counting from 0).
    pub fn fate(&self, rng: &mut SimRng, nth: u64, client_request: bool) -> MessageFate {
        match self {
            FaultPlan::Swarm(s) => {
                let mut fate = MessageFate {
                    lost: rng.chance(s.loss),
                    ..MessageFate::default()
                };
                if client_request && !fate.lost {
                    fate.duplicated = rng.chance(s.duplication);
                }
                if rng.chance(s.spike) {
                    fate.spike_ms = rng.between(1_000, s.spike_max_ms.max(1_000));
                }
                fate
            }
            FaultPlan::Schedule(s) => {
                let mut fate = MessageFate::default();
                for (at, fault) in &s.messages {
                    if u64::from(*at) != nth {
                        continue;
                    }
                    match fault {
                        MessageFault::Lose => fate.lost = true,
                        MessageFault::Duplicate => fate.duplicated = client_request,
                        MessageFault::Delay { ms } => fate.spike_ms += u64::from(*ms),
                    }
                }
                fate
            }
        }
    }

    /// The timed faults (crashes, partitions, stalls) of the fault phase, in time order.
    pub fn timed(&self, rng: &mut SimRng, fault_ms: u64, actors: usize) -> Vec<Timed> {
        let mut out = match self {
            FaultPlan::Swarm(s) => s.draw_timed(rng, fault_ms, actors),
            FaultPlan::Schedule(s) => s.timed.clone(),
        };
        out.sort_by_key(|t| t.at_ms);
        out
    }

    /// How likely a client is to abort rather than commit.
    pub fn abort(&self) -> Ratio {
        match self {
            FaultPlan::Swarm(s) => s.abort,
            FaultPlan::Schedule(s) => s.abort,
        }
    }
}
