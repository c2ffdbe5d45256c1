//! The side table that gives the closed world's timeless state a clock. The model's state
//! has no ids for messages or timers, so the scheduler keys what it knows by value: each
//! copy of an envelope in flight (with multiplicity) has its arrival time and fate, each
//! armed timer its deadline, each offered client choice the time the client decides, each
//! crashed actor its restart time. After every step the table is brought in line with the
//! new state by diffing: what appeared is new, what vanished is gone, and what the step's
//! handler set again (`System::step_with_effects`) starts over.

use crate::faults::MessageFate;
use sharetxn_model::effects::StepEffects;
use sharetxn_model::msg::Timer;
use sharetxn_model::{Action, Envelope, SystemState};
use stateright::actor::Id;
use std::collections::BTreeMap;

/// One copy of a message in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InFlight {
    /// When it arrives (or is lost).
    pub ready_ms: u64,
    /// Creation order, to break ties in time deterministically.
    pub seq: u64,
    /// What becomes of it.
    pub fate: MessageFate,
}

/// A deadline or a decision time, with its creation order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Due {
    /// When.
    pub at_ms: u64,
    /// Creation order.
    pub seq: u64,
}

/// Everything scheduled.
#[derive(Clone, Debug, Default)]
pub struct Pending {
    /// Copies in flight per envelope, earliest first.
    pub messages: BTreeMap<Envelope, Vec<InFlight>>,
    /// Armed timers' deadlines.
    pub timers: BTreeMap<(Id, Timer), Due>,
    /// Offered choices: when the client decides.
    pub choices: BTreeMap<(Id, String), Due>,
    /// Crashed actors: when they restart.
    pub restarts: BTreeMap<Id, Due>,
    next_seq: u64,
}

/// What the diff needs from the scheduler for things that appeared.
pub trait Arrivals {
    /// The fate and arrival time of a message just sent.
    fn message(&mut self, env: &Envelope) -> (u64, MessageFate);
    /// The deadline of a timer just armed.
    fn timer(&mut self, actor: Id, timer: &Timer) -> u64;
    /// When a client decides a choice just offered.
    fn choice(&mut self, actor: Id) -> u64;
    /// When an actor found down restarts.
    fn restart(&mut self, actor: Id) -> u64;
}

impl Pending {
    /// A fresh creation number.
    pub fn seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    /// The copy of `env` that arrives first.
    pub fn first(&self, env: &Envelope) -> Option<&InFlight> {
        self.messages.get(env).and_then(|v| v.first())
    }

    /// Brings the table in line with `after`, the state `action` led to.
    pub fn sync(
        &mut self,
        after: &SystemState,
        action: Option<&Action>,
        effects: &StepEffects,
        arrivals: &mut dyn Arrivals,
    ) {
        self.sync_messages(after, action, arrivals);
        self.sync_timers(after, effects, arrivals);
        self.sync_choices(after, effects, arrivals);
        self.sync_restarts(after, arrivals);
    }

    fn sync_messages(
        &mut self,
        after: &SystemState,
        action: Option<&Action>,
        arrivals: &mut dyn Arrivals,
    ) {
        let mut counts: BTreeMap<Envelope, usize> = BTreeMap::new();
        for env in after.in_flight() {
            *counts.entry(env).or_default() += 1;
        }
        let taken = match action {
            Some(Action::Deliver(e) | Action::Drop(e)) => Some(e),
            _ => None,
        };
        self.messages.retain(|env, _| counts.contains_key(env));
        for (env, n) in counts {
            let copies = self.messages.entry(env.clone()).or_default();
            if copies.len() > n && taken == Some(&env) {
                // The copy that left is the one the scheduler chose: the first.
                copies.remove(0);
            }
            // Any other loss of copies is a crash: which copies go does not matter.
            copies.truncate(n);
            while copies.len() < n {
                let (ready_ms, fate) = arrivals.message(&env);
                self.next_seq += 1;
                copies.push(InFlight {
                    ready_ms,
                    seq: self.next_seq,
                    fate,
                });
            }
            copies.sort_by_key(|c| (c.ready_ms, c.seq));
        }
    }

    fn sync_timers(
        &mut self,
        after: &SystemState,
        effects: &StepEffects,
        arrivals: &mut dyn Arrivals,
    ) {
        let mut armed = BTreeMap::new();
        for (i, timers) in after.timers.iter().enumerate() {
            let id = Id::from(i);
            for timer in timers.iter() {
                let fresh = effects.actor == Some(id) && effects.timers.contains(timer);
                let due = match self.timers.get(&(id, *timer)) {
                    Some(due) if !fresh => *due,
                    _ => Due {
                        at_ms: arrivals.timer(id, timer),
                        seq: self.seq(),
                    },
                };
                armed.insert((id, *timer), due);
            }
        }
        self.timers = armed;
    }

    fn sync_choices(
        &mut self,
        after: &SystemState,
        effects: &StepEffects,
        arrivals: &mut dyn Arrivals,
    ) {
        let mut offered = BTreeMap::new();
        for (i, choices) in after.choices.iter().enumerate() {
            let id = Id::from(i);
            for key in choices.keys() {
                let fresh = effects.actor == Some(id) && effects.choices.contains(key);
                let due = match self.choices.get(&(id, key.clone())) {
                    Some(due) if !fresh => *due,
                    _ => Due {
                        at_ms: arrivals.choice(id),
                        seq: self.seq(),
                    },
                };
                offered.insert((id, key.clone()), due);
            }
        }
        self.choices = offered;
    }

    fn sync_restarts(&mut self, after: &SystemState, arrivals: &mut dyn Arrivals) {
        self.restarts.retain(|id, _| !after.is_up(*id));
        for (i, up) in after.up.iter().enumerate() {
            let id = Id::from(i);
            if !up && !self.restarts.contains_key(&id) {
                let at_ms = arrivals.restart(id);
                let seq = self.seq();
                self.restarts.insert(id, Due { at_ms, seq });
            }
        }
    }
}
