//! `sharetxn matrix`'s arguments. They live apart from the other commands' parsers because
//! the matrix judges its input over many (design, scenario) pairs at once: every pair is
//! built here, with every `--set` applied, so that a bad value is refused before the first
//! check starts, and each pair carries the library's verdict on whether it applies.

use super::cli::{MatrixCli, MatrixScope, ReportCli};
use super::{build_model, default_threads, ModelArgs};
use crate::error::CliError;
use sharetxn_model::design::DESIGN_NAMES;
use sharetxn_model::world::scenario::matrix_scenarios;
use std::path::PathBuf;
use std::time::Duration;

/// One (design, scenario) pair of the matrix.
#[derive(Debug)]
pub struct MatrixPair {
    /// The design and scenario with every `--set` applied.
    pub model: ModelArgs,
    /// `Ok` when the design applies to the scenario; otherwise why not.
    pub applies: Result<(), String>,
}

/// `sharetxn matrix`'s arguments.
#[derive(Debug)]
pub struct MatrixArgs {
    /// The pairs, scenario by scenario, each in the library's order of designs.
    pub pairs: Vec<MatrixPair>,
    /// Every `--set` as given, in order (applied to every pair).
    pub sets: Vec<String>,
    /// Cores for the checks: that many checks run side by side on one checker thread
    /// each (with fewer checks than cores, the spare cores go to the checks).
    pub threads: usize,
    /// Stop each check after this many distinct states.
    pub max_states: u64,
    /// Stop each check of a design this project does not claim safe after this many
    /// distinct states (the lower of this and `max_states` applies to it).
    pub unclaimed_max_states: u64,
    /// Stop each check after this long.
    pub timeout: Option<Duration>,
    /// Print the matrix as one JSON document.
    pub json: bool,
    /// Where trace files go.
    pub trace_out: PathBuf,
}

/// Builds every pair of what clap parsed after `sharetxn matrix`.
pub(super) fn resolve(m: MatrixCli) -> Result<MatrixArgs, CliError> {
    resolve_scope(m.scope, m.json, m.trace_out)
}

/// What clap parsed after `sharetxn report`: the matrix's pairs (unless `--no-matrix`),
/// its traces under `OUT/traces`.
pub(super) fn resolve_report(r: ReportCli) -> Result<ReportArgs, CliError> {
    let matrix = if r.no_matrix {
        None
    } else {
        // The progress goes to stderr as for `matrix`; the page is the output.
        Some(resolve_scope(r.scope, false, r.out.join("traces"))?)
    };
    Ok(ReportArgs {
        matrix,
        traces: r.traces,
        out: r.out,
    })
}

fn resolve_scope(m: MatrixScope, json: bool, trace_out: PathBuf) -> Result<MatrixArgs, CliError> {
    let designs = m.designs.map_or_else(|| DESIGN_NAMES.to_vec(), |n| n.0);
    let scenarios = m.scenarios.map_or_else(matrix_scenarios, |n| n.0);
    let mut pairs = Vec::new();
    for scenario in &scenarios {
        for design in &designs {
            // Every key is a field of every scenario and a knob of every design, so a
            // `--set` can only fail on its value, and then it fails for every pair alike.
            let model = build_model(design, scenario, &m.sets)?;
            let applies = model.design.applies_to(&model.scenario);
            pairs.push(MatrixPair { model, applies });
        }
    }
    Ok(MatrixArgs {
        pairs,
        sets: m.sets,
        threads: m.threads.unwrap_or_else(default_threads),
        max_states: m.max_states,
        unclaimed_max_states: m.unclaimed_max_states,
        timeout: m.timeout,
        json,
        trace_out,
    })
}

/// `sharetxn report`'s arguments.
#[derive(Debug)]
pub struct ReportArgs {
    /// The matrix to run, unless `--no-matrix`.
    pub matrix: Option<MatrixArgs>,
    /// Trace files to draw besides the matrix's violations.
    pub traces: Vec<PathBuf>,
    /// Where the page goes.
    pub out: PathBuf,
}

#[cfg(test)]
mod tests {
    use crate::args::{parse, Command};
    use std::ffi::OsString;

    fn matrix(words: &[&str]) -> Result<super::MatrixArgs, String> {
        let mut all = vec!["matrix"];
        all.extend_from_slice(words);
        match parse(all.iter().map(OsString::from).collect()) {
            Ok(Command::Matrix(args)) => Ok(args),
            Ok(other) => Err(format!("not a matrix: {other:?}")),
            Err(e) => Err(e.to_string()),
        }
    }

    #[test]
    fn every_design_on_every_scenario_by_default() {
        let args = matrix(&[]).unwrap();
        let pairs = sharetxn_model::design::DESIGN_NAMES.len()
            * sharetxn_model::world::scenario::matrix_scenarios().len();
        assert!(
            args.pairs
                .iter()
                .all(|p| p.model.scenario.name != "draft-itest"),
            "beyond one check: left out by default"
        );
        assert_eq!(args.pairs.len(), pairs);
        assert!(args.pairs.iter().any(|p| p.applies.is_err()));
        assert!(!args.json && args.timeout.is_none());
        assert_eq!(
            args.unclaimed_max_states,
            crate::matrix::DEFAULT_UNCLAIMED_MAX_STATES
        );
        let help = match parse(vec!["matrix".into(), "--help".into()]) {
            Ok(Command::Print(text)) => text,
            other => panic!("{other:?}"),
        };
        let documented = format!("[default: {}]", crate::matrix::DEFAULT_UNCLAIMED_MAX_STATES);
        assert!(help.contains(&documented), "{help}");
    }

    #[test]
    fn filters_keep_the_library_order_and_sets_reach_every_pair() {
        let args = matrix(&[
            "--scenarios",
            "ctp,txn-basic",
            "--designs=seed,consumer-offsets",
            "--set",
            "timeouts=0",
            "--threads",
            "1",
            "--unclaimed-max-states=5000",
        ])
        .unwrap();
        let order: Vec<(&str, &str)> = args
            .pairs
            .iter()
            .map(|p| (p.model.scenario.name.as_str(), p.model.design.name.as_str()))
            .collect();
        assert_eq!(
            order,
            [
                ("txn-basic", "consumer-offsets"),
                ("txn-basic", "seed"),
                ("ctp", "consumer-offsets"),
                ("ctp", "seed")
            ]
        );
        assert!(args
            .pairs
            .iter()
            .all(|p| p.model.scenario.budget.timeouts == 0));
        assert_eq!(args.threads, 1);
        assert_eq!(args.unclaimed_max_states, 5000);
    }

    #[test]
    fn bad_input_is_refused_in_one_line() {
        for (words, expect) in [
            (&["--designs", "nope"][..], "unknown design 'nope'"),
            (&["--scenarios", "ctp,nope"][..], "unknown scenario 'nope'"),
            (&["--designs", "seed,"][..], "comma-separated"),
            (&["--designs"][..], "a value is required"),
            (&["--set", "tv=7"][..], "0 to 2"),
            (&["--set", "nope=1"][..], "unknown key"),
            (&["--threads", "0"][..], "1 to 64"),
            (&["--max-states", "0"][..], "at least 1"),
            (&["--unclaimed-max-states", "0"][..], "at least 1"),
            (&["--unclaimed-max-states", "x"][..], "whole number"),
            (&["--timeout", "0"][..], "above 0"),
            (&["--trace-out="][..], "needs a file or directory"),
            (&["--json", "--json"][..], "cannot be used multiple times"),
            (&["--strategy", "dfs"][..], "unexpected argument"),
            (&["extra"][..], "unexpected argument"),
        ] {
            let message = matrix(words).unwrap_err();
            assert!(message.contains(expect), "{words:?}: {message}");
            assert!(!message.contains('\n'), "{words:?}: {message}");
        }
    }
}
