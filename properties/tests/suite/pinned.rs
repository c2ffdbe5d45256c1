//! Unique state counts and outcomes pinned with insta: a change to the model shows up as a
//! reviewed diff of these numbers.

use crate::common;
use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Strategy};

fn summary(sets: &[&str], strategy: Strategy, threads: usize) -> String {
    let mut design = Design::consumer_offsets();
    let mut scenario = Scenario::txn_basic();
    for s in sets {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    let report = check(
        &System::new(design, scenario),
        CheckOptions {
            strategy,
            threads,
            ..Default::default()
        },
    );
    // Share-group rows are not applicable here; leaving them out keeps these pins as they
    // were before share groups.
    common::summary(sets, &report, true)
}

// These pins were measured before txn-basic's default became `request_retries=0`; they name
// the resend bound so that they keep pinning the same spaces.
const NO_FAULTS: &[&str] = &[
    "partitions=2",
    "request_retries=1",
    "drops=0",
    "duplicates=0",
    "crashes=0",
    "timeouts=0",
];

#[test]
fn no_faults_two_partitions() {
    insta::assert_snapshot!(summary(NO_FAULTS, Strategy::Bfs, 1));
}

#[test]
fn one_lost_message_one_partition() {
    let sets = [
        "partitions=1",
        "request_retries=1",
        "drops=1",
        "duplicates=0",
        "crashes=0",
        "timeouts=0",
    ];
    insta::assert_snapshot!(summary(&sets, Strategy::Bfs, 1));
}

#[test]
fn coordinator_failover_one_partition() {
    let sets = [
        "partitions=1",
        "request_retries=1",
        "inputs=1",
        "txns=1",
        "drops=0",
        "duplicates=0",
        "crashes=1",
        "timeouts=0",
        "crashable=txn-coordinator",
    ];
    insta::assert_snapshot!(summary(&sets, Strategy::Bfs, 1));
}

#[test]
fn threads_and_strategies_agree_on_the_state_space() {
    let one = summary(NO_FAULTS, Strategy::Bfs, 1);
    assert_eq!(
        one,
        summary(NO_FAULTS, Strategy::Bfs, 2),
        "BFS results must not depend on threads"
    );
    let dfs = summary(NO_FAULTS, Strategy::Dfs, 1);
    let count = |s: &str| {
        s.lines()
            .find(|l| l.starts_with("unique_states"))
            .unwrap()
            .to_string()
    };
    assert_eq!(count(&one), count(&dfs));
}

#[test]
fn switching_from_bfs_to_dfs_keeps_the_state_space_and_the_verdicts() {
    let mut scenario = Scenario::txn_basic();
    scenario.partitions = 2;
    scenario.request_retries = 1;
    scenario.budget.drops = 0;
    scenario.budget.duplicates = 0;
    scenario.budget.crashes = 0;
    let sys = System::new(Design::consumer_offsets(), scenario);
    let run = |limit: usize| {
        check(
            &sys,
            CheckOptions {
                threads: 1,
                bfs_frontier_limit: limit,
                ..CheckOptions::default()
            },
        )
    };
    let bfs = run(usize::MAX);
    let hybrid = run(50);
    assert_eq!(bfs.strategy, "bfs");
    assert_eq!(hybrid.strategy, "bfs-then-dfs");
    assert!(hybrid.exhaustive);
    assert_eq!(bfs.unique_states, hybrid.unique_states);
    let verdicts = |r: &sharetxn_properties::report::Report| {
        r.properties
            .iter()
            .map(|p| (p.name.clone(), p.status))
            .collect::<Vec<_>>()
    };
    assert_eq!(verdicts(&bfs), verdicts(&hybrid));
}
