//! The shrinker's search: a bounded breadth-first search from the initial state for the
//! same outcome, through the exhaustive checker (the same `System::step`, the same
//! property table). ddmin can only remove actions, never reorder them or change what a
//! message carries; the search finds the shortest trace of the scenario outright, when the
//! scenario is small enough to search below the current length.

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
