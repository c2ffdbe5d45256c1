//! `sharetxn render TRACE [--format text|mermaid]`: loads a trace and prints it for people,
//! with the outcome judged now by a replay (never the file's own text).

use crate::args::{RenderArgs, RenderFormat};
use crate::error::CliError;
use crate::judged;
use crate::output;
use sharetxn_traces::{load, render};
use std::process::ExitCode;

/// Renders the trace to stdout.
pub fn run(args: &RenderArgs) -> Result<ExitCode, CliError> {
    let trace = load(&args.trace).map_err(|e| CliError::new(e.to_string()))?;
    let fail = |e: String| CliError::new(format!("{}: {e}", args.trace.display()));
    let outcome = judged::judge(&trace)
        .and_then(|r| judged::outcome_line(&trace, &r))
        .map_err(fail)?;
    let text = match args.format {
        RenderFormat::Text => render::text::render_judged(&trace, &outcome),
        RenderFormat::Mermaid => render::mermaid::render_judged(&trace, &outcome),
    }
    .map_err(fail)?;
    output::stdout(&text)?;
    Ok(ExitCode::SUCCESS)
}
