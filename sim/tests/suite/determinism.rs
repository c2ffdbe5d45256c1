//! Determinism is the product: a seed is a run. The same seed gives the same trace byte
//! for byte, and running seeds on more threads changes nothing but the speed.

use sharetxn_model::{Design, Scenario};
use sharetxn_sim::parallel::run_seeds;
use sharetxn_sim::{run_seed, Outcome, SimOptions};

fn bytes(outcome: &Outcome) -> String {
    serde_json::to_string(outcome).expect("an outcome serialises")
}

#[test]
fn the_same_seed_twice_gives_byte_identical_traces() {
    let (design, scenario) = (Design::consumer_offsets(), Scenario::txn_basic());
    let options = SimOptions::default();
    let mut distinct = std::collections::BTreeSet::new();
    for seed in 0..20 {
        let first = bytes(&run_seed(&design, &scenario, &options, seed));
        let second = bytes(&run_seed(&design, &scenario, &options, seed));
        assert_eq!(first, second, "seed {seed} ran differently twice");
        distinct.insert(first);
    }
    assert_eq!(distinct.len(), 20, "different seeds make different runs");
}

#[test]
fn threads_change_nothing_but_speed() {
    let (design, scenario) = (Design::consumer_offsets(), Scenario::txn_basic());
    let options = SimOptions::default();
    let seeds: Vec<u64> = (100..140).collect();
    let collect = |threads: usize| {
        let mut out = Vec::new();
        run_seeds(
            &seeds,
            threads,
            |seed| run_seed(&design, &scenario, &options, seed),
            |o| {
                out.push(bytes(&o));
                true
            },
        );
        out
    };
    let one = collect(1);
    assert_eq!(one.len(), seeds.len());
    assert_eq!(one, collect(2));
    assert_eq!(one, collect(3));
}

#[test]
fn a_run_has_real_timing_and_swarm_faults() {
    let (design, scenario) = (Design::consumer_offsets(), Scenario::txn_basic());
    let options = SimOptions::default();
    let outcomes: Vec<Outcome> = (0..20)
        .map(|seed| run_seed(&design, &scenario, &options, seed))
        .collect();
    for o in &outcomes {
        let times: Vec<u64> = o.trace.iter().map(|t| t.time_ms).collect();
        assert!(
            times.windows(2).all(|w| w[0] <= w[1]),
            "seed {}: time goes back",
            o.seed
        );
        assert!(
            o.heal_at_ms.is_some(),
            "seed {} reached its heal phase",
            o.seed
        );
    }
    // Some request timed out at Kafka's 30 s after the request was sent.
    assert!(outcomes
        .iter()
        .any(|o| o.trace.iter().any(
            |t| matches!(t.action, sharetxn_model::Action::Fire { .. }) && t.time_ms >= 30_000
        )));
    let kinds: std::collections::BTreeSet<_> = outcomes
        .iter()
        .flat_map(|o| o.swarm.as_ref().unwrap().kinds())
        .collect();
    assert_eq!(
        kinds.len(),
        6,
        "20 seeds turn every fault kind on somewhere: {kinds:?}"
    );
    assert!(outcomes
        .iter()
        .any(|o| o.swarm.as_ref().unwrap().kinds().is_empty()
            || o.swarm.as_ref().unwrap().kinds().len() < 6));
}
