//! The progress line a long check shows on a terminal: states, states/s and depth,
//! overwritten in place with `\r` and erased when the check ends. It exists apart from
//! the check command so that deciding *whether* to show progress (stderr is a terminal and
//! the output is not JSON) and *how* stay in one place.
//!
//! No wall clock is read here: the checker's own [`Progress::seconds`] drives both the
//! rate and the throttle, so the workspace's ban on `Instant::now` holds in the CLI too.

use crate::output;
use sharetxn_properties::check::Progress;
use std::cell::Cell;
use std::io::IsTerminal;

/// Redraw at most this often (seconds).
const MIN_INTERVAL: f64 = 0.1;

/// A progress line on stderr.
pub struct ProgressLine {
    /// Characters on the line now (to blank it out).
    width: Cell<usize>,
    /// When the line was last drawn, in the checker's seconds.
    drawn_at: Cell<Option<f64>>,
    /// Put before the progress (which of many checks this is).
    label: String,
}

impl ProgressLine {
    /// A progress line, if one should be shown: stderr is a terminal and the output is
    /// meant for humans.
    pub fn for_stderr(json: bool) -> Option<ProgressLine> {
        (!json && std::io::stderr().is_terminal()).then(|| ProgressLine {
            width: Cell::new(0),
            drawn_at: Cell::new(None),
            label: String::new(),
        })
    }

    /// The same line with `label` in front of the progress.
    pub fn with_label(self, label: String) -> ProgressLine {
        ProgressLine { label, ..self }
    }

    /// Redraws the line (unless it was drawn very recently).
    pub fn show(&self, progress: Progress) {
        if let Some(at) = self.drawn_at.get() {
            if progress.seconds - at < MIN_INTERVAL && progress.seconds >= at {
                return;
            }
        }
        self.drawn_at.set(Some(progress.seconds));
        let text = format!(
            "{}{}",
            self.label,
            format_progress(progress.unique_states, progress.depth, progress.seconds)
        );
        let pad = self.width.get().saturating_sub(text.chars().count());
        output::stderr(&format!("\r{text}{}", " ".repeat(pad)));
        self.width.set(text.chars().count());
    }

    /// Erases the line.
    pub fn clear(&self) {
        let width = self.width.replace(0);
        if width > 0 {
            output::stderr(&format!("\r{}\r", " ".repeat(width)));
        }
    }
}

/// The line's text for `states` distinct states at `depth` after `seconds`.
pub fn format_progress(states: u64, depth: u64, seconds: f64) -> String {
    let rate = if seconds > 0.0 {
        states as f64 / seconds
    } else {
        0.0
    };
    format!(
        "checking: {states} states, {} states/s, depth {depth}, {seconds:.1}s",
        rate.round()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_states_rate_and_depth() {
        let line = format_progress(5000, 12, 2.0);
        assert_eq!(line, "checking: 5000 states, 2500 states/s, depth 12, 2.0s");
        let start = format_progress(1, 0, 0.0);
        assert!(start.contains("0 states/s"), "{start}");
    }
}
