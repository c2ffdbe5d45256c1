//! The command line: clap parses it ([`cli`] holds every flag and help text), and this
//! module judges what needs the whole line, before any work starts: the scenario, design
//! and `--set` values (resolved here into a [`Design`] and a [`Scenario`]), whether the
//! design applies, and `sim --summarize`'s exclusions. Anything wrong becomes one
//! [`CliError`] naming the problem; clap's own usage errors are folded into one such line.
//!
//! Flags take their value as the next word or after `=` (`--threads 2`, `--threads=2`).
//! A flag given twice is an error, except `--set`, which may repeat and applies in order.

mod cli;
mod matrix;
mod swarm;
mod values;

pub use matrix::{MatrixArgs, MatrixPair, ReportArgs};
pub use swarm::{SwarmArgs, SwarmSummarizeArgs};

use crate::error::CliError;
use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use cli::{Cli, ModelCli, SimCli, Sub};
use sharetxn_model::design::DESIGN_NAMES;
use sharetxn_model::{world::settings, Design, Scenario};
use sharetxn_properties::Strategy;
use sharetxn_sim::seeds::{SeedRange, Shard};
use sharetxn_sim::SimOptions;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

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

/// A parsed command line.
#[derive(Debug)]
pub enum Command {
    /// Print this text and succeed (`--help`, `--version`, `help`).
    Print(String),
    /// `sharetxn completions SHELL`.
    Completions(clap_complete::Shell),
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
    /// `sharetxn swarm`.
    Swarm(SwarmArgs),
    /// `sharetxn swarm --summarize`.
    SwarmSummarize(SwarmSummarizeArgs),
    /// `sharetxn explore`.
    Explore(ExploreArgs),
    /// `sharetxn replay TRACE`.
    Replay(PathBuf),
    /// `sharetxn shrink TRACE [-o OUT] [--ddmin-only] [--search-states N] [--threads N]`.
    Shrink(ShrinkArgs),
    /// `sharetxn render TRACE [--format text|mermaid]`.
    Render(RenderArgs),
    /// `sharetxn report --out DIR [TRACE...]`.
    Report(ReportArgs),
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
pub const DEFAULT_SEEDS: SeedRange = SeedRange { start: 0, end: 100 };

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
    /// Depth-first search with the partial-order reduction.
    pub partial_order: bool,
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
    let command = argv
        .first()
        .and_then(|a| a.to_str())
        // The commands clap knows, to name the one whose `--help` an error points at.
        .filter(|a| Cli::command().get_subcommands().any(|c| c.get_name() == *a))
        .map(str::to_string);
    let words = std::iter::once(OsString::from("sharetxn")).chain(argv);
    let cli = match Cli::try_parse_from(words) {
        Ok(cli) => cli,
        Err(e) => return clap_outcome(&e, command.as_deref()),
    };
    resolve(cli.command)
}

/// clap's help and version become text to print; its usage errors one line.
fn clap_outcome(e: &clap::Error, command: Option<&str>) -> Result<Command, CliError> {
    let rendered = e.render().to_string();
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        return Ok(Command::Print(rendered));
    }
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        return Err(CliError::new("no command given (try 'sharetxn --help')"));
    }
    // clap's message runs over several lines (what is missing, possible values, a tip,
    // the usage): keep what says what is wrong, up to the usage, on one line.
    let said: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
        .collect();
    let said = said.join(" ");
    let said = said.strip_prefix("error: ").unwrap_or(&said);
    let hint = match command {
        Some(c) => format!("try 'sharetxn {c} --help'"),
        None => "try 'sharetxn --help'".to_string(),
    };
    Err(CliError::new(format!("{said} ({hint})")))
}

/// Turns what clap parsed into a command, judging what needs the whole line.
fn resolve(sub: Sub) -> Result<Command, CliError> {
    Ok(match sub {
        Sub::List => Command::List,
        Sub::Check(c) if c.partial_order && c.strategy != Strategy::Dfs => {
            return Err(CliError::new(
                "--partial-order needs --strategy dfs (try 'sharetxn check --help')",
            ))
        }
        Sub::Check(c) => Command::Check(CheckArgs {
            model: resolve_model(c.model, |_| None)?,
            strategy: c.strategy,
            partial_order: c.partial_order,
            max_depth: c.max_depth,
            max_states: c.max_states,
            threads: c.threads.unwrap_or_else(default_threads),
            timeout: c.timeout,
            json: c.json,
            trace_out: c.trace_out,
        }),
        Sub::Matrix(m) => Command::Matrix(matrix::resolve(m)?),
        Sub::Report(r) => Command::Report(matrix::resolve_report(r)?),
        Sub::Replay(r) => Command::Replay(r.trace),
        Sub::Shrink(s) => Command::Shrink(ShrinkArgs {
            out: s.out.unwrap_or_else(|| default_shrink_out(&s.trace)),
            trace: s.trace,
            ddmin_only: s.ddmin_only,
            search_states: s.search_states,
            threads: s.threads,
        }),
        Sub::Render(r) => Command::Render(RenderArgs {
            trace: r.trace,
            format: if r.format == "mermaid" {
                RenderFormat::Mermaid
            } else {
                RenderFormat::Text
            },
        }),
        Sub::Sim(s) => resolve_sim(s)?,
        Sub::Swarm(s) => swarm::resolve(s)?,
        Sub::Explore(e) => Command::Explore(ExploreArgs {
            model: resolve_model(e.model, |_| None)?,
            host: e.host,
            port: e.port,
        }),
        Sub::Completions { shell } => Command::Completions(shell),
    })
}

/// Writes the completion script for `shell`.
pub fn completions(shell: clap_complete::Shell) -> String {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "sharetxn", &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// `sim`, or `sim --summarize`, which takes only files (and `--json`).
fn resolve_sim(s: SimCli) -> Result<Command, CliError> {
    if let Some(files) = s.summarize {
        let others = s.model.scenario.is_some()
            || s.model.design.is_some()
            || !s.model.sets.is_empty()
            || s.seeds.is_some()
            || s.shard.is_some()
            || s.steps.is_some()
            || s.threads.is_some()
            || s.trace_out.is_some()
            || s.max_traces.is_some();
        if others {
            return Err(CliError::new(
                "--summarize takes only files (and --json): it runs no seeds",
            ));
        }
        return Ok(Command::Summarize(SummarizeArgs {
            files,
            json: s.json,
        }));
    }
    let mut options = SimOptions::default();
    let sets = s.model.sets.clone();
    let model = resolve_model(s.model, |setting| options.apply(setting))?;
    if let Some(n) = s.steps {
        options.steps = n;
    }
    if let Some(limit) = s.max_traces {
        options.max_traces = limit;
    }
    Ok(Command::Sim(SimArgs {
        model,
        options,
        sets,
        steps_given: s.steps.is_some(),
        seeds: s.seeds.unwrap_or(DEFAULT_SEEDS),
        shard: s.shard.unwrap_or(Shard::ALL),
        threads: s.threads.unwrap_or_else(default_threads),
        json: s.json,
        trace_out: s
            .trace_out
            .unwrap_or_else(|| PathBuf::from(DEFAULT_TRACE_OUT)),
    }))
}

/// Looks the scenario and design up and applies every `--set` in order; a `--set` that
/// `claim` takes (returning whether it was accepted) is not handed to the model.
///
/// Without `--design`, the design is the first one that applies to the scenario (the
/// baseline where it applies); a named design that does not apply is refused.
fn resolve_model(
    flags: ModelCli,
    mut claim: impl FnMut(&str) -> Option<Result<(), String>>,
) -> Result<ModelArgs, CliError> {
    let scenario = flags.scenario.as_deref().unwrap_or(DEFAULT_SCENARIO);
    Scenario::by_name(scenario)?;
    if let Some(design) = &flags.design {
        Design::by_name(design)?;
    }
    let mut model_sets = Vec::new();
    for setting in &flags.sets {
        match claim(setting) {
            Some(accepted) => accepted?,
            None => model_sets.push(setting.clone()),
        }
    }
    let model = match &flags.design {
        Some(design) => build_model(design, scenario, &model_sets)?,
        None => default_model(scenario, &model_sets)?,
    };
    model
        .design
        .applies_to(&model.scenario)
        .map_err(|why| not_applicable(&model, &why, &model_sets))?;
    Ok(model)
}

/// The named design and scenario with every `--set` applied in order.
pub fn build_model(design: &str, scenario: &str, sets: &[String]) -> Result<ModelArgs, CliError> {
    let mut scenario = Scenario::by_name(scenario)?;
    let mut design = Design::by_name(design)?;
    for setting in sets {
        settings::apply(&mut design, &mut scenario, setting)?;
    }
    scenario.expressible()?;
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

/// Where `shrink` writes unless told: next to the input, `x.json` becoming
/// `x.shrunk.json`, so the reviewed original is never overwritten by accident.
pub fn default_shrink_out(trace: &std::path::Path) -> PathBuf {
    let stem = trace
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "trace".into());
    trace.with_file_name(format!("{stem}.shrunk.json"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sharetxn_properties::check::DEFAULT_MAX_STATES;

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
            (&[][..], "no command given"),
            (&["frobnicate"][..], "unrecognized subcommand"),
            (&["replay"][..], "TRACE"),
            (&["replay", "a.json", "b.json"][..], "unexpected argument"),
            (&["replay", "--json", "a.json"][..], "unexpected argument"),
            (&["shrink"][..], "TRACE"),
            (&["shrink", "a.json", "-o"][..], "a value is required"),
            (
                &["shrink", "a.json", "-o", "x", "-o", "y"][..],
                "cannot be used multiple times",
            ),
            (&["render", "a.json", "--format", "svg"][..], "mermaid"),
            (&["render", "--format"][..], "a value is required"),
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
            (&["sim", "--summarize"][..], "a value is required"),
            (
                &["sim", "--summarize", "a", "--seeds", "0..2"][..],
                "only files",
            ),
            (&["--frob"][..], "unexpected argument"),
            (&["list", "extra"][..], "unexpected argument"),
            (&["list", "--json"][..], "unexpected argument"),
            (&["explore", "--port", "0"][..], "1 to 65535"),
            (&["explore", "--port", "70000"][..], "1 to 65535"),
            (&["explore", "--host="][..], "needs a host"),
            (&["explore", "--json"][..], "unexpected argument"),
            (&["completions", "tcsh"][..], "invalid value"),
        ] {
            assert_refused(words, expect);
        }
    }

    /// `words` are refused with a one-line error that says `expect`.
    fn assert_refused(words: &[&str], expect: &str) {
        let message = error(words);
        assert!(message.contains(expect), "{words:?}: {message}");
        assert!(!message.contains('\n'), "{words:?}: {message}");
    }

    #[test]
    fn bad_check_input_is_refused() {
        for (words, expect) in [
            (&["check", "--frob"][..], "unexpected argument"),
            (&["check", "--threads"][..], "a value is required"),
            (&["check", "--threads", "--json"][..], "a value is required"),
            (&["check", "--threads", "x"][..], "whole number"),
            (&["check", "--threads", "0"][..], "1 to 64"),
            (&["check", "--threads", "65"][..], "1 to 64"),
            (&["check", "--max-states", "0"][..], "at least 1"),
            (&["check", "--max-depth", "1e3"][..], "whole number"),
            (&["check", "--timeout", "0"][..], "above 0"),
            (&["check", "--timeout", "NaN"][..], "above 0"),
            (&["check", "--timeout", "1e300"][..], "above 0"),
            (&["check", "--strategy", "random"][..], "bfs or dfs"),
            (
                &["check", "--partial-order"][..],
                "--partial-order needs --strategy dfs",
            ),
            (&["check", "--json", "--json"][..], "multiple times"),
            (
                &["check", "--threads", "1", "--threads", "2"][..],
                "multiple times",
            ),
            (&["check", "--scenario", "nope"][..], "unknown scenario"),
            (&["check", "--design", "nope"][..], "unknown design"),
            (&["check", "--set", "nope=1"][..], "unknown key"),
            (&["check", "--set", "tv=9"][..], "0 to 2"),
            (&["check", "--set", "tv"][..], "KEY=VALUE"),
        ] {
            assert_refused(words, expect);
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
        let words = [
            "shrink",
            "t.json",
            "--ddmin-only",
            "--search-states=5",
            "--threads",
            "2",
        ];
        match parse_words(&words) {
            Ok(Command::Shrink(a)) => assert_eq!(
                (a.ddmin_only, a.search_states, a.threads),
                (true, Some(5), Some(2))
            ),
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
    fn help_version_and_completions() {
        for words in [
            &["help"][..],
            &["-h"],
            &["--help"],
            &["check", "--help"],
            &["list", "-h"],
            &["help", "sim"],
        ] {
            match parse_words(words) {
                Ok(Command::Print(text)) => assert!(text.contains("Usage:"), "{words:?}"),
                other => panic!("{words:?}: {other:?}"),
            }
        }
        match parse_words(&["sim", "--help"]) {
            Ok(Command::Print(text)) => assert!(text.contains("Examples:"), "{text}"),
            other => panic!("{other:?}"),
        }
        match parse_words(&["--version"]) {
            Ok(Command::Print(text)) => {
                assert_eq!(text, format!("sharetxn {}\n", env!("CARGO_PKG_VERSION")))
            }
            other => panic!("{other:?}"),
        }
        assert!(completions(clap_complete::Shell::Bash).contains("sharetxn"));
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
