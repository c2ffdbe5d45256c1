//! The command line, parsed by hand. It exists so that every judgement about the input
//! is made in one place, before any work starts: flags, numbers and their ranges, and the
//! scenario, design and `--set` values (resolved here into a [`Design`] and a
//! [`Scenario`]). Anything wrong becomes one [`CliError`] naming the problem.
//!
//! Flags take their value as the next word or after `=` (`--threads 2`, `--threads=2`).
//! A flag given twice is an error, except `--set`, which may repeat and applies in order.

mod matrix;

pub use matrix::{MatrixArgs, MatrixPair};

use crate::error::CliError;
use matrix::parse_matrix;
use sharetxn_model::design::DESIGN_NAMES;
use sharetxn_model::{settings, Design, Scenario};
use sharetxn_properties::check::DEFAULT_MAX_STATES;
use sharetxn_properties::Strategy;
use sharetxn_sim::seeds::{SeedRange, Shard};
use sharetxn_sim::SimOptions;
use std::ffi::OsString;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// What `sharetxn --help` prints.
pub const USAGE: &str = "\
sharetxn: model-check Kafka transactions

usage:
  sharetxn list
      scenarios, designs, properties and the --set keys
  sharetxn check [--scenario S] [--design D] [--strategy bfs|dfs] [--max-depth N]
                 [--max-states N] [--threads N] [--timeout SECS] [--json]
                 [--trace-out DIR] [--set KEY=VALUE]...
      explore every reachable state and judge every property
  sharetxn matrix [--designs A,B] [--scenarios X,Y] [--threads N] [--max-states N]
                  [--unclaimed-max-states N] [--timeout SECS] [--json] [--trace-out DIR]
                  [--set KEY=VALUE]...
      check every design on every scenario it applies to (or those named), each the
      same BFS as check (exhaustive for a design claimed safe, stopped at
      --unclaimed-max-states for the others; --threads checks side by side, one thread
      each), and print every property's status: one table per scenario (rows properties
      and twins, columns designs), or --json
  sharetxn replay TRACE
      run a trace again on the current model: each step, where it first differs from
      the recorded digests, and whether its outcome shows again
  sharetxn shrink TRACE [-o OUT] [--ddmin-only] [--search-states N] [--threads N]
      cut a trace to a short, 1-minimal one with the same outcome: ddmin, then a smaller
      scenario and a bounded breadth-first search (default OUT: TRACE with .shrunk.json in
      place of .json; --search-states 100000 a rung, 0 turns the search off; --ddmin-only keeps
      the trace's scenario and skips the search)
  sharetxn render TRACE [--format text|mermaid]
      one line a step, or a Mermaid sequence diagram
  sharetxn sim [--scenario S] [--design D] [--set KEY=VALUE]... [--seeds A..B]
               [--shard I/N] [--steps N] [--threads N] [--json] [--trace-out DIR]
      simulate seeds A..B (half-open) with real Kafka timing and swarm faults
  sharetxn sim --summarize FILE... [--json]
      merge the JSON lines of many sim runs into one summary
  sharetxn explore [--scenario S] [--design D] [--set KEY=VALUE]... [--port P] [--host H]
      serve stateright's web Explorer (runs until interrupted)
  sharetxn help | --help | -h
  sharetxn --version

defaults: --scenario txn-basic --design <the first design that applies to the scenario:
          consumer-offsets, or seed where there are share acks in transactions>
          --strategy bfs --threads <cores, at most 8>
          --max-states 20000000 --trace-out target/sharetxn-traces
          matrix: every design on every scenario, --threads <cores, at most 8>,
          --unclaimed-max-states 1000000
          sim: --seeds 0..100 --shard 0/1 --steps 5000
          --port 3000 --host 127.0.0.1
limits:   --threads 1..=64, --max-states >= 1, --unclaimed-max-states >= 1,
          --timeout > 0 (seconds, may be fractional)

sim --set also takes the simulator's keys (request_timeout_ms, txn_timeout_ms, faults, ...;
see 'sharetxn list'). sim --json prints one JSON line per seed, in seed order whatever
--threads, then one summary line; a violation writes a trace file and prints the command
that reproduces it.

check writes a trace file <design>-<scenario>-<property>.json into the trace directory
for every violation and every witnessed twin. --json prints the report as one JSON
object on stdout and nothing else.

exit status: 0 every property holds and every twin is witnessed, 1 otherwise
             (a violation, an unreached twin, or a check stopped early), 2 bad input
matrix:      0 the matrix was computed and every design this project claims safe
             (consumer-offsets, proposed, at their own knobs) passed where it applies;
             1 one of them did not (a violation, an unreached twin, or a check
             stopped early); 2 bad input. Violations of other designs are the
             matrix's content, not a failure. --timeout and --max-states apply to
             each check; a check stopped early reports what it did not decide as
             unknown, with the reason.
replay:      1 the trace's violation shows again (or its witness no longer does),
             0 every step ran and it does not (or the witness does), 2 the trace
             cannot be read or an action is no longer enabled
";

/// The scenario a command uses when none is named.
pub const DEFAULT_SCENARIO: &str = "txn-basic";
/// The design a command uses when none is named.
pub const DEFAULT_DESIGN: &str = "consumer-offsets";
/// Where `check` writes traces unless told otherwise.
pub const DEFAULT_TRACE_OUT: &str = "target/sharetxn-traces";
/// The Explorer's default port.
pub const DEFAULT_PORT: u16 = 3000;
/// The Explorer's default host.
pub const DEFAULT_HOST: &str = "127.0.0.1";
/// Every core, up to 8: results do not depend on the thread count, only speed does.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

/// The most checker threads accepted.
pub const MAX_THREADS: usize = 64;

/// The commands that exist.
const COMMANDS: &[&str] = &[
    "list", "check", "matrix", "sim", "replay", "shrink", "render", "explore", "help",
];

/// A parsed command line.
#[derive(Debug)]
pub enum Command {
    /// Print the usage.
    Help,
    /// Print the version.
    Version,
    /// `sharetxn list`.
    List,
    /// `sharetxn check`.
    Check(CheckArgs),
    /// `sharetxn matrix`.
    Matrix(MatrixArgs),
    /// `sharetxn sim`.
    Sim(SimArgs),
    /// `sharetxn sim --summarize`.
    Summarize(SummarizeArgs),
    /// `sharetxn explore`.
    Explore(ExploreArgs),
    /// `sharetxn replay TRACE`.
    Replay(PathBuf),
    /// `sharetxn shrink TRACE [-o OUT] [--ddmin-only] [--search-states N] [--threads N]`.
    Shrink(ShrinkArgs),
    /// `sharetxn render TRACE [--format text|mermaid]`.
    Render(RenderArgs),
}

/// `sharetxn shrink`'s arguments.
#[derive(Debug)]
pub struct ShrinkArgs {
    /// The trace to shrink.
    pub trace: PathBuf,
    /// Where the shrunk trace goes (next to the input unless given).
    pub out: PathBuf,
    /// `--ddmin-only`: keep the trace's scenario and do not search.
    pub ddmin_only: bool,
    /// `--search-states N`: the search's bound (0: no search).
    pub search_states: Option<u64>,
    /// `--threads N` for the search.
    pub threads: Option<usize>,
}

/// What `render` draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenderFormat {
    /// One line a step.
    Text,
    /// A Mermaid sequence diagram.
    Mermaid,
}

/// `sharetxn render`'s arguments.
#[derive(Debug)]
pub struct RenderArgs {
    /// The trace to render.
    pub trace: PathBuf,
    /// Text or Mermaid.
    pub format: RenderFormat,
}

/// The seeds `sim` runs unless told otherwise.
pub const DEFAULT_SEEDS: &str = "0..100";

/// `sharetxn sim`'s arguments.
#[derive(Debug)]
pub struct SimArgs {
    /// The model to simulate.
    pub model: ModelArgs,
    /// The simulator's options (with `--steps` and the simulator's `--set` keys).
    pub options: SimOptions,
    /// Every `--set` as given, in order (for the reproduce command).
    pub sets: Vec<String>,
    /// Whether `--steps` was given (for the reproduce command).
    pub steps_given: bool,
    /// The seed range.
    pub seeds: SeedRange,
    /// This process's shard of it.
    pub shard: Shard,
    /// Threads running seeds.
    pub threads: usize,
    /// One JSON line per seed, then a summary line.
    pub json: bool,
    /// Where trace files go.
    pub trace_out: PathBuf,
}

/// `sharetxn sim --summarize`'s arguments.
#[derive(Debug)]
pub struct SummarizeArgs {
    /// Files of JSON lines.
    pub files: Vec<PathBuf>,
    /// Print the summary as one JSON line.
    pub json: bool,
}

/// The model a command works on, with every `--set` applied.
#[derive(Debug)]
pub struct ModelArgs {
    /// The design.
    pub design: Design,
    /// The scenario.
    pub scenario: Scenario,
}

/// `sharetxn check`'s arguments.
#[derive(Debug)]
pub struct CheckArgs {
    /// The model to check.
    pub model: ModelArgs,
    /// BFS or DFS.
    pub strategy: Strategy,
    /// Do not expand states at this depth.
    pub max_depth: Option<u64>,
    /// Stop after this many distinct states.
    pub max_states: u64,
    /// Threads expanding a BFS level.
    pub threads: usize,
    /// Stop after this long.
    pub timeout: Option<Duration>,
    /// Print the report as JSON.
    pub json: bool,
    /// Where trace files go.
    pub trace_out: PathBuf,
}

/// `sharetxn explore`'s arguments.
#[derive(Debug)]
pub struct ExploreArgs {
    /// The model to explore.
    pub model: ModelArgs,
    /// The host to listen on.
    pub host: String,
    /// The port to listen on.
    pub port: u16,
}

/// Parses the arguments after the program name.
pub fn parse(argv: Vec<OsString>) -> Result<Command, CliError> {
    let mut words = Vec::with_capacity(argv.len());
    for arg in argv {
        let arg = arg
            .into_string()
            .map_err(|a| CliError::new(format!("argument {a:?} is not valid UTF-8")))?;
        words.push(arg);
    }
    let mut words = words.into_iter();
    let Some(command) = words.next() else {
        return Err(CliError::new("no command given (try 'sharetxn --help')"));
    };
    let mut words = Words {
        command: command.clone(),
        rest: words,
        inline: None,
    };
    match command.as_str() {
        "help" | "-h" | "--help" => Ok(Command::Help),
        "-V" | "--version" => Ok(Command::Version),
        "list" => parse_list(&mut words),
        "check" => parse_check(&mut words),
        "matrix" => parse_matrix(&mut words),
        "sim" => parse_sim(&mut words),
        "explore" => parse_explore(&mut words),
        "replay" => parse_replay(&mut words),
        "shrink" => parse_shrink(&mut words),
        "render" => parse_render(&mut words),
        flag if flag.starts_with('-') => Err(CliError::new(format!(
            "unknown flag '{flag}' before a command (try 'sharetxn --help')"
        ))),
        other => Err(CliError::new(format!(
            "unknown command '{other}' (available: {})",
            COMMANDS.join(", ")
        ))),
    }
}

/// The words after the command, read flag by flag.
struct Words {
    command: String,
    rest: std::vec::IntoIter<String>,
    /// The value given with `--flag=value`, until it is taken.
    inline: Option<String>,
}

/// What the next word is.
enum Word {
    /// `-h` or `--help`.
    Help,
    /// A flag, by name (`--threads`).
    Flag(String),
    /// A word that is not a flag (a trace file).
    Positional(String),
}

impl Words {
    /// The next flag, or `None` at the end. Stray values are errors.
    fn next(&mut self) -> Result<Option<Word>, CliError> {
        if let Some(value) = self.inline.take() {
            return Err(CliError::new(format!("unexpected value '{value}'")));
        }
        let Some(word) = self.rest.next() else {
            return Ok(None);
        };
        if word == "-h" || word == "--help" {
            return Ok(Some(Word::Help));
        }
        if let Some(body) = word.strip_prefix("--") {
            if let Some((name, value)) = body.split_once('=') {
                self.inline = Some(value.to_string());
                return Ok(Some(Word::Flag(format!("--{name}"))));
            }
            return Ok(Some(Word::Flag(word)));
        }
        if word.starts_with('-') && word.len() > 1 {
            return Ok(Some(Word::Flag(word)));
        }
        Ok(Some(Word::Positional(word)))
    }

    /// The error for a word this command takes no place for.
    fn unexpected(&self, word: &str) -> CliError {
        CliError::new(format!(
            "unexpected argument '{word}' for '{}'",
            self.command
        ))
    }

    /// The value of `flag`: after `=`, or the next word.
    fn value(&mut self, flag: &str) -> Result<String, CliError> {
        if let Some(value) = self.inline.take() {
            return Ok(value);
        }
        match self.rest.as_slice().first() {
            Some(next) if !next.starts_with("--") => Ok(self.rest.next().unwrap_or_default()),
            _ => Err(CliError::new(format!("{flag} needs a value"))),
        }
    }

    /// The words up to the next flag (`--summarize FILE...`).
    fn values(&mut self) -> Vec<String> {
        let mut out: Vec<String> = self.inline.take().into_iter().collect();
        while self
            .rest
            .as_slice()
            .first()
            .is_some_and(|w| !w.starts_with("--"))
        {
            out.extend(self.rest.next());
        }
        out
    }

    /// Checks that a switch (a flag without a value) was not given one.
    fn switch(&mut self, flag: &str) -> Result<(), CliError> {
        match self.inline.take() {
            Some(value) => Err(CliError::new(format!(
                "{flag} takes no value (got '{value}')"
            ))),
            None => Ok(()),
        }
    }

    /// The error for a flag this command does not know.
    fn unknown(&self, flag: &str) -> CliError {
        CliError::new(format!(
            "unknown flag '{flag}' for '{}' (try 'sharetxn --help')",
            self.command
        ))
    }
}

/// Stores a flag's value, refusing a second one.
fn once<T>(slot: &mut Option<T>, flag: &str, value: T) -> Result<(), CliError> {
    if slot.is_some() {
        return Err(CliError::new(format!("{flag} given more than once")));
    }
    *slot = Some(value);
    Ok(())
}

/// Parses a whole number.
fn number<T: FromStr>(flag: &str, value: &str) -> Result<T, CliError> {
    value
        .parse()
        .map_err(|_| CliError::new(format!("{flag} {value}: expected a whole number")))
}

/// The flags every model-driven command shares.
#[derive(Default)]
struct ModelFlags {
    scenario: Option<String>,
    design: Option<String>,
    sets: Vec<String>,
}

impl ModelFlags {
    /// Takes `flag` if it is one of the shared ones; returns whether it was.
    fn take(&mut self, flag: &str, words: &mut Words) -> Result<bool, CliError> {
        match flag {
            "--scenario" => once(&mut self.scenario, flag, words.value(flag)?)?,
            "--design" => once(&mut self.design, flag, words.value(flag)?)?,
            "--set" => self.sets.push(words.value(flag)?),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Looks the scenario and design up and applies every `--set` in order.
    fn resolve(self) -> Result<ModelArgs, CliError> {
        self.resolve_except(|_| None)
    }

    /// Like `resolve`, but a `--set` that `claim` takes (returning whether it was
    /// accepted) is not handed to the model.
    ///
    /// Without `--design`, the design is the first one that applies to the scenario (the
    /// baseline where it applies); a named design that does not apply is refused.
    fn resolve_except(
        self,
        mut claim: impl FnMut(&str) -> Option<Result<(), String>>,
    ) -> Result<ModelArgs, CliError> {
        let scenario = self.scenario.as_deref().unwrap_or(DEFAULT_SCENARIO);
        Scenario::by_name(scenario)?;
        if let Some(design) = &self.design {
            Design::by_name(design)?;
        }
        let mut model_sets = Vec::new();
        for setting in &self.sets {
            match claim(setting) {
                Some(accepted) => accepted?,
                None => model_sets.push(setting.clone()),
            }
        }
        let model = match &self.design {
            Some(design) => build_model(design, scenario, &model_sets)?,
            None => default_model(scenario, &model_sets)?,
        };
        model
            .design
            .applies_to(&model.scenario)
            .map_err(|why| not_applicable(&model, &why, &model_sets))?;
        Ok(model)
    }
}

/// The named design and scenario with every `--set` applied in order.
pub fn build_model(design: &str, scenario: &str, sets: &[String]) -> Result<ModelArgs, CliError> {
    let mut scenario = Scenario::by_name(scenario)?;
    let mut design = Design::by_name(design)?;
    for setting in sets {
        settings::apply(&mut design, &mut scenario, setting)?;
    }
    Ok(ModelArgs { design, scenario })
}

/// The first design (the baseline first) that applies to the scenario as set; the
/// baseline when none does, so that the refusal names it.
fn default_model(scenario: &str, sets: &[String]) -> Result<ModelArgs, CliError> {
    for design in std::iter::once(&DEFAULT_DESIGN).chain(DESIGN_NAMES) {
        let model = build_model(design, scenario, sets)?;
        if model.design.applies_to(&model.scenario).is_ok() {
            return Ok(model);
        }
    }
    build_model(DEFAULT_DESIGN, scenario, sets)
}

/// The one-line refusal of a design that does not apply, naming the designs that do.
fn not_applicable(model: &ModelArgs, why: &str, sets: &[String]) -> CliError {
    let (design, scenario) = (&model.design.name, &model.scenario.name);
    let others: Vec<&str> = DESIGN_NAMES
        .iter()
        .copied()
        .filter(|d| {
            build_model(d, scenario, sets).is_ok_and(|m| m.design.applies_to(&m.scenario).is_ok())
        })
        .collect();
    let hint = if others.is_empty() {
        String::new()
    } else {
        format!(" (designs that apply: {})", others.join(", "))
    };
    CliError::new(format!(
        "design {design} does not apply to scenario {scenario}: {why}{hint}"
    ))
}

fn parse_list(words: &mut Words) -> Result<Command, CliError> {
    match words.next()? {
        None => Ok(Command::List),
        Some(Word::Help) => Ok(Command::Help),
        Some(Word::Flag(flag)) => Err(words.unknown(&flag)),
        Some(Word::Positional(word)) => Err(words.unexpected(&word)),
    }
}

fn parse_check(words: &mut Words) -> Result<Command, CliError> {
    let mut model = ModelFlags::default();
    let (mut strategy, mut max_depth, mut max_states) = (None, None, None);
    let (mut threads, mut timeout, mut trace_out) = (None, None, None);
    let mut json = false;
    while let Some(word) = words.next()? {
        let flag = match word {
            Word::Help => return Ok(Command::Help),
            Word::Flag(flag) => flag,
            Word::Positional(word) => return Err(words.unexpected(&word)),
        };
        if model.take(&flag, words)? {
            continue;
        }
        match flag.as_str() {
            "--strategy" => {
                let value = words.value(&flag)?;
                let parsed = match value.as_str() {
                    "bfs" => Strategy::Bfs,
                    "dfs" => Strategy::Dfs,
                    _ => {
                        return Err(CliError::new(format!(
                            "--strategy {value}: expected bfs or dfs"
                        )))
                    }
                };
                once(&mut strategy, &flag, parsed)?;
            }
            "--max-depth" => {
                let value = words.value(&flag)?;
                once(&mut max_depth, &flag, number::<u64>(&flag, &value)?)?;
            }
            "--max-states" => {
                let value = words.value(&flag)?;
                let n = at_least_one(&flag, &value)?;
                once(&mut max_states, &flag, n)?;
            }
            "--threads" => {
                let value = words.value(&flag)?;
                once(&mut threads, &flag, thread_count(&flag, &value)?)?;
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
    Ok(Command::Check(CheckArgs {
        model: model.resolve()?,
        strategy: strategy.unwrap_or(Strategy::Bfs),
        max_depth,
        max_states: max_states.unwrap_or(DEFAULT_MAX_STATES),
        threads: threads.unwrap_or_else(default_threads),
        timeout,
        json,
        trace_out: trace_out.unwrap_or_else(|| PathBuf::from(DEFAULT_TRACE_OUT)),
    }))
}

/// Parses a positive number of seconds, possibly fractional.
fn seconds(flag: &str, value: &str) -> Result<Duration, CliError> {
    let bad = || {
        CliError::new(format!(
            "{flag} {value}: expected a number of seconds above 0"
        ))
    };
    let secs: f64 = value.parse().map_err(|_| bad())?;
    if secs.is_nan() || secs <= 0.0 {
        return Err(bad());
    }
    Duration::try_from_secs_f64(secs).map_err(|_| bad())
}

/// A thread count in `1..=MAX_THREADS`.
fn thread_count(flag: &str, value: &str) -> Result<usize, CliError> {
    let n = number::<usize>(flag, value)?;
    if !(1..=MAX_THREADS).contains(&n) {
        return Err(CliError::new(format!(
            "{flag} {value}: expected 1 to {MAX_THREADS}"
        )));
    }
    Ok(n)
}

/// A count that must be at least 1.
fn at_least_one(flag: &str, value: &str) -> Result<u64, CliError> {
    let n = number::<u64>(flag, value)?;
    if n == 0 {
        return Err(CliError::new(format!("{flag} {value}: must be at least 1")));
    }
    Ok(n)
}

fn parse_sim(words: &mut Words) -> Result<Command, CliError> {
    let mut model = ModelFlags::default();
    let (mut seeds, mut shard, mut steps) = (None, None, None);
    let (mut threads, mut trace_out, mut summarize) = (None, None, None);
    let mut json = false;
    while let Some(word) = words.next()? {
        let flag = match word {
            Word::Help => return Ok(Command::Help),
            Word::Flag(flag) => flag,
            Word::Positional(word) => return Err(words.unexpected(&word)),
        };
        if model.take(&flag, words)? {
            continue;
        }
        match flag.as_str() {
            "--seeds" => {
                let value = words.value(&flag)?;
                once(&mut seeds, &flag, SeedRange::parse(&value)?)?;
            }
            "--shard" => {
                let value = words.value(&flag)?;
                once(&mut shard, &flag, Shard::parse(&value)?)?;
            }
            "--steps" => {
                let value = words.value(&flag)?;
                let n = at_least_one(&flag, &value)?;
                once(&mut steps, &flag, n)?;
            }
            "--threads" => {
                let value = words.value(&flag)?;
                once(&mut threads, &flag, thread_count(&flag, &value)?)?;
            }
            "--trace-out" => {
                let value = words.value(&flag)?;
                if value.is_empty() {
                    return Err(CliError::new(format!("{flag} needs a directory")));
                }
                once(&mut trace_out, &flag, PathBuf::from(value))?;
            }
            "--summarize" => {
                let files = words.values();
                if files.is_empty() {
                    return Err(CliError::new(format!("{flag} needs at least one file")));
                }
                once(&mut summarize, &flag, files)?;
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
    if let Some(files) = summarize {
        let others = model.scenario.is_some()
            || model.design.is_some()
            || !model.sets.is_empty()
            || seeds.is_some()
            || shard.is_some()
            || steps.is_some()
            || threads.is_some()
            || trace_out.is_some();
        if others {
            return Err(CliError::new(
                "--summarize takes only files (and --json): it runs no seeds",
            ));
        }
        return Ok(Command::Summarize(SummarizeArgs {
            files: files.into_iter().map(PathBuf::from).collect(),
            json,
        }));
    }
    let mut options = SimOptions::default();
    let sets = model.sets.clone();
    let model = model.resolve_except(|setting| options.apply(setting))?;
    if let Some(n) = steps {
        options.steps = n;
    }
    Ok(Command::Sim(SimArgs {
        model,
        options,
        sets,
        steps_given: steps.is_some(),
        seeds: match seeds {
            Some(range) => range,
            None => SeedRange::parse(DEFAULT_SEEDS)?,
        },
        shard: shard.unwrap_or(Shard::ALL),
        threads: threads.unwrap_or_else(default_threads),
        json,
        trace_out: trace_out.unwrap_or_else(|| PathBuf::from(DEFAULT_TRACE_OUT)),
    }))
}

fn parse_explore(words: &mut Words) -> Result<Command, CliError> {
    let mut model = ModelFlags::default();
    let (mut host, mut port) = (None, None);
    while let Some(word) = words.next()? {
        let flag = match word {
            Word::Help => return Ok(Command::Help),
            Word::Flag(flag) => flag,
            Word::Positional(word) => return Err(words.unexpected(&word)),
        };
        if model.take(&flag, words)? {
            continue;
        }
        match flag.as_str() {
            "--port" => {
                let value = words.value(&flag)?;
                let n = number::<u16>(&flag, &value)
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| CliError::new(format!("{flag} {value}: expected 1 to 65535")))?;
                once(&mut port, &flag, n)?;
            }
            "--host" => {
                let value = words.value(&flag)?;
                if value.is_empty() {
                    return Err(CliError::new(format!(
                        "{flag} needs a host name or address"
                    )));
                }
                once(&mut host, &flag, value)?;
            }
            _ => return Err(words.unknown(&flag)),
        }
    }
    Ok(Command::Explore(ExploreArgs {
        model: model.resolve()?,
        host: host.unwrap_or_else(|| DEFAULT_HOST.to_string()),
        port: port.unwrap_or(DEFAULT_PORT),
    }))
}

/// Stores the trace file, refusing a second one.
fn trace_path(slot: &mut Option<PathBuf>, word: String) -> Result<(), CliError> {
    if slot.is_some() {
        return Err(CliError::new(format!(
            "unexpected argument '{word}': one trace file at a time"
        )));
    }
    *slot = Some(PathBuf::from(word));
    Ok(())
}

/// The trace file, which the command cannot do without.
fn required(slot: Option<PathBuf>, command: &str) -> Result<PathBuf, CliError> {
    slot.ok_or_else(|| {
        CliError::new(format!(
            "{command} needs a trace file (sharetxn {command} TRACE)"
        ))
    })
}

fn parse_replay(words: &mut Words) -> Result<Command, CliError> {
    let mut trace = None;
    while let Some(word) = words.next()? {
        match word {
            Word::Help => return Ok(Command::Help),
            Word::Positional(w) => trace_path(&mut trace, w)?,
            Word::Flag(flag) => return Err(words.unknown(&flag)),
        }
    }
    Ok(Command::Replay(required(trace, "replay")?))
}

/// Where `shrink` writes unless told: next to the input, `x.json` becoming
/// `x.shrunk.json`, so the reviewed original is never overwritten by accident.
pub fn default_shrink_out(trace: &std::path::Path) -> PathBuf {
    let stem = trace
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "trace".into());
    trace.with_file_name(format!("{stem}.shrunk.json"))
}

fn parse_shrink(words: &mut Words) -> Result<Command, CliError> {
    let (mut trace, mut out) = (None, None);
    let (mut ddmin_only, mut search_states, mut threads) = (None, None, None);
    while let Some(word) = words.next()? {
        match word {
            Word::Help => return Ok(Command::Help),
            Word::Positional(w) => trace_path(&mut trace, w)?,
            Word::Flag(flag) if flag == "-o" || flag == "--out" => {
                let value = words.value(&flag)?;
                if value.is_empty() {
                    return Err(CliError::new(format!("{flag} needs a file")));
                }
                once(&mut out, &flag, PathBuf::from(value))?;
            }
            Word::Flag(flag) if flag == "--ddmin-only" => once(&mut ddmin_only, &flag, true)?,
            Word::Flag(flag) if flag == "--search-states" => {
                let value = words.value(&flag)?;
                once(&mut search_states, &flag, number(&flag, &value)?)?;
            }
            Word::Flag(flag) if flag == "--threads" => {
                let value = words.value(&flag)?;
                once(&mut threads, &flag, thread_count(&flag, &value)?)?;
            }
            Word::Flag(flag) => return Err(words.unknown(&flag)),
        }
    }
    let trace = required(trace, "shrink")?;
    let out = out.unwrap_or_else(|| default_shrink_out(&trace));
    Ok(Command::Shrink(ShrinkArgs {
        trace,
        out,
        ddmin_only: ddmin_only.unwrap_or(false),
        search_states,
        threads,
    }))
}

fn parse_render(words: &mut Words) -> Result<Command, CliError> {
    let (mut trace, mut format) = (None, None);
    while let Some(word) = words.next()? {
        match word {
            Word::Help => return Ok(Command::Help),
            Word::Positional(w) => trace_path(&mut trace, w)?,
            Word::Flag(flag) if flag == "--format" => {
                let value = words.value(&flag)?;
                let parsed = match value.as_str() {
                    "text" => RenderFormat::Text,
                    "mermaid" => RenderFormat::Mermaid,
                    _ => {
                        return Err(CliError::new(format!(
                            "--format {value}: expected text or mermaid"
                        )))
                    }
                };
                once(&mut format, &flag, parsed)?;
            }
            Word::Flag(flag) => return Err(words.unknown(&flag)),
        }
    }
    Ok(Command::Render(RenderArgs {
        trace: required(trace, "render")?,
        format: format.unwrap_or(RenderFormat::Text),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_words(words: &[&str]) -> Result<Command, CliError> {
        parse(words.iter().map(OsString::from).collect())
    }

    fn check(words: &[&str]) -> CheckArgs {
        let mut all = vec!["check"];
        all.extend_from_slice(words);
        match parse_words(&all) {
            Ok(Command::Check(args)) => args,
            other => panic!("expected check arguments, got {other:?}"),
        }
    }

    fn error(words: &[&str]) -> String {
        match parse_words(words) {
            Err(e) => e.to_string(),
            Ok(c) => panic!("expected an error, got {c:?}"),
        }
    }

    #[test]
    fn check_defaults() {
        let args = check(&[]);
        assert_eq!(args.model.scenario.name, DEFAULT_SCENARIO);
        assert_eq!(args.model.design.name, DEFAULT_DESIGN);
        assert_eq!(args.strategy, Strategy::Bfs);
        assert_eq!(args.max_states, DEFAULT_MAX_STATES);
        assert_eq!(
            (args.threads, args.max_depth, args.timeout),
            (default_threads(), None, None)
        );
        assert!(!args.json);
        assert_eq!(args.trace_out, PathBuf::from(DEFAULT_TRACE_OUT));
    }

    #[test]
    fn check_flags_in_both_spellings() {
        let args = check(&[
            "--strategy=dfs",
            "--max-depth",
            "7",
            "--max-states=5",
            "--threads",
            "4",
            "--timeout",
            "1.5",
            "--json",
            "--trace-out",
            "out",
            "--set",
            "drops=0",
            "--set=tv=1",
        ]);
        assert_eq!(args.strategy, Strategy::Dfs);
        assert_eq!(args.max_depth, Some(7));
        assert_eq!(args.max_states, 5);
        assert_eq!(args.threads, 4);
        assert_eq!(args.timeout, Some(Duration::from_millis(1500)));
        assert!(args.json);
        assert_eq!(args.trace_out, PathBuf::from("out"));
        assert_eq!(args.model.scenario.budget.drops, 0);
        assert_eq!(args.model.design.tv.0, 1);
    }

    #[test]
    fn sets_apply_to_the_named_scenario_whatever_the_order() {
        let args = check(&["--set", "inputs=1", "--scenario", "txn-basic"]);
        assert_eq!(args.model.scenario.inputs, 1);
    }

    #[test]
    fn bad_input_is_refused() {
        for (words, expect) in [
            (&[][..], "no command"),
            (&["frobnicate"][..], "unknown command"),
            (&["replay"][..], "needs a trace file"),
            (&["replay", "a.json", "b.json"][..], "one trace file"),
            (&["replay", "--json", "a.json"][..], "unknown flag"),
            (&["shrink"][..], "needs a trace file"),
            (&["shrink", "a.json", "-o"][..], "needs a value"),
            (
                &["shrink", "a.json", "-o", "x", "-o", "y"][..],
                "more than once",
            ),
            (
                &["render", "a.json", "--format", "svg"][..],
                "text or mermaid",
            ),
            (&["render", "--format"][..], "needs a value"),
            (&["sim", "--seeds", "5..5"][..], "A < B"),
            (&["sim", "--seeds", "x"][..], "A..B"),
            (&["sim", "--shard", "3/2"][..], "0 <= I < N"),
            (&["sim", "--shard", "1/0"][..], "0 <= I < N"),
            (&["sim", "--steps", "0"][..], "at least 1"),
            (&["sim", "--threads", "0"][..], "1 to 64"),
            (&["sim", "--scenario", "nope"][..], "unknown scenario"),
            (&["sim", "--set", "nope=1"][..], "unknown key"),
            (
                &["sim", "--set", "request_timeout_ms=0"][..],
                "milliseconds",
            ),
            (&["sim", "--summarize"][..], "at least one file"),
            (
                &["sim", "--summarize", "a", "--seeds", "0..2"][..],
                "only files",
            ),
            (&["--frob"][..], "unknown flag"),
            (&["list", "extra"][..], "unexpected argument"),
            (&["list", "--json"][..], "unknown flag"),
            (&["check", "--frob"][..], "unknown flag"),
            (&["check", "--threads"][..], "needs a value"),
            (&["check", "--threads", "--json"][..], "needs a value"),
            (&["check", "--threads", "x"][..], "whole number"),
            (&["check", "--threads", "0"][..], "1 to 64"),
            (&["check", "--threads", "65"][..], "1 to 64"),
            (&["check", "--threads", "-1"][..], "whole number"),
            (&["check", "--max-states", "0"][..], "at least 1"),
            (&["check", "--max-depth", "1e3"][..], "whole number"),
            (&["check", "--timeout", "0"][..], "above 0"),
            (&["check", "--timeout", "NaN"][..], "above 0"),
            (&["check", "--timeout", "-2"][..], "above 0"),
            (&["check", "--timeout", "1e300"][..], "above 0"),
            (&["check", "--strategy", "random"][..], "bfs or dfs"),
            (&["check", "--json=yes"][..], "takes no value"),
            (&["check", "--json", "--json"][..], "more than once"),
            (
                &["check", "--threads", "1", "--threads", "2"][..],
                "more than once",
            ),
            (&["check", "--scenario", "nope"][..], "unknown scenario"),
            (&["check", "--design", "nope"][..], "unknown design"),
            (&["check", "--set", "nope=1"][..], "unknown key"),
            (&["check", "--set", "tv=9"][..], "0 to 2"),
            (&["check", "--set", "tv"][..], "KEY=VALUE"),
            (&["explore", "--port", "0"][..], "1 to 65535"),
            (&["explore", "--port", "70000"][..], "1 to 65535"),
            (&["explore", "--host="][..], "needs a host"),
            (&["explore", "--json"][..], "unknown flag"),
        ] {
            let message = error(words);
            assert!(message.contains(expect), "{words:?}: {message}");
            assert!(!message.contains('\n'), "{words:?}: {message}");
        }
    }

    #[test]
    fn trace_commands_take_one_file() {
        match parse_words(&["replay", "t.json"]) {
            Ok(Command::Replay(p)) => assert_eq!(p, PathBuf::from("t.json")),
            other => panic!("{other:?}"),
        }
        match parse_words(&["shrink", "dir/t.json"]) {
            Ok(Command::Shrink(a)) => assert_eq!(a.out, PathBuf::from("dir/t.shrunk.json")),
            other => panic!("{other:?}"),
        }
        match parse_words(&["shrink", "-o", "o.json", "t.json"]) {
            Ok(Command::Shrink(a)) => {
                assert_eq!(
                    (a.trace, a.out),
                    (PathBuf::from("t.json"), PathBuf::from("o.json"))
                );
                assert!(!a.ddmin_only && a.search_states.is_none() && a.threads.is_none());
            }
            other => panic!("{other:?}"),
        }
        match parse_words(&[
            "shrink",
            "t.json",
            "--ddmin-only",
            "--search-states=5",
            "--threads",
            "2",
        ]) {
            Ok(Command::Shrink(a)) => {
                assert_eq!(
                    (a.ddmin_only, a.search_states, a.threads),
                    (true, Some(5), Some(2))
                )
            }
            other => panic!("{other:?}"),
        }
        assert!(parse_words(&["shrink", "t.json", "--search-states", "x"]).is_err());
        match parse_words(&["render", "t.json", "--format=mermaid"]) {
            Ok(Command::Render(a)) => assert_eq!(a.format, RenderFormat::Mermaid),
            other => panic!("{other:?}"),
        }
        match parse_words(&["render", "t.json"]) {
            Ok(Command::Render(a)) => assert_eq!(a.format, RenderFormat::Text),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn help_and_version() {
        for words in [
            &["help"][..],
            &["-h"],
            &["--help"],
            &["check", "--help"],
            &["list", "-h"],
        ] {
            assert!(matches!(parse_words(words), Ok(Command::Help)), "{words:?}");
        }
        assert!(matches!(parse_words(&["--version"]), Ok(Command::Version)));
    }

    #[test]
    fn sim_flags_and_defaults() {
        let parse_sim = |words: &[&str]| match parse_words(words) {
            Ok(Command::Sim(args)) => args,
            other => panic!("{other:?}"),
        };
        let args = parse_sim(&["sim"]);
        assert_eq!(args.seeds, SeedRange { start: 0, end: 100 });
        assert_eq!(args.shard, Shard::ALL);
        assert_eq!(args.options, SimOptions::default());
        let args = parse_sim(&[
            "sim",
            "--seeds",
            "5..9",
            "--shard",
            "1/2",
            "--steps",
            "7",
            "--set",
            "tv=1",
            "--set",
            "txn_timeout_ms=1000",
            "--json",
            "--threads",
            "2",
        ]);
        assert_eq!((args.seeds.start, args.seeds.end), (5, 9));
        assert_eq!(args.shard, Shard { index: 1, count: 2 });
        assert_eq!(args.options.steps, 7);
        assert_eq!(args.options.txn_timeout_ms, 1000);
        assert_eq!(args.model.design.tv.0, 1);
        assert_eq!(args.sets, vec!["tv=1", "txn_timeout_ms=1000"]);
        assert!(args.json && args.steps_given);
        match parse_words(&["sim", "--summarize", "a.jsonl", "b.jsonl", "--json"]) {
            Ok(Command::Summarize(s)) => {
                assert_eq!(
                    s.files,
                    vec![PathBuf::from("a.jsonl"), PathBuf::from("b.jsonl")]
                );
                assert!(s.json);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn explore_defaults_and_flags() {
        match parse_words(&["explore"]) {
            Ok(Command::Explore(args)) => {
                assert_eq!(
                    (args.host.as_str(), args.port),
                    (DEFAULT_HOST, DEFAULT_PORT)
                )
            }
            other => panic!("{other:?}"),
        }
        match parse_words(&[
            "explore", "--port", "8080", "--host", "0.0.0.0", "--set", "txns=1",
        ]) {
            Ok(Command::Explore(args)) => {
                assert_eq!((args.host.as_str(), args.port), ("0.0.0.0", 8080));
                assert_eq!(args.model.scenario.txns, 1);
            }
            other => panic!("{other:?}"),
        }
    }
}
