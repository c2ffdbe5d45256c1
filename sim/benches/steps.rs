//! `cargo bench -p sharetxn-sim`: simulated steps per second and seeds per minute on
//! `txn-basic` with the default design and the default swarm, as the median of several
//! runs over the same seeds (so every run does the same work).
//!
//! Set `SHARETXN_BENCH_SEEDS` (default 200) and `SHARETXN_BENCH_RUNS` (default 5), and
//! `SHARETXN_BENCH_SET` to `KEY=VALUE,KEY=VALUE` for other knobs.

use sharetxn_model::{settings, Design, Scenario};
use sharetxn_sim::{run_seed, SimOptions};

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

fn main() {
    let seeds = env_number("SHARETXN_BENCH_SEEDS", 200);
    let runs = env_number("SHARETXN_BENCH_RUNS", 5).max(1);
    let (mut design, mut scenario) = (Design::consumer_offsets(), Scenario::txn_basic());
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
            "run {run}: {seeds} seeds, {steps} steps, {violated} violated, {secs:.2}s, {:.0} steps/s, {:.0} seeds/min",
            steps as f64 / secs,
            seeds as f64 * 60.0 / secs
        );
    }
    println!(
        "median of {runs} runs over {seeds} seeds ({steps_per_run} steps a run): {:.0} steps/s, {:.0} seeds/min",
        median(step_rates),
        median(seed_rates)
    );
}
