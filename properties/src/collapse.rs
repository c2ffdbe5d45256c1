//! Collapse compression of breadth-first levels (the COLLAPSE mode of SPIN, Holzmann,
//! "State compression in SPIN", 1997): a state of a level is kept as a fixed-width record
//! of indices into tables of the distinct parts the level holds, not as a state of its
//! own.
//!
//! A level's states differ in few parts: on share-basic's widest level, 650,205 states
//! hold 16,563 distinct actor states, 925 distinct histories and 17,255 distinct networks
//! among their 4.5 million actor states. Kept whole, each state owns its vectors of part
//! pointers and its network, and the parts that different parents reached by separate
//! steps are separate copies of one value. As a record, a state is 4 words per actor and 4
//! more, and each distinct part is held once per table (`docs/checker.md`).
//!
//! A record decodes into a state that equals the one encoded, so fingerprints, handler
//! runs, counts, discoveries and traces are those of a search that keeps states whole. A
//! part is looked up by its cached hash and confirmed equal before it is shared, so two
//! different parts with one hash are both kept.
//!
//! Each thread of a level fills its own [`Parts`] with the states it keeps, without locks;
//! the next level reads them shared, and drops them when it is done.

use crate::visited::IdentityMap;
use sharetxn_model::history::History;
use sharetxn_model::protocol::msg::ClientChoice;
use sharetxn_model::world::network::Network;
use sharetxn_model::world::node::{NodeState, NodeStorage};
use sharetxn_model::world::scenario::FaultBudget;
use sharetxn_model::world::shared::Shared;
use sharetxn_model::world::timer_set::TimerSet;
use sharetxn_model::SystemState;
#[allow(clippy::disallowed_types)] // the index is looked up by key only, never iterated
use std::collections::hash_map::Entry;
use std::collections::BTreeMap;
use std::hash::Hash;

type Choices = BTreeMap<String, Vec<ClientChoice>>;

/// The index of an actor that has nothing stored yet.
const NO_STORAGE: u32 = u32::MAX;

/// Distinct values of one kind, each with its index.
struct Interner<T> {
    index: IdentityMap<u32>,
    values: Vec<T>,
}

impl<T> Default for Interner<T> {
    fn default() -> Self {
        Interner {
            index: IdentityMap::default(),
            values: Vec::new(),
        }
    }
}

impl<T: Clone + PartialEq> Interner<T> {
    /// The index of `value`, whose hash is `hash`, added if it is not here yet.
    fn intern(&mut self, hash: u64, value: &T) -> u32 {
        let next = self.values.len() as u32;
        match self.index.entry(hash) {
            Entry::Vacant(v) => {
                v.insert(next);
            }
            Entry::Occupied(o) if self.values[*o.get() as usize] == *value => return *o.get(),
            // Another value with the same hash: kept too, unindexed.
            Entry::Occupied(_) => {}
        }
        self.values.push(value.clone());
        next
    }
}

impl<T: Hash + PartialEq> Interner<Shared<T>> {
    fn shared(&mut self, value: &Shared<T>) -> u32 {
        self.intern(value.cached_hash(), value)
    }
}

/// The distinct parts of the states one thread kept in one level.
pub(crate) struct Parts {
    actors: usize,
    nodes: Interner<Shared<NodeState>>,
    storage: Interner<Shared<NodeStorage>>,
    timers: Interner<Shared<TimerSet>>,
    choices: Interner<Shared<Choices>>,
    networks: Interner<Network>,
    ghosts: Interner<Shared<History>>,
}

/// The words of a record for `actors` actors: each actor's state, storage, timers and
/// choices, then their liveness bits, the network, the fault budget and the history.
pub(crate) fn stride(actors: usize) -> usize {
    4 * actors + up_words(actors) + 3
}

fn up_words(actors: usize) -> usize {
    actors.div_ceil(32)
}

/// The network's hash: the sum of its fingerprint terms, which it keeps (`Network::terms`).
fn network_hash(network: &Network) -> u64 {
    network.terms()
}

fn budget_word(budget: FaultBudget) -> u32 {
    let FaultBudget {
        drops,
        duplicates,
        crashes,
        timeouts,
    } = budget;
    u32::from_le_bytes([drops, duplicates, crashes, timeouts])
}

fn budget_of(word: u32) -> FaultBudget {
    let [drops, duplicates, crashes, timeouts] = word.to_le_bytes();
    FaultBudget {
        drops,
        duplicates,
        crashes,
        timeouts,
    }
}

/// The state a successor was stepped from: its record in the parts of the level before,
/// and what those parts' indices became in the parts being filled.
pub(crate) struct Parent<'a> {
    /// The parent, decoded.
    pub state: &'a SystemState,
    /// Its record.
    pub record: &'a [u32],
    /// The indices already carried over from the parent's parts.
    pub moved: &'a mut Moved,
}

/// For one table of the level before: the index each of its parts was given in the parts
/// being filled ([`NOT_MOVED`] while it has none), by kind.
#[derive(Default)]
pub(crate) struct Moved {
    nodes: Vec<u32>,
    storage: Vec<u32>,
    timers: Vec<u32>,
    choices: Vec<u32>,
    ghosts: Vec<u32>,
}

const NOT_MOVED: u32 = u32::MAX;

/// The index of `value` in `interner`; `was` is the parent's part at the same slot with
/// its index in the level before, when there is a parent.
fn index<T: Hash + PartialEq>(
    interner: &mut Interner<Shared<T>>,
    value: &Shared<T>,
    was: Option<(&Shared<T>, u32)>,
    moved: &mut Vec<u32>,
) -> u32 {
    match was {
        Some((was, at)) if Shared::ptr_eq(value, was) => {
            let at = at as usize;
            if moved.len() <= at {
                moved.resize(at + 1, NOT_MOVED);
            }
            if moved[at] == NOT_MOVED {
                moved[at] = interner.shared(value);
            }
            moved[at]
        }
        _ => interner.shared(value),
    }
}

impl Parts {
    /// No parts yet, for states of `actors` actors.
    pub fn new(actors: usize) -> Parts {
        Parts {
            actors,
            nodes: Interner::default(),
            storage: Interner::default(),
            timers: Interner::default(),
            choices: Interner::default(),
            networks: Interner::default(),
            ghosts: Interner::default(),
        }
    }

    /// The words of one record.
    pub fn stride(&self) -> usize {
        stride(self.actors)
    }

    /// Appends `state`'s record to `out`, adding the parts not seen yet. A successor is
    /// given its `parent`: a part it still shares with the parent (by pointer) takes the
    /// index that part was given before, without a lookup.
    pub fn encode(&mut self, state: &SystemState, parent: Option<Parent<'_>>, out: &mut Vec<u32>) {
        let SystemState {
            nodes,
            storage,
            up,
            timers,
            choices,
            network,
            budget,
            ghost,
        } = state;
        let n = self.actors;
        debug_assert_eq!(nodes.len(), n);
        let mut none = Moved::default();
        let (was, moved) = match parent {
            Some(p) => (Some((p.state, p.record)), p.moved),
            None => (None, &mut none),
        };
        // The parent's part at slot `i` of the record, with its index.
        let at = |i: usize| was.map(|(s, r): (&SystemState, &[u32])| (s, r[i]));
        for (i, v) in nodes.iter().enumerate() {
            let was = at(i).map(|(s, ix)| (&s.nodes[i], ix));
            out.push(index(&mut self.nodes, v, was, &mut moved.nodes));
        }
        for (i, v) in storage.iter().enumerate() {
            let was = at(n + i).and_then(|(s, ix)| Some((s.storage[i].as_ref()?, ix)));
            out.push(v.as_ref().map_or(NO_STORAGE, |v| {
                index(&mut self.storage, v, was, &mut moved.storage)
            }));
        }
        for (i, v) in timers.iter().enumerate() {
            let was = at(2 * n + i).map(|(s, ix)| (&s.timers[i], ix));
            out.push(index(&mut self.timers, v, was, &mut moved.timers));
        }
        for (i, v) in choices.iter().enumerate() {
            let was = at(3 * n + i).map(|(s, ix)| (&s.choices[i], ix));
            out.push(index(&mut self.choices, v, was, &mut moved.choices));
        }
        for word in up.chunks(32) {
            let bits = word.iter().enumerate();
            out.push(bits.fold(0, |w, (i, up)| w | u32::from(*up) << i));
        }
        out.push(self.networks.intern(network_hash(network), network));
        out.push(budget_word(*budget));
        let was = at(stride(n) - 1).map(|(s, ix)| (&s.ghost, ix));
        out.push(index(&mut self.ghosts, ghost, was, &mut moved.ghosts));
    }

    /// Overwrites `state` with the state of `record`, reusing its vectors and keeping the
    /// parts it already shares with it.
    pub fn decode(&self, record: &[u32], state: &mut SystemState) {
        let actors = self.actors;
        debug_assert_eq!(stride(actors), record.len());
        let (words, rest) = record.split_at(4 * actors);
        let (node_ix, words) = words.split_at(actors);
        let (storage_ix, words) = words.split_at(actors);
        let (timer_ix, choice_ix) = words.split_at(actors);
        let (up_ix, tail) = rest.split_at(up_words(actors));
        fill(&mut state.nodes, node_ix, |i| &self.nodes.values[i]);
        state.storage.resize(actors, None);
        for (s, &i) in state.storage.iter_mut().zip(storage_ix) {
            match (s.as_mut(), i) {
                (_, NO_STORAGE) => *s = None,
                (Some(s), i) => s.clone_from(&self.storage.values[i as usize]),
                (None, i) => *s = Some(self.storage.values[i as usize].clone()),
            }
        }
        fill(&mut state.timers, timer_ix, |i| &self.timers.values[i]);
        fill(&mut state.choices, choice_ix, |i| &self.choices.values[i]);
        state.up.clear();
        state
            .up
            .extend((0..actors).map(|a| up_ix[a / 32] >> (a % 32) & 1 == 1));
        let [network, budget, ghost] = *tail else {
            unreachable!("a record ends with its network, budget and history");
        };
        state
            .network
            .clone_from(&self.networks.values[network as usize]);
        state.budget = budget_of(budget);
        state.ghost.clone_from(&self.ghosts.values[ghost as usize]);
    }
}

/// Sets `to` to the parts at `indices`, keeping the pointers it already has.
fn fill<'p, T: 'p>(
    to: &mut Vec<Shared<T>>,
    indices: &[u32],
    part: impl Fn(usize) -> &'p Shared<T>,
) {
    to.truncate(indices.len());
    for (to, &i) in to.iter_mut().zip(indices) {
        to.clone_from(part(i as usize));
    }
    let kept = to.len();
    to.extend(indices[kept..].iter().map(|&i| part(i as usize).clone()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use sharetxn_model::world::fingerprint;
    use sharetxn_model::{Scenario, System};
    use std::collections::BTreeSet;

    /// The first `n` states of `ctp` under `proposed`, breadth-first.
    fn states(n: usize) -> Vec<SystemState> {
        let sys = System::new(
            sharetxn_model::Design::proposed(),
            Scenario::by_name("ctp").expect("ctp"),
        );
        let mut seen = BTreeSet::new();
        let mut out = vec![sys.init_state()];
        let mut actions = Vec::new();
        let mut at = 0;
        while out.len() < n && at < out.len() {
            actions.clear();
            sys.enabled(&out[at], &mut actions);
            for a in &actions {
                let next = sys.step(&out[at], a);
                if seen.insert(fingerprint::of(&next)) {
                    out.push(next);
                }
            }
            at += 1;
        }
        out
    }

    fn round_trip(parts: &mut Parts, state: &SystemState, into: &mut SystemState) {
        let mut record = Vec::new();
        parts.encode(state, None, &mut record);
        assert_eq!(record.len(), parts.stride());
        parts.decode(&record, into);
        assert_eq!(into, state);
        assert_eq!(fingerprint::of(into), fingerprint::of(state));
    }

    #[test]
    fn a_record_decodes_to_the_state_it_encodes() {
        let states = states(5_000);
        let mut parts = Parts::new(states[0].nodes.len());
        // Decoded over the state before, as a breadth-first worker does, and afresh.
        let mut reused = SystemState::default();
        for state in &states {
            round_trip(&mut parts, state, &mut reused);
            round_trip(&mut parts, state, &mut SystemState::default());
        }
        assert!(parts.nodes.values.len() < states.len() * states[0].nodes.len() / 10);
    }

    #[test]
    fn a_successor_encoded_from_its_parent_decodes_to_itself() {
        let sys = System::new(
            sharetxn_model::Design::proposed(),
            Scenario::by_name("ctp").expect("ctp"),
        );
        let states = states(2_000);
        let n = states[0].nodes.len();
        let (mut level, mut next) = (Parts::new(n), Parts::new(n));
        let mut moved = Moved::default();
        let (mut parent, mut child) = (SystemState::default(), SystemState::default());
        let mut actions = Vec::new();
        for state in &states {
            let mut record = Vec::new();
            level.encode(state, None, &mut record);
            level.decode(&record, &mut parent);
            actions.clear();
            sys.enabled(&parent, &mut actions);
            for action in &actions {
                let successor = sys.step(&parent, action);
                let mut out = Vec::new();
                let from = Parent {
                    state: &parent,
                    record: &record,
                    moved: &mut moved,
                };
                next.encode(&successor, Some(from), &mut out);
                next.decode(&out, &mut child);
                assert_eq!(child, successor);
            }
        }
        // Every actor state of these states is still the parent's in some successor, and
        // was carried over by pointer, without a lookup.
        let carried = moved.nodes.iter().filter(|m| **m != NOT_MOVED).count();
        assert_eq!(carried, level.nodes.values.len());
    }

    #[test]
    fn liveness_bits_span_words_beyond_32_actors() {
        let base = &states(200)[199];
        let n = base.nodes.len();
        let actors = 70;
        let cycle = |i: usize| i % n;
        let mut wide = base.clone();
        wide.nodes = (0..actors).map(|i| base.nodes[cycle(i)].clone()).collect();
        wide.storage = (0..actors)
            .map(|i| base.storage[cycle(i)].clone())
            .collect();
        wide.timers = (0..actors).map(|i| base.timers[cycle(i)].clone()).collect();
        wide.choices = (0..actors)
            .map(|i| base.choices[cycle(i)].clone())
            .collect();
        wide.up = (0..actors).map(|i| i % 3 != 1).collect();
        let mut parts = Parts::new(actors);
        assert_eq!(parts.stride(), 4 * actors + 3 + 3);
        round_trip(&mut parts, &wide, &mut SystemState::default());
    }

    #[test]
    fn equal_parts_are_held_once_and_a_hash_collision_keeps_both() {
        let mut interner: Interner<Shared<u32>> = Interner::default();
        assert_eq!(interner.shared(&Shared::new(7)), 0);
        // Equal, from another allocation: shared.
        assert_eq!(interner.shared(&Shared::new(7)), 0);
        // A different value given the same hash: kept apart, and the first still found.
        assert_eq!(
            interner.intern(Shared::new(7).cached_hash(), &Shared::new(8)),
            1
        );
        assert_eq!(interner.shared(&Shared::new(7)), 0);
        assert_eq!(interner.values.len(), 2);
    }
}
