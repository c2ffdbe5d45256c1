//! The trace file of a simulator violation: everything needed to replay it without the
//! simulator (the design and the scenario as run, the actions by value with their
//! virtual times) and to run it again with the simulator (the seed and the options).
//! This is the one place that knows the layout, so switching to the traces crate's
//! format is a change to [`write_sim_trace`] alone.

use crate::error::CliError;
use crate::trace::{file_name, write_atomically};
use serde::Serialize;
use sharetxn_model::{Action, Design, Scenario, System};
use sharetxn_sim::{Outcome, SimOptions, Swarm};
use std::path::{Path, PathBuf};

/// The `format` field of a simulator trace.
pub const FORMAT: &str = "sharetxn-sim-trace";
/// The `version` field.
pub const VERSION: u64 = 1;

#[derive(Serialize)]
struct SimTrace<'a> {
    format: &'static str,
    version: u64,
    tool_version: &'static str,
    design: &'a Design,
    scenario: &'a Scenario,
    origin: Origin<'a>,
    property: &'a str,
    message: &'a str,
    actions: Vec<Step<'a>>,
}

#[derive(Serialize)]
struct Origin<'a> {
    seed: u64,
    options: &'a SimOptions,
    swarm: Option<&'a Swarm>,
}

#[derive(Serialize)]
struct Step<'a> {
    step: usize,
    time_ms: u64,
    action: &'a Action,
    text: String,
}

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
    let trace = SimTrace {
        format: FORMAT,
        version: VERSION,
        tool_version: env!("CARGO_PKG_VERSION"),
        design,
        scenario: &outcome.scenario,
        origin: Origin {
            seed: outcome.seed,
            options,
            swarm: outcome.swarm.as_ref(),
        },
        property: &violation.property,
        message: &violation.message,
        actions: outcome
            .trace
            .iter()
            .enumerate()
            .map(|(step, t)| Step {
                step,
                time_ms: t.time_ms,
                action: &t.action,
                text: system.describe(&t.action),
            })
            .collect(),
    };
    let name = file_name(
        &design.name,
        &outcome.scenario.name,
        &format!("seed{}-{}", outcome.seed, violation.property),
    );
    let path = dir.join(name);
    write_atomically(&path, &trace)?;
    Ok(Some(path))
}
