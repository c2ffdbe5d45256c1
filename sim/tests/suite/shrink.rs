//! proptest finds a failing fault schedule for a known-bad design and shrinks it to a
//! small one that still fails the same way: `tv=1` (no epoch bump per transaction) lets a
//! late COMMIT marker of one transaction land in the next one, breaking `txn_atomicity`.

use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};
use sharetxn_model::{world::settings, Design, Scenario};
use sharetxn_sim::strategies;
use sharetxn_sim::{run_schedule, SimOptions};

fn design(sets: &[&str]) -> Design {
    let (mut d, mut s) = (Design::consumer_offsets(), Scenario::txn_basic());
    for set in sets {
        settings::apply(&mut d, &mut s, set).unwrap();
    }
    d
}

fn runner(cases: u32) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha))
}

#[test]
fn a_failing_schedule_for_tv1_shrinks_to_a_few_faults() {
    let design = design(&["tv=1"]);
    let options = SimOptions::default();
    let strategy = (
        strategies::scenario(Scenario::txn_basic()),
        strategies::schedule(12, 80, 3, 300_000),
    );
    let result = runner(2_000).run(&strategy, |(scenario, schedule)| {
        let outcome = run_schedule(&design, &scenario, &options, &schedule, 0);
        match outcome.violation {
            Some(v) if v.property == "txn_atomicity" => {
                Err(proptest::test_runner::TestCaseError::fail(v.message))
            }
            _ => Ok(()),
        }
    });
    let (reason, (scenario, schedule)) = match result {
        Err(TestError::Fail(reason, minimal)) => (reason, minimal),
        other => panic!("expected a failing schedule, got {other:?}"),
    };
    eprintln!("minimal: {scenario:?} {schedule:?}: {reason}");
    // Four delays today, at most three before the verification timeout: the leaders' new
    // timer changes what a run draws after each verification, and the shrink stops at
    // four (two near the 30 s request timeout, two near the 60 s transaction timeout).
    assert!(
        schedule.len() <= 4,
        "shrunk to {} faults: {schedule:?}",
        schedule.len()
    );
    let again = run_schedule(&design, &scenario, &options, &schedule, 0);
    assert_eq!(
        again.violation.map(|v| v.property).as_deref(),
        Some("txn_atomicity")
    );
}
