//! Writes to stdout and stderr that never panic. `println!` panics when stdout is a closed
//! pipe (`sharetxn list | head -1`); here a closed pipe just ends the output, and any
//! other write error becomes a [`CliError`].

use crate::error::CliError;
use std::io::{self, Write};

/// Writes `text` to stdout as it is and flushes. A closed pipe is not an error.
pub fn stdout(text: &str) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::new(format!("cannot write to stdout: {e}"))),
    }
}

/// Writes `text` to stderr as it is, ignoring failures (there is nowhere left to report
/// them).
pub fn stderr(text: &str) {
    let mut err = io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|()| err.flush());
}

/// Writes `sharetxn: <message>` and a line break to stderr, the message folded to one
/// line and capped (see [`crate::error::cap`]).
pub fn error_line(message: &str) {
    let one = message.split_whitespace().collect::<Vec<_>>().join(" ");
    stderr(&format!("sharetxn: {}\n", crate::error::cap(&one)));
}
