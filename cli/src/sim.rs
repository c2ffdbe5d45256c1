//! `sharetxn sim`: runs a range of seeds (or one shard of it) on several threads, prints
//! one line per seed in seed order (JSON with `--json`), a reproduce command for every
//! violation and a trace file for the first of each property (as many as the options'
//! `max_traces` allows), and ends with a summary. `--summarize` merges
//! the JSON lines of many such runs (many machines) into one summary. Exit status 1 when
//! any seed violated a property.

use crate::args::{SimArgs, SummarizeArgs, DEFAULT_TRACE_OUT};
use crate::check::NOT_PASSED;
use crate::error::CliError;
use crate::output;
use crate::sim_progress::SimProgress;
use crate::sim_trace::write_sim_trace;
use crate::trace::prepare_dir;
use sharetxn_sim::line::SeedLine;
use sharetxn_sim::parallel::run_seeds;
use sharetxn_sim::summary::Summary;
use sharetxn_sim::{run_seed, Outcome, TraceQuota};
use std::process::ExitCode;

/// Runs the seeds and reports.
pub fn run(args: SimArgs) -> Result<ExitCode, CliError> {
    prepare_dir(&args.trace_out)?;
    let seeds: Vec<u64> = args.seeds.seeds(args.shard).collect();
    let (design, scenario) = (&args.model.design, &args.model.scenario);
    if !args.json {
        output::stdout(&format!(
            "sim: scenario {}, design {}, seeds {} shard {}/{}, {} seeds on {} threads\n",
            scenario.name,
            design.describe(),
            args.seeds,
            args.shard.index,
            args.shard.count,
            seeds.len(),
            args.threads
        ))?;
    }
    let mut progress = SimProgress::for_stderr(args.json, seeds.len() as u64);
    let mut summary = Summary::default();
    let mut failure = None;
    let mut quota = TraceQuota::new(args.options.max_traces);
    run_seeds(
        &seeds,
        args.threads,
        |seed| run_seed(design, scenario, &args.options, seed),
        |outcome| match report(&args, &outcome, &mut quota, &mut progress) {
            Ok(line) => {
                summary.add(&line);
                if let Some(p) = progress.as_mut() {
                    p.show(summary.seeds, summary.violated, summary.steps);
                }
                true
            }
            Err(e) => {
                failure = Some(e);
                false
            }
        },
    );
    if let Some(p) = progress.as_mut() {
        p.clear();
    }
    if let Some(e) = failure {
        return Err(e);
    }
    if args.json {
        output::stdout(&format!("{}\n", summary.to_json_line()))?;
    } else {
        output::stdout(&format!("result: {}\n", summary.to_text()))?;
    }
    Ok(exit(&summary))
}

/// Prints one seed's line (and, for a violation, its trace if `quota` still allows one,
/// and its reproduce command).
fn report(
    args: &SimArgs,
    outcome: &Outcome,
    quota: &mut TraceQuota,
    progress: &mut Option<SimProgress>,
) -> Result<SeedLine, CliError> {
    // Only a trace that is written is recorded: recording digests every step.
    let trace = if quota.claim(outcome) {
        write_sim_trace(&args.trace_out, &args.model.design, &args.options, outcome)?
    } else {
        None
    };
    let line = SeedLine::new(outcome, trace.map(|p| p.display().to_string()));
    if let Some(p) = progress.as_mut() {
        p.clear();
    }
    if args.json {
        let text = serde_json::to_string(&line)
            .map_err(|e| CliError::new(format!("cannot encode a seed line: {e}")))?;
        output::stdout(&format!("{text}\n"))?;
    } else {
        let swarm = outcome
            .swarm
            .as_ref()
            .map(|s| s.to_string())
            .unwrap_or_default();
        output::stdout(&format!(
            "seed {}: {} in {} steps, {:.1}s virtual | {swarm}\n",
            line.seed,
            line.result,
            line.steps,
            line.virtual_ms as f64 / 1000.0
        ))?;
    }
    if let (Some(property), Some(message)) = (&line.property, &line.message) {
        let unwritten = format!("(not written: max_traces {} per property)", quota.limit());
        let trace = line.trace.as_deref().unwrap_or(&unwritten);
        output::stderr(&format!(
            "sharetxn: seed {} violated {property}: {message}\n  trace: {trace}\n  reproduce: {}\n",
            line.seed,
            reproduce(args, line.seed)
        ));
    }
    Ok(line)
}

/// The command that runs exactly this seed again.
pub fn reproduce(args: &SimArgs, seed: u64) -> String {
    let mut words = vec![
        "sharetxn".to_string(),
        "sim".into(),
        "--scenario".into(),
        quote(&args.model.scenario.name),
        "--design".into(),
        quote(&args.model.design.name),
        "--seeds".into(),
        format!("{seed}..{}", seed.saturating_add(1)),
    ];
    for set in &args.sets {
        words.push("--set".into());
        words.push(quote(set));
    }
    if args.steps_given {
        words.push("--steps".into());
        words.push(args.options.steps.to_string());
    }
    if args.trace_out.as_os_str() != DEFAULT_TRACE_OUT {
        words.push("--trace-out".into());
        words.push(quote(&args.trace_out.display().to_string()));
    }
    words.join(" ")
}

/// A word as a POSIX shell reads it back.
fn quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-=.,:/+@".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Merges the JSON lines of many runs into one summary.
pub fn summarize(args: SummarizeArgs) -> Result<ExitCode, CliError> {
    let mut summary = Summary::default();
    for file in &args.files {
        let text = std::fs::read_to_string(file)
            .map_err(|e| CliError::new(format!("cannot read {}: {e}", file.display())))?;
        summary.merge(&file.display().to_string(), &text)?;
    }
    if args.json {
        output::stdout(&format!("{}\n", summary.to_json_line()))?;
    } else {
        output::stdout(&format!("result: {}\n", summary.to_text()))?;
    }
    Ok(exit(&summary))
}

fn exit(summary: &Summary) -> ExitCode {
    if summary.violated > 0 {
        ExitCode::from(NOT_PASSED)
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_what_the_shell_would_split() {
        assert_eq!(quote("tv=1"), "tv=1");
        assert_eq!(quote("faults=loss,crash"), "faults=loss,crash");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), r"'it'\''s'");
    }
}
