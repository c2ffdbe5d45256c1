//! The command line as clap sees it: every subcommand, flag, value syntax and help text.
//! Values are checked here (ranges, syntax); what needs the whole command line (the
//! scenario with every `--set`, whether a design applies) is judged in [`super`].

use super::values::{self, Names};
use clap::{Args, Parser, Subcommand};
use sharetxn_properties::Strategy;
use sharetxn_sim::seeds::{SeedRange, Shard};
use std::path::PathBuf;
use std::time::Duration;

/// What `sharetxn --help` prints after the commands.
const AFTER_HELP: &str = "\
Defaults: --scenario txn-basic; --design the first design that applies to the scenario
(consumer-offsets, or seed where there are share acks in transactions); --threads every
core, at most 8.

Exit status: 0 every property holds and every twin is witnessed; 1 otherwise (a
violation, an unreached twin, or a check stopped early); 2 bad input. Each command's
--help says what 0 and 1 mean for it.

Examples:
  sharetxn list
  sharetxn check --scenario ctp --design seed
  sharetxn matrix --designs seed,draft,proposed --scenarios txn-basic";

/// Model-check and simulate share-group acknowledgements inside Kafka transactions.
#[derive(Debug, Parser)]
#[command(
    name = "sharetxn",
    version,
    about = "Model-check and simulate share-group acknowledgements inside Kafka transactions \
             (KIP-1289, KIP-1310)",
    after_help = AFTER_HELP,
    subcommand_required = true,
    max_term_width = 100
)]
pub struct Cli {
    /// The command.
    #[command(subcommand)]
    pub command: Sub,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Sub {
    /// List scenarios, designs, properties and the --set keys
    #[command(after_help = "Examples:\n  sharetxn list\n  sharetxn list | grep timeouts")]
    List,
    /// Explore every reachable state of one design on one scenario and judge every property
    #[command(after_help = CHECK_AFTER)]
    Check(CheckCli),
    /// Check every design on every scenario it applies to and print every property's status
    #[command(after_help = MATRIX_AFTER)]
    Matrix(MatrixCli),
    /// Run a trace again on the current model and say whether its outcome shows again
    #[command(after_help = REPLAY_AFTER)]
    Replay(TraceCli),
    /// Cut a trace to a short, 1-minimal one with the same outcome
    #[command(after_help = SHRINK_AFTER)]
    Shrink(ShrinkCli),
    /// Print a trace for people: one line a step, or a Mermaid sequence diagram
    #[command(after_help = RENDER_AFTER)]
    Render(RenderCli),
    /// Write one self-contained HTML page: the matrix and every counterexample drawn
    #[command(after_help = REPORT_AFTER)]
    Report(ReportCli),
    /// Simulate seeds with real Kafka timing and swarm faults, or merge runs (--summarize)
    #[command(after_help = SIM_AFTER)]
    Sim(SimCli),
    /// Run seeded, state-capped depth-first searches (swarm verification), or merge runs
    #[command(after_help = SWARM_AFTER)]
    Swarm(SwarmCli),
    /// Serve stateright's web Explorer (runs until interrupted)
    #[command(
        after_help = "Examples:\n  sharetxn explore --scenario ctp --design seed\n  \
                            sharetxn explore --port 8080 --host 0.0.0.0"
    )]
    Explore(ExploreCli),
    /// Print a shell completion script
    #[command(
        after_help = "Examples:\n  sharetxn completions bash > ~/.local/share/bash-completion/completions/sharetxn\n  \
                            sharetxn completions zsh > ~/.zfunc/_sharetxn"
    )]
    Completions {
        /// The shell
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

const CHECK_AFTER: &str = "\
check writes a trace file <design>-<scenario>-<property>.json into the trace directory for
every violation and every witnessed twin. --json prints the report as one JSON object on
stdout and nothing else.

Exit status: 0 every property holds and every twin is witnessed; 1 a violation, an
unreached twin, or the check stopped early (--max-states, --max-depth, --timeout); 2 bad
input.

Examples:
  sharetxn check
  sharetxn check --scenario ctp --design seed --timeout 60
  sharetxn check --set drops=0 --set crashes=0 --json > report.json";

const MATRIX_AFTER: &str = "\
Each check is the same BFS as check: exhaustive for a design this project claims safe
(consumer-offsets, proposed), stopped at --unclaimed-max-states for the others. --threads
checks run side by side, one thread each. --timeout and --max-states apply to each check; a
check stopped early reports what it did not decide as unknown, with the reason.

Exit status: 0 the matrix was computed and every design claimed safe passed where it
applies; 1 one of them did not; 2 bad input. Violations of other designs are the matrix's
content, not a failure.

Examples:
  sharetxn matrix --scenarios txn-basic,ctp
  sharetxn matrix --designs seed,draft,proposed --unclaimed-max-states 100000
  sharetxn matrix --json --threads 2 > matrix.json";

const REPORT_AFTER: &str = "\
report runs the matrix exactly as matrix does (same flags; its traces go to DIR/traces),
then writes DIR/index.html: a table per scenario of every property for every design, each
cell a link (a violation to its counterexample, any other status to its check's figures),
and for every counterexample and every TRACE named, its verdict judged now by a replay, its
sequence diagram, its step table and its Mermaid source. The page has no script and loads
nothing from the network.

Exit status: 0 the page was written and every design claimed safe passed where it applies
(or --no-matrix); 1 one of them did not; 2 bad input.

Examples:
  sharetxn report --out report --designs seed,draft,proposed --scenarios ctp
  sharetxn report --out corpus --no-matrix traces/counterexamples/*.json";

const REPLAY_AFTER: &str = "\
Prints each step, where the run first differs from the recorded digests, and whether the
outcome shows again; every verdict printed is judged now, never read from the file.

Exit status: 1 the trace's violation shows again (or its witness no longer does); 0 every
step ran and it does not (or the witness does); 2 the trace cannot be read, names a design
that does not apply to its scenario, or an action is no longer enabled.

Examples:
  sharetxn replay traces/counterexamples/txn_atomicity--seed-ctp.json
  sharetxn replay target/sharetxn-traces/seed-ctp-txn_atomicity.json";

const SHRINK_AFTER: &str = "\
ddmin, then a smaller scenario and a bounded breadth-first search. --ddmin-only keeps the
trace's scenario and skips the search.

Examples:
  sharetxn shrink target/sharetxn-traces/seed-ctp-txn_atomicity.json
  sharetxn shrink t.json -o small.json --ddmin-only";

const RENDER_AFTER: &str = "\
The outcome line is judged now by replaying the trace, never copied from the file.

Examples:
  sharetxn render traces/counterexamples/txn_atomicity--seed-ctp.json
  sharetxn render t.json --format mermaid > t.mmd";

const SIM_AFTER: &str = "\
sim --set also takes the simulator's keys (request_timeout_ms, txn_timeout_ms, faults, ...;
see 'sharetxn list'). --json prints one JSON line per seed, in seed order whatever
--threads, then one summary line; a violation writes a trace file and prints the command
that reproduces it. Seeds are streamed: a range of any size starts at once.

Exit status: 0 no seed violated a property; 1 one did; 2 bad input.

Examples:
  sharetxn sim --seeds 0..1000
  sharetxn sim --scenario ctp --design seed --seeds 0..10000 --shard 0/4 --json > s0.jsonl
  sharetxn sim --summarize s0.jsonl s1.jsonl s2.jsonl s3.jsonl";

const SWARM_AFTER: &str = "\
Swarm verification, for spaces no single check can finish: each search is a depth-first
check whose seed orders every state's successors, stopped at --max-states distinct states
(its memory bound). Searches are numbered like sim's seeds, so --shard I/N splits a range
over machines (a batch system's array job, GNU parallel), and --summarize merges their
--json lines. A search that ends below its cap explored the whole space; otherwise the
swarm finds violations and witnesses twins but proves nothing. The first trace of each
violated property is written to the trace directory.

Exit status: 0 no search violated a property and every applicable twin was witnessed;
1 otherwise; 2 bad input.

Examples:
  sharetxn swarm --scenario ctp --design proposed --set drops=1 --searches 0..16
  sharetxn swarm --scenario ctp-race --design proposed --shard 0/4 --json > w0.jsonl
  sharetxn swarm --summarize w0.jsonl w1.jsonl w2.jsonl w3.jsonl";

/// The flags every model-driven command shares.
#[derive(Debug, Args)]
pub struct ModelCli {
    /// The scenario (see 'sharetxn list') [default: txn-basic]
    #[arg(long, value_name = "S")]
    pub scenario: Option<String>,
    /// The design [default: the first that applies to the scenario]
    #[arg(long, value_name = "D")]
    pub design: Option<String>,
    /// Change a scenario field or design knob; may repeat, applied in order
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
}

/// `sharetxn check`.
#[derive(Debug, Args)]
pub struct CheckCli {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub model: ModelCli,
    /// Search order
    #[arg(long, value_name = "bfs|dfs", default_value = "bfs", value_parser = values::strategy)]
    pub strategy: Strategy,
    /// Do not expand states at this depth
    #[arg(long, value_name = "N", value_parser = values::whole)]
    pub max_depth: Option<u64>,
    /// Stop after this many distinct states
    #[arg(long, value_name = "N", default_value_t = sharetxn_properties::check::DEFAULT_MAX_STATES,
          value_parser = values::at_least_one)]
    pub max_states: u64,
    /// Threads expanding a BFS level, 1 to 64 [default: every core, at most 8]
    #[arg(long, value_name = "N", value_parser = values::thread_count)]
    pub threads: Option<usize>,
    /// Stop after this long (seconds above 0, may be fractional)
    #[arg(long, value_name = "SECS", value_parser = values::seconds)]
    pub timeout: Option<Duration>,
    /// Depth-first only: the partial-order reduction, where it applies (proposed on ctp;
    /// docs/checker.md): the same verdicts from fewer states
    #[arg(long)]
    pub partial_order: bool,
    /// Print the report as one JSON object on stdout, and no progress
    #[arg(long)]
    pub json: bool,
    /// Where trace files go
    #[arg(long, value_name = "DIR", default_value = super::DEFAULT_TRACE_OUT,
          value_parser = values::path)]
    pub trace_out: PathBuf,
}

/// `sharetxn matrix`.
#[derive(Debug, Args)]
pub struct MatrixCli {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub scope: MatrixScope,
    /// Print the matrix as one JSON document
    #[arg(long)]
    pub json: bool,
    /// Where trace files go
    #[arg(long, value_name = "DIR", default_value = super::DEFAULT_TRACE_OUT,
          value_parser = values::path)]
    pub trace_out: PathBuf,
}

/// Which pairs a matrix checks and how far: shared by `matrix` and `report`.
#[derive(Debug, Args)]
pub struct MatrixScope {
    /// Only these designs (comma-separated) [default: every design]
    #[arg(long, value_name = "A,B", value_parser = values::designs)]
    pub designs: Option<Names>,
    /// Only these scenarios (comma-separated) [default: every scenario but draft-itest, whose
    /// default bounds are beyond one check]
    #[arg(long, value_name = "X,Y", value_parser = values::scenarios)]
    pub scenarios: Option<Names>,
    /// Change a scenario field or design knob of every pair; may repeat
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Checks side by side, 1 to 64 [default: every core, at most 8]
    #[arg(long, value_name = "N", value_parser = values::thread_count)]
    pub threads: Option<usize>,
    /// Stop each check after this many distinct states
    #[arg(long, value_name = "N", default_value_t = sharetxn_properties::check::DEFAULT_MAX_STATES,
          value_parser = values::at_least_one)]
    pub max_states: u64,
    /// Stop each check of a design not claimed safe after this many distinct states
    #[arg(long, value_name = "N", default_value_t = crate::matrix::DEFAULT_UNCLAIMED_MAX_STATES,
          value_parser = values::at_least_one)]
    pub unclaimed_max_states: u64,
    /// Stop each check after this long (seconds above 0)
    #[arg(long, value_name = "SECS", value_parser = values::seconds)]
    pub timeout: Option<Duration>,
}

/// `sharetxn report`.
#[derive(Debug, Args)]
pub struct ReportCli {
    /// Trace files to draw on the page besides the matrix's violations
    #[arg(value_name = "TRACE", value_parser = values::path)]
    pub traces: Vec<PathBuf>,
    /// The directory the page (index.html) and the matrix's traces (traces/) go to
    #[arg(long, value_name = "DIR", value_parser = values::path)]
    pub out: PathBuf,
    /// Draw only the named traces: run no matrix
    #[arg(long)]
    pub no_matrix: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub scope: MatrixScope,
}

/// `sharetxn replay`.
#[derive(Debug, Args)]
pub struct TraceCli {
    /// The trace file
    #[arg(value_name = "TRACE", value_parser = values::path)]
    pub trace: PathBuf,
}

/// `sharetxn shrink`.
#[derive(Debug, Args)]
pub struct ShrinkCli {
    /// The trace file
    #[arg(value_name = "TRACE", value_parser = values::path)]
    pub trace: PathBuf,
    /// Where the shrunk trace goes [default: TRACE with .shrunk.json in place of .json]
    #[arg(short = 'o', long = "out", value_name = "OUT", value_parser = values::path)]
    pub out: Option<PathBuf>,
    /// Keep the trace's scenario and skip the search
    #[arg(long)]
    pub ddmin_only: bool,
    /// The search's bound in states per rung; 0 turns the search off [default: 100000]
    #[arg(long, value_name = "N", value_parser = values::whole)]
    pub search_states: Option<u64>,
    /// Threads for the search, 1 to 64 [default: every core, at most 8]
    #[arg(long, value_name = "N", value_parser = values::thread_count)]
    pub threads: Option<usize>,
}

/// `sharetxn render`.
#[derive(Debug, Args)]
pub struct RenderCli {
    /// The trace file
    #[arg(value_name = "TRACE", value_parser = values::path)]
    pub trace: PathBuf,
    /// One line a step, or a Mermaid sequence diagram
    #[arg(long, value_name = "text|mermaid", default_value = "text",
          value_parser = ["text", "mermaid"])]
    pub format: String,
}

/// `sharetxn sim`.
#[derive(Debug, Args)]
pub struct SimCli {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub model: ModelCli,
    /// Seeds A..B, half-open [default: 0..100]
    #[arg(long, value_name = "A..B", value_parser = values::seeds)]
    pub seeds: Option<SeedRange>,
    /// Run only every N-th seed from the I-th [default: 0/1]
    #[arg(long, value_name = "I/N", value_parser = values::shard)]
    pub shard: Option<Shard>,
    /// Simulated steps per seed at most [default: 5000]
    #[arg(long, value_name = "N", value_parser = values::at_least_one)]
    pub steps: Option<u64>,
    /// Threads running seeds, 1 to 64 [default: every core, at most 8]
    #[arg(long, value_name = "N", value_parser = values::thread_count)]
    pub threads: Option<usize>,
    /// One JSON line per seed, then a summary line, and no progress
    #[arg(long)]
    pub json: bool,
    /// Where trace files go [default: target/sharetxn-traces]
    #[arg(long, value_name = "DIR", value_parser = values::path)]
    pub trace_out: Option<PathBuf>,
    /// Traces written per violated property, in seed order: a count (0: none) or 'all'
    /// [default: 1]
    #[arg(long, value_name = "N|all", value_parser = values::trace_limit)]
    pub max_traces: Option<sharetxn_sim::TraceLimit>,
    /// Merge the JSON lines of these sim runs into one summary (runs no seeds)
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub summarize: Option<Vec<PathBuf>>,
}

/// `sharetxn swarm`.
#[derive(Debug, Args)]
pub struct SwarmCli {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub model: ModelCli,
    /// Searches A..B, half-open, each one seed of the successor order [default: 0..8]
    #[arg(long, value_name = "A..B", value_parser = values::seeds)]
    pub searches: Option<SeedRange>,
    /// Run only every N-th search from the I-th [default: 0/1]
    #[arg(long, value_name = "I/N", value_parser = values::shard)]
    pub shard: Option<Shard>,
    /// Distinct states each search visits at most [default: 1000000]
    #[arg(long, value_name = "N", value_parser = values::at_least_one)]
    pub max_states: Option<u64>,
    /// Do not expand states at this depth
    #[arg(long, value_name = "N", value_parser = values::whole)]
    pub max_depth: Option<u64>,
    /// Searches run side by side, 1 to 64 [default: every core, at most 8]
    #[arg(long, value_name = "N", value_parser = values::thread_count)]
    pub threads: Option<usize>,
    /// One JSON line per search, then a summary line
    #[arg(long)]
    pub json: bool,
    /// Where trace files go [default: target/sharetxn-traces]
    #[arg(long, value_name = "DIR", value_parser = values::path)]
    pub trace_out: Option<PathBuf>,
    /// Merge the JSON lines of these swarm runs into one summary (runs no search)
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub summarize: Option<Vec<PathBuf>>,
}

/// `sharetxn explore`.
#[derive(Debug, Args)]
pub struct ExploreCli {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub model: ModelCli,
    /// The port to listen on, 1 to 65535
    #[arg(long, value_name = "P", default_value_t = super::DEFAULT_PORT, value_parser = values::port)]
    pub port: u16,
    /// The host to listen on
    #[arg(long, value_name = "H", default_value = super::DEFAULT_HOST, value_parser = values::host)]
    pub host: String,
}
