//! Where a violation becomes inevitable: the first step after which every run that comes
//! to rest violates the property. A counterexample's last step is where the violation
//! shows; the step a reviewer needs is often earlier (the marker that can no longer be
//! undone, the crash that loses the only copy). Each state along the trace is asked, from
//! the last backwards, whether some run from it reaches quiescence without ever passing a
//! violating state, faults included; the first state that has no such run is the point of
//! no return. The search from a state stops at the first escape, so asking a state that
//! can still avoid the violation is cheap; proving that one cannot explores every state
//! reachable from it, and a cap bounds that.

use crate::format::{Outcome, Trace};
use crate::walk;
use sharetxn_model::{System, SystemState};
use sharetxn_properties::{Kind, PropertyDef, View};
use std::collections::BTreeSet;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};

/// How many distinct states one search may explore before it gives up.
pub const DEFAULT_CAP: usize = 20_000;

/// The point of no return of a violation trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inevitable {
    /// The step (from 1) after which every run that comes to rest violates the property;
    /// 0 when it is so from the initial state.
    pub after_step: usize,
    /// Whether the step before it was shown to still have a way out (false: the search
    /// from it reached the cap, so the point of no return may be earlier).
    pub exact: bool,
}

/// The point of no return of `trace`'s violation, or `None` for a witness, a property
/// not in the table, or a trace whose last state the search cannot settle within `cap`.
pub fn inevitable(trace: &Trace, cap: usize) -> Result<Option<Inevitable>, String> {
    let Outcome::Violation { property, .. } = &trace.outcome else {
        return Ok(None);
    };
    let Some(def) = sharetxn_properties::property(property).filter(|d| d.name == *property) else {
        return Ok(None);
    };
    let sys = System::new(trace.design.clone(), trace.scenario.clone());
    let states = walk::states(&sys, &trace.actions())?;
    let mut known: Option<usize> = None;
    // states[k] is the state after step k; the last one violates.
    for k in (0..states.len().saturating_sub(1)).rev() {
        match escapes(&sys, def, &states[k], cap) {
            Some(true) => {
                return Ok(known.map(|after_step| Inevitable {
                    after_step,
                    exact: true,
                }))
            }
            Some(false) => known = Some(k),
            None => {
                return Ok(known.map(|after_step| Inevitable {
                    after_step,
                    exact: false,
                }))
            }
        }
    }
    Ok(known.map(|after_step| Inevitable {
        after_step,
        exact: true,
    }))
}

/// Whether the state violates the property as the checker judges it.
fn violates(sys: &System, def: &PropertyDef, state: &SystemState) -> bool {
    match def.kind {
        Kind::Always => (def.check)(&View::new(sys, state)).is_some(),
        Kind::Eventually => {
            sys.is_quiescent(state) && (def.check)(&View::new(sys, state)).is_some()
        }
        Kind::Sometimes => false,
    }
}

/// Whether some run from `start` comes to rest without a violating state (`None`: not
/// settled within `cap` states). Depth-first, so that a way out is found early.
fn escapes(sys: &System, def: &PropertyDef, start: &SystemState, cap: usize) -> Option<bool> {
    if violates(sys, def, start) {
        return Some(false);
    }
    // Fingerprints with a fixed hasher (no per-process seed): the same states are seen, in
    // the same order, on every run.
    let hasher = BuildHasherDefault::<DefaultHasher>::default();
    let mut seen: BTreeSet<u64> = BTreeSet::new();
    seen.insert(hasher.hash_one(start));
    let mut stack = vec![start.clone()];
    let mut actions = Vec::new();
    while let Some(state) = stack.pop() {
        if sys.is_quiescent(&state) {
            return Some(true);
        }
        actions.clear();
        sys.enabled(&state, &mut actions);
        for action in &actions {
            let next = sys.step(&state, action);
            if violates(sys, def, &next) || !seen.insert(hasher.hash_one(&next)) {
                continue;
            }
            if seen.len() > cap {
                return None;
            }
            stack.push(next);
        }
    }
    Some(false)
}
