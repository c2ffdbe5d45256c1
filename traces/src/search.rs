//! The shrinker's search: a bounded breadth-first search from the initial state for the
//! same outcome, through the exhaustive checker (the same `System::step`, the same
//! property table). ddmin can only remove actions, never reorder them or change what a
//! message carries; the search finds the shortest trace of the scenario outright, when the
//! scenario is small enough to search below the current length.
//!
//! A scenario the reduction could not lower (the run uses its faults) may still hold a
//! shorter trace in a smaller world: the search climbs a ladder of scenarios, each fault
//! budget, retry count and transaction count capped at `k` (`k + 1` transactions, and at
//! most `k` records of the share group, at least one) for `k` = 0, 1, 2, ..., up to the
//! scenario itself, and keeps the first rung that shows
//! the outcome in fewer steps. Small rungs are exhausted in moments.

use sharetxn_model::world::scenario::FaultBudget;
use sharetxn_model::{Action, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Status};

/// A trace shorter than `shorter_than` steps that shows `property` (a property's name, or
/// a twin's), the shortest there is, if breadth-first search finds one within
/// `max_states` states. The result does not depend on `threads`.
pub fn search(
    design: &Design,
    scenario: &Scenario,
    property: &str,
    shorter_than: usize,
    max_states: u64,
    threads: usize,
) -> Option<Vec<Action>> {
    if shorter_than <= 1 || max_states == 0 {
        return None;
    }
    let sys = System::new(design.clone(), scenario.clone());
    let report = check(
        &sys,
        CheckOptions {
            max_states,
            max_depth: Some(shorter_than as u64 - 1),
            threads: threads.max(1),
            focus: Some(property),
            ..CheckOptions::default()
        },
    );
    let found = report.property(property)?;
    let shows = matches!(found.status, Status::Violated | Status::Witnessed);
    (shows && !found.actions.is_empty() && found.actions.len() < shorter_than)
        .then(|| found.actions.clone())
}

/// The scenarios the search tries, smallest first, ending with `scenario` itself.
pub fn ladder(scenario: &Scenario) -> Vec<Scenario> {
    let mut rungs: Vec<Scenario> = Vec::new();
    for k in 0u8.. {
        let cap = |n: u8| n.min(k);
        let b = scenario.budget;
        let rung = Scenario {
            txns: scenario.txns.min(k.saturating_add(1)),
            // The share group's records are capped too (at least one is kept): a record
            // the run needs only for a detour multiplies the space at every rung.
            records: scenario.records.min(u16::from(k).max(1)),
            request_retries: cap(scenario.request_retries),
            marker_retries: scenario.marker_retries.map(cap),
            read_retries: cap(scenario.read_retries),
            budget: FaultBudget {
                drops: cap(b.drops),
                duplicates: cap(b.duplicates),
                crashes: cap(b.crashes),
                timeouts: cap(b.timeouts),
            },
            ..scenario.clone()
        };
        let last = rung == *scenario;
        if rungs.last() != Some(&rung) {
            rungs.push(rung);
        }
        if last {
            break;
        }
    }
    rungs
}

/// The first rung of [`ladder`] where [`search`] finds a trace shorter than
/// `shorter_than`, with that trace.
pub fn search_ladder(
    design: &Design,
    scenario: &Scenario,
    property: &str,
    shorter_than: usize,
    max_states: u64,
    threads: usize,
) -> Option<(Scenario, Vec<Action>)> {
    ladder(scenario).into_iter().find_map(|rung| {
        search(design, &rung, property, shorter_than, max_states, threads).map(|a| (rung, a))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ladder_climbs_from_no_faults_to_the_scenario() {
        let mut s = Scenario::ctp();
        s.txns = 3;
        s.budget.drops = 2;
        s.budget.timeouts = 1;
        let rungs = ladder(&s);
        assert_eq!(rungs.len(), 3, "{rungs:?}");
        assert_eq!(
            (
                rungs[0].txns,
                rungs[0].budget.drops,
                rungs[0].budget.timeouts
            ),
            (1, 0, 0)
        );
        assert_eq!(
            (
                rungs[1].txns,
                rungs[1].budget.drops,
                rungs[1].budget.timeouts
            ),
            (2, 1, 1)
        );
        assert_eq!(rungs[2], s);
    }

    #[test]
    fn the_ladder_narrows_the_share_group_to_one_record_first() {
        let mut s = Scenario::ctp();
        s.records = 3;
        s.txns = 4;
        let records: Vec<_> = ladder(&s).iter().map(|r| (r.records, r.txns)).collect();
        assert_eq!(records, vec![(1, 1), (1, 2), (2, 3), (3, 4)]);
        let mut plain = Scenario::txn_basic();
        plain.txns = 2;
        assert!(ladder(&plain).iter().all(|r| r.records == 0));
    }
}
