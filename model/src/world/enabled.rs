//! Which actions the closed world enables in a state: progress (deliveries, due timers,
//! client choices, restarts, declared failovers) and faults (loss, duplication, crashes,
//! early timeouts) within the scenario's budget. One rule for every engine: the checkers
//! list these, the simulator schedules them, replay asks whether a recorded one still is.

use crate::world::action_ref::ActionRef;
use crate::world::network::Deliverable;
use crate::world::record::Record;
use crate::world::state::{Action, SystemState};
use crate::world::system::System;
use stateright::actor::Id;

impl<H: Record> System<H> {
    /// Every action enabled in `state`, in a deterministic order: progress first, then
    /// faults.
    pub fn enabled(&self, state: &SystemState<H>, actions: &mut Vec<Action>) {
        self.each_enabled(state, |a| actions.push(a.to_owned()));
    }

    /// [`System::enabled`], each action borrowed from `state` and given to `f` in the same
    /// order: a search steps them without copying a message.
    pub fn each_enabled<'a>(&self, state: &'a SystemState<H>, mut f: impl FnMut(ActionRef<'a>)) {
        let mut deliverable = Deliverable::new();
        state.network.deliverable_refs(&mut deliverable);
        self.progress(state, &deliverable, &mut f);
        self.faults(state, &deliverable, &mut f);
    }

    /// The actions a fair run must eventually take while they stay enabled: deliveries,
    /// timeouts that are due (what they wait for was lost), client choices, restarts.
    pub fn enabled_progress(&self, state: &SystemState<H>, actions: &mut Vec<Action>) {
        let mut deliverable = Deliverable::new();
        state.network.deliverable_refs(&mut deliverable);
        self.progress(state, &deliverable, &mut |a| actions.push(a.to_owned()));
    }

    /// [`System::enabled_progress`] given `state`'s deliverable messages.
    fn progress<'a>(
        &self,
        state: &'a SystemState<H>,
        deliverable: &Deliverable<'a>,
        f: &mut impl FnMut(ActionRef<'a>),
    ) {
        for env in deliverable {
            if state.is_up(env.dst) {
                f(ActionRef::Deliver(*env));
            }
        }
        for (i, timers) in state.timers.iter().enumerate() {
            for timer in timers.iter() {
                if self.timer_is_due(state, Id::from(i), timer) {
                    f(ActionRef::Fire {
                        actor: Id::from(i),
                        timer: *timer,
                    });
                }
            }
        }
        for (i, choices) in state.choices.iter().enumerate() {
            for options in choices.values() {
                for choice in options {
                    f(ActionRef::Choose {
                        actor: Id::from(i),
                        choice: *choice,
                    });
                }
            }
        }
        for (i, up) in state.up.iter().enumerate() {
            if !up {
                f(ActionRef::Restart(Id::from(i)));
            }
        }
        for i in 0..self.actors.len() {
            if self.fails_over(state, Id::from(i)) {
                f(ActionRef::Crash(Id::from(i)));
            }
        }
    }

    /// The fault actions enabled in `state` (loss, duplication, crash, early timeout),
    /// given its deliverable messages: a run may stop taking them at any time, so liveness
    /// is judged without them.
    fn faults<'a>(
        &self,
        state: &'a SystemState<H>,
        deliverable: &Deliverable<'a>,
        f: &mut impl FnMut(ActionRef<'a>),
    ) {
        if state.budget.drops > 0 {
            deliverable.iter().for_each(|e| f(ActionRef::Drop(*e)));
        }
        if state.budget.duplicates > 0 {
            for env in deliverable {
                if self.is_client_request(*env) {
                    f(ActionRef::Duplicate(*env));
                }
            }
        }
        if state.budget.timeouts > 0 {
            for (i, timers) in state.timers.iter().enumerate() {
                for timer in timers.iter() {
                    if !self.timer_is_due(state, Id::from(i), timer) {
                        f(ActionRef::Fire {
                            actor: Id::from(i),
                            timer: *timer,
                        });
                    }
                }
            }
        }
        if state.budget.crashes > 0 {
            for (i, up) in state.up.iter().enumerate() {
                let id = Id::from(i);
                if *up && self.scenario.can_crash(self.topology.role(id)) {
                    f(ActionRef::Crash(id));
                }
            }
        }
    }

    /// Whether `action` is enabled in `state`.
    pub fn is_enabled(&self, state: &SystemState<H>, action: &Action) -> bool {
        match action {
            Action::Deliver(env) => state.network.is_deliverable(env) && state.is_up(env.dst),
            Action::Drop(env) => state.budget.drops > 0 && state.network.is_deliverable(env),
            Action::Duplicate(env) => {
                state.budget.duplicates > 0
                    && state.network.is_deliverable(env)
                    && self.is_client_request(env.as_ref())
            }
            Action::Fire { actor, timer } => {
                state
                    .timers
                    .get(usize::from(*actor))
                    .is_some_and(|t| t.contains(timer))
                    && (state.budget.timeouts > 0 || self.timer_is_due(state, *actor, timer))
            }
            Action::Crash(id) => {
                (usize::from(*id) < state.up.len()
                    && state.budget.crashes > 0
                    && state.is_up(*id)
                    && self.scenario.can_crash(self.topology.role(*id)))
                    || (usize::from(*id) < state.up.len() && self.fails_over(state, *id))
            }
            Action::Restart(id) => usize::from(*id) < state.up.len() && !state.is_up(*id),
            Action::Choose { actor, choice } => state
                .choices
                .get(usize::from(*actor))
                .is_some_and(|c| c.values().any(|o| o.contains(choice))),
        }
    }
}
