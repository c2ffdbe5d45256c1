//! `sharetxn check`: runs the library's exhaustive checker on one design and scenario,
//! writes a trace for every discovery, and reports, either as text for humans or as one
//! JSON object for machines. It owns the order of those steps and the exit status; the
//! text, the traces and the progress line each live in their own module.

use crate::args::CheckArgs;
use crate::error::CliError;
use crate::output;
use crate::progress::ProgressLine;
use crate::summary;
use crate::trace;
use sharetxn_model::System;
use sharetxn_properties::check::Progress;
use sharetxn_properties::{check, CheckOptions, Status};
use sharetxn_traces::Origin;
use std::process::ExitCode;

/// The exit status when a property is violated, a twin unreached, or the check stopped
/// early.
pub const NOT_PASSED: u8 = 1;

/// Runs the check and reports; the exit status is 0 only if the report passed.
pub fn run(args: CheckArgs) -> Result<ExitCode, CliError> {
    trace::prepare_dir(&args.trace_out)?;
    let system = System::new(args.model.design, args.model.scenario);
    let line = ProgressLine::for_stderr(args.json);
    let progress: Option<Box<dyn FnMut(Progress) + '_>> = line
        .as_ref()
        .map(|line| Box::new(move |p: Progress| line.show(p)) as Box<dyn FnMut(Progress)>);
    // Options the library adds later keep their defaults.
    #[allow(clippy::needless_update)]
    let options = CheckOptions {
        strategy: args.strategy,
        max_states: args.max_states,
        max_depth: args.max_depth,
        threads: args.threads,
        timeout: args.timeout,
        progress,
        ..CheckOptions::default()
    };
    let mut report = check(&system, options);
    if let Some(line) = &line {
        line.clear();
    }

    let origin = Origin::Check {
        strategy: report.strategy.clone(),
        max_depth: args.max_depth,
    };
    trace::write_all(&system, &mut report, &args.trace_out, &origin)?;

    if args.json {
        let text = serde_json::to_string_pretty(&report)
            .map_err(|e| CliError::new(format!("cannot encode the report: {e}")))?;
        output::stdout(&format!("{text}\n"))?;
    } else {
        output::stdout(&summary::render(&report, &system.design.describe()))?;
        for p in report
            .properties
            .iter()
            .filter(|p| p.status == Status::Violated)
        {
            let trace = p.trace.as_deref().unwrap_or("(no trace)");
            output::stderr(&format!("sharetxn: {} violated: {trace}\n", p.name));
        }
    }

    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(NOT_PASSED)
    })
}
