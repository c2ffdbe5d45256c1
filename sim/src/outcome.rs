//! What one simulated run yields: the choices it ran with, how far it got, the violation
//! if any, and every action it took with its virtual time (by value, so the run replays
//! on the model without the simulator).

use crate::swarm::Swarm;
use serde::{Deserialize, Serialize};
use sharetxn_model::{Action, Scenario};
use sharetxn_properties::Violation;

/// The name a liveness failure of the heal phase is reported under when no single
/// property names it: the run never became quiescent within the heal deadline.
pub const HEAL_DEADLINE: &str = "heal_deadline";

/// One action of a run and when it happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimedAction {
    /// Virtual time, in milliseconds from the start.
    pub time_ms: u64,
    /// The action, by value.
    pub action: Action,
}

/// The result of one run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The seed.
    pub seed: u64,
    /// The seed's swarm choices (`None` when an explicit schedule drove the run).
    pub swarm: Option<Swarm>,
    /// The scenario as run: the swarm's workload and the simulator's generous budgets.
    pub scenario: Scenario,
    /// Actions taken.
    pub steps: u64,
    /// Virtual time at the end.
    pub virtual_ms: u64,
    /// When the heal phase began (`None` if the run stopped before it).
    pub heal_at_ms: Option<u64>,
    /// How many actions the fault phase took: the heal began after this many (`None` if
    /// the run stopped before it). A trace of a heal-phase verdict records it, so replay
    /// knows which steps had to be fault-free.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heal_at_step: Option<u64>,
    /// For a [`HEAL_DEADLINE`] verdict that the next action's time decided: when that
    /// action was due (past the deadline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_due_ms: Option<u64>,
    /// The first property found violated.
    pub violation: Option<Violation>,
    /// Every action taken, in order.
    pub trace: Vec<TimedAction>,
}

impl Outcome {
    /// Whether no property was violated.
    pub fn passed(&self) -> bool {
        self.violation.is_none()
    }
}
