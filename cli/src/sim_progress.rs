//! The simulator's progress line on a terminal: seeds done out of all, violations, and
//! simulated steps per second, redrawn in place and erased at the end. Steps per second
//! is the one figure that needs a wall clock; it is read here, in the CLI, and never
//! reaches a simulated decision.

use crate::output;
use std::io::IsTerminal;

/// Redraw at most this often (seconds).
const MIN_INTERVAL: f64 = 0.1;

// The wall clock only times the progress line for humans; runs never see it.
#[allow(clippy::disallowed_methods)]
fn now() -> std::time::Instant {
    std::time::Instant::now()
}

/// A progress line on stderr.
pub struct SimProgress {
    start: std::time::Instant,
    drawn_at: f64,
    width: usize,
    total: u64,
}

impl SimProgress {
    /// A progress line for `total` seeds, if one should be shown: stderr is a terminal
    /// and the output is meant for humans.
    pub fn for_stderr(json: bool, total: u64) -> Option<SimProgress> {
        (!json && std::io::stderr().is_terminal()).then(|| SimProgress {
            start: now(),
            drawn_at: f64::NEG_INFINITY,
            width: 0,
            total,
        })
    }

    /// Redraws the line (unless it was drawn very recently).
    pub fn show(&mut self, done: u64, violated: u64, steps: u64) {
        let seconds = self.start.elapsed().as_secs_f64();
        if seconds - self.drawn_at < MIN_INTERVAL && done < self.total {
            return;
        }
        self.drawn_at = seconds;
        let text = format_progress(done, self.total, violated, steps, seconds);
        let pad = self.width.saturating_sub(text.chars().count());
        output::stderr(&format!("\r{text}{}", " ".repeat(pad)));
        self.width = text.chars().count();
    }

    /// Erases the line.
    pub fn clear(&mut self) {
        if self.width > 0 {
            output::stderr(&format!("\r{}\r", " ".repeat(self.width)));
            self.width = 0;
        }
    }
}

/// The line's text.
pub fn format_progress(done: u64, total: u64, violated: u64, steps: u64, seconds: f64) -> String {
    let rate = if seconds > 0.0 {
        steps as f64 / seconds
    } else {
        0.0
    };
    format!(
        "simulating: {done}/{total} seeds, {violated} violated, {} steps/s, {seconds:.1}s",
        rate.round()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_seeds_violations_and_rate() {
        assert_eq!(
            format_progress(5, 10, 1, 4000, 2.0),
            "simulating: 5/10 seeds, 1 violated, 2000 steps/s, 2.0s"
        );
    }
}
