//! `sharetxn shrink TRACE [-o OUT]`: loads a trace, cuts it to a 1-minimal one with the
//! same outcome, writes it, and says how long it was before and after.

use crate::args::ShrinkArgs;
use crate::error::CliError;
use crate::output;
use crate::trace::write_trace;
use sharetxn_traces::{load, shrink};
use std::process::ExitCode;

/// Shrinks and writes the trace.
pub fn run(args: &ShrinkArgs) -> Result<ExitCode, CliError> {
    let trace = load(&args.trace).map_err(|e| CliError::new(e.to_string()))?;
    let shrunk =
        shrink(&trace).map_err(|e| CliError::new(format!("{}: {e}", args.trace.display())))?;
    write_trace(&args.out, &shrunk.trace)?;
    output::stdout(&format!(
        "shrunk {} from {} to {} steps ({} candidates run): {}\n",
        shrunk.trace.outcome.property(),
        shrunk.before,
        shrunk.after,
        shrunk.candidates,
        args.out.display()
    ))?;
    Ok(ExitCode::SUCCESS)
}
