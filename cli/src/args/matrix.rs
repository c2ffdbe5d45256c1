//! `sharetxn matrix`'s arguments. They live apart from the other commands' parsers because
//! the matrix judges its input over many (design, scenario) pairs at once: every pair is
//! built here, with every `--set` applied, so that a bad value is refused before the first
//! check starts, and each pair carries the library's verdict on whether it applies.

use super::{
    at_least_one, build_model, default_threads, once, seconds, thread_count, ModelArgs, Word,
    Words, DEFAULT_TRACE_OUT,
};
use crate::args::Command;
use crate::error::CliError;
use crate::matrix::DEFAULT_UNCLAIMED_MAX_STATES;
use sharetxn_model::design::DESIGN_NAMES;
use sharetxn_model::scenario::SCENARIO_NAMES;
use sharetxn_properties::check::DEFAULT_MAX_STATES;
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

/// Parses `--designs a,b`: names the library knows, in the library's order.
fn names(
    flag: &str,
    value: &str,
    known: &[&'static str],
    what: &str,
) -> Result<Vec<&'static str>, CliError> {
    let mut wanted = Vec::new();
    for name in value.split(',').map(str::trim) {
        if name.is_empty() {
            return Err(CliError::new(format!(
                "{flag} {value}: expected comma-separated {what} names"
            )));
        }
        if !known.contains(&name) {
            return Err(CliError::new(format!(
                "{flag}: unknown {what} '{name}' (known: {})",
                known.join(", ")
            )));
        }
        wanted.push(name);
    }
    Ok(known
        .iter()
        .copied()
        .filter(|k| wanted.contains(k))
        .collect())
}

/// Parses the words after `sharetxn matrix`.
pub(super) fn parse_matrix(words: &mut Words) -> Result<Command, CliError> {
    let (mut designs, mut scenarios, mut sets) = (None, None, Vec::new());
    let (mut threads, mut max_states, mut timeout, mut trace_out) = (None, None, None, None);
    let mut unclaimed_max_states = None;
    let mut json = false;
    while let Some(word) = words.next()? {
        let flag = match word {
            Word::Help => return Ok(Command::Help),
            Word::Flag(flag) => flag,
            Word::Positional(word) => return Err(words.unexpected(&word)),
        };
        match flag.as_str() {
            "--designs" => {
                let value = words.value(&flag)?;
                once(
                    &mut designs,
                    &flag,
                    names(&flag, &value, DESIGN_NAMES, "design")?,
                )?;
            }
            "--scenarios" => {
                let value = words.value(&flag)?;
                let parsed = names(&flag, &value, SCENARIO_NAMES, "scenario")?;
                once(&mut scenarios, &flag, parsed)?;
            }
            "--set" => sets.push(words.value(&flag)?),
            "--threads" => {
                let value = words.value(&flag)?;
                once(&mut threads, &flag, thread_count(&flag, &value)?)?;
            }
            "--max-states" => {
                let value = words.value(&flag)?;
                once(&mut max_states, &flag, at_least_one(&flag, &value)?)?;
            }
            "--unclaimed-max-states" => {
                let value = words.value(&flag)?;
                let n = at_least_one(&flag, &value)?;
                once(&mut unclaimed_max_states, &flag, n)?;
            }
            "--timeout" => {
                let value = words.value(&flag)?;
                once(&mut timeout, &flag, seconds(&flag, &value)?)?;
            }
            "--trace-out" => {
                let value = words.value(&flag)?;
                if value.is_empty() {
                    return Err(CliError::new(format!("{flag} needs a directory")));
                }
                once(&mut trace_out, &flag, PathBuf::from(value))?;
            }
            "--json" => {
                words.switch(&flag)?;
                if json {
                    return Err(CliError::new(format!("{flag} given more than once")));
                }
                json = true;
            }
            _ => return Err(words.unknown(&flag)),
        }
    }
    let designs = designs.unwrap_or_else(|| DESIGN_NAMES.to_vec());
    let scenarios = scenarios.unwrap_or_else(|| SCENARIO_NAMES.to_vec());
    let mut pairs = Vec::new();
    for scenario in &scenarios {
        for design in &designs {
            // Every key is a field of every scenario and a knob of every design, so a
            // `--set` can only fail on its value, and then it fails for every pair alike.
            let model = build_model(design, scenario, &sets)?;
            let applies = model.design.applies_to(&model.scenario);
            pairs.push(MatrixPair { model, applies });
        }
    }
    Ok(Command::Matrix(MatrixArgs {
        pairs,
        sets,
        threads: threads.unwrap_or_else(default_threads),
        max_states: max_states.unwrap_or(DEFAULT_MAX_STATES),
        unclaimed_max_states: unclaimed_max_states.unwrap_or(DEFAULT_UNCLAIMED_MAX_STATES),
        timeout,
        json,
        trace_out: trace_out.unwrap_or_else(|| PathBuf::from(DEFAULT_TRACE_OUT)),
    }))
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
            * sharetxn_model::scenario::SCENARIO_NAMES.len();
        assert_eq!(args.pairs.len(), pairs);
        assert!(args.pairs.iter().any(|p| p.applies.is_err()));
        assert!(!args.json && args.timeout.is_none());
        assert_eq!(
            args.unclaimed_max_states,
            crate::matrix::DEFAULT_UNCLAIMED_MAX_STATES
        );
        let documented = format!(
            "--unclaimed-max-states {}",
            crate::matrix::DEFAULT_UNCLAIMED_MAX_STATES
        );
        assert!(crate::args::USAGE.contains(&documented), "{documented}");
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
            (&["--designs"][..], "needs a value"),
            (&["--set", "tv=7"][..], "0 to 2"),
            (&["--set", "nope=1"][..], "unknown key"),
            (&["--threads", "0"][..], "1 to 64"),
            (&["--max-states", "0"][..], "at least 1"),
            (&["--unclaimed-max-states", "0"][..], "at least 1"),
            (&["--unclaimed-max-states", "x"][..], "whole number"),
            (&["--timeout", "0"][..], "above 0"),
            (&["--trace-out="][..], "needs a directory"),
            (&["--json", "--json"][..], "more than once"),
            (&["--strategy", "dfs"][..], "unknown flag"),
            (&["extra"][..], "unexpected argument"),
        ] {
            let message = matrix(words).unwrap_err();
            assert!(message.contains(expect), "{words:?}: {message}");
            assert!(!message.contains('\n'), "{words:?}: {message}");
        }
    }
}
