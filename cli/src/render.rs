//! `sharetxn render TRACE [--format text|mermaid]`: loads a trace and prints it for people.

use crate::args::{RenderArgs, RenderFormat};
use crate::error::CliError;
use crate::output;
use sharetxn_traces::{load, render};
use std::process::ExitCode;

/// Renders the trace to stdout.
pub fn run(args: &RenderArgs) -> Result<ExitCode, CliError> {
    let trace = load(&args.trace).map_err(|e| CliError::new(e.to_string()))?;
    let text = match args.format {
        RenderFormat::Text => render::text::render(&trace),
        RenderFormat::Mermaid => render::mermaid::render(&trace),
    }
    .map_err(|e| CliError::new(format!("{}: {e}", args.trace.display())))?;
    output::stdout(&text)?;
    Ok(ExitCode::SUCCESS)
}
