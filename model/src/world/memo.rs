//! `HandlerMemo`: a searcher's memory of the handler runs it has seen, so that running the
//! same handler on the same actor state with the same event again costs a lookup instead
//! of a copy of the actor's state, the handler and a rehash.
//!
//! A handler's outcome (its actor's next state, the commands it output, the observations it
//! recorded) is a function of the actor (fixed for a `System`), the actor's state and the
//! event alone: handlers decide only on their own state and the fields of the message,
//! timer or choice they got, never on the clock or a random source. The same actor state
//! and event recur in many global states (every interleaving with other actors' steps
//! reaches them: a delivery to one actor and a delivery to another commute), so an
//! exhaustive search meets each pair several times. The memo keeps the last outcome per
//! slot of a fixed-size, direct-mapped table; a slot is reused only after its key (actor,
//! actor state by value, event by value) compares equal, so a hit is exactly the outcome a
//! run would give, and which entries the table holds changes the cost of a step, never its
//! result. An entry keeps the messages the run sent as shared one-message queues, and the
//! last application of its other commands (the actor's timers, choices and storage before
//! and after, [`ActorParts`]), taken again when a step meets equal parts: the commands read
//! nothing else. Debug builds run the handler again on one hit in [`AUDIT_EVERY`], apply
//! the commands again where the remembered parts were taken, and assert both agree.

use crate::protocol::msg::{ClientChoice, Msg, Timer};
use crate::world::network::Queue;
use crate::world::node::{NodeState, NodeStorage};
use crate::world::observation::Observation;
use crate::world::record::Outgoing;
use crate::world::shared::{fixed_hasher, Shared};
use crate::world::state::SystemState;
use crate::world::timer_set::TimerSet;
use stateright::actor::{Command, Id};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// A client's pending choices, by key.
type Choices = BTreeMap<String, Vec<ClientChoice>>;

/// A command a handler output, over the world's types.
pub type NodeCommand = Command<Msg, Timer, ClientChoice, NodeStorage>;

/// What a handler runs on besides its state: a delivered message (with its sender), a
/// fired timer or a client's choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Event<'a> {
    /// `on_msg` from the sender.
    Msg(Id, &'a Msg),
    /// `on_timeout`.
    Timer(&'a Timer),
    /// `on_random`.
    Choice(&'a ClientChoice),
}

/// An [`Event`] kept in the memo.
#[derive(Debug, PartialEq, Eq)]
enum OwnedEvent {
    Msg(Id, Msg),
    Timer(Timer),
    Choice(ClientChoice),
}

impl OwnedEvent {
    fn of(event: Event<'_>) -> OwnedEvent {
        match event {
            Event::Msg(src, msg) => OwnedEvent::Msg(src, msg.clone()),
            Event::Timer(t) => OwnedEvent::Timer(*t),
            Event::Choice(c) => OwnedEvent::Choice(*c),
        }
    }

    fn is(&self, event: Event<'_>) -> bool {
        match (self, event) {
            (OwnedEvent::Msg(s, m), Event::Msg(src, msg)) => *s == src && m == msg,
            (OwnedEvent::Timer(t), Event::Timer(timer)) => t == timer,
            (OwnedEvent::Choice(c), Event::Choice(choice)) => c == choice,
            _ => false,
        }
    }
}

/// A handler's outcome: the actor's next state (`None`: the handler left it as it was),
/// its commands and the observations drained from its state.
#[derive(Debug)]
pub struct Outcome {
    /// The actor's state after the handler, if it changed.
    pub state: Option<Shared<NodeState>>,
    /// The commands, in the order the handler output them.
    pub commands: Vec<NodeCommand>,
    /// What the handler recorded for the history.
    pub observations: Vec<Observation>,
}

/// An outcome as the memo keeps it: each message sent is held apart from the other
/// commands, as the one-message queue its connection opens with ([`Outgoing`]), so that a
/// hit shares it instead of copying and hashing the message again.
#[derive(Debug)]
pub struct Remembered {
    /// The actor's state after the handler, if it changed.
    pub state: Option<Shared<NodeState>>,
    /// The commands other than sends, in the order the handler output them.
    pub commands: Vec<NodeCommand>,
    /// The messages sent, in the order the handler sent them, each with its recipient.
    pub sends: Vec<(Id, Shared<Queue>)>,
    /// What the handler recorded for the history.
    pub observations: Vec<Observation>,
    /// The last time `commands` were applied: the actor's parts before and after. The same
    /// actor state tends to meet the same timers and choices, so a step that finds the
    /// same parts before takes the parts after instead of applying the commands again.
    pub applied: Option<(ActorParts, ActorParts)>,
}

/// The parts of a state that an actor's commands other than sends change: its timers, its
/// pending choices and its storage.
#[derive(Clone, Debug, PartialEq)]
pub struct ActorParts {
    timers: Shared<TimerSet>,
    choices: Shared<Choices>,
    storage: Option<Shared<NodeStorage>>,
}

impl ActorParts {
    /// Actor `i`'s parts in `state`.
    pub fn of<H>(state: &SystemState<H>, i: usize) -> ActorParts {
        ActorParts {
            timers: state.timers[i].clone(),
            choices: state.choices[i].clone(),
            storage: state.storage[i].clone(),
        }
    }

    /// Whether these are actor `i`'s parts in `state`.
    pub fn are_in<H>(&self, state: &SystemState<H>, i: usize) -> bool {
        self.timers == state.timers[i]
            && self.choices == state.choices[i]
            && self.storage == state.storage[i]
    }

    /// Makes these actor `i`'s parts in `state`.
    pub fn put<H>(&self, state: &mut SystemState<H>, i: usize) {
        state.timers[i].clone_from(&self.timers);
        state.choices[i].clone_from(&self.choices);
        state.storage[i].clone_from(&self.storage);
    }
}

impl Remembered {
    /// What the memo keeps of `outcome`: its sends split off, everything else copied.
    pub fn of(outcome: &Outcome) -> Remembered {
        let (mut commands, mut sends) = (Vec::new(), Vec::new());
        for c in &outcome.commands {
            match c {
                Command::Send(dst, msg) => {
                    sends.push((*dst, Shared::new(Queue::from_buf([msg.clone()]))))
                }
                other => commands.push(clone_command(other)),
            }
        }
        Remembered {
            state: outcome.state.clone(),
            commands,
            sends,
            observations: outcome.observations.clone(),
            applied: None,
        }
    }

    /// The messages sent, from `src`, sharing the remembered queues.
    pub fn sent(&self, src: Id) -> impl Iterator<Item = Outgoing> + '_ {
        self.sends.iter().map(move |(dst, queue)| Outgoing {
            src,
            dst: *dst,
            queue: queue.clone(),
        })
    }

    /// Whether a run's `outcome` is the one remembered (the debug check of a hit).
    pub fn same_as(&self, outcome: &Outcome) -> bool {
        let (sends, others): (Vec<_>, Vec<_>) = outcome
            .commands
            .iter()
            .partition(|c| matches!(c, Command::Send(..)));
        self.state == outcome.state
            && self.observations == outcome.observations
            && others.len() == self.commands.len()
            && others
                .iter()
                .zip(&self.commands)
                .all(|(a, b)| same_command(a, b))
            && sends.len() == self.sends.len()
            && sends.iter().zip(&self.sends).all(|(c, (dst, q))| {
                matches!(c, Command::Send(d, m) if d == dst && q.len() == 1 && *m == q[0])
            })
    }
}

#[derive(Debug)]
struct Entry {
    actor: usize,
    input: Shared<NodeState>,
    event: OwnedEvent,
    outcome: Remembered,
}

/// The number of slots: 2^13. Each entry keeps two actor states alive (before and after),
/// most of them shared with states the search holds anyway.
const SLOTS: usize = 1 << 13;

/// A debug build audits one memo hit in this many (the first included).
pub const AUDIT_EVERY: u64 = 32;

/// A direct-mapped memo of handler outcomes, owned by one searcher.
#[derive(Debug, Default)]
pub struct HandlerMemo {
    /// Each entry in place (about 200 bytes), so a lookup reads one place in memory.
    slots: Vec<Option<Entry>>,
    hits: u64,
    runs: u64,
}

impl HandlerMemo {
    /// An empty memo (it allocates its slots on first use).
    pub fn new() -> HandlerMemo {
        HandlerMemo::default()
    }

    /// Whether a debug build re-runs the handler of this hit to audit the memo: one hit in
    /// [`AUDIT_EVERY`], so the test suite audits thousands of hits per check without paying a
    /// second handler run on every one (which made the optimised test profile slower with
    /// the memo than without it).
    pub fn audit_due(&self) -> bool {
        self.hits % AUDIT_EVERY == 1
    }

    /// How many handler runs were answered from the memo, and how many were run.
    pub fn counts(&self) -> (u64, u64) {
        (self.hits, self.runs)
    }

    fn slot_of(actor: usize, input: &Shared<NodeState>, event: Event<'_>) -> usize {
        let mut h = fixed_hasher();
        actor.hash(&mut h);
        input.cached_hash().hash(&mut h);
        event.hash(&mut h);
        (h.finish() as usize) & (SLOTS - 1)
    }

    /// The remembered outcome of `event` on actor `actor` in state `input`, if any.
    pub fn get(
        &mut self,
        actor: usize,
        input: &Shared<NodeState>,
        event: Event<'_>,
    ) -> Option<&mut Remembered> {
        if self.slots.is_empty() {
            return None;
        }
        let slot = HandlerMemo::slot_of(actor, input, event);
        match &mut self.slots[slot] {
            Some(e) if e.actor == actor && e.input == *input && e.event.is(event) => {
                self.hits += 1;
                Some(&mut e.outcome)
            }
            _ => None,
        }
    }

    /// Remembers the outcome of a run, replacing what its slot held, and returns it as
    /// remembered.
    pub fn put(
        &mut self,
        actor: usize,
        input: Shared<NodeState>,
        event: Event<'_>,
        outcome: &Outcome,
    ) -> &mut Remembered {
        if self.slots.is_empty() {
            self.slots.resize_with(SLOTS, || None);
        }
        self.runs += 1;
        let slot = HandlerMemo::slot_of(actor, &input, event);
        let entry = self.slots[slot].insert(Entry {
            actor,
            input,
            event: OwnedEvent::of(event),
            outcome: Remembered::of(outcome),
        });
        &mut entry.outcome
    }
}

/// A copy of a command (stateright's `Command` is not `Clone`).
pub fn clone_command(c: &NodeCommand) -> NodeCommand {
    match c {
        Command::CancelTimer(t) => Command::CancelTimer(*t),
        Command::SetTimer(t, d) => Command::SetTimer(*t, d.clone()),
        Command::Send(dst, msg) => Command::Send(*dst, msg.clone()),
        Command::ChooseRandom(key, options) => Command::ChooseRandom(key.clone(), options.clone()),
        Command::Save(storage) => Command::Save(storage.clone()),
    }
}

fn same_command(a: &NodeCommand, b: &NodeCommand) -> bool {
    match (a, b) {
        (Command::CancelTimer(x), Command::CancelTimer(y)) => x == y,
        (Command::SetTimer(x, d), Command::SetTimer(y, e)) => x == y && d == e,
        (Command::Send(x, m), Command::Send(y, n)) => x == y && m == n,
        (Command::ChooseRandom(k, o), Command::ChooseRandom(l, p)) => k == l && o == p,
        (Command::Save(s), Command::Save(t)) => s == t,
        _ => false,
    }
}
