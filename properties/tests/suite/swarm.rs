//! Swarm verification (`sharetxn_properties::swarm`): a search is a depth-first check in
//! the order its seed gives every state's successors. A complete search is an exhaustive
//! check (the same states and verdicts as the plain depth-first one); a capped one is a
//! pure function of its seed; different seeds take different paths; and a swarm of capped
//! searches finds what the exhaustive check finds.

use sharetxn_model::{Design, Scenario, System};
use sharetxn_properties::swarm::{search, Bounds, SearchLine, Summary};
use sharetxn_properties::{check, CheckOptions, Status, Strategy};

const CAP: Bounds = Bounds {
    max_states: 5_000,
    max_depth: None,
};

#[test]
fn a_complete_search_is_the_exhaustive_check_in_another_order() {
    let sys = System::new(Design::proposed(), Scenario::session());
    let dfs = check(
        &sys,
        CheckOptions {
            strategy: Strategy::Dfs,
            ..CheckOptions::default()
        },
    );
    for seed in [0, 1, 7] {
        let report = search(
            &sys,
            seed,
            Bounds {
                max_states: 1_000_000,
                max_depth: None,
            },
        );
        assert!(report.exhaustive, "search {seed} ends below its cap");
        assert_eq!(report.unique_states, dfs.unique_states, "search {seed}");
        let statuses = |r: &sharetxn_properties::Report| -> Vec<(String, Status)> {
            r.properties
                .iter()
                .map(|p| (p.name.clone(), p.status))
                .collect()
        };
        assert_eq!(statuses(&report), statuses(&dfs), "search {seed}");
        assert!(report.passed(), "search {seed}");
    }
}

#[test]
fn a_capped_search_is_a_function_of_its_seed_and_seeds_differ() {
    let sys = System::new(Design::seed(), Scenario::ctp());
    let line = |seed| SearchLine::of(seed, &search(&sys, seed, CAP));
    assert_eq!(line(3), line(3));
    let traces = |seed| {
        let report = search(&sys, seed, CAP);
        report
            .properties
            .iter()
            .map(|p| p.actions.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(traces(3), traces(3), "the same traces, step for step");
    assert!(
        (0..4).any(|seed| traces(seed) != traces(seed + 1)),
        "the seeds order the search differently"
    );
}

#[test]
fn a_swarm_of_capped_searches_finds_the_seeds_findings_on_ctp() {
    let sys = System::new(Design::seed(), Scenario::ctp());
    let mut summary = Summary::default();
    for seed in 0..8 {
        let report = search(&sys, seed, CAP);
        assert!(!report.exhaustive, "5,000 states is a fraction of ctp/seed");
        assert!(report.unique_states <= CAP.max_states + 64);
        summary.add(&SearchLine::of(seed, &report));
    }
    assert_eq!(summary.complete_search, None);
    for property in ["marker_match", "no_orphan_acks"] {
        assert!(
            summary.violated.contains_key(property),
            "{property}: {:?}",
            summary.violated.keys()
        );
    }
    assert!(!summary.passed());
}
