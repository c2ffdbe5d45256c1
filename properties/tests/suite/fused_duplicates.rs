//! Depth-first search fuses a duplication with the first delivery of the copy
//! (`sharetxn_properties::reduction`). This checks, on share-basic bounds small enough for
//! the test profile, that every property and twin gets the same verdict with and without
//! the reduction (for the fixed defaults and for the knobs that bring a share-group bug
//! back), that the reduced space is the smaller one, pinned with both counts, that a fused
//! edge is the duplication and then the delivery of the copy, and that scenarios with transactions are
//! left alone.

use sharetxn_model::{world::settings, Action, Design, Envelope, Scenario, System};
use sharetxn_properties::reduction::{
    duplicate_and_deliver, fused, fused_actions, fuses_duplicates,
};
use sharetxn_properties::{check, CheckOptions, Report, Status, Strategy};

fn system(scenario: Scenario, sets: &[&str]) -> System {
    let mut design = Design::consumer_offsets();
    let mut scenario = scenario;
    for s in sets {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    System::new(design, scenario)
}

fn dfs(sys: &System, fuse_duplicates: bool) -> Report {
    let report = check(
        sys,
        CheckOptions {
            strategy: Strategy::Dfs,
            threads: 1,
            fuse_duplicates,
            ..CheckOptions::default()
        },
    );
    assert!(report.exhaustive);
    report
}

fn verdicts(report: &Report) -> Vec<(String, Status)> {
    report
        .properties
        .iter()
        .map(|p| (p.name.clone(), p.status))
        .collect()
}

/// The verdicts (the same with and without the reduction) and both state counts.
fn compare(sets: &[&str]) -> (Vec<(String, Status)>, u64, u64) {
    let sys = system(Scenario::share_basic(), sets);
    assert!(fuses_duplicates(&sys), "{sets:?}");
    let fused = dfs(&sys, true);
    let full = dfs(&sys, false);
    assert_eq!(verdicts(&fused), verdicts(&full), "{sets:?}");
    assert!(fused.unique_states < full.unique_states, "{sets:?}");
    (verdicts(&fused), fused.unique_states, full.unique_states)
}

/// One record, a duplicate and a crash: every share-basic twin is reachable.
const SMALL: &[&str] = &["records=1", "drops=0", "duplicates=1", "crashes=1"];

#[test]
fn fusing_keeps_every_verdict_of_the_fixed_defaults() {
    let (found, fused, full) = compare(SMALL);
    assert_eq!((fused, full), (75_996, 83_254));
    for (name, status) in &found {
        assert!(
            matches!(
                status,
                Status::Holds | Status::Witnessed | Status::NotApplicable
            ),
            "{name}: {status:?}"
        );
    }
    for twin in [
        "lock_redelivered",
        "late_ack_rejected",
        "limit_archived",
        "spl_rebuilt",
    ] {
        assert!(
            found.contains(&(twin.to_string(), Status::Witnessed)),
            "{twin}: {found:?}"
        );
    }
}

#[test]
fn fusing_keeps_the_violations_of_the_bug_knobs() {
    // KAFKA-19476's race needs two records (one record shows it only with more faults).
    let race = &[
        "stalls=0",
        "drops=0",
        "duplicates=1",
        "crashes=0",
        "lock_timer_race=true",
    ];
    let mut foreign_ack = SMALL.to_vec();
    foreign_ack.push("ack_member_check=false");
    for (sets, property, counts) in [
        (&foreign_ack[..], "ack_owner", (86_682, 94_828)),
        (&race[..], "legal_transitions", (122_611, 124_609)),
    ] {
        let (found, fused, full) = compare(sets);
        assert!(
            found.contains(&(property.to_string(), Status::Violated)),
            "{sets:?}: {found:?}"
        );
        assert_eq!((fused, full), counts, "{sets:?}");
    }
}

#[test]
fn fusing_keeps_the_verdicts_with_a_lost_message_too() {
    let (_, fused, full) = compare(&["records=1", "drops=1", "duplicates=1", "crashes=0"]);
    assert_eq!((fused, full), (26_740, 28_715));
}

#[test]
fn a_fused_edge_is_the_duplication_then_the_delivery_of_the_copy() {
    let sys = system(Scenario::share_basic(), SMALL);
    let init = sys.init_state();
    let mut actions = Vec::new();
    sys.enabled(&init, &mut actions);
    let mut fused_edges = 0;
    for action in &actions {
        let Action::Duplicate(env) = action else {
            continue;
        };
        assert!(fused(&init, env.as_ref()));
        let [dup, deliver] = fused_actions(env);
        assert_eq!(&dup, action);
        let copied = sys.step(&init, &dup);
        assert!(sys.is_enabled(&copied, &deliver));
        let next = duplicate_and_deliver(&sys, &init, env.as_ref());
        assert_eq!(next, sys.step(&copied, &deliver));
        // The copy was delivered; the original is still in flight (the late copy), and
        // the duplicate is spent.
        assert!(next.network.is_deliverable(env));
        assert_eq!(next.budget.duplicates, init.budget.duplicates - 1);
        fused_edges += 1;
    }
    // Both consumers' first ShareFetch.
    assert_eq!(fused_edges, 2);
    // A duplication towards a crashed actor waits for its restart: the share-partition
    // leader crashes, a consumer's request times out and is sent again to it while down.
    let sp = sys.topology.share_partition.unwrap();
    let down = sys.step(&init, &Action::Crash(sp));
    let mut actions = Vec::new();
    sys.enabled(&down, &mut actions);
    let retry = actions
        .iter()
        .find(|a| matches!(a, Action::Fire { .. }))
        .expect("a consumer's request timeout is due");
    let resent = sys.step(&down, retry);
    let mut actions = Vec::new();
    sys.enabled(&resent, &mut actions);
    let waiting: Vec<&Envelope> = actions
        .iter()
        .filter_map(|a| match a {
            Action::Duplicate(env) if env.dst == sp => Some(env),
            _ => None,
        })
        .collect();
    assert_eq!(waiting.len(), 1, "{actions:?}");
    assert!(!fused(&resent, waiting[0].as_ref()));
}

#[test]
fn scenarios_with_transactions_are_not_fused() {
    // `commit_after_fault` reads the fault flag a fused duplication sets later.
    let sys = system(Scenario::txn_basic(), &["partitions=1", "crashes=0"]);
    assert!(sys.scenario.budget.duplicates > 0);
    assert!(!fuses_duplicates(&sys));
    assert_eq!(
        dfs(&sys, true).unique_states,
        dfs(&sys, false).unique_states
    );
}

/// share-basic with its whole fault budget: a loss, a duplicated message, a crash of the
/// share-partition leader or the share coordinator, and a consumer that stalls past its
/// lock. Exhaustive at the count pinned below: every applicable property holds and
/// every twin is witnessed. This is share-basic's default budget; `check` and the matrix
/// reach the same verdicts breadth-first then depth-first (docs/designs.md, "share-basic").
#[test]
#[ignore = "about 6 minutes of one core in release, 1.7 GB: cargo test --release -p sharetxn-properties --test suite fused_duplicates:: -- --ignored"]
fn the_whole_fault_budget_holds_exhaustively() {
    let sys = system(Scenario::share_basic(), &[]);
    assert_eq!(sys.scenario.budget.duplicates, 1, "the default budget");
    assert!(fuses_duplicates(&sys));
    let report = dfs(&sys, true);
    assert_eq!(report.unique_states, 100_313_914);
    crate::common::assert_passes(&report, "share-basic");
    let witnessed = report
        .properties
        .iter()
        .filter(|p| p.status == Status::Witnessed)
        .count();
    assert_eq!(witnessed, 5, "every share-basic twin");
}
