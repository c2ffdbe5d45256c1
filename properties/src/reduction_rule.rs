//! The partial-order reduction a depth-first search can switch on
//! ([`crate::CheckOptions::partial_order`]): at a state, one actor's enabled actions taken
//! alone, where the hand-written declarations say, from the state and the set's own
//! steps, that the set is persistent, its steps commute with every other actor's, and none
//! may unset a label (`docs/checker.md`, "The reduction in the search"). The sizing
//! ([`crate::reduction_sizing::Rule::WrittenAll`]) and its graph checks use this very
//! function.
//!
//! - Persistent: no other actor may put a request on an empty connection into the actor
//!   before it acts ([`crate::reduction_written::requests_into`]), no answer can come but
//!   one owed to a request of its own (in flight, or awaited by one of its timers), and
//!   none of its timers may become due or stop being due
//!   ([`crate::reduction_written::timers_may_move`]).
//! - Commuting: [`crate::reduction_written::commutes`].
//! - Invisible: no step of the set may unset a label
//!   ([`crate::reduction_visible::may_unset`]).
//!
//! The search adds the cycle proviso: it takes a set only if every successor through it
//! is a state it has not seen.

use crate::reduction_graph::bit;
use crate::reduction_visible::may_unset;
use crate::reduction_written::{
    completes_commit, declared_commutes_by_steps, declared_commutes_in_state, declared_for,
    declared_requests_into, declared_timers_may_move,
};
use sharetxn_model::protocol::wait::Wait;
use sharetxn_model::world::action_ref::ActionRef;
use sharetxn_model::{Action, System, SystemState};
use stateright::actor::Id;

/// What the rule reads of one step of an actor's set.
#[derive(Clone, Copy, Debug, Default)]
pub struct Step {
    /// The connections it put a message on (bits of [`bit`]).
    pub sends: u128,
    /// Whether it completes a commit at the transaction coordinator.
    pub commits: bool,
    /// Whether it may unset a label.
    pub may_unset: bool,
    /// Whether it is a crash.
    pub crash: bool,
}

impl Step {
    /// The step of actor `a` from `s`, whose messages in flight are `in_flight`, to
    /// `next`; `crash` and `restart` say which fault it is, if one.
    pub fn of(
        sys: &System,
        (s, in_flight): (&SystemState, &Connections),
        next: &SystemState,
        a: usize,
        (crash, restart): (bool, bool),
    ) -> Step {
        Step {
            sends: in_flight.sent_by(next),
            commits: completes_commit(s, next, a),
            may_unset: may_unset(sys, s, next, a, crash || restart),
            crash,
        }
    }
}

/// How many messages each connection of a state holds (by the bit index of [`bit`]),
/// counted once per state for all its steps' [`Step::sends`].
pub struct Connections([u16; 128]);

impl Connections {
    /// The counts of `s`.
    pub fn of(s: &SystemState) -> Connections {
        let mut c = [0u16; 128];
        for e in s.network.iter() {
            let b = bit(e.src.into(), e.dst.into(), e.msg.response_error().is_some());
            c[b.trailing_zeros() as usize] += 1;
        }
        Connections(c)
    }

    /// The connections on which a step from the state counted to `next` put a message:
    /// those that hold more messages after it.
    pub fn sent_by(&self, next: &SystemState) -> u128 {
        let after = Connections::of(next).0;
        (0..128).fold(0, |b, i| if after[i] > self.0[i] { b | 1 << i } else { b })
    }
}

/// Whether the rule may apply to `sys` at all: where the hand-written declarations do
/// (`reduction_written::declared_for`), with no drop, duplicate or early timeout in the
/// budget.
pub fn applies(sys: &System) -> bool {
    let b = &sys.scenario.budget;
    declared_for(sys) && b.drops == 0 && b.duplicates == 0 && b.timeouts == 0
}

/// Whether a search may expand `s` through actor `a`'s enabled actions alone, whose
/// steps are `steps` (at least one of them not a crash). Only where the rule
/// [`applies`], which the caller decides once for the whole search: comparing the
/// scenario with `ctp` for every set would build one each time. It is [`state_allows`]
/// and [`steps_allow`], which a search may ask in turn, computing the steps only for a
/// set the state allows.
pub fn takes(sys: &System, s: &SystemState, a: usize, steps: &[Step]) -> bool {
    state_allows(sys, s, a) && steps_allow(sys, s, a, steps)
}

/// What [`takes`] asks of the state alone: none of `a`'s timers may move, no other actor
/// may put a message into `a` before it acts, and `a` may not crash and no timer of
/// another actor that may move awaits it (`reduction_written::commutes`).
pub fn state_allows(sys: &System, s: &SystemState, a: usize) -> bool {
    !declared_timers_may_move(sys, s, a)
        && quiet(sys, s, a)
        && declared_commutes_in_state(sys, s, a)
}

/// What [`takes`] asks of the set's steps: one is not a crash, none may unset a label, and
/// what they send and commit commutes (`reduction_written::commutes`).
pub fn steps_allow(sys: &System, s: &SystemState, a: usize, steps: &[Step]) -> bool {
    if !steps.iter().any(|st| !st.crash) || steps.iter().any(|st| st.may_unset) {
        return false;
    }
    let sends = steps.iter().fold(0, |b, st| b | st.sends);
    let commits = steps.iter().any(|st| st.commits);
    declared_commutes_by_steps(sys, s, a, (sends, commits))
}

/// Whether no other actor may put a message on an empty connection into `a` before it
/// acts: a request only where the declarations say it may, an answer only where `a`
/// owes one (its request to the sender in flight, or awaited by one of its timers).
fn quiet(sys: &System, s: &SystemState, a: usize) -> bool {
    let held = held(s);
    let declared = declared_requests_into(sys, s, a);
    let awaited = awaited(sys, s, a);
    (0..sys.actors.len()).filter(|x| *x != a).all(|x| {
        let request = bit(x, a, false);
        let answer = bit(x, a, true);
        let owed = held & bit(a, x, false) != 0 || awaited & (1 << x) != 0;
        (declared & request == 0 || held & request != 0) && (!owed || held & answer != 0)
    })
}

/// The connections that hold a message in `s` (bits of [`bit`]).
pub fn held(s: &SystemState) -> u128 {
    s.network.iter().fold(0, |b, e| {
        b | bit(e.src.into(), e.dst.into(), e.msg.response_error().is_some())
    })
}

/// The peers whose answer `a`'s armed timers await (bits by actor).
pub fn awaited(sys: &System, s: &SystemState, a: usize) -> u8 {
    let mut out = 0;
    for t in s.timers[a].iter() {
        peers(&sys.actors[a].wait(s.node(Id::from(a)), t), &mut out);
    }
    out
}

/// The peers a wait awaits an answer from, into `out` (bits by actor).
fn peers(wait: &Wait, out: &mut u8) {
    match wait {
        Wait::Reply(r) => *out |= 1 << usize::from(r.peer),
        Wait::Any(ws) => ws.iter().for_each(|w| peers(w, out)),
        Wait::Client { .. } | Wait::Always | Wait::Never | Wait::Acquisition { .. } => {}
    }
}

/// The actor an action is an event of, and whether it is a crash and whether a restart.
pub fn event_of(action: &ActionRef<'_>) -> (usize, (bool, bool)) {
    match action {
        Action::Deliver(e) | Action::Drop(e) | Action::Duplicate(e) => {
            (e.dst.into(), (false, false))
        }
        Action::Fire { actor, .. } | Action::Choose { actor, .. } => {
            ((*actor).into(), (false, false))
        }
        Action::Crash(id) => ((*id).into(), (true, false)),
        Action::Restart(id) => ((*id).into(), (false, true)),
    }
}
