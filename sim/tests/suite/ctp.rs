//! The simulator on KIP-1289's loop (`ctp`) with the seed design: a small seed range finds
//! violations, every violation's trace replays on the model alone, and a simulator trace
//! shrinks under 40 steps. The tests name no particular property: the seed's violations
//! change as the model does, and the tooling must not depend on which ones there are.

use sharetxn_model::{Design, Scenario, System};
use sharetxn_properties::PROPERTIES;
use sharetxn_sim::{run_seed, Outcome, SimOptions};
use sharetxn_traces::{
    replay, shrink_with, Origin, Outcome as TraceOutcome, ShrinkOptions, Trace, Verdict,
};

const SEEDS: std::ops::Range<u64> = 0..40;

fn seed_design() -> Design {
    Design::by_name("seed").expect("the seed design")
}

/// The violating runs of the seed range.
fn violations() -> Vec<Outcome> {
    let (design, scenario, options) = (seed_design(), Scenario::ctp(), SimOptions::default());
    SEEDS
        .map(|seed| run_seed(&design, &scenario, &options, seed))
        .filter(|o| !o.passed())
        .collect()
}

/// The run as a trace file would hold it (what `sharetxn sim --trace-out` writes).
fn trace_of(outcome: &Outcome) -> Trace {
    let violation = outcome.violation.as_ref().expect("a violation");
    let kind = PROPERTIES
        .iter()
        .find(|p| p.name == violation.property)
        .map(|p| p.kind)
        .expect("a property of the table (the heal deadline is not expected on ctp)");
    let sys = System::new(seed_design(), outcome.scenario.clone());
    let actions: Vec<_> = outcome.trace.iter().map(|t| t.action.clone()).collect();
    let times: Vec<_> = outcome.trace.iter().map(|t| Some(t.time_ms)).collect();
    let origin = Origin::Sim {
        seed: outcome.seed,
        options: serde_json::json!({}),
    };
    let result = TraceOutcome::Violation {
        property: violation.property.clone(),
        kind,
        message: violation.message.clone(),
    };
    sharetxn_traces::record(&sys, origin, result, &actions, &times).expect("records")
}

fn reproduces_at_the_end(trace: &Trace) {
    let result = replay(trace).expect("replays");
    assert_eq!(result.divergence, None, "seed trace digests");
    assert!(
        matches!(result.verdict, Verdict::Reproduced { step, .. } if step == trace.steps.len()),
        "{}: {:?}",
        trace.outcome.describe(),
        result.verdict
    );
}

#[test]
fn the_seed_design_is_violated_within_40_seeds_and_every_trace_replays() {
    let found = violations();
    assert!(
        !found.is_empty(),
        "the seed design violates something on ctp within seeds {SEEDS:?}"
    );
    for outcome in &found {
        reproduces_at_the_end(&trace_of(outcome));
    }
}

#[test]
fn the_longest_simulator_trace_shrinks_under_40_steps_and_replays() {
    let longest = violations()
        .into_iter()
        .max_by_key(|o| (o.steps, std::cmp::Reverse(o.seed)))
        .expect("a violation");
    let trace = trace_of(&longest);
    // Pinned so the test means something: ddmin alone does not get this one under 40
    // (63 -> 47 today, seed 9), the scenario pass and the search do.
    assert!(
        trace.steps.len() >= 40,
        "seed {}: {} steps",
        longest.seed,
        trace.steps.len()
    );
    let options = ShrinkOptions {
        search_states: 50_000,
        ..ShrinkOptions::default()
    };
    let shrunk = shrink_with(&trace, &options).expect("shrinks");
    assert!(
        shrunk.after < 40,
        "seed {} ({}): {} -> {} steps; passes {:?}",
        longest.seed,
        trace.outcome.property(),
        shrunk.before,
        shrunk.after,
        shrunk.passes
    );
    assert_eq!(shrunk.trace.outcome.property(), trace.outcome.property());
    assert!(
        matches!(shrunk.trace.origin, Origin::Shrunk { from_steps, .. } if from_steps == trace.steps.len())
    );
    reproduces_at_the_end(&shrunk.trace);
    // It writes and reads back as a trace file of the format, smaller scenario included.
    let text = shrunk.trace.to_json().unwrap();
    assert_eq!(sharetxn_traces::parse(&text).unwrap(), shrunk.trace);
}

#[test]
fn the_heal_verdict_has_one_name_in_the_simulator_and_in_traces() {
    // Traces judge the simulator's heal verdict by name (the traces crate cannot depend
    // on the simulator), so the two must not drift apart.
    assert_eq!(
        sharetxn_sim::outcome::HEAL_DEADLINE,
        sharetxn_traces::heal::HEAL_DEADLINE
    );
}
