//! `sharetxn shrink TRACE [-o OUT] [--ddmin-only] [--search-states N] [--threads N]`:
//! loads a trace, cuts it to a short, 1-minimal one with the same outcome, writes it, and
//! says how long it was before and after each pass.

use crate::args::{default_threads, ShrinkArgs};
use crate::error::CliError;
use crate::output;
use crate::trace::write_trace;
use sharetxn_traces::{load, shrink_with, ShrinkOptions};
use std::process::ExitCode;

/// Shrinks and writes the trace.
pub fn run(args: &ShrinkArgs) -> Result<ExitCode, CliError> {
    let trace = load(&args.trace).map_err(|e| CliError::new(e.to_string()))?;
    let mut options = if args.ddmin_only {
        ShrinkOptions::ddmin_only()
    } else {
        ShrinkOptions::default()
    };
    if let Some(states) = args.search_states {
        options.search_states = states;
    }
    // The search's result does not depend on its threads, so using every core is free.
    options.threads = args.threads.unwrap_or_else(default_threads);
    let shrunk = shrink_with(&trace, &options)
        .map_err(|e| CliError::new(format!("{}: {e}", args.trace.display())))?;
    write_trace(&args.out, &shrunk.trace)?;
    let mut text = String::new();
    for pass in &shrunk.passes {
        let detail = if pass.detail.is_empty() {
            String::new()
        } else {
            format!(" ({})", pass.detail)
        };
        text.push_str(&format!(
            "  {:<8} {:>5} steps{detail}\n",
            pass.name, pass.steps
        ));
    }
    text.push_str(&format!(
        "shrunk {} from {} to {} steps ({} candidates run): {}\n",
        shrunk.trace.outcome.property(),
        shrunk.before,
        shrunk.after,
        shrunk.candidates,
        args.out.display()
    ));
    output::stdout(&text)?;
    Ok(ExitCode::SUCCESS)
}
