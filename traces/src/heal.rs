//! Verdicts of the simulator's heal phase, which no property of the table gives: after the
//! faults stop, the run must become quiescent within a virtual deadline
//! ([`HEAL_DEADLINE`]). A trace of such a verdict records where the heal began
//! ([`Heal`]), and the model alone can confirm it in one of two ways:
//!
//! - **a cycle**: the heal phase returns to a state it was already in, through progress
//!   actions only (no loss, duplicate, crash or early timeout), and every progress action
//!   enabled anywhere on that stretch is taken in it. A fair run can then repeat it for
//!   ever and never become quiescent, so no deadline is met: a lasso, the usual shape of a
//!   liveness counterexample. This needs no virtual time, so it survives shrinking;
//! - **late**: without a cycle, the simulator's recorded times are the evidence: the run is
//!   still not quiescent at its last step, and the next action was due past the deadline.
//!   A shorter run has no honest timing, so such a trace is replayed but not shrunk.

use crate::ddmin::{ddmin, Matching};
use crate::format::{Heal, Origin, Outcome, Trace};
use crate::oracle::{shape, Test};
use crate::walk;
use sharetxn_model::{Action, System, SystemState};
use std::collections::{BTreeMap, BTreeSet};

/// The name the simulator gives a run that was not quiescent within the heal deadline
/// (`sharetxn_sim::HEAL_DEADLINE`; a simulator test checks that the two agree).
pub const HEAL_DEADLINE: &str = "heal_deadline";

/// Whether `outcome` is a heal-phase verdict.
pub fn is_heal(outcome: &Outcome) -> bool {
    matches!(outcome, Outcome::Violation { property, .. } if property == HEAL_DEADLINE)
}

/// What the loader checks of the heal record: a heal-phase verdict has one, inside the
/// trace; nothing else has one.
pub fn validate(trace: &Trace) -> Result<(), String> {
    match (is_heal(&trace.outcome), &trace.heal) {
        (true, None) => Err(format!(
            "a {HEAL_DEADLINE} trace must record where the heal began (\"heal\"); run the simulator's reproduce command again to write one"
        )),
        (false, Some(_)) => Err(format!(
            "only a {HEAL_DEADLINE} trace records a heal point, not one of {}",
            trace.outcome.property()
        )),
        (true, Some(h)) if h.after_step > trace.steps.len() => Err(format!(
            "the heal begins after step {} but the trace has {} steps",
            h.after_step,
            trace.steps.len()
        )),
        _ => Ok(()),
    }
}

/// Whether `action`, taken in `state`, is a fault: not one of the progress actions a fair
/// run must take (`System::enabled_progress`).
pub fn is_fault(sys: &System, state: &SystemState, action: &Action) -> bool {
    let mut progress = Vec::new();
    sys.enabled_progress(state, &mut progress);
    !progress.contains(action)
}

/// Whether the stretch from state `from` to the last state, which equals it, is fair:
/// every progress action enabled in one of its states is taken in it.
fn fair(sys: &System, states: &[SystemState], actions: &[Action], from: usize) -> bool {
    let to = states.len() - 1;
    let taken: BTreeSet<&Action> = actions[from..to].iter().collect();
    let mut enabled = Vec::new();
    states[from..to].iter().all(|state| {
        enabled.clear();
        sys.enabled_progress(state, &mut enabled);
        enabled.iter().all(|a| taken.contains(a))
    })
}

/// The state index the last state repeats (the latest one at or after `after`, so the
/// shortest stretch), when the stretch between them is a fair cycle of progress actions.
/// `states` has one more entry than `actions`.
fn cycle(sys: &System, states: &[SystemState], actions: &[Action], after: usize) -> Option<usize> {
    let last = states.len().checked_sub(1)?;
    (after..last)
        .rev()
        .find(|&from| states[from] == states[last] && fair(sys, states, actions, from))
}

/// Why the heal-phase verdict of `trace` shows again, from `states` (every state of its
/// replay), or why it does not.
pub fn confirm(sys: &System, trace: &Trace, states: &[SystemState]) -> Result<String, String> {
    let heal = trace
        .heal
        .as_ref()
        .ok_or("the trace records no heal point")?;
    let actions = trace.actions();
    if states.len() != actions.len() + 1 {
        return Err("the run stopped before its last step".into());
    }
    let after = heal.after_step;
    if let Some(i) = (after..actions.len()).find(|&i| is_fault(sys, &states[i], &actions[i])) {
        return Err(format!(
            "step {} is a fault in the heal phase (which began after step {after}): {}",
            i + 1,
            sys.describe(&actions[i])
        ));
    }
    if states.last().is_some_and(|s| sys.is_quiescent(s)) {
        return Err("the run is quiescent at its last step".into());
    }
    if let Some(from) = cycle(sys, states, &actions, after) {
        return Ok(format!(
            "steps {}..{} of the heal phase (which began after step {after}) return to the state after step {from}, by progress actions only, every one they enable taken: a fair run repeats them for ever and is never quiescent, so no deadline ({} ms) is met",
            from + 1,
            actions.len(),
            heal.deadline_ms
        ));
    }
    late(trace, heal).map_err(|why| format!("no cycle in the heal phase, and {why}"))
}

/// The confirmation by the recorded virtual times: the run is not quiescent at its last
/// step (checked by the caller), and the next action was due past the deadline.
fn late(trace: &Trace, heal: &Heal) -> Result<String, String> {
    let (Some(at), Some(due)) = (heal.at_ms, heal.next_due_ms) else {
        return Err("no recorded virtual time says the deadline passed".into());
    };
    let deadline = at.saturating_add(heal.deadline_ms);
    let times: Vec<Option<u64>> = trace.steps.iter().map(|s| s.time_ms).collect();
    let ordered = times.iter().all(Option::is_some)
        && times.windows(2).all(|w| w[0] <= w[1])
        && times[heal.after_step..].iter().all(|t| *t >= Some(at))
        && times.last().is_none_or(|t| *t <= Some(due));
    if !ordered {
        return Err("the recorded virtual times are missing or out of order".into());
    }
    if due <= deadline {
        return Err(format!(
            "the next action was due at {due}ms, within the deadline ({deadline}ms)"
        ));
    }
    Ok(format!(
        "not quiescent {}ms after the heal began at {at}ms: still not quiescent at the last step, and the next action was due at {due}ms (the simulator's recorded virtual times)",
        heal.deadline_ms
    ))
}

/// The shrinker's test for a heal-phase verdict: a candidate shows it when, after its last
/// fault, it reaches a fair cycle of progress actions (see [`confirm`]); the run is cut at
/// the first state that closes one.
pub struct HealOracle {
    /// The model the candidates run on.
    pub sys: System,
    /// Candidates run so far.
    pub runs: usize,
}

/// A run that shows the verdict: its actions, and how many of them come before the heal
/// (up to and including the last fault).
pub struct HealRun {
    /// The actions taken.
    pub actions: Vec<Action>,
    /// The heal point: the steps up to and including the last fault.
    pub after_step: usize,
}

impl HealOracle {
    /// The run of `actions` (not-enabled ones skipped; with `carried`, replaced by an
    /// enabled action of the same shape), cut at the first fair cycle after the last fault.
    pub fn run_heal(&mut self, actions: &[Action], carried: bool) -> Option<HealRun> {
        self.runs += 1;
        let sys = &self.sys;
        let mut states = vec![sys.init_state()];
        let mut taken: Vec<Action> = Vec::new();
        let mut seen: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
        seen.entry(key(&states[0])).or_default().push(0);
        let mut after_step = 0;
        let mut enabled = Vec::new();
        for action in actions {
            let state = states.last().expect("the initial state");
            let chosen = if sys.is_enabled(state, action) {
                action.clone()
            } else if carried {
                let wanted = shape(sys, action);
                enabled.clear();
                sys.enabled(state, &mut enabled);
                match enabled.iter().find(|a| shape(sys, a) == wanted) {
                    Some(a) => a.clone(),
                    None => continue,
                }
            } else {
                continue;
            };
            let fault = is_fault(sys, state, &chosen);
            let next = sys.step(state, &chosen);
            taken.push(chosen);
            states.push(next);
            let now = states.len() - 1;
            if fault {
                after_step = taken.len();
            } else {
                let k = key(&states[now]);
                let earlier = seen.get(&k).cloned().unwrap_or_default();
                let closes = earlier.iter().rev().any(|&from| {
                    from >= after_step
                        && states[from] == states[now]
                        && fair(sys, &states, &taken, from)
                });
                if closes {
                    return Some(HealRun {
                        actions: taken,
                        after_step,
                    });
                }
            }
            seen.entry(key(&states[now])).or_default().push(now);
        }
        None
    }
}

/// A lookup key for a state (equality is checked on the states themselves).
fn key(state: &SystemState) -> u64 {
    sharetxn_model::world::shared::fixed_hash(state)
}

impl Test for HealOracle {
    fn run(&mut self, actions: &[Action]) -> Option<Vec<Action>> {
        self.run_heal(actions, false).map(|r| r.actions)
    }

    fn run_carried(&mut self, actions: &[Action]) -> Option<Vec<Action>> {
        self.run_heal(actions, true).map(|r| r.actions)
    }
}

/// A heal-phase trace shrunk: cut at its first fair cycle, then ddmin (by shape, then
/// exactly) while a fair cycle still follows the last fault. The heal point of the result
/// is its last fault, the earliest point from which the rest is fault-free; its times are
/// dropped, since the cycle needs none. Returns the trace and the candidates run.
pub fn shrink(trace: &Trace) -> Result<(Trace, usize), String> {
    let sys = System::new(trace.design.clone(), trace.scenario.clone());
    let states = walk::states(&sys, &trace.actions())?;
    let heal = trace
        .heal
        .as_ref()
        .ok_or("the trace records no heal point")?;
    let why = confirm(&sys, trace, &states)
        .map_err(|why| format!("{HEAL_DEADLINE} does not show on the current model: {why}"))?;
    if cycle(&sys, &states, &trace.actions(), heal.after_step).is_none() {
        return Err(format!(
            "{HEAL_DEADLINE} shows here by the simulator's virtual times alone ({why}); a shorter run has no honest timing, so it is not shrunk"
        ));
    }
    let mut oracle = HealOracle { sys, runs: 0 };
    let start = oracle
        .run(&trace.actions())
        .ok_or("the heal phase's cycle does not close when run from the start")?;
    let loose = ddmin(&mut oracle, start, Matching::Shape);
    let exact = ddmin(&mut oracle, loose, Matching::Exact);
    let run = oracle
        .run_heal(&exact, false)
        .ok_or("the shrunk run no longer closes a cycle")?;
    let origin = Origin::Shrunk {
        from_steps: trace.steps.len(),
        original: Box::new(match &trace.origin {
            Origin::Shrunk { original, .. } => (**original).clone(),
            other => other.clone(),
        }),
    };
    let shrunk_heal = Heal {
        after_step: run.after_step,
        at_ms: None,
        deadline_ms: heal.deadline_ms,
        next_due_ms: None,
    };
    let mut shrunk = crate::record::record(
        &oracle.sys,
        origin,
        trace.outcome.clone(),
        &run.actions,
        &[],
    )?;
    shrunk.heal = Some(shrunk_heal);
    let states = walk::states(&oracle.sys, &run.actions)?;
    let message = confirm(&oracle.sys, &shrunk, &states)?;
    if let Outcome::Violation { message: m, .. } = &mut shrunk.outcome {
        *m = format!("not quiescent after the heal: {message}");
    }
    Ok((shrunk, oracle.runs))
}
