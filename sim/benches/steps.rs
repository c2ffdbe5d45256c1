//! `cargo bench -p sharetxn-sim`: simulated steps per second and seeds per minute, as the
//! median of several runs over the same seeds (so every run does the same work), for
//! `txn-basic` with the default design and for KIP-1289's `ctp` with the `seed` design,
//! in the same process, then the ratio of the two.
//!
//! Set `SHARETXN_BENCH_SEEDS` (default 200) and `SHARETXN_BENCH_RUNS` (default 5), and
//! `SHARETXN_BENCH_SET` to `KEY=VALUE,KEY=VALUE` for other knobs (applied to both).

use sharetxn_model::{world::settings, Design, Scenario};
use sharetxn_sim::{run_seed, SimOptions};

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

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// The median steps/s and seeds/min of `runs` runs over `seeds` seeds.
fn bench(name: &str, design: Design, scenario: Scenario, seeds: u64, runs: u64) -> (f64, f64) {
    let (mut design, mut scenario) = (design, scenario);
    let mut options = SimOptions::default();
    if let Ok(sets) = std::env::var("SHARETXN_BENCH_SET") {
        for set in sets.split(',').filter(|s| !s.is_empty()) {
            match options.apply(set) {
                Some(result) => result.expect("a valid simulator setting"),
                None => settings::apply(&mut design, &mut scenario, set).expect("a valid setting"),
            }
        }
    }
    let (mut step_rates, mut seed_rates) = (Vec::new(), Vec::new());
    let mut steps_per_run = 0;
    for run in 0..runs {
        let start = now();
        let mut steps = 0u64;
        let mut violated = 0u64;
        for seed in 0..seeds {
            let outcome = run_seed(&design, &scenario, &options, seed);
            steps += outcome.steps;
            violated += u64::from(!outcome.passed());
        }
        let secs = start.elapsed().as_secs_f64();
        step_rates.push(steps as f64 / secs);
        seed_rates.push(seeds as f64 * 60.0 / secs);
        steps_per_run = steps;
        println!(
            "{name} run {run}: {seeds} seeds, {steps} steps, {violated} violated, {secs:.2}s, {:.0} steps/s, {:.0} seeds/min",
            steps as f64 / secs,
            seeds as f64 * 60.0 / secs
        );
    }
    let (steps, seeds_min) = (median(step_rates), median(seed_rates));
    println!(
        "{name}: median of {runs} runs over {seeds} seeds ({steps_per_run} steps a run): {steps:.0} steps/s, {seeds_min:.0} seeds/min"
    );
    (steps, seeds_min)
}

fn main() {
    let seeds = env_number("SHARETXN_BENCH_SEEDS", 200);
    let runs = env_number("SHARETXN_BENCH_RUNS", 5).max(1);
    let txn = bench(
        "txn-basic/consumer-offsets",
        Design::consumer_offsets(),
        Scenario::txn_basic(),
        seeds,
        runs,
    );
    let ctp = bench(
        "ctp/seed",
        Design::by_name("seed").expect("the seed design"),
        Scenario::ctp(),
        seeds,
        runs,
    );
    println!(
        "ctp/seed vs txn-basic: {:.2}x the steps/s, {:.2}x the seeds/min",
        ctp.0 / txn.0,
        ctp.1 / txn.1
    );
}
