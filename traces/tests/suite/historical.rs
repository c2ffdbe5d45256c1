//! Shrinking the counterexamples `check` writes for Kafka's historical transaction bugs.
//! BFS traces are shortest, so shrinking one must not lengthen it; DFS traces shrink to a
//! 1-minimal trace that still replays. The bounds are the smallest that exhibit each bug,
//! as in `properties/tests/suite/historical_bugs.rs`, so each check takes about a second.

use sharetxn_model::{world::settings, Action, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Report, Status, Strategy};
use sharetxn_traces::judge;
use sharetxn_traces::{from_report, replay, shrink, Origin, Trace, Verdict};

/// (knobs, the properties they violate).
const BUGS: &[(&[&str], &[&str])] = &[
    (
        &[
            "verification=false",
            "tv=0",
            "partitions=1",
            "crashes=0",
            "drops=0",
            "duplicates=0",
            "timeouts=1",
        ],
        &["no_hanging_transaction"],
    ),
    (
        &[
            "tv=1",
            "partitions=1",
            "crashes=0",
            "drops=0",
            "duplicates=0",
            "timeouts=1",
        ],
        &["txn_atomicity", "no_aborted_read"],
    ),
    (
        &[
            "flush_before_end_txn=false",
            "inputs=1",
            "txns=1",
            "partitions=1",
            "crashes=0",
            "drops=0",
            "duplicates=0",
        ],
        &["txn_atomicity"],
    ),
];

fn system(knobs: &[&str]) -> System {
    let (mut design, mut scenario) = (Design::consumer_offsets(), Scenario::txn_basic());
    for k in knobs {
        settings::apply(&mut design, &mut scenario, k).unwrap();
    }
    System::new(design, scenario)
}

fn run(sys: &System, strategy: Strategy) -> Report {
    let report = check(
        sys,
        CheckOptions {
            strategy,
            threads: 1,
            ..CheckOptions::default()
        },
    );
    assert!(report.exhaustive);
    report
}

fn trace_of(sys: &System, report: &Report, property: &str) -> Trace {
    let p = report.property(property).unwrap();
    assert_eq!(p.status, Status::Violated, "{property}");
    let origin = Origin::Check {
        strategy: report.strategy.clone(),
        max_depth: None,
    };
    from_report(sys, p, origin)
        .unwrap()
        .expect("a violation has actions")
}

/// Whether the outcome shows when `actions` run with the shrinker's rule (actions that
/// are not enabled are skipped).
fn shows(trace: &Trace, actions: &[Action]) -> bool {
    let sys = System::new(trace.design.clone(), trace.scenario.clone());
    let def = judge::definition(&trace.outcome).unwrap();
    let mut state = sys.init_state();
    if judge::shows(def, &trace.outcome, &sys, &state).is_some() {
        return true;
    }
    for a in actions {
        if sys.is_enabled(&state, a) {
            state = sys.step(&state, a);
            if judge::shows(def, &trace.outcome, &sys, &state).is_some() {
                return true;
            }
        }
    }
    false
}

/// Shrinks, and checks what every shrunk trace must be: no longer, reproducing on replay,
/// 1-minimal, with its origin kept.
fn shrink_and_check(trace: &Trace) -> Trace {
    let shrunk = shrink(trace).unwrap();
    let out = shrunk.trace;
    assert_eq!(
        (shrunk.before, shrunk.after),
        (trace.steps.len(), out.steps.len())
    );
    assert!(out.steps.len() <= trace.steps.len());
    assert_eq!(out.outcome.property(), trace.outcome.property());
    match &out.origin {
        Origin::Shrunk {
            from_steps,
            original,
        } => {
            assert_eq!(*from_steps, trace.steps.len());
            assert_eq!(**original, trace.origin);
        }
        other => panic!("not marked shrunk: {other:?}"),
    }
    let result = replay(&out).unwrap();
    assert_eq!(result.divergence, None);
    assert!(
        matches!(result.verdict, Verdict::Reproduced { step, .. } if step == out.steps.len()),
        "{:?}",
        result.verdict
    );
    let actions = out.actions();
    for i in 0..actions.len() {
        let mut fewer = actions.clone();
        fewer.remove(i);
        assert!(
            !shows(&out, &fewer),
            "step {} of the shrunk {} trace can be removed",
            i + 1,
            out.outcome.property()
        );
    }
    out
}

#[test]
fn bfs_counterexamples_shrink_no_longer_than_bfs_finds() {
    for (knobs, properties) in BUGS {
        let sys = system(knobs);
        let report = run(&sys, Strategy::Bfs);
        for property in *properties {
            let trace = trace_of(&sys, &report, property);
            let bfs_len = trace.steps.len();
            let shrunk = shrink_and_check(&trace);
            assert!(
                shrunk.steps.len() <= bfs_len,
                "{knobs:?} {property}: shrunk to {} > BFS {bfs_len}",
                shrunk.steps.len()
            );
        }
    }
}

#[test]
fn dfs_counterexamples_shrink_to_one_minimal_traces() {
    for (knobs, properties) in BUGS {
        let sys = system(knobs);
        let report = run(&sys, Strategy::Dfs);
        for property in *properties {
            let trace = trace_of(&sys, &report, property);
            let shrunk = shrink_and_check(&trace);
            // Removing actions cannot reorder them or change a message's contents, so a
            // DFS trace may keep a step or three more than the BFS one (README, Traces).
            assert!(shrunk.steps.len() <= trace.steps.len());
        }
    }
}

#[test]
fn steps_after_the_violation_are_cut() {
    let (knobs, _) = BUGS[2];
    let sys = system(knobs);
    let report = run(&sys, Strategy::Bfs);
    let bfs = trace_of(&sys, &report, "txn_atomicity");
    let mut actions = bfs.actions();
    let mut state = sharetxn_traces::walk::states(&sys, &actions)
        .unwrap()
        .pop()
        .unwrap();
    for _ in 0..10 {
        let mut enabled = Vec::new();
        sys.enabled(&state, &mut enabled);
        let Some(a) = enabled.first().cloned() else {
            break;
        };
        state = sys.step(&state, &a);
        actions.push(a);
    }
    assert!(
        actions.len() > bfs.steps.len(),
        "the run goes on after the violation"
    );
    let origin = Origin::Sim {
        seed: 7,
        options: serde_json::json!({"steps": actions.len()}),
    };
    let long = sharetxn_traces::record(&sys, origin, bfs.outcome.clone(), &actions, &[]).unwrap();
    let shrunk = shrink_and_check(&long);
    assert_eq!(shrunk.actions(), bfs.actions());
}
