//! `sharetxn swarm`'s arguments: the model, the searches this process runs and their
//! bounds, or, with `--summarize`, only the files whose lines it merges.

use super::cli::SwarmCli;
use super::{default_threads, resolve_model, Command, ModelArgs, DEFAULT_TRACE_OUT};
use crate::error::CliError;
use sharetxn_properties::swarm::Bounds;
use sharetxn_sim::seeds::{SeedRange, Shard};
use std::path::PathBuf;

/// The searches `swarm` runs unless told otherwise.
pub const DEFAULT_SEARCHES: SeedRange = SeedRange { start: 0, end: 8 };

/// Distinct states a search visits unless told otherwise: about 100 MB of visited table
/// and stack on this model (101 MB peak RSS on `ctp-race` at two records and a loss), so
/// that every core can run one.
pub const DEFAULT_SEARCH_STATES: u64 = 1_000_000;

/// `sharetxn swarm`'s arguments.
#[derive(Debug)]
pub struct SwarmArgs {
    /// The model searched.
    pub model: ModelArgs,
    /// The search range.
    pub searches: SeedRange,
    /// This process's shard of it.
    pub shard: Shard,
    /// Each search's bounds.
    pub bounds: Bounds,
    /// Searches run side by side.
    pub threads: usize,
    /// One JSON line per search, then a summary line.
    pub json: bool,
    /// Where trace files go.
    pub trace_out: PathBuf,
}

/// `sharetxn swarm --summarize`'s arguments.
#[derive(Debug)]
pub struct SwarmSummarizeArgs {
    /// Files of JSON lines.
    pub files: Vec<PathBuf>,
    /// Print the summary as one JSON line.
    pub json: bool,
}

/// `swarm`, or `swarm --summarize`, which takes only files (and `--json`).
pub fn resolve(s: SwarmCli) -> Result<Command, CliError> {
    if let Some(files) = s.summarize {
        let others = s.model.scenario.is_some()
            || s.model.design.is_some()
            || !s.model.sets.is_empty()
            || s.searches.is_some()
            || s.shard.is_some()
            || s.max_states.is_some()
            || s.max_depth.is_some()
            || s.threads.is_some()
            || s.trace_out.is_some();
        if others {
            return Err(CliError::new(
                "--summarize takes only files (and --json): it runs no search",
            ));
        }
        return Ok(Command::SwarmSummarize(SwarmSummarizeArgs {
            files,
            json: s.json,
        }));
    }
    Ok(Command::Swarm(SwarmArgs {
        model: resolve_model(s.model, |_| None)?,
        searches: s.searches.unwrap_or(DEFAULT_SEARCHES),
        shard: s.shard.unwrap_or(Shard::ALL),
        bounds: Bounds {
            max_states: s.max_states.unwrap_or(DEFAULT_SEARCH_STATES),
            max_depth: s.max_depth,
        },
        threads: s.threads.unwrap_or_else(default_threads),
        json: s.json,
        trace_out: s
            .trace_out
            .unwrap_or_else(|| PathBuf::from(DEFAULT_TRACE_OUT)),
    }))
}
