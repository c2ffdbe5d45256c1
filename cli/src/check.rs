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
use sharetxn_properties::{check, CheckOptions, Report, Status, Strategy};
use sharetxn_traces::Origin;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

/// The exit status when a property is violated, a twin unreached, or the check stopped
/// early.
pub const NOT_PASSED: u8 = 1;

/// One check as the command line runs it: the library's options it sets, where the traces
/// go, and the label of its progress line.
pub struct CheckRun<'a> {
    /// BFS or DFS.
    pub strategy: Strategy,
    /// Do not expand states at this depth.
    pub max_depth: Option<u64>,
    /// Stop after this many distinct states.
    pub max_states: u64,
    /// Threads expanding a BFS level.
    pub threads: usize,
    /// Stop after this long.
    pub timeout: Option<Duration>,
    /// Depth-first search with the partial-order reduction.
    pub partial_order: bool,
    /// No progress line, even on a terminal: the output is JSON, or other checks run
    /// beside this one.
    pub quiet: bool,
    /// Where trace files go.
    pub trace_out: &'a Path,
    /// Put before the progress (which of many checks this is; empty for one).
    pub label: String,
    /// The matrix's progress, to draw this check's line under.
    pub multi: Option<&'a indicatif::MultiProgress>,
}

/// A check's report with its traces written, and the first trace that could not be.
pub struct Recorded {
    /// The report, each trace's path in it.
    pub report: Report,
    /// A trace that could not be written, to report after the report.
    pub write_failure: Option<CliError>,
}

/// Runs the library's check with a progress line on a terminal, then writes a trace for
/// every discovery into the report; `check` and `matrix` both check through here.
pub fn check_and_record(system: &System, run: &CheckRun) -> Recorded {
    let line =
        ProgressLine::for_stderr(run.quiet, run.multi).map(|l| l.with_label(run.label.clone()));
    let progress: Option<Box<dyn FnMut(Progress) + '_>> = line
        .as_ref()
        .map(|line| Box::new(move |p: Progress| line.show(p)) as Box<dyn FnMut(Progress)>);
    // Options the library adds later keep their defaults.
    #[allow(clippy::needless_update)]
    let options = CheckOptions {
        strategy: run.strategy,
        max_states: run.max_states,
        max_depth: run.max_depth,
        threads: run.threads,
        timeout: run.timeout,
        partial_order: run.partial_order,
        progress,
        ..CheckOptions::default()
    };
    let mut report = check(system, options);
    if let Some(line) = &line {
        line.clear();
    }
    let origin = Origin::Check {
        strategy: report.strategy.clone(),
        max_depth: run.max_depth,
    };
    let write_failure = trace::write_all(system, &mut report, run.trace_out, &origin);
    Recorded {
        report,
        write_failure,
    }
}

/// Runs the check and reports; the exit status is 0 only if the report passed.
pub fn run(args: CheckArgs) -> Result<ExitCode, CliError> {
    trace::prepare_dir(&args.trace_out)?;
    let system = System::new(args.model.design, args.model.scenario);
    let run = CheckRun {
        strategy: args.strategy,
        max_depth: args.max_depth,
        max_states: args.max_states,
        threads: args.threads,
        timeout: args.timeout,
        partial_order: args.partial_order,
        quiet: args.json,
        trace_out: &args.trace_out,
        label: String::new(),
        multi: None,
    };
    let Recorded {
        report,
        write_failure,
    } = check_and_record(&system, &run);

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

    // The report is out; a trace it names could not be written, so the run failed.
    if let Some(e) = write_failure {
        return Err(e);
    }
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(NOT_PASSED)
    })
}
