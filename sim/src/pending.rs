//! The side table that gives the closed world's timeless state a clock. The model's state
//! has no ids for messages or timers, so the scheduler keys what it knows by value: each
//! copy of an envelope in flight (with multiplicity) has its arrival time and fate, each
//! armed timer its deadline, each offered client choice the time the client decides, each
//! crashed actor its restart time. After every step the table is brought in line with the
//! new state by diffing: what appeared is new, what vanished is gone, and what the step's
//! handler set again (`System::step_with_effects_into`) starts over.

use crate::faults::MessageFate;
use sharetxn_model::protocol::msg::Msg;
use sharetxn_model::protocol::msg::Timer;
use sharetxn_model::world::effects::StepEffects;
use sharetxn_model::world::network::{Channel, Network};
use sharetxn_model::world::shared::Shared;
use sharetxn_model::{Action, Envelope, SystemState};
use stateright::actor::Id;
use std::collections::btree_map::Entry;
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
    /// Armed timers' deadlines, by actor: a step re-syncs one actor's timers.
    pub timers: BTreeMap<Id, BTreeMap<Timer, Due>>,
    /// Offered choices: when the client decides.
    pub choices: BTreeMap<(Id, String), Due>,
    /// Crashed actors: when they restart.
    pub restarts: BTreeMap<Id, Due>,
    next_seq: u64,
    /// The last step's changes to the network, kept for the vector's memory.
    delta: Vec<(Envelope, i64)>,
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
        fresh_seq(&mut self.next_seq)
    }

    /// The copy of `env` that arrives first.
    pub fn first(&self, env: &Envelope) -> Option<&InFlight> {
        self.messages.get(env).and_then(|v| v.first())
    }

    /// Brings the table in line with `after`, the state `action` led to from `before`
    /// (`None`: `after` is the initial state and the table is empty).
    ///
    /// Only what the step changed is looked at: a connection queue, an actor's timers or
    /// its choices that `after` shares with `before` (the model copies on write, see
    /// `sharetxn_model::world::shared::Shared`) are what the table already holds. What changed is
    /// visited in the order a whole rebuild would visit it (envelopes in order, then
    /// actors in order), so new entries draw the same latencies, fates and sequence
    /// numbers as if the table were rebuilt from `after` alone.
    pub fn sync(
        &mut self,
        before: Option<&SystemState>,
        after: &SystemState,
        action: Option<&Action>,
        effects: &StepEffects,
        arrivals: &mut dyn Arrivals,
    ) {
        self.sync_messages(before, after, action, arrivals);
        self.sync_timers(before, after, effects, arrivals);
        self.sync_choices(before, after, effects, arrivals);
        self.sync_restarts(after, arrivals);
    }

    fn sync_messages(
        &mut self,
        before: Option<&SystemState>,
        after: &SystemState,
        action: Option<&Action>,
        arrivals: &mut dyn Arrivals,
    ) {
        let empty = Network::default();
        let before = before.map_or(&empty, |b| &b.network);
        let taken = match action {
            Some(Action::Deliver(e) | Action::Drop(e)) => Some(e),
            _ => None,
        };
        let mut delta = std::mem::take(&mut self.delta);
        network_delta(before, &after.network, &mut delta);
        for (env, change) in delta.drain(..) {
            // One search of the table per changed envelope: the entry is updated in place.
            match self.messages.entry(env) {
                Entry::Occupied(mut entry) => {
                    let n = (entry.get().len() as i64 + change).max(0) as usize;
                    if n == 0 {
                        entry.remove();
                        continue;
                    }
                    let took = taken == Some(entry.key());
                    let (env, copies) = (entry.key().clone(), entry.get_mut());
                    self.next_seq = resize_copies(copies, n, took, &env, self.next_seq, arrivals);
                }
                Entry::Vacant(entry) => {
                    let n = change.max(0) as usize;
                    if n == 0 {
                        continue;
                    }
                    let mut copies = Vec::with_capacity(n);
                    self.next_seq =
                        resize_copies(&mut copies, n, false, entry.key(), self.next_seq, arrivals);
                    entry.insert(copies);
                }
            }
        }
        self.delta = delta;
    }

    fn sync_timers(
        &mut self,
        before: Option<&SystemState>,
        after: &SystemState,
        effects: &StepEffects,
        arrivals: &mut dyn Arrivals,
    ) {
        for (i, timers) in after.timers.iter().enumerate() {
            let id = Id::from(i);
            let handled = effects.actor == Some(id);
            let same = before
                .and_then(|b| b.timers.get(i))
                .is_some_and(|t| Shared::ptr_eq(t, timers));
            if same && !handled {
                continue;
            }
            if timers.is_empty() {
                self.timers.remove(&id);
                continue;
            }
            let mine = self.timers.entry(id).or_default();
            mine.retain(|timer, _| timers.contains(timer));
            for timer in timers.iter() {
                let fresh = handled && effects.timers.contains(timer);
                if fresh || !mine.contains_key(timer) {
                    let due = Due {
                        at_ms: arrivals.timer(id, timer),
                        seq: fresh_seq(&mut self.next_seq),
                    };
                    mine.insert(*timer, due);
                }
            }
        }
    }

    fn sync_choices(
        &mut self,
        before: Option<&SystemState>,
        after: &SystemState,
        effects: &StepEffects,
        arrivals: &mut dyn Arrivals,
    ) {
        for (i, choices) in after.choices.iter().enumerate() {
            let id = Id::from(i);
            let handled = effects.actor == Some(id);
            let same = before
                .and_then(|b| b.choices.get(i))
                .is_some_and(|c| Shared::ptr_eq(c, choices));
            if same && !handled {
                continue;
            }
            self.choices
                .retain(|(actor, key), _| *actor != id || choices.contains_key(key));
            for key in choices.keys() {
                let fresh = handled && effects.choices.contains(key);
                let entry = (id, key.clone());
                if fresh || !self.choices.contains_key(&entry) {
                    let due = Due {
                        at_ms: arrivals.choice(id),
                        seq: self.seq(),
                    };
                    self.choices.insert(entry, due);
                }
            }
        }
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

/// A fresh creation number: the one after `next_seq`, which it becomes. (A function of the
/// counter alone, so that it can be drawn while a part of the table is borrowed.)
fn fresh_seq(next_seq: &mut u64) -> u64 {
    *next_seq += 1;
    *next_seq
}

/// Brings the copies of `env` in flight (as many as before the step; the table was synced
/// to it) to `n`, drawing an arrival for each new copy with a fresh sequence number after
/// `seq`; returns the last sequence number drawn. `took`: the step delivered or dropped
/// `env`, and the copy that left is the one the scheduler chose, the first.
fn resize_copies(
    copies: &mut Vec<InFlight>,
    n: usize,
    took: bool,
    env: &Envelope,
    mut seq: u64,
    arrivals: &mut dyn Arrivals,
) -> u64 {
    if copies.len() > n && took {
        copies.remove(0);
    }
    // Any other loss of copies is a crash: which copies go does not matter.
    copies.truncate(n);
    let grown = copies.len() < n;
    while copies.len() < n {
        let (ready_ms, fate) = arrivals.message(env);
        seq += 1;
        copies.push(InFlight {
            ready_ms,
            seq,
            fate,
        });
    }
    // Removing copies keeps the order; only new ones need placing.
    if grown {
        copies.sort_by_key(|c| (c.ready_ms, c.seq));
    }
    seq
}

/// How many more copies of each envelope `after` has in flight than `before` (fewer when
/// negative; unchanged envelopes are left out), in envelope order. A connection queue the two share is
/// skipped, and of one that changed only what lies between the common head and the
/// common tail is counted: a step sends or takes a message or two.
fn network_delta(before: &Network, after: &Network, delta: &mut Vec<(Envelope, i64)>) {
    // A step changes an envelope or two: a short list searched in place costs less than a
    // map's nodes, and sorting it once gives the map's order. `delta` comes in empty.
    let (a, b) = (before.channels(), after.channels());
    let (mut i, mut j) = (0, 0);
    loop {
        match (a.get(i), b.get(j)) {
            (Some((ka, qa)), Some((kb, qb))) if ka == kb => {
                if !Shared::ptr_eq(qa, qb) {
                    count_changed(delta, *ka, qa, qb);
                }
                (i, j) = (i + 1, j + 1);
            }
            (Some((ka, qa)), Some((kb, _))) if ka < kb => {
                count(delta, *ka, qa.iter(), -1);
                i += 1;
            }
            (_, Some((kb, qb))) => {
                count(delta, *kb, qb.iter(), 1);
                j += 1;
            }
            (Some((ka, qa)), None) => {
                count(delta, *ka, qa.iter(), -1);
                i += 1;
            }
            (None, None) => break,
        }
    }
    if before.strays() != after.strays() {
        for (strays, sign) in [(before.strays(), -1), (after.strays(), 1)] {
            for (env, n) in strays {
                add(delta, env, sign * i64::from(*n));
            }
        }
    }
    delta.retain(|(_, change)| *change != 0);
    delta.sort_unstable_by(|(a, _), (b, _)| a.cmp(b));
}

/// Adds `change` copies of `env` to `delta` (an envelope is listed once).
fn add(delta: &mut Vec<(Envelope, i64)>, env: &Envelope, change: i64) {
    match delta.iter_mut().find(|(e, _)| e == env) {
        Some((_, n)) => *n += change,
        None => delta.push((env.clone(), change)),
    }
}

/// Counts what differs between two versions of one connection's queue.
fn count_changed(
    delta: &mut Vec<(Envelope, i64)>,
    channel: Channel,
    before: &[Msg],
    after: &[Msg],
) {
    let head = before.iter().zip(after).take_while(|(x, y)| x == y).count();
    let tail = before
        .iter()
        .skip(head)
        .rev()
        .zip(after.iter().skip(head).rev())
        .take_while(|(x, y)| x == y)
        .count();
    let middle = |q: &[Msg]| q.len() - head - tail;
    count(
        delta,
        channel,
        before.iter().skip(head).take(middle(before)),
        -1,
    );
    count(
        delta,
        channel,
        after.iter().skip(head).take(middle(after)),
        1,
    );
}

fn count<'m>(
    delta: &mut Vec<(Envelope, i64)>,
    (src, dst, _): Channel,
    msgs: impl Iterator<Item = &'m Msg>,
    sign: i64,
) {
    for msg in msgs {
        match delta
            .iter_mut()
            .find(|(e, _)| e.src == src && e.dst == dst && e.msg == *msg)
        {
            Some((_, n)) => *n += sign,
            None => delta.push((
                Envelope {
                    src,
                    dst,
                    msg: msg.clone(),
                },
                sign,
            )),
        }
    }
}
