//! # `sharetxn`: the command line
//!
//! This file exists only to wire the modules together: it reads the arguments, hands them
//! to the command they name, and turns the outcome into an exit status. Exit status 0
//! means nothing was violated, 1 that a property was violated (or a twin went unreached,
//! or the check stopped early), 2 bad input; every error is one line on stderr starting
//! `sharetxn:`.
//!
//! | module | its one job |
//! |---|---|
//! | [`args`] | turn the command line (clap) into a [`args::Command`], or a one-line complaint |
//! | [`list`] | `sharetxn list`: what there is to check |
//! | [`check`] | `sharetxn check`: run the exhaustive checker and report |
//! | [`matrix`] | `sharetxn matrix`: check every design on every scenario it applies to |
//! | [`matrix_table`] | the matrix as text, a table per scenario |
//! | [`summary`] | the human-readable form of a check report |
//! | [`trace`] | name and write trace files |
//! | [`replay`] | `sharetxn replay`: run a trace again and judge it |
//! | [`shrink`] | `sharetxn shrink`: cut a trace to a 1-minimal one |
//! | [`render`] | `sharetxn render`: a trace as text or Mermaid |
//! | [`judged`] | the verdicts replay and render print, judged now, not read from the file |
//! | [`progress`] | the progress line on a terminal |
//! | [`sim`] | `sharetxn sim`: run seeds, or merge their JSON lines (`--summarize`) |
//! | [`sim_trace`] | write a simulator violation's trace file |
//! | [`sim_progress`] | the simulator's progress line on a terminal |
//! | [`swarm`] | `sharetxn swarm`: run seeded depth-first searches, or merge their JSON lines |
//! | [`explore`] | `sharetxn explore`: serve stateright's Explorer |
//! | [`output`] | stdout/stderr writes that never panic |

mod args;
mod check;
mod error;
mod explore;
mod judged;
mod list;
mod matrix;
mod matrix_jobs;
mod matrix_table;
mod output;
mod progress;
mod render;
mod replay;
mod report;
mod report_page;
mod shrink;
mod sim;
mod sim_progress;
mod sim_trace;
mod summary;
mod swarm;
mod trace;

/// Model checking allocates a successor state per transition; mimalloc's thread-local free
/// lists make that about twice as fast as the system allocator (see README, Performance).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use args::Command;
use error::CliError;
use std::process::ExitCode;

fn main() -> ExitCode {
    match run(std::env::args_os().skip(1).collect()) {
        Ok(code) => code,
        Err(err) => {
            output::error_line(&err.to_string());
            ExitCode::from(error::BAD_INPUT)
        }
    }
}

/// Parses the arguments and runs the command they name.
fn run(argv: Vec<std::ffi::OsString>) -> Result<ExitCode, CliError> {
    match args::parse(argv)? {
        Command::Print(text) => {
            output::stdout(&text)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Completions(shell) => {
            output::stdout(&args::completions(shell))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::List => {
            output::stdout(&list::render())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Check(check_args) => check::run(check_args),
        Command::Matrix(matrix_args) => matrix::run(matrix_args),
        Command::Sim(sim_args) => sim::run(sim_args),
        Command::Summarize(summarize_args) => sim::summarize(summarize_args),
        Command::Swarm(swarm_args) => swarm::run(swarm_args),
        Command::SwarmSummarize(summarize_args) => swarm::summarize(summarize_args),
        Command::Explore(explore_args) => explore::run(explore_args),
        Command::Replay(path) => replay::run(&path),
        Command::Shrink(shrink_args) => shrink::run(&shrink_args),
        Command::Render(render_args) => render::run(&render_args),
        Command::Report(report_args) => report::run(report_args),
    }
}
