//! The breadth-first pool's result does not depend on its thread count: the whole report,
//! discoveries and their traces included, is the same at 1, 2 and 4 threads on two
//! scenarios with violations (`docs/checker.md`, "Determinism").

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Report, Status, Strategy};

/// A design, a scenario and `--set` values with at least one counterexample.
struct Case {
    design: fn() -> Design,
    scenario: fn() -> Scenario,
    sets: &'static [&'static str],
}

const CASES: &[Case] = &[
    // ctp under the seed design: txn_atomicity and others are violated.
    Case {
        design: Design::seed,
        scenario: Scenario::ctp,
        sets: &["txns=1"],
    },
    // share-basic with KAFKA-19476's lock-timer race: legal_transitions is violated.
    Case {
        design: Design::proposed,
        scenario: Scenario::share_basic,
        sets: &[
            "drops=0",
            "duplicates=0",
            "crashes=1",
            "stalls=0",
            "lock_timer_race=true",
        ],
    },
];

fn report(case: &Case, threads: usize) -> Report {
    let mut design = (case.design)();
    let mut scenario = (case.scenario)();
    for set in case.sets {
        settings::apply(&mut design, &mut scenario, set).unwrap();
    }
    let mut report = check(
        &System::new(design, scenario),
        CheckOptions {
            strategy: Strategy::Bfs,
            threads,
            ..Default::default()
        },
    );
    // Timing is the only part of a report that may differ between runs.
    report.seconds = 0.0;
    report.states_per_second = 0.0;
    report
}

/// Each property's verdict and trace length, to name what differs when reports do.
fn verdicts(report: &Report) -> Vec<(String, Status, usize)> {
    report
        .properties
        .iter()
        .map(|p| (p.name.clone(), p.status, p.actions.len()))
        .collect()
}

#[test]
fn reports_and_traces_are_the_same_for_any_thread_count() {
    for case in CASES {
        let one = report(case, 1);
        let violated = one
            .properties
            .iter()
            .filter(|p| p.status == Status::Violated && !p.actions.is_empty())
            .count();
        assert!(
            violated > 0,
            "{:?}: the case must have a counterexample to compare",
            case.sets
        );
        for threads in [2, 4] {
            let many = report(case, threads);
            let what = format!("{:?} at {threads} threads", case.sets);
            assert_eq!(one.unique_states, many.unique_states, "{what}");
            assert_eq!(verdicts(&one), verdicts(&many), "{what}");
            assert_eq!(one, many, "{what}");
        }
    }
}
