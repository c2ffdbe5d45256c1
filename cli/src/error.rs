//! The one error type of the CLI. It exists so that every failure, whether a bad flag, an
//! unknown scenario or a trace directory that cannot be written, ends the same way: one
//! line `sharetxn: <problem>` on stderr and exit status 2.

use std::fmt;

/// The exit status for bad input (and anything else that stops a command before it can
/// report on the model).
pub const BAD_INPUT: u8 = 2;

/// A failure to report as one line on stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError(String);

impl CliError {
    /// An error with this message (line breaks are folded so it stays one line).
    pub fn new(message: impl Into<String>) -> CliError {
        let message: String = message.into();
        CliError(message.split_whitespace().collect::<Vec<_>>().join(" "))
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<String> for CliError {
    fn from(message: String) -> CliError {
        CliError::new(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_stay_on_one_line() {
        assert_eq!(CliError::new("a\nb  c\r\n").to_string(), "a b c");
    }
}
