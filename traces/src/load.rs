//! Reading a trace file, and judging it before anything runs it: every way a file can be
//! wrong becomes one line naming the file and the problem, in the order a reader would
//! look (can it be read, is it JSON, is it a trace, of which version, does it name things
//! this build knows, are its numbers and actors in range).

use crate::digest::is_digest;
use crate::format::{Trace, FORMAT, VERSION};
use crate::judge;
use serde_json::Value;
use sharetxn_model::world::topology::Topology;
use sharetxn_model::{world::settings, Action, Design, Scenario};
use stateright::actor::Id;
use std::fmt;
use std::path::Path;

/// Why a trace file cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// The file, as the user named it.
    pub file: String,
    /// The problem, in one line.
    pub problem: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.problem)
    }
}

impl std::error::Error for LoadError {}

/// Folds any line breaks away, so every problem is one line.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Reads and checks the trace at `path`.
pub fn load(path: &Path) -> Result<Trace, LoadError> {
    let fail = |problem: String| LoadError {
        file: path.display().to_string(),
        problem: one_line(&problem),
    };
    let bytes = std::fs::read(path).map_err(|e| fail(format!("cannot read: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|e| fail(format!("not UTF-8 text: {e}")))?;
    parse(&text).map_err(fail)
}

/// Checks a trace's text; the problem is one line.
pub fn parse(text: &str) -> Result<Trace, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    match value.get("format") {
        Some(Value::String(f)) if f == FORMAT => {}
        Some(other) => {
            return Err(format!(
                "not a sharetxn trace (format is {other}, expected \"{FORMAT}\")"
            ))
        }
        None => {
            return Err(format!(
                "not a sharetxn trace (no \"format\": \"{FORMAT}\")"
            ))
        }
    }
    match value.get("version").and_then(Value::as_u64) {
        Some(VERSION) => {}
        Some(v) => {
            return Err(format!(
                "trace format version {v}; this sharetxn reads version {VERSION} (run check again to write a new trace)"
            ))
        }
        None => return Err(format!("no trace format version (this sharetxn reads version {VERSION})")),
    }
    // From the text rather than the value, so that serde's message carries a line and
    // column.
    let trace: Trace = serde_json::from_str(text).map_err(|e| format!("bad trace: {e}"))?;
    validate(&trace)?;
    Ok(trace)
}

/// What serde cannot see: names this build knows, knobs in range, actors that exist,
/// steps numbered in order.
pub fn validate(trace: &Trace) -> Result<(), String> {
    let mut design = Design::by_name(&trace.design.name)?;
    let mut scenario = Scenario::by_name(&trace.scenario.name)?;
    // The model's own `--set` validation judges the recorded knobs, so a trace cannot
    // build a world the command line (or the simulator's workload sizes) could not.
    if let Value::Object(knobs) = settings::as_json(&trace.design, &trace.scenario) {
        for (key, value) in knobs {
            let value = match value {
                Value::String(s) if s.is_empty() => "none".to_string(),
                Value::String(s) => s,
                other => other.to_string(),
            };
            settings::apply_within(
                settings::Bounds::Model,
                &mut design,
                &mut scenario,
                &format!("{key}={value}"),
            )
            .map_err(|e| format!("design or scenario out of range: {e}"))?;
        }
    }
    // The pair `check` would refuse (a design whose mechanism the scenario lacks) is
    // refused here too: a trace relabelled to it would judge a world no check explores.
    trace.design.applies_to(&trace.scenario).map_err(|why| {
        format!(
            "design {} does not apply to scenario {}: {why}",
            trace.design.name, trace.scenario.name
        )
    })?;
    if let Some(problem) = judge::unknown(&trace.outcome) {
        return Err(problem);
    }
    crate::heal::validate(trace)?;
    let topology = Topology::for_scenario(&trace.scenario);
    if !is_digest(&trace.initial.digest) {
        return Err(format!("initial: bad digest '{}'", trace.initial.digest));
    }
    for (i, step) in trace.steps.iter().enumerate() {
        if step.step != i + 1 {
            return Err(format!(
                "step {} is numbered {} (steps count from 1 without gaps)",
                i + 1,
                step.step
            ));
        }
        if !is_digest(&step.digest) {
            return Err(format!("step {}: bad digest '{}'", step.step, step.digest));
        }
        for id in actors(&step.action) {
            if usize::from(id) >= topology.len() {
                return Err(format!(
                    "step {}: unknown actor id {} (the scenario has {} actors)",
                    step.step,
                    usize::from(id),
                    topology.len()
                ));
            }
        }
    }
    Ok(())
}

/// The actors an action names.
fn actors(action: &Action) -> Vec<Id> {
    match action {
        Action::Deliver(e) | Action::Drop(e) | Action::Duplicate(e) => vec![e.src, e.dst],
        Action::Fire { actor, .. } | Action::Choose { actor, .. } => vec![*actor],
        Action::Crash(id) | Action::Restart(id) => vec![*id],
    }
}
