//! `sharetxn replay TRACE`: loads a trace, runs it on the current model, prints each step
//! and the verdict (judged now, see [`crate::judged`]), and turns the verdict into the
//! exit status.

use crate::error::{CliError, BAD_INPUT};
use crate::judged;
use crate::output;
use sharetxn_traces::{load, Outcome, Verdict};
use std::path::Path;
use std::process::ExitCode;

/// The exit status when the trace's violation shows again or its witness no longer does.
pub const SHOWS: u8 = 1;

/// Replays the trace at `path`.
pub fn run(path: &Path) -> Result<ExitCode, CliError> {
    let trace = load(path).map_err(|e| CliError::new(e.to_string()))?;
    let result =
        judged::judge(&trace).map_err(|e| CliError::new(format!("{}: {e}", path.display())))?;
    output::stdout(&result.render(&trace))?;
    let witness = matches!(trace.outcome, Outcome::Witness { .. });
    Ok(match (&result.verdict, witness) {
        (Verdict::Blocked { problem, .. }, _) => {
            output::error_line(&format!("{}: {problem}", path.display()));
            ExitCode::from(BAD_INPUT)
        }
        (Verdict::Reproduced { .. }, false) | (Verdict::NotReproduced, true) => {
            ExitCode::from(SHOWS)
        }
        (Verdict::Reproduced { .. }, true)
        | (Verdict::NotReproduced, false)
        | (Verdict::NotReproducedBecause(_), _) => ExitCode::SUCCESS,
    })
}
