//! The one error type of the CLI. It exists so that every failure, whether a bad flag, an
//! unknown scenario or a trace directory that cannot be written, ends the same way: one
//! line `sharetxn: <problem>` on stderr and exit status 2.

use std::fmt;

/// The exit status for bad input (and anything else that stops a command before it can
/// report on the model).
pub const BAD_INPUT: u8 = 2;

/// The most characters of a message (after `sharetxn: `), so that an error stays one
/// readable line however long the value it quotes (a 10 KB trace field, say).
pub const MAX_MESSAGE: usize = 280;

/// `message` cut to at most [`MAX_MESSAGE`] characters: its start and its end (where a
/// conclusion or a hint usually stands) around an ellipsis that says how much was left out.
pub fn cap(message: &str) -> String {
    let chars: Vec<char> = message.chars().collect();
    if chars.len() <= MAX_MESSAGE {
        return message.to_string();
    }
    // Room for the marker: at most " … (+18446744073709551615 chars) … ".
    let (head, tail) = (MAX_MESSAGE - 110, 70);
    let cut = chars.len() - head - tail;
    let start: String = chars[..head].iter().collect();
    let end: String = chars[chars.len() - tail..].iter().collect();
    format!("{start} … (+{cut} chars) … {end}")
}

/// A failure to report as one line on stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError(String);

impl CliError {
    /// An error with this message (line breaks are folded and the length capped so it
    /// stays one line).
    pub fn new(message: impl Into<String>) -> CliError {
        let message: String = message.into();
        CliError(cap(&message
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")))
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

    #[test]
    fn long_messages_are_capped_with_an_ellipsis() {
        let long = CliError::new("x".repeat(10_000)).to_string();
        assert!(long.chars().count() <= MAX_MESSAGE, "{}", long.len());
        assert!(long.contains(" … (+9760 chars) … "), "{long}");
        assert_eq!(CliError::new("short").to_string(), "short");
    }
}
