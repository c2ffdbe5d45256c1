//! The trace file of a simulator violation, in the traces crate's format: the design and
//! the scenario as run, the actions by value with their virtual times and state digests
//! (so `sharetxn replay` and `shrink` work on it without the simulator), and the seed,
//! options and swarm choices (so `sharetxn sim` can run it again).

use crate::error::CliError;
use crate::trace::{file_name, write_trace};
use sharetxn_model::{Design, System};
use sharetxn_properties::{Kind, PROPERTIES};
use sharetxn_sim::outcome::HEAL_DEADLINE;
use sharetxn_sim::{Outcome, SimOptions};
use sharetxn_traces::{Heal, Origin, Outcome as TraceOutcome};
use std::path::{Path, PathBuf};

/// Writes the trace of `outcome`'s violation into `dir` and returns its path; `None` when
/// the run violated nothing.
pub fn write_sim_trace(
    dir: &Path,
    design: &Design,
    options: &SimOptions,
    outcome: &Outcome,
) -> Result<Option<PathBuf>, CliError> {
    let Some(violation) = &outcome.violation else {
        return Ok(None);
    };
    let system = System::new(design.clone(), outcome.scenario.clone());
    // The heal deadline is judged by the simulator, not by a property of the table: it is
    // a liveness failure, recorded as one.
    let kind = PROPERTIES
        .iter()
        .find(|p| p.name == violation.property)
        .map_or(Kind::Eventually, |p| p.kind);
    let origin = Origin::Sim {
        seed: outcome.seed,
        options: serde_json::json!({
            "options": options,
            "swarm": outcome.swarm,
        }),
    };
    let result = TraceOutcome::Violation {
        property: violation.property.clone(),
        kind,
        message: violation.message.clone(),
    };
    let actions: Vec<_> = outcome.trace.iter().map(|t| t.action.clone()).collect();
    let times: Vec<_> = outcome.trace.iter().map(|t| Some(t.time_ms)).collect();
    let mut trace = sharetxn_traces::record(&system, origin, result, &actions, &times)
        .map_err(|e| CliError::new(format!("cannot record the simulator trace: {e}")))?;
    trace.heal = heal_point(options, outcome);
    let name = file_name(
        &design.name,
        &outcome.scenario.name,
        &format!("seed{}-{}", outcome.seed, violation.property),
    );
    let path = dir.join(name);
    write_trace(&path, &trace)?;
    Ok(Some(path))
}

/// Where the heal began, for a verdict only the heal phase gives (replay needs it to tell
/// the fault-free steps and, without a cycle, the deadline).
pub fn heal_point(options: &SimOptions, outcome: &Outcome) -> Option<Heal> {
    let violation = outcome.violation.as_ref()?;
    (violation.property == HEAL_DEADLINE).then(|| Heal {
        after_step: outcome.heal_at_step.unwrap_or(0) as usize,
        at_ms: outcome.heal_at_ms,
        deadline_ms: options.heal_deadline_ms,
        next_due_ms: outcome.late_due_ms,
    })
}
