//! The closed world's values: a message in flight ([`Envelope`]), a step ([`Action`]) and
//! the whole state ([`SystemState`]). `crate::world::system` is the transition function over
//! them.

use crate::protocol::msg::{ClientChoice, Msg, Timer};
use crate::world::effects::StepEffects;
use crate::world::memo::NodeCommand;
use crate::world::network::Network;
use crate::world::node::{NodeState, NodeStorage};
use crate::world::record::{Outgoing, Record, Sent};
use crate::world::scenario::FaultBudget;
use crate::world::shared::Shared;
use crate::world::timer_set::TimerSet;
use crate::world::topology::Topology;
use serde::{Deserialize, Serialize};
use stateright::actor::Command;
use stateright::actor::Id;
use std::collections::BTreeMap;
use std::fmt;

/// A message in flight.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Envelope {
    /// The sender.
    pub src: Id,
    /// The recipient.
    pub dst: Id,
    /// The message.
    pub msg: Msg,
}

impl fmt::Debug for Envelope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}->{:?} {:?}", self.src, self.dst, self.msg)
    }
}

/// A step of the closed world. Actions are values, so a trace names a message by what it
/// is, not by an index, and survives changes to the order actions are listed in.
///
/// `E` is how the action holds its message: by value, an [`Envelope`] (the default: what
/// traces, replay and the simulator keep), or borrowed from the state it is enabled in
/// ([`crate::world::action_ref::ActionRef`]: what a search lists and steps).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Action<E = Envelope> {
    /// The envelope reaches its (live) recipient.
    Deliver(E),
    /// The envelope is lost: its sender will see a timeout.
    Drop(E),
    /// A second copy of the envelope enters the network.
    Duplicate(E),
    /// An armed timer fires (any armed timer may fire at any time).
    Fire {
        /// Whose timer.
        actor: Id,
        /// Which timer.
        timer: Timer,
    },
    /// The actor crashes: volatile state, timers and pending choices are lost.
    Crash(Id),
    /// The crashed actor restarts from its durable storage (leader failover).
    Restart(Id),
    /// A client makes a decision.
    Choose {
        /// Which client.
        actor: Id,
        /// What it decides.
        choice: ClientChoice,
    },
}

/// The whole state of the closed world.
#[derive(Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(bound = "H: Record")]
pub struct SystemState<H> {
    /// Each actor's state (stale while it is down).
    pub nodes: Vec<Shared<NodeState>>,
    /// Each actor's durable storage (shared between states until it changes).
    pub storage: Vec<Option<Shared<NodeStorage>>>,
    /// Which actors are up.
    pub up: Vec<bool>,
    /// Armed timers per actor (shared between states until that actor changes them).
    pub timers: Vec<Shared<TimerSet>>,
    /// Pending client choices per actor, by key (shared like the timers).
    pub choices: Vec<Shared<BTreeMap<String, Vec<ClientChoice>>>>,
    /// Messages in flight.
    pub network: Network,
    /// The fault budget left.
    pub budget: FaultBudget,
    /// The run's history for the properties (shared between states until it changes).
    pub ghost: Shared<H>,
}

impl<H: Record> SystemState<H> {
    /// `n` actors before any has started: all up, nothing stored, armed or in flight, the
    /// whole fault budget left.
    pub fn before_start(n: usize, budget: FaultBudget) -> SystemState<H> {
        SystemState {
            nodes: Vec::with_capacity(n),
            storage: vec![None; n],
            up: vec![true; n],
            timers: vec![Shared::new(TimerSet::default()); n],
            choices: vec![Shared::new(BTreeMap::new()); n],
            network: Network::new(),
            budget,
            ghost: Shared::new(H::default()),
        }
    }

    /// The state of actor `id` if it is of that kind.
    pub fn node(&self, id: Id) -> &NodeState {
        &self.nodes[usize::from(id)]
    }

    /// Whether actor `id` is up.
    pub fn is_up(&self, id: Id) -> bool {
        self.up[usize::from(id)]
    }

    /// Messages in flight, each copy once.
    pub fn in_flight(&self) -> impl Iterator<Item = Envelope> + '_ {
        self.network.iter()
    }
}

impl<H> Clone for SystemState<H> {
    fn clone(&self) -> Self {
        SystemState {
            nodes: self.nodes.clone(),
            storage: self.storage.clone(),
            up: self.up.clone(),
            timers: self.timers.clone(),
            choices: self.choices.clone(),
            network: self.network.clone(),
            budget: self.budget,
            ghost: self.ghost.clone(),
        }
    }

    /// Copies `source` into the vectors this state already owns: a searcher steps every
    /// successor into one scratch state and allocates an owned one only for a new state
    /// (`System::step_memo_into`).
    fn clone_from(&mut self, source: &Self) {
        self.clone_world_from(source);
        self.ghost.clone_from(&source.ghost);
    }
}

impl<H> SystemState<H> {
    /// [`Clone::clone_from`] of every part but the history.
    pub(crate) fn clone_world_from(&mut self, source: &Self) {
        self.nodes.clone_from(&source.nodes);
        self.storage.clone_from(&source.storage);
        self.up.clone_from(&source.up);
        self.timers.clone_from(&source.timers);
        self.choices.clone_from(&source.choices);
        self.network.clone_from(&source.network);
        self.budget = source.budget;
    }
}

impl<H: Record> Default for SystemState<H> {
    fn default() -> Self {
        SystemState {
            nodes: Vec::new(),
            storage: Vec::new(),
            up: Vec::new(),
            timers: Vec::new(),
            choices: Vec::new(),
            network: Network::default(),
            budget: FaultBudget {
                drops: 0,
                duplicates: 0,
                crashes: 0,
                timeouts: 0,
            },
            ghost: Shared::new(H::default()),
        }
    }
}

impl Action {
    /// A one-line description with actor names, for humans.
    pub fn describe(&self, topology: &Topology) -> String {
        let n = |id: &Id| topology.name(*id);
        match self {
            Action::Deliver(e) => format!("Deliver {}->{} {:?}", n(&e.src), n(&e.dst), e.msg),
            Action::Drop(e) => format!("Drop {}->{} {:?}", n(&e.src), n(&e.dst), e.msg),
            Action::Duplicate(e) => {
                format!("Duplicate {}->{} {:?}", n(&e.src), n(&e.dst), e.msg)
            }
            Action::Fire { actor, timer } => format!("Fire {} {:?}", n(actor), timer),
            Action::Crash(id) => format!("Crash {}", n(id)),
            Action::Restart(id) => format!("Restart {}", n(id)),
            Action::Choose { actor, choice } => format!("Choose {} {:?}", n(actor), choice),
        }
    }
}

impl<H: Record> SystemState<H> {
    /// Carries out a handler's commands for actor `id`: sends go to `sent` (the world
    /// records them, then puts them in flight), timers, choices and saves change the state,
    /// which keeps sharing what did not change.
    pub fn apply_commands(
        &mut self,
        id: Id,
        out: impl IntoIterator<Item = NodeCommand>,
        mut effects: Option<&mut StepEffects>,
        sent: &mut Sent,
    ) {
        let i = usize::from(id);
        if let Some(e) = effects.as_deref_mut() {
            e.actor = Some(id);
        }
        let mut timers: Option<TimerSet> = None;
        let mut choices: Option<BTreeMap<String, Vec<ClientChoice>>> = None;
        for command in out {
            match command {
                Command::Send(dst, msg) => sent.push(Outgoing::new(id, dst, msg)),
                Command::SetTimer(timer, _) => {
                    if let Some(e) = effects.as_deref_mut() {
                        e.timers.push(timer);
                    }
                    timers
                        .get_or_insert_with(|| (*self.timers[i]).clone())
                        .insert(timer);
                }
                Command::CancelTimer(timer) => {
                    timers
                        .get_or_insert_with(|| (*self.timers[i]).clone())
                        .remove(&timer);
                }
                Command::ChooseRandom(key, options) => {
                    if let Some(e) = effects.as_deref_mut() {
                        if !options.is_empty() {
                            e.choices.push(key.clone());
                        }
                    }
                    let c = choices.get_or_insert_with(|| (*self.choices[i]).clone());
                    if options.is_empty() {
                        c.remove(&key);
                    } else {
                        c.insert(key, options);
                    }
                }
                Command::Save(storage) => {
                    if self.storage[i].as_deref() != Some(&storage) {
                        self.storage[i] = Some(Shared::new(storage));
                    }
                }
            }
        }
        if let Some(t) = timers {
            if t != *self.timers[i] {
                self.timers[i] = Shared::new(t);
            }
        }
        if let Some(c) = choices {
            if c != *self.choices[i] {
                self.choices[i] = Shared::new(c);
            }
        }
    }
}
