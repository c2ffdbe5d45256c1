//! Production sizes (issue 6): one seed runs a thousand records through four KIP-1289
//! clients and two hundred transactions, sizes the exhaustive checker cannot reach, and
//! the same seed gives the same run twice. And a thousands-step simulator trace at such
//! sizes shrinks under 40 steps and replays (issue 7).

use sharetxn_model::protocol::msg::ClientChoice;
use sharetxn_model::{Action, Design, Scenario, System};
use sharetxn_properties::PROPERTIES;
use sharetxn_sim::{run_seed, Outcome, SimOptions};
use sharetxn_traces::{replay, shrink, Origin, Outcome as TraceOutcome, Trace, Verdict};

/// 1,000 records, 4 clients, up to 64 transactions each (at 50 each, 193 of the 200 end by
/// a commit or abort choice), a fault phase long enough for all of
/// them.
fn production() -> SimOptions {
    let mut options = SimOptions::default();
    for set in ["swarm_records=1000", "swarm_producers=4", "swarm_txns=64"] {
        options
            .apply(set)
            .expect("a simulator key")
            .expect("in range");
    }
    options.steps = 100_000;
    options
}

/// Transactions the clients ended (a commit or an abort chosen).
fn transactions(outcome: &Outcome) -> usize {
    outcome
        .trace
        .iter()
        .filter(|t| {
            matches!(
                t.action,
                Action::Choose {
                    choice: ClientChoice::Commit | ClientChoice::Abort,
                    ..
                }
            )
        })
        .count()
}

#[test]
#[ignore = "about 30 s in the test profile; run with --ignored (release: a few seconds)"]
fn a_thousand_records_four_clients_two_hundred_transactions() {
    let options = production();
    let (design, scenario) = (Design::proposed(), Scenario::ctp());
    let first = run_seed(&design, &scenario, &options, 0);
    assert_eq!(first.scenario.records, 1000);
    assert_eq!(first.scenario.producers, 4);
    assert_eq!(first.scenario.txns, 64);
    assert!(first.passed(), "{:?}", first.violation);
    assert!(
        transactions(&first) >= 200,
        "{} transactions",
        transactions(&first)
    );
    assert!(first.steps > 5_000, "{} steps", first.steps);
    let second = run_seed(&design, &scenario, &options, 0);
    assert_eq!(
        serde_json::to_string(&first).expect("serialises"),
        serde_json::to_string(&second).expect("serialises"),
        "the same seed ran differently"
    );
}

/// The run as `sharetxn sim --trace-out` would write it.
fn trace_of(design: &Design, outcome: &Outcome) -> Trace {
    let violation = outcome.violation.as_ref().expect("a violation");
    let kind = PROPERTIES
        .iter()
        .find(|p| p.name == violation.property)
        .map(|p| p.kind)
        .expect("a property of the table");
    let sys = System::new(design.clone(), outcome.scenario.clone());
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

/// The seed's run of `seed` (with the design knobs `sets`) judging `property` alone, at
/// 1,000 records and 200 transactions (README's "Long traces shrunk"), shrunk by the
/// default shrinker: under 40 steps, and the result replays to its last step. Returns the
/// lengths.
fn long_trace_shrinks(property: &str, sets: &[&str], seed: u64, at_least: usize) -> (usize, usize) {
    // Judging one property lets the run go on past the seed's early marker_match
    // violations, so the property shows after hundreds or thousands of steps.
    let mut options = SimOptions::default();
    for set in [
        "swarm_records=1000",
        "swarm_txns=200",
        &format!("properties={property}"),
    ] {
        options
            .apply(set)
            .expect("a simulator key")
            .expect("in range");
    }
    options.steps = 100_000;
    let mut design = Design::by_name("seed").expect("the seed design");
    let mut scenario = Scenario::ctp();
    for set in sets {
        sharetxn_model::world::settings::apply(&mut design, &mut scenario, set)
            .expect("a design knob");
    }
    let outcome = run_seed(&design, &scenario, &options, seed);
    let trace = trace_of(&design, &outcome);
    assert_eq!(trace.outcome.property(), property);
    assert!(
        trace.steps.len() >= at_least,
        "{property} seed {seed}: {} steps",
        trace.steps.len()
    );
    let shrunk = shrink(&trace).expect("shrinks");
    assert!(
        shrunk.after < 40,
        "{} -> {} steps; passes {:?}",
        shrunk.before,
        shrunk.after,
        shrunk.passes
    );
    let result = replay(&shrunk.trace).expect("replays");
    assert_eq!(result.divergence, None);
    assert!(
        matches!(result.verdict, Verdict::Reproduced { step, .. } if step == shrunk.trace.steps.len()),
        "{:?}",
        result.verdict
    );
    (shrunk.before, shrunk.after)
}

#[test]
#[ignore = "about a minute in the test profile; run with --ignored (release: 2 s)"]
fn a_thousands_step_trace_of_the_seed_shrinks_under_40_steps_and_replays() {
    // pending_isolation shows after 1,720 steps (seed 1 today).
    long_trace_shrinks("pending_isolation", &[], 1, 1_000);
}

#[test]
#[ignore = "6 minutes in the test profile at load 17 on 2 cores; run with --ignored"]
fn every_long_seed_violation_shrinks_under_40_steps_and_replays() {
    // Seed 1: cache_agrees after 1,839 steps, txn_atomicity and no_lost_record after
    // 1,720; seed 330: no_duplicate_processing after 3,563.
    long_trace_shrinks("cache_agrees", &[], 1, 1_000);
    long_trace_shrinks("txn_atomicity", &[], 1, 1_000);
    long_trace_shrinks("no_lost_record", &[], 1, 1_000);
    long_trace_shrinks("no_duplicate_processing", &[], 330, 3_000);
    // Under TV2 the seed's exact-epoch match fails at the first marker of the first
    // transaction with share acks, so no run gets long; under TV1 the epoch moves only
    // when the coordinator fences (a transaction timeout's abort), after 1,936 steps in
    // seed 144.
    long_trace_shrinks("marker_match", &["tv=1"], 144, 1_500);
}
