//! The simulator's progress bar on a terminal (indicatif): seeds done out of all, an ETA,
//! violations, and simulated steps per second, erased at the end. Steps per second is the
//! one figure that needs a wall clock; it is read here, in the CLI, and never reaches a
//! simulated decision.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

// The wall clock only times the progress line for humans; runs never see it.
#[allow(clippy::disallowed_methods)]
fn now() -> std::time::Instant {
    std::time::Instant::now()
}

/// A progress bar on stderr.
pub struct SimProgress {
    start: std::time::Instant,
    bar: ProgressBar,
}

impl SimProgress {
    /// A progress bar for `total` seeds, if one should be shown: stderr is a terminal
    /// and the output is meant for humans.
    pub fn for_stderr(json: bool, total: u64) -> Option<SimProgress> {
        (!json && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "simulating: {pos}/{len} seeds [{bar:24}] {msg}, {elapsed}, ETA {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
            bar.set_style(style);
            SimProgress { start: now(), bar }
        })
    }

    /// Moves the bar to `done` seeds.
    pub fn show(&mut self, done: u64, violated: u64, steps: u64) {
        let seconds = self.start.elapsed().as_secs_f64();
        self.bar.set_position(done);
        self.bar
            .set_message(format_progress(violated, steps, seconds));
    }

    /// Runs `f` (which prints) with the bar out of the way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// Erases the bar.
    pub fn clear(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// The bar's message: violations and the simulated steps' rate.
pub fn format_progress(violated: u64, steps: u64, seconds: f64) -> String {
    let rate = if seconds > 0.0 {
        steps as f64 / seconds
    } else {
        0.0
    };
    format!("{violated} violated, {} steps/s", rate.round())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_violations_and_rate() {
        assert_eq!(format_progress(1, 4000, 2.0), "1 violated, 2000 steps/s");
        assert_eq!(format_progress(0, 0, 0.0), "0 violated, 0 steps/s");
    }
}
