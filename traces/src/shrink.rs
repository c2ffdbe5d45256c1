//! Shrinking: delta debugging (Zeller's ddmin) over a trace's actions. A candidate is run
//! from the initial state, skipping every action that is not enabled at its turn, and
//! passes when the recorded outcome (the same property) shows; it is then cut at the
//! first state that shows it, so every candidate that passes is a real, runnable trace.
//! The search ends when no single action can be removed (1-minimal).

use crate::format::{Origin, Trace};
use crate::judge;
use crate::record;
use sharetxn_model::{Action, System};
use sharetxn_properties::PropertyDef;

/// A shrunk trace and what it took.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The shrunk trace, digested afresh, its origin marked as shrunk.
    pub trace: Trace,
    /// Steps before.
    pub before: usize,
    /// Steps after.
    pub after: usize,
    /// Candidates run.
    pub candidates: usize,
}

/// Runs candidates against one outcome.
struct Oracle<'a> {
    sys: System,
    def: &'static PropertyDef,
    trace: &'a Trace,
    runs: usize,
}

impl Oracle<'_> {
    /// The runnable part of `actions` up to the first state that shows the outcome, if
    /// one does.
    fn run(&mut self, actions: &[Action]) -> Option<Vec<Action>> {
        self.runs += 1;
        let outcome = &self.trace.outcome;
        let mut state = self.sys.init_state();
        let mut taken = Vec::new();
        if judge::shows(self.def, outcome, &self.sys, &state).is_some() {
            return Some(taken);
        }
        for action in actions {
            if !self.sys.is_enabled(&state, action) {
                continue;
            }
            state = self.sys.step(&state, action);
            taken.push(action.clone());
            if judge::shows(self.def, outcome, &self.sys, &state).is_some() {
                return Some(taken);
            }
        }
        None
    }
}

/// Shrinks `trace` to a 1-minimal trace with the same outcome.
pub fn shrink(trace: &Trace) -> Result<Shrunk, String> {
    let def = judge::definition(&trace.outcome)
        .ok_or_else(|| format!("unknown property '{}'", trace.outcome.property()))?;
    let mut oracle = Oracle {
        sys: System::new(trace.design.clone(), trace.scenario.clone()),
        def,
        trace,
        runs: 0,
    };
    // The input must run as recorded: skipping is for candidates, not for the evidence.
    crate::walk::states(&oracle.sys, &trace.actions())?;
    let Some(start) = oracle.run(&trace.actions()) else {
        return Err(format!(
            "{} does not show when the trace runs on the current model (replay it to see where it goes elsewhere)",
            trace.outcome.property()
        ));
    };
    let minimal = ddmin(&mut oracle, start);
    let sys = &oracle.sys;
    let state = crate::walk::states(sys, &minimal)?
        .pop()
        .ok_or("a run has at least its initial state")?;
    let outcome = match &trace.outcome {
        crate::format::Outcome::Violation { property, kind, .. } => {
            crate::format::Outcome::Violation {
                property: property.clone(),
                kind: *kind,
                message: (def.check)(sys, &state).unwrap_or_default(),
            }
        }
        witness => witness.clone(),
    };
    let origin = Origin::Shrunk {
        from_steps: trace.steps.len(),
        original: Box::new(match &trace.origin {
            // Shrinking twice keeps the engine's origin and the first length.
            Origin::Shrunk { original, .. } => (**original).clone(),
            other => other.clone(),
        }),
    };
    let times: Vec<Option<u64>> = Vec::new();
    let shrunk = record::record(sys, origin, outcome, &minimal, &times)?;
    Ok(Shrunk {
        before: trace.steps.len(),
        after: shrunk.steps.len(),
        candidates: oracle.runs,
        trace: shrunk,
    })
}

/// ddmin: try removing each of `n` chunks (the complement of each chunk); on success keep
/// the reduced run with one chunk fewer, otherwise split finer; at `n` = length every
/// single removal has failed, which is 1-minimality.
fn ddmin(oracle: &mut Oracle<'_>, mut current: Vec<Action>) -> Vec<Action> {
    let mut n = 2usize;
    while current.len() >= 2 {
        let len = current.len();
        let chunk = len.div_ceil(n);
        let mut reduced = None;
        for i in 0..n {
            let (lo, hi) = ((i * chunk).min(len), ((i + 1) * chunk).min(len));
            if lo == hi {
                continue;
            }
            let candidate: Vec<Action> = current[..lo]
                .iter()
                .chain(&current[hi..])
                .cloned()
                .collect();
            if let Some(run) = oracle.run(&candidate) {
                reduced = Some(run);
                break;
            }
        }
        match reduced {
            Some(run) => {
                current = run;
                n = n.saturating_sub(1).max(2);
            }
            None if n >= len => break,
            None => n = (n * 2).min(len),
        }
    }
    if current.len() == 1 && oracle.run(&[]).is_some() {
        current.clear();
    }
    current
}
