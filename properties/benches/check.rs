//! The exhaustive checker's speed and memory: unique states, states per second (median of
//! several runs) and peak resident memory per state, on fixed bounds of `txn-basic`.
//! `cargo bench -p sharetxn-properties`; `SHARETXN_BENCH_RUNS` sets the runs (default 3).

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Strategy};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const CASES: &[(&str, &[&str])] = &[
    (
        "two partitions, no faults",
        &[
            "partitions=2",
            "crashes=0",
            "drops=0",
            "duplicates=0",
            "timeouts=0",
        ],
    ),
    (
        "one partition, one loss",
        &[
            "partitions=1",
            "crashes=0",
            "drops=1",
            "duplicates=0",
            "timeouts=0",
        ],
    ),
    (
        "two partitions, one loss",
        &[
            "partitions=2",
            "crashes=0",
            "drops=1",
            "duplicates=0",
            "timeouts=0",
        ],
    ),
];

/// Peak resident set size of this process in KiB (Linux), to divide by the states held.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let runs: usize = std::env::var("SHARETXN_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3)
        .max(1);
    println!(
        "{:<28} {:>6} {:>10} {:>6} {:>10} {:>10}",
        "bounds", "strat", "states", "depth", "median s", "states/s"
    );
    for (name, sets) in CASES {
        let (mut design, mut scenario) = (Design::consumer_offsets(), Scenario::txn_basic());
        for s in *sets {
            settings::apply(&mut design, &mut scenario, s).expect("a valid setting");
        }
        let sys = System::new(design, scenario);
        for strategy in [Strategy::Bfs, Strategy::Dfs] {
            let mut seconds = Vec::new();
            let mut states = 0;
            let mut depth = 0;
            for _ in 0..runs {
                let report = check(
                    &sys,
                    CheckOptions {
                        strategy,
                        threads: 1,
                        ..CheckOptions::default()
                    },
                );
                assert!(
                    report.exhaustive,
                    "{name}: the bench bounds must be exhaustive"
                );
                states = report.unique_states;
                depth = report.max_depth;
                seconds.push(report.seconds);
            }
            seconds.sort_by(f64::total_cmp);
            let median = seconds[seconds.len() / 2];
            println!(
                "{:<28} {:>6} {:>10} {:>6} {:>10.3} {:>10.0}",
                name,
                format!("{strategy:?}").to_lowercase(),
                states,
                depth,
                median,
                states as f64 / median
            );
        }
    }
    if let Some(kib) = peak_rss_kib() {
        println!("peak resident memory: {:.0} MiB", kib as f64 / 1024.0);
    }
    println!(
        "size_of::<SystemState>() = {} bytes (actor states, logs and queues are shared)",
        std::mem::size_of::<sharetxn_model::SystemState>()
    );
}
