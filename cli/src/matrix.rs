//! `sharetxn matrix`: every design on every scenario it applies to, each checked by the
//! library's exhaustive BFS exactly as `sharetxn check` does (with its traces written the
//! same way), gathered into one [`Matrix`]: a cell per (design, scenario, property) and a
//! row of figures per check. It owns the order of the checks, the progress on a terminal
//! and the exit status; the text form lives in [`crate::matrix_table`].
//!
//! A pair whose design does not apply to the scenario (the library's
//! `Design::applies_to`) is not checked: its check row says why, and its cells are
//! `not_applicable`.
//!
//! The exit status follows the designs this project claims safe (`SAFE_DESIGNS` in the
//! model): 1 when one of them, at its own knobs, does not pass where it applies (as
//! `check` would exit 1), else 0. What other designs violate is the matrix's content.
//!
//! A design claimed safe is checked exhaustively (up to `--max-states`): its claim needs
//! every state. The others are checked to show what they violate, and some of their
//! spaces are far larger than anything a claim needs (`draft` on `ctp-race`, `seed` on
//! `session` past 11 GB), so their checks stop at `--unclaimed-max-states`. A stopped
//! check's discoveries are real (breadth-first, so shortest); what it did not decide, a
//! property not violated or a twin not witnessed, is `unknown`, with the reason in the
//! cell, never `holds` or `unreached`.

use crate::args::{MatrixArgs, MatrixPair};
use crate::check::{check_and_record, CheckRun, NOT_PASSED};
use crate::error::CliError;
use crate::matrix_jobs;
use crate::matrix_table;
use crate::output;
use crate::progress;
use crate::trace;
use indicatif::MultiProgress;
use serde::Serialize;
use sharetxn_model::System;
use sharetxn_properties::{Report, Status, Strategy, PROPERTIES};
use std::process::ExitCode;

/// How many distinct states a check of a design not claimed safe explores at most, unless
/// `--unclaimed-max-states` says otherwise. Chosen for the full default matrix to fit in
/// 10 minutes of a 2-core machine with room to spare: since `ctp` and `ctp-race` have two
/// records, `seed`'s `ctp-race` check needs 4,889,575 states to show its three violations
/// (at 1,000,000 it found only `marker_match`), and at this cap the whole matrix took
/// 291 s and 6.2 GB with 2 threads. `draft` on `ctp-race` (21,201,317 states, where every
/// property holds by `--strategy dfs`) stops at it, its properties `unknown`.
pub const DEFAULT_UNCLAIMED_MAX_STATES: u64 = 5_000_000;

/// The whole matrix, as `--json` prints it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Matrix {
    /// Every `--set` applied to every pair, in order.
    pub sets: Vec<String>,
    /// One per (design, scenario, property or twin), scenario by scenario.
    pub cells: Vec<Cell>,
    /// One per (design, scenario) pair, in the same order.
    pub checks: Vec<CheckRow>,
    /// Whether every design claimed safe passed wherever it was checked.
    pub passed: bool,
}

/// A property's (or twin's) status for one design on one scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// The design's name.
    pub design: String,
    /// The scenario's name.
    pub scenario: String,
    /// The property's or twin's name.
    pub property: String,
    /// `holds`, `violated`, `witnessed`, `unreached`, `unknown` or `not_applicable`.
    pub status: Status,
    /// The trace file of the discovery (a violation or a witness), if any.
    pub trace: Option<String>,
    /// Why the status is `unknown`: the check stopped before it could decide.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One (design, scenario) pair: why it was not checked, or the check's figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckRow {
    /// The design's name.
    pub design: String,
    /// The scenario's name.
    pub scenario: String,
    /// Whether the design applies to the scenario (and so was checked).
    pub applies: bool,
    /// Why the design does not apply, when it does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Whether this project claims the design (at these knobs) safe.
    pub claims_safety: bool,
    /// The check's figures, when it ran.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub figures: Option<Figures>,
}

/// What a check reports about itself.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Figures {
    /// Nothing violated, every twin witnessed, and the check was exhaustive.
    pub passed: bool,
    /// `bfs`, or `bfs-then-dfs` when a level outgrew memory.
    pub strategy: String,
    /// Whether the whole bounded state space was explored.
    pub exhaustive: bool,
    /// Distinct states visited.
    pub unique_states: u64,
    /// The deepest state's depth.
    pub max_depth: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// `unique_states / seconds`.
    pub states_per_second: f64,
    /// The most distinct states this check could explore: `--max-states`, or for a design
    /// not claimed safe the lower `--unclaimed-max-states`.
    pub state_cap: u64,
    /// Why the check stopped before it was exhaustive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

/// How one check was bounded, for its row and the reasons of its undecided cells.
#[derive(Clone, Debug, PartialEq)]
pub struct Bounds {
    /// The state cap that applied.
    pub state_cap: u64,
    /// Whether the cap is `--unclaimed-max-states` (lower than `--max-states`).
    pub unclaimed_cap: bool,
}

impl Bounds {
    /// The bounds of a check: the lower cap for a design not claimed safe.
    pub fn of(claims_safety: bool, max_states: u64, unclaimed_max_states: u64) -> Bounds {
        let unclaimed_cap = !claims_safety && unclaimed_max_states < max_states;
        Bounds {
            state_cap: if unclaimed_cap {
                unclaimed_max_states
            } else {
                max_states
            },
            unclaimed_cap,
        }
    }

    /// Why a check that is not exhaustive stopped: its cap, or else its timeout.
    fn stopped(&self, report: &Report) -> Option<String> {
        if report.exhaustive {
            return None;
        }
        Some(if report.unique_states >= self.state_cap {
            let flag = if self.unclaimed_cap {
                "--unclaimed-max-states, the cap for a design not claimed safe"
            } else {
                "--max-states"
            };
            format!(
                "stopped at {} states ({flag})",
                matrix_table::grouped(self.state_cap)
            )
        } else {
            "stopped at --timeout".to_string()
        })
    }
}

impl Matrix {
    /// An empty matrix for these `--set`s.
    pub fn new(sets: Vec<String>) -> Matrix {
        Matrix {
            sets,
            cells: Vec::new(),
            checks: Vec::new(),
            passed: true,
        }
    }

    /// Adds a pair that was not checked, with every property `not_applicable`.
    pub fn push_not_applicable(&mut self, design: &str, scenario: &str, reason: String) {
        for p in PROPERTIES {
            for name in [p.name, p.twin] {
                self.cells.push(Cell {
                    design: design.into(),
                    scenario: scenario.into(),
                    property: name.into(),
                    status: Status::NotApplicable,
                    trace: None,
                    reason: None,
                });
            }
        }
        self.checks.push(CheckRow {
            design: design.into(),
            scenario: scenario.into(),
            applies: false,
            reason: Some(reason),
            claims_safety: false,
            figures: None,
        });
    }

    /// Adds a check's report. If the check stopped early, a twin it did not witness is
    /// `unknown` (the library says `unreached`, which a stopped check cannot know), and
    /// every `unknown` cell says why.
    pub fn push_report(&mut self, report: &Report, claims_safety: bool, bounds: &Bounds) {
        let stopped = bounds.stopped(report);
        for p in &report.properties {
            let status = match p.status {
                Status::Unreached if stopped.is_some() => Status::Unknown,
                status => status,
            };
            self.cells.push(Cell {
                design: report.design.clone(),
                scenario: report.scenario.clone(),
                property: p.name.clone(),
                status,
                trace: p.trace.clone(),
                reason: (status == Status::Unknown)
                    .then(|| stopped.clone())
                    .flatten()
                    .map(|why| format!("undecided: the check {why}")),
            });
        }
        let passed = report.passed() && report.exhaustive;
        if claims_safety && !passed {
            self.passed = false;
        }
        self.checks.push(CheckRow {
            design: report.design.clone(),
            scenario: report.scenario.clone(),
            applies: true,
            reason: None,
            claims_safety,
            figures: Some(Figures {
                passed,
                strategy: report.strategy.clone(),
                exhaustive: report.exhaustive,
                unique_states: report.unique_states,
                max_depth: report.max_depth,
                seconds: report.seconds,
                states_per_second: report.states_per_second,
                state_cap: bounds.state_cap,
                stopped,
            }),
        });
    }

    /// The scenarios, in the order they were checked, each once.
    pub fn scenarios(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for c in &self.checks {
            if !names.contains(&c.scenario.as_str()) {
                names.push(&c.scenario);
            }
        }
        names
    }

    /// The cell of a property for a design on a scenario.
    pub fn cell(&self, design: &str, scenario: &str, property: &str) -> Option<&Cell> {
        self.cells
            .iter()
            .find(|c| c.design == design && c.scenario == scenario && c.property == property)
    }

    /// The checks of designs claimed safe that did not pass, each with what went wrong.
    pub fn broken_claims(&self) -> Vec<String> {
        self.checks
            .iter()
            .filter(|c| c.claims_safety && c.figures.as_ref().is_some_and(|f| !f.passed))
            .map(|c| {
                let wrong: Vec<String> = self
                    .cells
                    .iter()
                    .filter(|cell| cell.design == c.design && cell.scenario == c.scenario)
                    .filter(|cell| {
                        matches!(
                            cell.status,
                            Status::Violated | Status::Unreached | Status::Unknown
                        )
                    })
                    .map(|cell| {
                        format!(
                            "{} {}",
                            cell.property,
                            matrix_table::status_word(cell.status)
                        )
                    })
                    .collect();
                let exhaustive = c.figures.as_ref().is_some_and(|f| f.exhaustive);
                let what = match (wrong.is_empty(), exhaustive) {
                    (false, _) => wrong.join(", "),
                    (true, false) => "the check stopped early".to_string(),
                    (true, true) => "it did not pass".to_string(),
                };
                format!("{} on {}: {what}", c.design, c.scenario)
            })
            .collect()
    }
}

/// What became of one (design, scenario) pair.
enum Pair {
    /// Checked.
    Checked(Checked),
    /// Not checked: the design does not apply to the scenario.
    NotApplicable {
        design: String,
        scenario: String,
        reason: String,
    },
}

/// A check that ran, with what the matrix needs of it.
struct Checked {
    label: String,
    report: Report,
    /// A trace of this check that could not be written.
    write_failure: Option<CliError>,
    claims_safety: bool,
    bounds: Bounds,
}

impl Checked {
    /// The line a terminal gets when the check ends.
    fn summary_line(&self) -> String {
        format!(
            "{}{} states, depth {}, {:.1} s{}\n",
            self.label,
            matrix_table::grouped(self.report.unique_states),
            self.report.max_depth,
            self.report.seconds,
            self.bounds
                .stopped(&self.report)
                .map(|why| format!(", not exhaustive: {why}"))
                .unwrap_or_default()
        )
    }
}

/// Runs every check and prints the matrix.
pub fn run(args: MatrixArgs) -> Result<ExitCode, CliError> {
    let json = args.json;
    let (matrix, write_failure) = compute(args)?;
    if json {
        let text = serde_json::to_string_pretty(&matrix)
            .map_err(|e| CliError::new(format!("cannot encode the matrix: {e}")))?;
        output::stdout(&format!("{text}\n"))?;
    } else {
        output::stdout(&matrix_table::render(&matrix))?;
        for broken in matrix.broken_claims() {
            output::stderr(&format!(
                "sharetxn: claimed safe but did not pass: {broken}\n"
            ));
        }
    }
    // The matrix is out; a trace it names could not be written, so the run failed.
    if let Some(e) = write_failure {
        return Err(e);
    }
    Ok(if matrix.passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(NOT_PASSED)
    })
}

/// Runs every check (progress on stderr) and gathers the matrix, with the first trace
/// that could not be written (the matrix is whole without it, the run is not).
pub fn compute(args: MatrixArgs) -> Result<(Matrix, Option<CliError>), CliError> {
    trace::prepare_dir(&args.trace_out)?;
    let on_terminal = progress::on_terminal(args.json);
    let jobs = args.pairs.iter().filter(|p| p.applies.is_ok()).count();
    let (workers, per_check) = matrix_jobs::split(args.threads, jobs);
    // A bar over the checks, with an ETA; each check's own line is drawn under it.
    let multi = on_terminal.then(MultiProgress::new);
    let bar = multi.as_ref().map(|m| progress::pairs_bar(m, jobs as u64));
    let say = |text: String| match &multi {
        Some(m) => {
            let _ = m.println(text.trim_end());
        }
        None => output::stderr(&text),
    };
    let each = PairRun {
        args: &args,
        total: args.pairs.len(),
        per_check,
        // One check's progress line at a time: with checks side by side, each says when
        // it starts and when it ends.
        side_by_side: workers > 1,
        on_terminal,
        multi: multi.as_ref(),
        say: &say,
    };
    let run_pair = |i: usize, pair: &MatrixPair| each.run(i, pair);
    let finished = |_: usize, result: &Pair| {
        if let (true, Pair::Checked(checked)) = (on_terminal, result) {
            say(checked.summary_line());
            if let Some(bar) = &bar {
                bar.inc(1);
            }
        }
    };
    let results = matrix_jobs::run_ordered(&args.pairs, workers, run_pair, finished);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    Ok(gather(args.sets, results))
}

/// What every check of one matrix run shares.
struct PairRun<'a> {
    args: &'a MatrixArgs,
    total: usize,
    per_check: usize,
    side_by_side: bool,
    on_terminal: bool,
    multi: Option<&'a MultiProgress>,
    say: &'a (dyn Fn(String) + Sync),
}

impl PairRun<'_> {
    /// Checks pair `i`, or says why it does not apply.
    fn run(&self, i: usize, pair: &MatrixPair) -> Pair {
        let MatrixPair { model, applies } = pair;
        if let Err(reason) = applies {
            return Pair::NotApplicable {
                design: model.design.name.clone(),
                scenario: model.scenario.name.clone(),
                reason: reason.clone(),
            };
        }
        let args = self.args;
        let claims_safety = model.design.claims_safety();
        let bounds = Bounds::of(claims_safety, args.max_states, args.unclaimed_max_states);
        let system = System::new(model.design.clone(), model.scenario.clone());
        let label = format!(
            "[{}/{}] {} on {}: ",
            i + 1,
            self.total,
            system.design.name,
            system.scenario.name
        );
        if self.on_terminal && self.side_by_side {
            (self.say)(format!("{label}started\n"));
        }
        let run = CheckRun {
            strategy: Strategy::Bfs,
            max_depth: None,
            max_states: bounds.state_cap,
            threads: self.per_check,
            timeout: args.timeout,
            partial_order: false,
            quiet: args.json || self.side_by_side,
            trace_out: &args.trace_out,
            label,
            multi: self.multi,
        };
        let recorded = check_and_record(&system, &run);
        Pair::Checked(Checked {
            label: run.label,
            report: recorded.report,
            write_failure: recorded.write_failure,
            claims_safety,
            bounds,
        })
    }
}

/// The matrix of the checks' results in order, with the first trace that could not be
/// written.
fn gather(sets: Vec<String>, results: Vec<Pair>) -> (Matrix, Option<CliError>) {
    let mut matrix = Matrix::new(sets);
    let mut write_failure = None;
    for result in results {
        match result {
            Pair::Checked(c) => {
                matrix.push_report(&c.report, c.claims_safety, &c.bounds);
                write_failure = write_failure.or(c.write_failure);
            }
            Pair::NotApplicable {
                design,
                scenario,
                reason,
            } => matrix.push_not_applicable(&design, &scenario, reason),
        }
    }
    (matrix, write_failure)
}
