//! The partial-order reduction of depth-first search (`CheckOptions::partial_order`,
//! `sharetxn_properties::reduction_rule`): on ctp/proposed, where it applies, every
//! property and twin gets the same verdict with and without it, with fewer states, pinned
//! with both counts, at one record and at the default matrix's two; the same counts in
//! every run; and on every other pair of the default matrix it does not apply, and where
//! it does not it changes nothing.

use crate::common::proposed_ctp;
use sharetxn_model::design::DESIGN_NAMES;
use sharetxn_model::world::scenario::matrix_scenarios;
use sharetxn_model::{Design, Scenario, System};
use sharetxn_properties::reduction_rule::applies;
use sharetxn_properties::{check, CheckOptions, Report, Status, Strategy};

fn dfs(sys: &System, partial_order: bool) -> Report {
    let report = check(
        sys,
        CheckOptions {
            strategy: Strategy::Dfs,
            partial_order,
            ..CheckOptions::default()
        },
    );
    assert!(report.exhaustive);
    report
}

fn verdicts(report: &Report) -> Vec<(String, Status)> {
    let named = report.properties.iter();
    named.map(|p| (p.name.clone(), p.status)).collect()
}

#[test]
fn the_reduction_keeps_every_verdict_on_ctp() {
    let sys = proposed_ctp(1);
    assert!(applies(&sys));
    let reduced = dfs(&sys, true);
    let full = dfs(&sys, false);
    assert_eq!(verdicts(&reduced), verdicts(&full));
    assert!(verdicts(&full).iter().any(|(_, s)| *s == Status::Witnessed));
    assert_eq!(
        (reduced.unique_states, full.unique_states),
        (54_863, 126_848)
    );
    assert_eq!(dfs(&sys, true).unique_states, reduced.unique_states);
}

/// The default matrix's ctp/proposed, at two records: 3x fewer states, same verdicts.
#[test]
fn the_reduction_spares_3x_on_the_matrix_cell_it_applies_to() {
    let mut applied = Vec::new();
    for scenario in matrix_scenarios() {
        for design in DESIGN_NAMES {
            let scenario = Scenario::by_name(scenario).unwrap();
            let sys = System::new(Design::by_name(design).unwrap(), scenario);
            if applies(&sys) {
                applied.push((sys.design.name.clone(), sys.scenario.name.clone()));
                let reduced = dfs(&sys, true);
                let full = dfs(&sys, false);
                assert_eq!(verdicts(&reduced), verdicts(&full));
                assert_eq!(
                    (reduced.unique_states, full.unique_states),
                    (305_755, 945_516)
                );
                assert!(full.unique_states >= 3 * reduced.unique_states);
            }
        }
    }
    assert_eq!(applied, [("proposed".to_string(), "ctp".to_string())]);
}

#[test]
fn elsewhere_the_reduction_changes_nothing() {
    for (design, scenario) in [
        (Design::seed(), Scenario::ctp()),
        (Design::proposed(), Scenario::ctp_race()),
    ] {
        let sys = System::new(
            design,
            Scenario {
                records: 1,
                ..scenario
            },
        );
        assert!(!applies(&sys));
        let reduced = dfs(&sys, true);
        let full = dfs(&sys, false);
        assert_eq!(reduced.unique_states, full.unique_states);
        assert_eq!(verdicts(&reduced), verdicts(&full));
    }
}
