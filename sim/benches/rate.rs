//! `cargo bench -p sharetxn-sim --bench rate`: the simulator's steps per second on
//! KIP-1289's `ctp` with the `proposed` design (no seed violates) and the `seed` design
//! (most seeds violate), on one thread, as a markdown table of medians of several runs
//! over the same seeds. The runs of both pairs are interleaved, so a change in the load of
//! a shared machine hits both alike; CPU seconds (`getrusage`) are given beside wall time,
//! and the load average before and after.
//!
//! `in-process` rows time `run_seed` alone: the step loop. With `SHARETXN_BENCH_CLI` set
//! to a `sharetxn` binary, `cli` rows also time `sharetxn sim --threads 1 --json` on the
//! same seeds as a child process, which adds the seed lines and the trace files (the
//! children's CPU seconds, `RUSAGE_CHILDREN`); `LABEL=PATH,LABEL=PATH` times several
//! binaries side by side (a build before a change and after it), each row named by its
//! label. `SHARETXN_BENCH_CLI_ARGS` adds words to every such command line.
//!
//! `SHARETXN_BENCH_SEEDS` (default 20000) and `SHARETXN_BENCH_RUNS` (default 3).

use nix::sys::resource::{getrusage, UsageWho};
use nix::sys::time::TimeVal;
use sharetxn_model::{Design, Scenario};
use sharetxn_sim::{run_seed, SimOptions};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The CLI's allocator (`cli/src/main.rs`): a step allocates and frees a successor state's
/// changed parts, so the system allocator would measure a different simulator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

// Wall time is what a benchmark measures; it never reaches a simulated decision.
#[allow(clippy::disallowed_methods)]
fn now() -> std::time::Instant {
    std::time::Instant::now()
}

fn seconds(t: TimeVal) -> f64 {
    t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6
}

/// User plus system CPU seconds of `who` so far.
fn cpu_seconds(who: UsageWho) -> f64 {
    let usage = getrusage(who).expect("getrusage");
    seconds(usage.user_time()) + seconds(usage.system_time())
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_string())
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// One timed run over the seeds.
#[derive(Clone, Debug, Default)]
struct Sample {
    steps: u64,
    violated: u64,
    traces: u64,
    wall_s: f64,
    cpu_s: f64,
}

/// One row of the table: a pair, how it was run, and its samples.
struct Row {
    pair: &'static str,
    mode: String,
    samples: Vec<Sample>,
}

/// The binaries `SHARETXN_BENCH_CLI` names, with their labels.
fn binaries() -> Vec<(String, PathBuf)> {
    let Ok(value) = std::env::var("SHARETXN_BENCH_CLI") else {
        return Vec::new();
    };
    value
        .split(',')
        .filter(|b| !b.is_empty())
        .map(|b| match b.split_once('=') {
            Some((label, path)) => (format!("cli {label}"), PathBuf::from(path)),
            None => ("cli".to_string(), PathBuf::from(b)),
        })
        .collect()
}

/// Runs every seed in this process, on this thread.
fn in_process(design: &Design, scenario: &Scenario, seeds: u64) -> Sample {
    let options = SimOptions::default();
    let (start, cpu) = (now(), cpu_seconds(UsageWho::RUSAGE_SELF));
    let mut sample = Sample::default();
    for seed in 0..seeds {
        let outcome = run_seed(design, scenario, &options, seed);
        sample.steps += outcome.steps;
        sample.violated += u64::from(!outcome.passed());
    }
    sample.cpu_s = cpu_seconds(UsageWho::RUSAGE_SELF) - cpu;
    sample.wall_s = start.elapsed().as_secs_f64();
    sample
}

/// Runs `sharetxn sim` on the seeds as a child and reads its summary line back.
fn cli(bin: &Path, design: &str, seeds: u64, scratch: &Path) -> Sample {
    let traces = scratch.join(format!("traces-{design}"));
    let _ = std::fs::remove_dir_all(&traces);
    let range = format!("0..{seeds}");
    let mut command = Command::new(bin);
    command.args([
        "sim",
        "--scenario",
        "ctp",
        "--design",
        design,
        "--seeds",
        &range,
    ]);
    command
        .args(["--threads", "1", "--json", "--trace-out"])
        .arg(&traces);
    if let Ok(extra) = std::env::var("SHARETXN_BENCH_CLI_ARGS") {
        command.args(extra.split_whitespace());
    }
    let (start, cpu) = (now(), cpu_seconds(UsageWho::RUSAGE_CHILDREN));
    let out = command
        .stderr(Stdio::null())
        .output()
        .expect("SHARETXN_BENCH_CLI runs");
    let cpu_s = cpu_seconds(UsageWho::RUSAGE_CHILDREN) - cpu;
    let wall_s = start.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().expect("a summary line");
    let line: serde_json::Value = serde_json::from_str(last).expect("a JSON summary line");
    let summary = &line["summary"];
    let written = std::fs::read_dir(&traces).map_or(0, |d| d.count() as u64);
    let _ = std::fs::remove_dir_all(&traces);
    Sample {
        steps: summary["steps"].as_u64().expect("steps in the summary"),
        violated: summary["violated"]
            .as_u64()
            .expect("violated in the summary"),
        traces: written,
        wall_s,
        cpu_s,
    }
}

fn print_table(rows: &[Row], seeds: u64, runs: u64) {
    println!();
    println!("| pair | mode | seeds | steps | violated | traces | wall s | CPU s | steps/s (wall) | steps per CPU s |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for row in rows {
        let s = &row.samples[0];
        let wall = median(row.samples.iter().map(|s| s.wall_s).collect());
        let cpu = median(row.samples.iter().map(|s| s.cpu_s).collect());
        let rate = median(
            row.samples
                .iter()
                .map(|s| s.steps as f64 / s.wall_s)
                .collect(),
        );
        let per_cpu = median(
            row.samples
                .iter()
                .map(|s| s.steps as f64 / s.cpu_s.max(1e-9))
                .collect(),
        );
        println!(
            "| {} | {} | {seeds} | {} | {} | {} | {wall:.2} | {cpu:.2} | {rate:.0} | {per_cpu:.0} |",
            row.pair, row.mode, s.steps, s.violated, s.traces
        );
    }
    println!();
    println!("Medians of {runs} interleaved runs on one thread; `traces`: files written.");
}

fn main() {
    let seeds = env_number("SHARETXN_BENCH_SEEDS", 20_000);
    let runs = env_number("SHARETXN_BENCH_RUNS", 3).max(1);
    let bins = binaries();
    let scratch = std::env::temp_dir().join(format!("sharetxn-bench-rate-{}", std::process::id()));
    let pairs = ["proposed", "seed"];
    let mut rows = Vec::new();
    for pair in pairs {
        let modes =
            std::iter::once("in-process".to_string()).chain(bins.iter().map(|b| b.0.clone()));
        for mode in modes {
            rows.push(Row {
                pair: pair_name(pair),
                mode,
                samples: Vec::new(),
            });
        }
    }
    println!("load before: {}", load());
    for run in 0..runs {
        let mut row = rows.iter_mut();
        for pair in pairs {
            let design = Design::by_name(pair).expect("a design of the project");
            let sample = in_process(&design, &Scenario::ctp(), seeds);
            println!("run {run} ctp/{pair} in-process: {sample:?}");
            row.next().expect("a row").samples.push(sample);
            for (label, bin) in &bins {
                let sample = cli(bin, pair, seeds, &scratch);
                println!("run {run} ctp/{pair} {label}: {sample:?}");
                row.next().expect("a row").samples.push(sample);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    println!("load after: {}", load());
    print_table(&rows, seeds, runs);
}

fn pair_name(design: &str) -> &'static str {
    match design {
        "proposed" => "ctp/proposed",
        _ => "ctp/seed",
    }
}
