//! The progress a long check shows on a terminal (indicatif): states, states/s, depth and
//! the time so far on a spinner line, erased when the check ends; and, for the matrix, a
//! bar over the pairs with an ETA. It exists apart from the commands so that deciding
//! *whether* to show progress (stderr is a terminal and the output is not JSON) and *how*
//! stay in one place.
//!
//! A check's own figures come from the checker's [`Progress`] (its clock); indicatif reads
//! the wall clock only to redraw and to estimate the ETA, for humans, never for a result.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use sharetxn_properties::check::Progress;
use std::io::IsTerminal;
use std::time::Duration;

/// Whether progress should be shown: stderr is a terminal and the output is for humans.
pub fn on_terminal(json: bool) -> bool {
    !json && std::io::stderr().is_terminal()
}

/// A check's progress line on stderr.
pub struct ProgressLine {
    bar: ProgressBar,
    label: String,
}

impl ProgressLine {
    /// A progress line, if one should be shown: stderr is a terminal and the output is
    /// meant for humans. Under `multi`, it is drawn below the matrix's bar.
    pub fn for_stderr(json: bool, multi: Option<&MultiProgress>) -> Option<ProgressLine> {
        on_terminal(json).then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            let bar = match multi {
                Some(m) => m.add(bar),
                None => bar,
            };
            let style = ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                .unwrap_or_else(|_| ProgressStyle::default_spinner());
            bar.set_style(style);
            // The checker reports between BFS levels; the tick keeps the line alive
            // while a long level runs.
            bar.enable_steady_tick(Duration::from_millis(200));
            ProgressLine {
                bar,
                label: String::new(),
            }
        })
    }

    /// The same line with `label` in front of the progress.
    pub fn with_label(self, label: String) -> ProgressLine {
        ProgressLine { label, ..self }
    }

    /// Shows the checker's latest figures.
    pub fn show(&self, progress: Progress) {
        self.bar.set_message(format!(
            "{}{}",
            self.label,
            format_progress(progress.unique_states, progress.depth, progress.seconds)
        ));
    }

    /// Erases the line.
    pub fn clear(&self) {
        self.bar.finish_and_clear();
    }
}

/// The matrix's bar over its pairs, with an ETA.
pub fn pairs_bar(multi: &MultiProgress, pairs: u64) -> ProgressBar {
    let bar = multi.add(ProgressBar::new(pairs));
    let style =
        ProgressStyle::with_template("matrix: {pos}/{len} checks [{bar:24}] {elapsed}, ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
    bar.set_style(style);
    bar
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
