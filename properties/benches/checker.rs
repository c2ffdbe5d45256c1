//! sharetxn's checker against stateright 0.31's on the very same `System` with the same
//! properties, in one run: own BFS (1 and 2 threads), own DFS, stateright's `spawn_bfs`
//! (1 and 2 threads) and `spawn_dfs`, interleaved, each run in a child process of its own so
//! that its peak memory is its own. Prints a markdown table of medians with the ratios to
//! stateright (see `docs/checker.md`).
//!
//! `cargo bench -p sharetxn-properties --bench checker`. Environment:
//! `SHARETXN_BENCH_RUNS` (repetitions, default 3), `SHARETXN_BENCH_CASES` (comma-separated
//! case names, default every case but `ctp-txns3`), `SHARETXN_BENCH_RUNNERS`
//! (comma-separated runner names, default all).

use nix::sys::resource::{getrusage, UsageWho};
use sharetxn_model::{world::settings, Action, Design, Scenario, System, SystemState};
use sharetxn_properties::{check, CheckOptions, Strategy, View, PROPERTIES};
use stateright::{Checker, Expectation, Model, Property};
use std::process::Command;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A benchmark case: a name, the scenario, the design and `--set` values.
struct Case {
    name: &'static str,
    scenario: &'static str,
    design: &'static str,
    sets: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        name: "ctp/proposed",
        scenario: "ctp",
        design: "proposed",
        sets: &[],
    },
    Case {
        // share-basic's budget without its loss and its duplicate (519,134 states): the
        // duplicate joined the default budget on 2026-12-05, and this case stays the
        // space measured before ("share-basic/proposed drops=0" in older tables).
        name: "share-basic/proposed drops=0 duplicates=0",
        scenario: "share-basic",
        design: "proposed",
        sets: &["drops=0", "duplicates=0"],
    },
    // Large enough (2.6M states) to show memory per state; not run unless named.
    Case {
        name: "ctp-txns3",
        scenario: "ctp",
        design: "proposed",
        sets: &["txns=3"],
    },
];

const DEFAULT_CASES: &[&str] = &["ctp/proposed", "share-basic/proposed drops=0 duplicates=0"];

const RUNNERS: &[&str] = &[
    "own-bfs-t1",
    "own-bfs-t2",
    "own-dfs",
    "sr-bfs-t1",
    "sr-bfs-t2",
    "sr-dfs",
];

/// `System` with the properties sharetxn judges on it, as a stateright model. Stateright's
/// properties are plain function pointers, so each slot of the table is one instance of a
/// const-generic function.
struct Bench {
    sys: System,
    slots: Vec<usize>,
}

fn always<const I: usize>(m: &Bench, s: &SystemState) -> bool {
    (PROPERTIES[I].check)(&View::new(&m.sys, s)).is_none()
}

fn sometimes<const I: usize>(m: &Bench, s: &SystemState) -> bool {
    (PROPERTIES[I].witness)(&View::new(&m.sys, s))
}

type Condition = fn(&Bench, &SystemState) -> bool;

macro_rules! conditions {
    ($($i:literal),*) => {
        const CONDITIONS: &[(Condition, Condition)] = &[$((always::<$i>, sometimes::<$i>)),*];
    };
}

// One pair per row of the property table; `main` asserts the table is no longer.
conditions!(
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
    26, 27, 28, 29, 30, 31
);

impl Bench {
    /// The slots `check` judges on `sys` without a focus: properties that apply, twins the
    /// bounds do not exclude (slot `2i` is property `i`, `2i + 1` its twin).
    fn new(sys: System) -> Bench {
        let mut slots = Vec::new();
        for (i, p) in PROPERTIES.iter().enumerate() {
            if (p.applies)(&sys) {
                slots.push(2 * i);
                if (p.twin_excluded)(&sys).is_none() {
                    slots.push(2 * i + 1);
                }
            }
        }
        Bench { sys, slots }
    }
}

impl Model for Bench {
    type State = SystemState;
    type Action = Action;

    fn init_states(&self) -> Vec<SystemState> {
        vec![self.sys.init_state()]
    }

    fn actions(&self, state: &SystemState, actions: &mut Vec<Action>) {
        self.sys.enabled(state, actions);
    }

    fn next_state(&self, state: &SystemState, action: Action) -> Option<SystemState> {
        Some(self.sys.step(state, &action))
    }

    fn properties(&self) -> Vec<Property<Self>> {
        self.slots
            .iter()
            .map(|&slot| {
                let (check, witness) = CONDITIONS[slot / 2];
                let p = &PROPERTIES[slot / 2];
                if slot % 2 == 0 {
                    Property {
                        expectation: Expectation::Always,
                        name: p.name,
                        condition: check,
                    }
                } else {
                    Property {
                        expectation: Expectation::Sometimes,
                        name: p.twin,
                        condition: witness,
                    }
                }
            })
            .collect()
    }
}

fn system(case: &Case) -> System {
    let mut design = Design::by_name(case.design).expect("a known design");
    let mut scenario = Scenario::by_name(case.scenario).expect("a known scenario");
    for s in case.sets {
        settings::apply(&mut design, &mut scenario, s).expect("a valid setting");
    }
    System::new(design, scenario)
}

/// User plus system CPU seconds of this process so far.
fn cpu_seconds() -> f64 {
    let usage = getrusage(UsageWho::RUSAGE_SELF).expect("getrusage");
    let t = |tv: nix::sys::time::TimeVal| tv.tv_sec() as f64 + tv.tv_usec() as f64 / 1e6;
    t(usage.user_time()) + t(usage.system_time())
}

/// Peak resident set size of this process in KiB (`ru_maxrss` is KiB on Linux).
fn peak_rss_kib() -> u64 {
    let usage = getrusage(UsageWho::RUSAGE_SELF).expect("getrusage");
    usage.max_rss().max(0) as u64
}

#[allow(clippy::disallowed_methods)] // wall time is what a benchmark reports
fn now() -> std::time::Instant {
    std::time::Instant::now()
}

/// One measured run, in the child process: prints `RESULT states wall cpu rss_kib`.
fn run_one(case: &Case, runner: &str) {
    let sys = system(case);
    let (start, cpu0) = (now(), cpu_seconds());
    let states = match runner {
        "own-bfs-t1" | "own-bfs-t2" | "own-dfs" => {
            let report = check(
                &sys,
                CheckOptions {
                    strategy: if runner == "own-dfs" {
                        Strategy::Dfs
                    } else {
                        Strategy::Bfs
                    },
                    threads: if runner == "own-bfs-t2" { 2 } else { 1 },
                    ..CheckOptions::default()
                },
            );
            assert!(report.exhaustive, "{}: not exhaustive", case.name);
            report.unique_states
        }
        "sr-bfs-t1" | "sr-bfs-t2" | "sr-dfs" => {
            let builder =
                Bench::new(sys)
                    .checker()
                    .threads(if runner == "sr-bfs-t2" { 2 } else { 1 });
            let states = if runner == "sr-dfs" {
                builder.spawn_dfs().join().unique_state_count()
            } else {
                builder.spawn_bfs().join().unique_state_count()
            };
            states as u64
        }
        _ => panic!("unknown runner {runner}"),
    };
    let (wall, cpu) = (start.elapsed().as_secs_f64(), cpu_seconds() - cpu0);
    println!("RESULT {states} {wall} {cpu} {}", peak_rss_kib());
}

/// The figures of one run.
#[derive(Clone, Copy)]
struct Run {
    states: u64,
    wall: f64,
    cpu: f64,
    rss_kib: u64,
}

fn spawn_one(case: &str, runner: &str) -> Run {
    let exe = std::env::current_exe().expect("the bench's own path");
    let out = Command::new(exe)
        .args(["--one", case, runner])
        .output()
        .expect("a child run");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("RESULT "))
        .unwrap_or_else(|| {
            panic!(
                "{case} {runner} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let f: Vec<&str> = line.split_whitespace().collect();
    Run {
        states: f[0].parse().expect("states"),
        wall: f[1].parse().expect("wall"),
        cpu: f[2].parse().expect("cpu"),
        rss_kib: f[3].parse().expect("rss"),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn list(var: &str, default: &[&'static str], known: &[&'static str]) -> Vec<&'static str> {
    match std::env::var(var) {
        Ok(v) => v
            .split(',')
            .map(|name| {
                *known
                    .iter()
                    .find(|k| **k == name.trim())
                    .unwrap_or_else(|| panic!("{var}: unknown name {name}"))
            })
            .collect(),
        Err(_) => default.to_vec(),
    }
}

fn main() {
    assert!(PROPERTIES.len() <= CONDITIONS.len(), "extend conditions!");
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--one") {
        let case = CASES.iter().find(|c| c.name == args[at + 1]).expect("case");
        run_one(case, &args[at + 2]);
        return;
    }
    let runs: usize = std::env::var("SHARETXN_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3)
        .max(1);
    let names: Vec<&str> = CASES.iter().map(|c| c.name).collect();
    let cases = list("SHARETXN_BENCH_CASES", DEFAULT_CASES, &names);
    let runners = list("SHARETXN_BENCH_RUNNERS", RUNNERS, RUNNERS);
    let mut results: Vec<Vec<Vec<Run>>> = vec![vec![Vec::new(); runners.len()]; cases.len()];
    // Interleaved: every configuration once per repetition, so a change in the machine's
    // load hits them all alike.
    for rep in 0..runs {
        for (c, case) in cases.iter().enumerate() {
            for (r, runner) in runners.iter().enumerate() {
                let run = spawn_one(case, runner);
                eprintln!(
                    "rep {rep} {case} {runner}: {} states, {:.2} s, {:.2} CPU s, {} MiB",
                    run.states,
                    run.wall,
                    run.cpu,
                    run.rss_kib / 1024
                );
                results[c][r].push(run);
            }
        }
    }
    print_table(&cases, &runners, &results, runs);
}

fn print_table(cases: &[&str], runners: &[&str], results: &[Vec<Vec<Run>>], runs: usize) {
    println!("medians of {runs} interleaved runs; a ratio is states/s over stateright's, by wall");
    println!("time and by CPU time (own BFS and sr-bfs-t2 over sr-bfs-t1, own DFS over sr-dfs)\n");
    println!(
        "| case | runner | states | s | CPU s | states/s | states/CPU s | ratio wall | ratio CPU | peak RSS MiB | B/state |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (c, case) in cases.iter().enumerate() {
        let med = |r: usize, f: fn(&Run) -> f64| median(results[c][r].iter().map(f).collect());
        let rates = |r: usize| {
            let states = results[c][r][0].states as f64;
            (states / med(r, |x| x.wall), states / med(r, |x| x.cpu))
        };
        let base = |name: &str| runners.iter().position(|r| *r == name).map(rates);
        for (r, runner) in runners.iter().enumerate() {
            let runs = &results[c][r];
            let states = runs[0].states;
            let agree = runs.iter().all(|x| x.states == states);
            let rss = med(r, |x| x.rss_kib as f64);
            let reference = if runner.contains("dfs") {
                base("sr-dfs")
            } else {
                base("sr-bfs-t1")
            };
            let (wall_rate, cpu_rate) = rates(r);
            let ratio = |pick: fn((f64, f64)) -> f64, own: f64| {
                reference.map_or("-".into(), |b| format!("{:.2}x", own / pick(b)))
            };
            println!(
                "| {case} | {runner} | {states}{} | {:.2} | {:.2} | {:.1}k | {:.1}k | {} | {} | {:.0} | {:.0} |",
                if agree { "" } else { " (varies!)" },
                med(r, |x| x.wall),
                med(r, |x| x.cpu),
                wall_rate / 1000.0,
                cpu_rate / 1000.0,
                ratio(|b| b.0, wall_rate),
                ratio(|b| b.1, cpu_rate),
                rss / 1024.0,
                rss * 1024.0 / states as f64
            );
        }
    }
}
