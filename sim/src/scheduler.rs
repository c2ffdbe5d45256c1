//! The scheduler: which of the closed world's enabled actions happens next, and when. It
//! never decides what an action does (the actors in `sharetxn-model` are the only
//! protocol implementation); it gives every message a latency and a fate, every timer its
//! Kafka duration, every client a moment to decide, and applies the timed faults
//! (partitions, stalls, crashes), then takes the earliest action that the model enables.
//! Ties in time go to what was scheduled first, so a run is a pure function of its seed.

use crate::clock::Clock;
use crate::durations::timer_ms;
use crate::faults::{FaultPlan, MessageFate};
use crate::latency::Latency;
use crate::options::SimOptions;
use crate::pending::{Arrivals, InFlight, Pending};
use crate::rng::SimRng;
use crate::schedule::{FaultEvent, Timed};
use sharetxn_model::protocol::msg::{ClientChoice, Timer};
use sharetxn_model::world::effects::StepEffects;
use sharetxn_model::{Action, Envelope, System, SystemState};
use stateright::actor::Id;
use std::collections::BTreeMap;

/// Faults on (the fault phase) or off (the heal phase).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Faults happen.
    Fault,
    /// Faults stopped, the network healed, every actor up: liveness must follow.
    Heal,
}

/// What the scheduler offers next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pick {
    /// Take this action at this virtual time.
    Take(u64, Action),
    /// The fault phase's time is up.
    FaultPhaseOver,
    /// Nothing the model enables is scheduled.
    Idle,
}

/// A network split in force.
#[derive(Clone, Copy, Debug)]
struct Partition {
    side: u32,
    until_ms: u64,
    hold: bool,
}

impl Partition {
    fn cuts(&self, a: Id, b: Id) -> bool {
        let on = |id: Id| usize::from(id) < 32 && self.side & (1 << usize::from(id)) != 0;
        on(a) != on(b)
    }
}

/// What arrivals are drawn from: everything but the table itself.
struct Draws<'a> {
    sys: &'a System,
    options: &'a SimOptions,
    plan: FaultPlan,
    rng: SimRng,
    latency: Latency,
    now_ms: u64,
    phase: Phase,
    partition: Option<Partition>,
    sent: u64,
    downtime_ms: u64,
}

impl Arrivals for Draws<'_> {
    fn message(&mut self, env: &Envelope) -> (u64, MessageFate) {
        let nth = self.sent;
        self.sent += 1;
        let mut fate = match self.phase {
            Phase::Fault => {
                self.plan
                    .fate(&mut self.rng, nth, self.sys.is_client_request(env.as_ref()))
            }
            Phase::Heal => MessageFate::default(),
        };
        let latency = self.latency.sample(&mut self.rng, env.src, env.dst);
        let mut ready = self.now_ms + latency + fate.spike_ms;
        if let Some(p) = self.partition.filter(|p| p.cuts(env.src, env.dst)) {
            if p.hold {
                ready = ready.max(p.until_ms);
            } else {
                fate.lost = true;
            }
        }
        (ready, fate)
    }

    fn timer(&mut self, _actor: Id, timer: &Timer) -> u64 {
        self.now_ms + timer_ms(self.options, timer)
    }

    fn choice(&mut self, _actor: Id) -> u64 {
        self.now_ms + self.rng.between(0, self.options.think_ms)
    }

    fn restart(&mut self, _actor: Id) -> u64 {
        self.now_ms + self.downtime_ms
    }
}

/// Something that can happen next.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Candidate {
    Act(Action),
    Decide(Id, String),
    Event(usize),
}

/// An entry of the side table, borrowed: what a [`Candidate`] is built from.
#[derive(Clone, Copy)]
enum Slot<'p> {
    Message(&'p Envelope, &'p InFlight),
    Timer(Id, Timer),
    Choice(Id, &'p str),
    Restart(Id),
    Event(usize),
}

/// The scheduler of one run.
pub struct Scheduler<'a> {
    draws: Draws<'a>,
    pending: Pending,
    clock: Clock,
    timed: Vec<Timed>,
    next_timed: usize,
    stalls: BTreeMap<Id, u64>,
    fault_end_ms: u64,
}

impl<'a> Scheduler<'a> {
    /// A scheduler for `sys` from its initial state `init`, drawing from `seed`.
    pub fn new(
        sys: &'a System,
        options: &'a SimOptions,
        plan: FaultPlan,
        mut rng: SimRng,
        init: &SystemState,
    ) -> Scheduler<'a> {
        let timed = plan.timed(&mut rng, options.fault_ms, sys.actors.len());
        let mut s = Scheduler {
            draws: Draws {
                sys,
                options,
                plan,
                rng,
                latency: Latency::new(options.latency_ms),
                now_ms: 0,
                phase: Phase::Fault,
                partition: None,
                sent: 0,
                downtime_ms: 0,
            },
            pending: Pending::default(),
            clock: Clock::default(),
            timed,
            next_timed: 0,
            stalls: BTreeMap::new(),
            fault_end_ms: options.fault_ms,
        };
        s.pending
            .sync(None, init, None, &Default::default(), &mut s.draws);
        s
    }

    /// The virtual time now.
    pub fn now(&self) -> u64 {
        self.clock.now()
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        self.draws.phase
    }

    /// What happens next in `state`.
    pub fn pick(&mut self, state: &SystemState) -> Pick {
        loop {
            let Some((at, candidate)) = self.first_allowed(state) else {
                return Pick::Idle;
            };
            if self.draws.phase == Phase::Fault && at >= self.fault_end_ms {
                return Pick::FaultPhaseOver;
            }
            match candidate {
                Candidate::Act(action) => return Pick::Take(at, action),
                Candidate::Decide(actor, key) => {
                    let choice = self.decide(state, actor, &key);
                    return Pick::Take(at, Action::Choose { actor, choice });
                }
                Candidate::Event(i) => {
                    self.next_timed = i + 1;
                    self.clock.advance_to(at);
                    if let Some(action) = self.fault(state, i) {
                        return Pick::Take(at, action);
                    }
                }
            }
        }
    }

    /// Records that `action` was taken at `at_ms`, leading from `before` to `after`;
    /// `effects` are the timers and choices its handler set (a re-set timer gets a new
    /// deadline).
    pub fn taken(
        &mut self,
        at_ms: u64,
        action: &Action,
        before: &SystemState,
        after: &SystemState,
        effects: &StepEffects,
    ) {
        let now = self.clock.advance_to(at_ms);
        self.draws.now_ms = now;
        if let Action::Duplicate(env) = action {
            if let Some(first) = self
                .pending
                .messages
                .get_mut(env)
                .and_then(|v| v.first_mut())
            {
                first.fate.duplicated = false;
            }
        }
        if self.draws.partition.is_some_and(|p| p.until_ms <= now) {
            self.draws.partition = None;
        }
        self.pending
            .sync(Some(before), after, Some(action), effects, &mut self.draws);
    }

    /// When the fault phase ends at the latest.
    pub fn fault_end_ms(&self) -> u64 {
        self.fault_end_ms
    }

    /// Ends the fault phase at `at_ms`: faults stop, partitions and stalls end, what was
    /// delayed by a fault arrives soon, and every crashed actor restarts now.
    pub fn heal(&mut self, at_ms: u64) {
        let now = self.clock.advance_to(at_ms);
        self.draws.now_ms = now;
        self.draws.phase = Phase::Heal;
        self.draws.partition = None;
        self.stalls.clear();
        self.next_timed = self.timed.len();
        let soon = now + 4 * self.draws.options.latency_ms;
        for copies in self.pending.messages.values_mut() {
            for c in copies.iter_mut() {
                c.fate = MessageFate::default();
                c.ready_ms = c.ready_ms.min(soon);
            }
            copies.sort_by_key(|c| (c.ready_ms, c.seq));
        }
        for due in self.pending.restarts.values_mut() {
            due.at_ms = now;
        }
    }

    /// A short description of what is still scheduled, for a liveness report.
    pub fn describe_pending(&self) -> String {
        let sys = self.draws.sys;
        let mut parts = Vec::new();
        for (env, copies) in &self.pending.messages {
            if let Some(c) = copies.first() {
                parts.push(format!(
                    "{}->{} {} at {}ms",
                    sys.topology.name(env.src),
                    sys.topology.name(env.dst),
                    env.msg.name(),
                    c.ready_ms
                ));
            }
        }
        let timers = self.pending.timers.iter();
        for (id, timer, due) in timers.flat_map(|(id, t)| t.iter().map(move |(t, d)| (id, t, d))) {
            parts.push(format!(
                "{} {timer:?} at {}ms",
                sys.topology.name(*id),
                due.at_ms
            ));
        }
        parts.truncate(6);
        parts.join(", ")
    }

    fn stalled_until(&self, actor: Id, at: u64) -> u64 {
        if self.stalls.is_empty() {
            return at;
        }
        match self.stalls.get(&actor) {
            Some(until) if *until > self.clock.now() => at.max(*until),
            _ => at,
        }
    }

    /// The earliest scheduled thing the model allows now, with its time. Everything is
    /// ordered by time, then creation order (unique: every entry of the table draws its
    /// own sequence number, and the next timed fault has 0), and only what is looked at
    /// in that order is built into an action: usually the first.
    fn first_allowed(&self, state: &SystemState) -> Option<(u64, Candidate)> {
        // The earliest slot is allowed almost always: find it in one pass, and sort the
        // whole table only when the model refuses it.
        let (at, _, slot) = self.earliest()?;
        let candidate = self.candidate(state, slot);
        if self.allowed(state, &candidate) {
            return Some((at, candidate));
        }
        let mut slots = Vec::new();
        self.each_slot(|at, seq, slot| slots.push((at, seq, slot)));
        slots.sort_unstable_by_key(|(at, seq, _)| (*at, *seq));
        slots.into_iter().find_map(|(at, _, slot)| {
            let candidate = self.candidate(state, slot);
            self.allowed(state, &candidate).then_some((at, candidate))
        })
    }

    /// The first slot by time and creation order.
    fn earliest(&self) -> Option<(u64, u64, Slot<'_>)> {
        let mut best: Option<(u64, u64, Slot<'_>)> = None;
        self.each_slot(|at, seq, slot| {
            if best.is_none_or(|(a, s, _)| (at, seq) < (a, s)) {
                best = Some((at, seq, slot));
            }
        });
        best
    }

    /// Calls `f` with everything scheduled, by reference, with its time (a stall postpones
    /// what its actor would do) and its creation order. Plain loops over each part of the
    /// table: this runs once a step, and chained iterators over four maps cost more than
    /// the comparisons.
    fn each_slot<'s>(&'s self, mut f: impl FnMut(u64, u64, Slot<'s>)) {
        let p = &self.pending;
        for (env, copies) in &p.messages {
            if let Some(c) = copies.first() {
                f(
                    self.stalled_until(env.dst, c.ready_ms),
                    c.seq,
                    Slot::Message(env, c),
                );
            }
        }
        for (actor, timers) in &p.timers {
            for (timer, due) in timers {
                let at = self.stalled_until(*actor, due.at_ms);
                f(at, due.seq, Slot::Timer(*actor, *timer));
            }
        }
        for ((actor, key), due) in &p.choices {
            let at = self.stalled_until(*actor, due.at_ms);
            f(at, due.seq, Slot::Choice(*actor, key.as_str()));
        }
        for (actor, due) in &p.restarts {
            f(due.at_ms, due.seq, Slot::Restart(*actor));
        }
        if let Some(t) = self.timed.get(self.next_timed) {
            f(t.at_ms, 0, Slot::Event(self.next_timed));
        }
    }

    /// What `slot` would do in `state`.
    fn candidate(&self, state: &SystemState, slot: Slot<'_>) -> Candidate {
        match slot {
            Slot::Message(env, c) => {
                // A fault the model no longer enables (its budget is spent) leaves the
                // message to arrive as usual.
                let sys = self.draws.sys;
                let faults = self.draws.phase == Phase::Fault;
                if faults && c.fate.lost {
                    let drop = Action::Drop(env.clone());
                    if sys.is_enabled(state, &drop) {
                        return Candidate::Act(drop);
                    }
                }
                if faults && c.fate.duplicated {
                    let duplicate = Action::Duplicate(env.clone());
                    if sys.is_enabled(state, &duplicate) {
                        return Candidate::Act(duplicate);
                    }
                }
                Candidate::Act(Action::Deliver(env.clone()))
            }
            Slot::Timer(actor, timer) => Candidate::Act(Action::Fire { actor, timer }),
            Slot::Choice(actor, key) => Candidate::Decide(actor, key.to_string()),
            Slot::Restart(actor) => Candidate::Act(Action::Restart(actor)),
            Slot::Event(i) => Candidate::Event(i),
        }
    }

    fn allowed(&self, state: &SystemState, candidate: &Candidate) -> bool {
        let sys = self.draws.sys;
        match candidate {
            Candidate::Act(Action::Fire { actor, timer }) => {
                let action = Action::Fire {
                    actor: *actor,
                    timer: *timer,
                };
                sys.is_enabled(state, &action)
                    && (self.draws.phase == Phase::Fault || sys.timer_is_due(state, *actor, timer))
            }
            Candidate::Act(action) => sys.is_enabled(state, action),
            Candidate::Decide(actor, key) => state.choices[usize::from(*actor)]
                .get(key)
                .is_some_and(|o| !o.is_empty()),
            Candidate::Event(_) => true,
        }
    }

    /// The client's decision: abort with the plan's odds when it may, else any option.
    fn decide(&mut self, state: &SystemState, actor: Id, key: &str) -> ClientChoice {
        let options = &state.choices[usize::from(actor)][key];
        let rng = &mut self.draws.rng;
        if options.contains(&ClientChoice::Abort) && rng.chance(self.draws.plan.abort()) {
            return ClientChoice::Abort;
        }
        let rest: Vec<ClientChoice> = options
            .iter()
            .copied()
            .filter(|c| *c != ClientChoice::Abort)
            .collect();
        let pool = if rest.is_empty() {
            options.clone()
        } else {
            rest
        };
        *rng.pick(&pool).expect("an offered choice has options")
    }

    /// Applies timed fault `i`; a crash is a model action and is returned.
    fn fault(&mut self, state: &SystemState, i: usize) -> Option<Action> {
        let now = self.clock.now();
        let sys = self.draws.sys;
        let n = sys.actors.len();
        match self.timed[i].event.clone() {
            FaultEvent::Crash { actor, downtime_ms } => {
                let up: Vec<Id> = (0..n)
                    .map(Id::from)
                    .filter(|id| sys.is_enabled(state, &Action::Crash(*id)))
                    .collect();
                let id = *up.get(usize::from(actor) % up.len().max(1))?;
                self.draws.downtime_ms = downtime_ms;
                Some(Action::Crash(id))
            }
            FaultEvent::Partition {
                side,
                duration_ms,
                hold,
            } => {
                let p = Partition {
                    side,
                    until_ms: now + duration_ms,
                    hold,
                };
                self.draws.partition = Some(p);
                for (env, copies) in self.pending.messages.iter_mut() {
                    if !p.cuts(env.src, env.dst) {
                        continue;
                    }
                    for c in copies.iter_mut() {
                        if hold {
                            c.ready_ms = c.ready_ms.max(p.until_ms);
                        } else {
                            c.fate.lost = true;
                        }
                    }
                    copies.sort_by_key(|c| (c.ready_ms, c.seq));
                }
                None
            }
            FaultEvent::Stall { actor, duration_ms } => {
                let id = Id::from(usize::from(actor) % n.max(1));
                let until = self.stalls.entry(id).or_insert(0);
                *until = (*until).max(now + duration_ms);
                None
            }
        }
    }
}
