//! The helper of the swarm tests: the violations a range of seeds shows.

use sharetxn_model::{world::settings, Design, Scenario};
use sharetxn_sim::{run_seed, SimOptions};

/// The violations of `seeds` on `design` and `scenario` with `sets` applied in order, each
/// a simulator key or a scenario field or design knob (as `sharetxn sim --set` takes them).
pub fn violations(
    design: Design,
    scenario: Scenario,
    sets: &[&str],
    seeds: std::ops::Range<u64>,
) -> Vec<(u64, String)> {
    let (mut design, mut scenario) = (design, scenario);
    let mut options = SimOptions::default();
    for set in sets {
        match options.apply(set) {
            Some(result) => result.unwrap(),
            None => settings::apply(&mut design, &mut scenario, set).unwrap(),
        }
    }
    seeds
        .map(|seed| run_seed(&design, &scenario, &options, seed))
        .filter_map(|o| o.violation.map(|v| (o.seed, v.property)))
        .collect()
}
