//! The result of a check: what the JSON report says, and the traces behind it.

use crate::Kind;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sharetxn_model::Action;

/// A property's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Safety or liveness: no reachable state violates it.
    Holds,
    /// Safety or liveness: a reachable state violates it (a trace shows how).
    Violated,
    /// Twin: a reachable state witnesses it.
    Witnessed,
    /// Twin: no reachable state witnesses it (the model may be too weak).
    Unreached,
    /// Safety or liveness: the check stopped early without finding a violation.
    Unknown,
    /// The property (or twin) does not apply to this scenario and design (a share-group
    /// property in a transaction scenario, or the reverse); it does not affect passing.
    NotApplicable,
}

/// One property's line in the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PropertyReport {
    /// The property's (or twin's) name.
    pub name: String,
    /// When it is judged.
    pub kind: Kind,
    /// The outcome.
    pub status: Status,
    /// The violation's one-line message (safety and liveness only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The trace file written for the discovery, if any (set by whoever writes traces).
    pub trace: Option<String>,
    /// The discovery's actions, from the initial state (not serialised in the report).
    #[serde(skip)]
    pub actions: Vec<Action>,
}

/// The result of an exhaustive check.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The scenario's name.
    pub scenario: String,
    /// The design's name.
    pub design: String,
    /// Every design knob and scenario field as used.
    pub settings: Value,
    /// The strategy (bfs or dfs).
    pub strategy: String,
    /// True when the whole bounded state space was explored.
    pub exhaustive: bool,
    /// Distinct states visited.
    pub unique_states: u64,
    /// The deepest state's depth (actions from the initial state).
    pub max_depth: u64,
    /// Wall-clock seconds the check took.
    pub seconds: f64,
    /// `unique_states / seconds`.
    pub states_per_second: f64,
    /// Every property and twin.
    pub properties: Vec<PropertyReport>,
}

impl Report {
    /// The report of a property or twin by name.
    pub fn property(&self, name: &str) -> Option<&PropertyReport> {
        self.properties.iter().find(|p| p.name == name)
    }

    /// The status of a property or twin by name.
    pub fn status(&self, name: &str) -> Option<Status> {
        self.property(name).map(|p| p.status)
    }

    /// Names of violated properties.
    pub fn violated(&self) -> Vec<&str> {
        self.properties
            .iter()
            .filter(|p| p.status == Status::Violated)
            .map(|p| p.name.as_str())
            .collect()
    }

    /// Exit-status semantics: nothing violated, every twin witnessed, and nothing unknown;
    /// properties that do not apply are ignored.
    pub fn passed(&self) -> bool {
        self.properties.iter().all(|p| {
            matches!(
                p.status,
                Status::Holds | Status::Witnessed | Status::NotApplicable
            )
        })
    }
}
