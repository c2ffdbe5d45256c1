//! The breadth-first pool's result does not depend on its thread count: the whole report,
//! discoveries and their traces included, is the same at 1, 2 and 3 threads on a design
//! with violations (`docs/checker.md`, "Determinism").

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Report, Status, Strategy};

fn report(threads: usize) -> Report {
    let mut design = Design::seed();
    let mut scenario = Scenario::ctp();
    settings::apply(&mut design, &mut scenario, "txns=1").unwrap();
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

#[test]
fn reports_and_traces_are_the_same_for_any_thread_count() {
    let one = report(1);
    let violated = one
        .properties
        .iter()
        .filter(|p| p.status == Status::Violated && !p.actions.is_empty())
        .count();
    assert!(
        violated > 0,
        "the case must have a counterexample to compare"
    );
    for threads in [2, 3] {
        assert_eq!(one, report(threads), "{threads} threads");
    }
}
