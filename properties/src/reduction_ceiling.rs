//! How many states a partial-order reduction could spare on this model, measured with an
//! exact and slow persistent-set search (`docs/checker.md`, "Why there is no partial-order
//! reduction yet"). It is a yardstick for a reduction to come, not one to use: it proves
//! each reduction it takes by exploring what it would skip.
//!
//! At a state `s` the candidate sets are, for each actor, the actions of that actor enabled
//! in `s` (deliveries to it, its timers and choices, its crash or restart). Such a set `E`
//! is taken alone, as the ample set, only if it passes the three conditions of a
//! persistent-set reduction, each checked on every state `t` reachable from `s` by the
//! other actors' actions (the actor's own moves left out), up to `CAP` states (beyond
//! that, the set is not taken):
//! - persistence: the actor's enabled actions in `t` are exactly `E` (the others neither
//!   give it a new event nor take one away), and each action of `E` commutes with each
//!   other action `b` enabled in `t` (`b` stays enabled after it, and both orders reach
//!   the same state);
//! - invisibility: no action of `E` changes, in any such `t`, whether any applicable
//!   property is violated or any twin witnessed there;
//! - the cycle proviso of depth-first search: no successor through `E` is on the current
//!   depth-first path, or else `s` is expanded in full (the state space has cycles: a
//!   marker is resent for as long as it is lost).
//!
//! A smaller set or one with a larger state space to prove is never taken in place of
//! full expansion wrongly: a set that cannot be proved is not taken. The bench prints both
//! state counts and whether every property and twin got the same verdict.
//!
//! `cargo bench -p sharetxn-properties --bench reduction_ceiling [-- RECORDS...]` prints
//! it for ctp/proposed at each number of records given (default 1; 2, the default bound,
//! takes minutes).

use crate::{View, PROPERTIES};
use sharetxn_model::world::fingerprint;
use sharetxn_model::{Action, System, SystemState};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

/// How many states the proof of one candidate set may explore.
pub const CAP: usize = 600;

/// The actor an action is an event of.
fn actor(a: &Action) -> usize {
    match a {
        Action::Deliver(e) | Action::Drop(e) | Action::Duplicate(e) => usize::from(e.dst),
        Action::Fire { actor, .. } | Action::Choose { actor, .. } => usize::from(*actor),
        Action::Crash(id) | Action::Restart(id) => usize::from(*id),
    }
}

fn enabled(sys: &System, s: &SystemState) -> Vec<Action> {
    let mut v = Vec::new();
    sys.enabled(s, &mut v);
    v
}

/// For each applicable property: whether `s` violates it, and whether it witnesses its
/// twin.
fn label(sys: &System, s: &SystemState) -> Vec<(bool, bool)> {
    let view = View::new(sys, s);
    PROPERTIES
        .iter()
        .filter(|p| (p.applies)(sys))
        .map(|p| ((p.check)(&view).is_some(), (p.witness)(&view)))
        .collect()
}

/// Whether `mine`, the actions of actor `a` enabled in `s`, passes persistence and
/// invisibility on every state the other actors reach from `s` (at most `CAP`).
fn provable(sys: &System, s: &SystemState, a: usize, mine: &[Action]) -> bool {
    let mut seen = BTreeSet::from([fingerprint::of(s)]);
    let mut stack = vec![s.clone()];
    while let Some(t) = stack.pop() {
        let all = enabled(sys, &t);
        let own: Vec<&Action> = all.iter().filter(|x| actor(x) == a).collect();
        if own.len() != mine.len() || !mine.iter().all(|m| own.contains(&m)) {
            return false;
        }
        let here = label(sys, &t);
        // Each action of the set taken here, with what is enabled after it.
        let after: Vec<(SystemState, Vec<Action>)> = mine
            .iter()
            .map(|m| sys.step(&t, m))
            .map(|u| {
                let e = enabled(sys, &u);
                (u, e)
            })
            .collect();
        if after.iter().any(|(u, _)| label(sys, u) != here) {
            return false;
        }
        for b in all.iter().filter(|x| actor(x) != a) {
            let tb = sys.step(&t, b);
            let at_tb = enabled(sys, &tb);
            if !mine.iter().all(|m| at_tb.contains(m)) {
                return false;
            }
            for (m, (tm, at_tm)) in mine.iter().zip(&after) {
                if !at_tm.contains(b) || sys.step(tm, b) != sys.step(&tb, m) {
                    return false;
                }
            }
            if seen.insert(fingerprint::of(&tb)) {
                if seen.len() > CAP {
                    return false;
                }
                stack.push(tb);
            }
        }
    }
    true
}

/// The smallest provable actor set of `s` with its actor, if any (ties: the lowest actor).
fn ample(sys: &System, s: &SystemState, all: &[Action]) -> Option<(usize, Vec<Action>)> {
    let actors: BTreeSet<usize> = all.iter().map(actor).collect();
    if actors.len() < 2 {
        return None;
    }
    let mut sets: Vec<(usize, Vec<Action>)> = actors
        .into_iter()
        .map(|a| (a, all.iter().filter(|x| actor(x) == a).cloned().collect()))
        .collect();
    sets.sort_by_key(|(a, m)| (m.len(), *a));
    sets.into_iter().find(|(a, m)| provable(sys, s, *a, m))
}

/// What one search saw.
#[derive(Debug)]
pub struct Seen {
    /// The distinct states reached.
    pub states: usize,
    /// How many states were expanded through an ample set alone, by actor name.
    pub reduced: BTreeMap<String, u64>,
    /// For each property that applies (in the table's order): whether a state reached
    /// violates it, and whether one witnesses its twin.
    pub verdicts: Vec<(bool, bool)>,
    /// Wall time.
    pub seconds: f64,
}

/// One state on the depth-first path, with the successors left to enter.
struct Frame {
    fp: u64,
    next: Vec<SystemState>,
}

/// A depth-first search of `sys`, with the reduction (`reduce`) or without.
pub fn search(sys: &System, reduce: bool) -> Seen {
    #[allow(clippy::disallowed_methods)] // wall time is reported, never used to explore
    let start = Instant::now();
    let mut seen = Seen {
        states: 0,
        reduced: BTreeMap::new(),
        verdicts: Vec::new(),
        seconds: 0.0,
    };
    let init = sys.init_state();
    let mut visited = BTreeSet::new();
    let mut path = BTreeSet::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut entering = Some(init);
    loop {
        if let Some(s) = entering.take() {
            let fp = fingerprint::of(&s);
            visited.insert(fp);
            path.insert(fp);
            let next = expand(sys, &s, reduce, &path, &mut seen);
            stack.push(Frame { fp, next });
        }
        let Some(top) = stack.last_mut() else { break };
        match top.next.pop() {
            Some(n) if !visited.contains(&fingerprint::of(&n)) => entering = Some(n),
            Some(_) => {}
            None => {
                path.remove(&top.fp);
                stack.pop();
            }
        }
    }
    seen.states = visited.len();
    seen.seconds = start.elapsed().as_secs_f64();
    seen
}

/// Judges `s` into `seen` and returns its successors to enter: through an ample set when
/// one is proved and none of its successors is on the depth-first `path` (the cycle
/// proviso), else through every enabled action.
fn expand(
    sys: &System,
    s: &SystemState,
    reduce: bool,
    path: &BTreeSet<u64>,
    seen: &mut Seen,
) -> Vec<SystemState> {
    let here = label(sys, s);
    seen.verdicts.resize(here.len(), (false, false));
    for (v, h) in seen.verdicts.iter_mut().zip(&here) {
        *v = (v.0 || h.0, v.1 || h.1);
    }
    let all = enabled(sys, s);
    if let Some((a, mine)) = reduce.then(|| ample(sys, s, &all)).flatten() {
        let next: Vec<SystemState> = mine.iter().map(|m| sys.step(s, m)).collect();
        if next.iter().all(|n| !path.contains(&fingerprint::of(n))) {
            *seen.reduced.entry(sys.topology.name(a.into())).or_insert(0) += 1;
            return next;
        }
    }
    all.iter().map(|x| sys.step(s, x)).collect()
}
