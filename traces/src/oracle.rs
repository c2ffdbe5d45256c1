//! The shrinker's one test of a candidate: run its actions from the initial state of one
//! design and scenario, skipping every action that is not enabled at its turn, and cut the
//! run at the first state that shows the outcome. Every pass of the shrinker (ddmin, the
//! scenario reduction, the search) asks this same question of the same model, so every
//! candidate that passes is a real, runnable trace.

use crate::format::Outcome;
use crate::judge;
use sharetxn_model::{Action, Design, Scenario, System};
use sharetxn_properties::PropertyDef;

/// What ddmin asks of a candidate: the runnable part of it up to the first state that
/// shows the outcome, if one does; by value, or with not-enabled actions carried by shape.
pub trait Test {
    /// Actions by value; one that is not enabled is skipped.
    fn run(&mut self, actions: &[Action]) -> Option<Vec<Action>>;
    /// One that is not enabled is replaced by an enabled action of the same shape.
    fn run_carried(&mut self, actions: &[Action]) -> Option<Vec<Action>>;
}

impl Test for Oracle<'_> {
    fn run(&mut self, actions: &[Action]) -> Option<Vec<Action>> {
        Oracle::run(self, actions)
    }

    fn run_carried(&mut self, actions: &[Action]) -> Option<Vec<Action>> {
        Oracle::run_carried(self, actions)
    }
}

/// Runs candidates against one outcome on one design and scenario.
pub struct Oracle<'a> {
    /// The model the candidates run on.
    pub sys: System,
    def: &'static PropertyDef,
    outcome: &'a Outcome,
    /// Candidates run so far.
    pub runs: usize,
}

impl<'a> Oracle<'a> {
    /// An oracle for `outcome` on `design` and `scenario`.
    pub fn new(
        design: &Design,
        scenario: &Scenario,
        def: &'static PropertyDef,
        outcome: &'a Outcome,
    ) -> Oracle<'a> {
        Oracle {
            sys: System::new(design.clone(), scenario.clone()),
            def,
            outcome,
            runs: 0,
        }
    }

    /// The runnable part of `actions` up to the first state that shows the outcome, if
    /// one does.
    pub fn run(&mut self, actions: &[Action]) -> Option<Vec<Action>> {
        self.runs += 1;
        let mut state = self.sys.init_state();
        let mut taken = Vec::new();
        if judge::shows(self.def, self.outcome, &self.sys, &state).is_some() {
            return Some(taken);
        }
        for action in actions {
            if !self.sys.is_enabled(&state, action) {
                continue;
            }
            state = self.sys.step(&state, action);
            taken.push(action.clone());
            if judge::shows(self.def, self.outcome, &self.sys, &state).is_some() {
                return Some(taken);
            }
        }
        None
    }

    /// [`Oracle::run`] for actions carried from another scenario: an action that is not
    /// enabled is replaced by the first enabled action of the same shape (the same kind,
    /// actors and message or timer name, see [`shape`]) when there is one. A message
    /// that names the scenario's sizes (the partitions a transaction adds, say) then still
    /// finds its counterpart. Whatever runs is an enabled action, so a run that passes is
    /// a real trace of this scenario.
    pub fn run_carried(&mut self, actions: &[Action]) -> Option<Vec<Action>> {
        self.runs += 1;
        let mut state = self.sys.init_state();
        let mut taken = Vec::new();
        if judge::shows(self.def, self.outcome, &self.sys, &state).is_some() {
            return Some(taken);
        }
        let mut enabled = Vec::new();
        for action in actions {
            let chosen = if self.sys.is_enabled(&state, action) {
                action.clone()
            } else {
                let wanted = shape(&self.sys, action);
                enabled.clear();
                self.sys.enabled(&state, &mut enabled);
                match enabled.iter().find(|a| shape(&self.sys, a) == wanted) {
                    Some(a) => a.clone(),
                    None => continue,
                }
            };
            state = self.sys.step(&state, &chosen);
            taken.push(chosen);
            if judge::shows(self.def, self.outcome, &self.sys, &state).is_some() {
                return Some(taken);
            }
        }
        None
    }
}

/// An action without its message's or timer's contents: its description up to the first
/// parenthesis (`Deliver P0->TC AddPartitionsToTxn`, `Fire TC MarkerRetry`).
pub fn shape(sys: &System, action: &Action) -> String {
    let text = sys.describe(action);
    match text.find('(') {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}
