//! The JSON line of one seed, as `sharetxn sim --json` prints it and `--summarize` reads it
//! back: what ran (the seed and every swarm choice), how far it got, and what it found.

use crate::faults::FaultKind;
use crate::outcome::Outcome;
use crate::swarm::Swarm;
use serde::{Deserialize, Serialize};

/// One seed's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeedLine {
    /// The seed.
    pub seed: u64,
    /// Actions taken.
    pub steps: u64,
    /// Virtual time at the end.
    pub virtual_ms: u64,
    /// `pass` or `violated`.
    pub result: String,
    /// The violated property.
    pub property: Option<String>,
    /// The violation's message.
    pub message: Option<String>,
    /// The trace file written for the violation.
    pub trace: Option<String>,
    /// When the heal phase began.
    pub heal_at_ms: Option<u64>,
    /// The fault kinds the swarm turned on.
    pub faults: Vec<FaultKind>,
    /// Every swarm choice.
    pub swarm: Option<Swarm>,
}

/// `result` of a run that violated nothing.
pub const PASS: &str = "pass";
/// `result` of a run that violated a property.
pub const VIOLATED: &str = "violated";

impl SeedLine {
    /// The line of `outcome`, with the path of its trace file if one was written.
    pub fn new(outcome: &Outcome, trace: Option<String>) -> SeedLine {
        SeedLine {
            seed: outcome.seed,
            steps: outcome.steps,
            virtual_ms: outcome.virtual_ms,
            result: if outcome.passed() { PASS } else { VIOLATED }.to_string(),
            property: outcome.violation.as_ref().map(|v| v.property.clone()),
            message: outcome.violation.as_ref().map(|v| v.message.clone()),
            trace,
            heal_at_ms: outcome.heal_at_ms,
            faults: outcome.swarm.as_ref().map(Swarm::kinds).unwrap_or_default(),
            swarm: outcome.swarm.clone(),
        }
    }

    /// Whether the seed violated a property.
    pub fn violated(&self) -> bool {
        self.result != PASS
    }
}
