//! Helpers the suite shares: the text the pinned tests snapshot (the bounds, whether the
//! check was exhaustive, the state count and depth, each property's status with its trace
//! length), the system the partial-order reduction applies to, and the assertion that a
//! check passed.

use sharetxn_properties::{Report, Status};
use std::fmt::Write;

/// The pinned summary of `report`; `applicable_only` leaves out `not_applicable` rows.
pub fn summary(sets: &[&str], report: &Report, applicable_only: bool) -> String {
    let mut out = format!(
        "settings: {}\nexhaustive: {}\nunique_states: {}\nmax_depth: {}\n",
        sets.join(" "),
        report.exhaustive,
        report.unique_states,
        report.max_depth
    );
    for p in report
        .properties
        .iter()
        .filter(|p| !applicable_only || p.status != Status::NotApplicable)
    {
        writeln!(
            out,
            "{:<24} {:?} steps={}",
            p.name,
            p.status,
            p.actions.len()
        )
        .unwrap();
    }
    out
}

/// Breadth-first over the model's own transition function: the first value `probe` finds
/// in a reachable state, in breadth-first order (so the state of a shortest trace).
pub fn first_reached<T>(
    sys: &sharetxn_model::System,
    probe: impl Fn(&sharetxn_model::SystemState) -> Option<T>,
) -> Option<T> {
    use stateright::Model;
    let mut seen = std::collections::BTreeSet::new();
    let mut queue: std::collections::VecDeque<_> = sys.init_states().into();
    let mut actions = Vec::new();
    while let Some(state) = queue.pop_front() {
        if !seen.insert(sharetxn_model::world::shared::fixed_hash(&state)) {
            continue;
        }
        if let Some(found) = probe(&state) {
            return Some(found);
        }
        actions.clear();
        sys.actions(&state, &mut actions);
        for action in actions.drain(..) {
            if let Some(next) = sys.next_state(&state, action) {
                queue.push_back(next);
            }
        }
    }
    None
}

/// `proposed` on `ctp` with `records` records: where the partial-order reduction's
/// hand-written declarations apply.
pub fn proposed_ctp(records: u16) -> sharetxn_model::System {
    use sharetxn_model::{Design, Scenario, System};
    let scenario = Scenario {
        records,
        ..Scenario::ctp()
    };
    System::new(Design::proposed(), scenario)
}

/// Asserts that every property of `report` holds, is witnessed or does not apply (`what`
/// names the check in the message).
pub fn assert_passes(report: &Report, what: &str) {
    for p in &report.properties {
        assert!(
            matches!(
                p.status,
                Status::Holds | Status::Witnessed | Status::NotApplicable
            ),
            "{what}: {}: {:?}",
            p.name,
            p.status
        );
    }
}
