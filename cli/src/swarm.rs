//! `sharetxn swarm`: runs a range of searches (or one shard of it) side by side, prints one
//! line per search in search order (JSON with `--json`), writes the first trace of each
//! violated property, and ends with the summary; `--summarize` merges the JSON lines of
//! many such runs (many machines) into one. Exit status 1 when a search violated a
//! property or an applicable twin went unwitnessed by every search.

use crate::args::{SwarmArgs, SwarmSummarizeArgs};
use crate::check::NOT_PASSED;
use crate::error::CliError;
use crate::output;
use crate::sim::{shard_len, shard_seeds};
use crate::trace::{file_name, prepare_dir, write_trace};
use sharetxn_model::System;
use sharetxn_properties::swarm::{search, SearchLine, Summary};
use sharetxn_properties::{Report, Status};
use sharetxn_sim::parallel::run_seeds;
use sharetxn_traces::Origin;
use std::collections::BTreeSet;
use std::process::ExitCode;

/// Searches handed to the threads at a time: a range is streamed, never collected.
const CHUNK: u64 = 64;

/// Runs the searches and reports.
pub fn run(args: SwarmArgs) -> Result<ExitCode, CliError> {
    prepare_dir(&args.trace_out)?;
    let system = System::new(args.model.design.clone(), args.model.scenario.clone());
    let total = shard_len(args.searches, args.shard);
    if !args.json {
        output::stdout(&format!(
            "swarm: scenario {}, design {}, searches {} shard {}/{}, {total} searches of at most {} states on {} threads\n",
            system.scenario.name,
            system.design.describe(),
            args.searches,
            args.shard.index,
            args.shard.count,
            args.bounds.max_states,
            args.threads
        ))?;
    }
    let mut summary = Summary::default();
    let mut traced = BTreeSet::new();
    let mut failure = None;
    let mut from = 0;
    while from < total && failure.is_none() {
        let to = total.min(from.saturating_add(CHUNK));
        let seeds = shard_seeds(args.searches, args.shard, from, to);
        from = to;
        run_seeds(
            &seeds,
            args.threads,
            |seed| (seed, search(&system, seed, args.bounds)),
            |(seed, report)| match record(&args, &system, seed, report, &mut traced) {
                Ok(line) => {
                    summary.add(&line);
                    true
                }
                Err(e) => {
                    failure = Some(e);
                    false
                }
            },
        );
    }
    if let Some(e) = failure {
        return Err(e);
    }
    print_summary(&summary, args.json)?;
    Ok(exit(&summary))
}

/// One search's line on stdout, and the trace of each property it is the first to
/// violate (in search order, so the same range writes the same files).
fn record(
    args: &SwarmArgs,
    system: &System,
    seed: u64,
    mut report: Report,
    traced: &mut BTreeSet<String>,
) -> Result<SearchLine, CliError> {
    let origin = Origin::Swarm {
        search: seed,
        max_states: args.bounds.max_states,
        max_depth: args.bounds.max_depth,
    };
    for property in &mut report.properties {
        if property.status != Status::Violated || !traced.insert(property.name.clone()) {
            continue;
        }
        let Some(trace) =
            sharetxn_traces::from_report(system, property, origin.clone()).map_err(|e| {
                CliError::new(format!("cannot record the {} trace: {e}", property.name))
            })?
        else {
            continue;
        };
        let name = file_name(&system.design.name, &system.scenario.name, &property.name);
        let path = args.trace_out.join(name);
        write_trace(&path, &trace)?;
        output::stderr(&format!(
            "sharetxn: search {seed} violated {}: {}\n  trace: {}\n",
            property.name,
            property.message.as_deref().unwrap_or(""),
            path.display()
        ));
    }
    let line = SearchLine::of(seed, &report);
    if args.json {
        let text = serde_json::to_string(&line)
            .map_err(|e| CliError::new(format!("cannot encode a search line: {e}")))?;
        output::stdout(&format!("{text}\n"))?;
    } else {
        output::stdout(&format!("{}\n", line_text(&line)))?;
    }
    Ok(line)
}

/// A search's line for people.
fn line_text(line: &SearchLine) -> String {
    let violated: Vec<&str> = line.violated.keys().map(String::as_str).collect();
    format!(
        "search {}: {} states, depth {}, {}{}",
        line.search,
        line.unique_states,
        line.max_depth,
        if line.complete {
            "complete (the whole space)"
        } else {
            "capped"
        },
        if violated.is_empty() {
            String::new()
        } else {
            format!(", violated {}", violated.join(", "))
        }
    )
}

/// The summary: one JSON line, or the verdict in words.
fn print_summary(summary: &Summary, json: bool) -> Result<(), CliError> {
    if json {
        let text = serde_json::to_string(&serde_json::json!({ "summary": summary }))
            .map_err(|e| CliError::new(format!("cannot encode the summary: {e}")))?;
        return output::stdout(&format!("{text}\n"));
    }
    let mut out = format!(
        "result: {} searches, {} states visited in all, depth {}; ",
        summary.searches, summary.states_visited, summary.max_depth
    );
    out.push_str(&match summary.complete_search {
        Some(s) => format!("search {s} explored the whole space"),
        None => "no search explored the whole space (nothing is proved to hold)".into(),
    });
    for (name, s) in &summary.violated {
        out.push_str(&format!(
            "\n  violated {name}: {} searches, first search {}, shortest trace {} steps (search {})",
            s.searches, s.first_search, s.shortest, s.shortest_search
        ));
    }
    let unreached = summary.unreached();
    if !unreached.is_empty() {
        out.push_str(&format!(
            "\n  unwitnessed by every search: {}",
            unreached.join(", ")
        ));
    }
    output::stdout(&format!("{out}\n"))
}

fn exit(summary: &Summary) -> ExitCode {
    if summary.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(NOT_PASSED)
    }
}

/// Merges the JSON lines of many runs (search lines, or the summary lines other merges
/// printed) into one summary. A run's own summary line is skipped where its search lines
/// are present, so a file merges the same whether or not it ends with one.
pub fn summarize(args: SwarmSummarizeArgs) -> Result<ExitCode, CliError> {
    let mut lines = Summary::default();
    let mut summaries = Summary::default();
    for file in &args.files {
        let name = file.display();
        let text = std::fs::read_to_string(file)
            .map_err(|e| CliError::new(format!("cannot read {name}: {e}")))?;
        let (mut file_lines, mut file_summaries) = (Summary::default(), Summary::default());
        for (i, raw) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let bad = |e: serde_json::Error| {
                CliError::new(format!(
                    "{name}:{}: not a line of 'sharetxn swarm --json': {e}",
                    i + 1
                ))
            };
            let value: serde_json::Value = serde_json::from_str(raw).map_err(bad)?;
            match value.get("summary") {
                Some(s) => file_summaries.merge(&serde_json::from_value(s.clone()).map_err(bad)?),
                None => file_lines.add(&serde_json::from_value(value).map_err(bad)?),
            }
        }
        if file_lines.searches > 0 {
            lines.merge(&file_lines);
        } else {
            summaries.merge(&file_summaries);
        }
    }
    lines.merge(&summaries);
    if lines.searches == 0 {
        return Err(CliError::new(
            "no search lines to summarize: the files hold no line of 'sharetxn swarm --json'",
        ));
    }
    print_summary(&lines, args.json)?;
    Ok(exit(&lines))
}
