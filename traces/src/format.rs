//! The trace document, version 1: what a trace file holds, field by field, in the order it
//! is written. The types here are the contract between the writers (`check`, `sim`,
//! `shrink`) and the readers (`replay`, `shrink`, `render`); everything else in the crate
//! computes them or reads them.
//!
//! ```json
//! {
//!   "format": "sharetxn-trace",
//!   "version": 1,
//!   "tool_version": "0.1.0",
//!   "design": { "name": "consumer-offsets", "tv": 1, ... },
//!   "scenario": { "name": "txn-basic", "inputs": 2, ... },
//!   "origin": { "kind": "check", "strategy": "bfs", "max_depth": null },
//!   "outcome": { "violation": { "property": "txn_atomicity", "kind": "always", "message": "..." } },
//!   "initial": { "digest": "…", "parts": { "TC": "…", ... } },
//!   "steps": [ { "step": 1, "action": { "Deliver": ... }, "text": "Deliver P0->TC ...",
//!                "digest": "…", "parts": { ... } } ]
//! }
//! ```

use crate::digest::StateDigest;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sharetxn_model::{Action, Design, Scenario};
use sharetxn_properties::Kind;
use std::collections::BTreeMap;

/// The `format` field of every trace.
pub const FORMAT: &str = "sharetxn-trace";
/// The layout version this crate writes and reads. Version 0 (before this crate) had no
/// digests and no outcome; its traces are re-made by running `check` again.
pub const VERSION: u64 = 1;
/// The version of the tools that write traces.
pub const TOOL_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A trace: everything needed to replay a run on the current model and to judge it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trace {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`].
    pub version: u64,
    /// The version of the tool that wrote it.
    pub tool_version: String,
    /// The design, every knob as used.
    pub design: Design,
    /// The scenario, every field as used.
    pub scenario: Scenario,
    /// Which engine found the run.
    pub origin: Origin,
    /// What the run shows.
    pub outcome: Outcome,
    /// Where the simulator's heal phase began, for a verdict of the heal phase
    /// ([`crate::heal::HEAL_DEADLINE`]); absent otherwise, and in every trace written
    /// before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heal: Option<Heal>,
    /// The digests of the initial state.
    pub initial: StateDigest,
    /// The actions from the initial state.
    pub steps: Vec<Step>,
}

/// Which engine found the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Origin {
    /// The exhaustive checker.
    Check {
        /// `bfs` or `dfs`.
        strategy: String,
        /// The depth bound, if any.
        max_depth: Option<u64>,
    },
    /// The simulator.
    Sim {
        /// The run's seed.
        seed: u64,
        /// Every simulator option of the run (fault probabilities, phases, steps), as the
        /// simulator prints them: enough to run the same seed again.
        options: Value,
    },
    /// A search of a swarm (`sharetxn swarm`): depth-first in the order of its seed.
    Swarm {
        /// The search's seed.
        search: u64,
        /// Distinct states the search visited at most.
        max_states: u64,
        /// The depth bound, if any.
        max_depth: Option<u64>,
    },
    /// `shrink` cut a longer trace down.
    Shrunk {
        /// How many steps the trace had before.
        from_steps: usize,
        /// The origin of the trace it was cut from.
        original: Box<Origin>,
    },
}

/// The heal phase of a simulator run: from this point on no fault happens, and the run
/// had `deadline_ms` of virtual time to become quiescent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Heal {
    /// Steps of the fault phase: the heal began after this step (0: before the first).
    pub after_step: usize,
    /// Virtual time the heal began, in milliseconds (`None` in a shrunk trace, which has
    /// no honest timing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_ms: Option<u64>,
    /// The virtual time the run had, from the heal, to become quiescent.
    pub deadline_ms: u64,
    /// When the action the simulator would have taken next was due, if that time (past
    /// `at_ms + deadline_ms`) is what ended the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_due_ms: Option<u64>,
}

/// What a run shows: a property violated, or a reachability twin witnessed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Outcome {
    /// A safety or liveness property is violated in the last state.
    Violation {
        /// The property's name.
        property: String,
        /// `always` or `eventually`.
        kind: Kind,
        /// The property's one-line message.
        message: String,
    },
    /// A reachability twin is witnessed in the last state.
    Witness {
        /// The twin's name.
        property: String,
    },
}

impl Outcome {
    /// The property's or twin's name.
    pub fn property(&self) -> &str {
        match self {
            Outcome::Violation { property, .. } | Outcome::Witness { property } => property,
        }
    }

    /// One line for humans.
    pub fn describe(&self) -> String {
        match self {
            Outcome::Violation {
                property, message, ..
            } => format!("{property} violated: {message}"),
            Outcome::Witness { property } => format!("{property} witnessed"),
        }
    }
}

/// One step: an action and the state it led to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Its number, from 1 (state 0 is the initial state).
    pub step: usize,
    /// Virtual time in milliseconds, for simulator runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
    /// The action, by value.
    pub action: Action,
    /// The action for humans (`System::describe`).
    pub text: String,
    /// The digest of the state after the action.
    pub digest: String,
    /// The digests of that state's parts.
    pub parts: BTreeMap<String, String>,
}

impl Step {
    /// The digests of the state after the action.
    pub fn after(&self) -> StateDigest {
        StateDigest {
            digest: self.digest.clone(),
            parts: self.parts.clone(),
        }
    }
}

impl Trace {
    /// The trace as written to a file: pretty JSON and a final line break. Writing a
    /// loaded trace gives back the same bytes.
    pub fn to_json(&self) -> Result<String, String> {
        let mut text = serde_json::to_string_pretty(self)
            .map_err(|e| format!("cannot encode the trace: {e}"))?;
        text.push('\n');
        Ok(text)
    }

    /// The actions, in order.
    pub fn actions(&self) -> Vec<Action> {
        self.steps.iter().map(|s| s.action.clone()).collect()
    }
}
