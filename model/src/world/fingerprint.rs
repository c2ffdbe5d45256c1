//! The 64-bit fingerprint of a state, in memory only (never persisted: traces use their own
//! canonical digest), computed from its parts so that a step pays only for what it replaced.
//!
//! A state is a fixed set of slots (each actor's state, storage, liveness, timers and
//! choices, the fault budget, the history) plus the network's open connections and strays,
//! each keyed by what it is. Its fingerprint is the wrapping sum, over every part, of a
//! seeded hash of (the slot's kind, its index or key, the part's hash): the index or key is
//! inside each term, so the sum is order-aware per slot (swapping two actors' states
//! changes it) while the order in which terms are added does not matter. Actor states,
//! logs, timers, choices, queues and the history hash as their cached `Shared` hashes.
//!
//! A successor shares with its parent every part the step did not replace (`Shared`
//! pointers), so [`after_step`] walks the parts by pointer and, for each one replaced,
//! subtracts its old term and adds its new one: a few hashes instead of a term for every
//! part. Debug builds compare it with the full computation ([`of`]) on every step.

use crate::world::network::{Channel, Network};
use crate::world::record::Record;
use crate::world::shared::{fixed_hash, Shared};
use crate::world::state::SystemState;
use std::hash::Hash;

/// The kinds of slot, one per field of the state.
#[derive(Clone, Copy)]
enum Kind {
    Actors = 1,
    Node,
    Storage,
    Up,
    Timers,
    Choices,
    Channel,
    Stray,
    Budget,
    Ghost,
}

/// The term of one part: a seeded hash of its slot's kind, its index or key, and its hash.
fn term(kind: Kind, at: u64, hash: u64) -> u64 {
    fixed_hash(&(kind as u64, at, hash))
}

fn storage_hash<T: Hash>(s: &Option<Shared<T>>) -> u64 {
    s.as_ref().map_or(0, Shared::cached_hash)
}

/// The term of connection `key` whose queue hashes to `queue`.
pub(crate) fn channel_term(key: &Channel, queue: u64) -> u64 {
    term(Kind::Channel, fixed_hash(key), queue)
}

/// The fingerprint of `state`, from all of its parts.
pub fn of<H: Record>(state: &SystemState<H>) -> u64 {
    let mut fp = term(Kind::Actors, 0, state.nodes.len() as u64);
    let mut add = |t: u64| fp = fp.wrapping_add(t);
    for (i, n) in state.nodes.iter().enumerate() {
        add(term(Kind::Node, i as u64, n.cached_hash()));
    }
    for (i, s) in state.storage.iter().enumerate() {
        add(term(Kind::Storage, i as u64, storage_hash(s)));
    }
    for (i, up) in state.up.iter().enumerate() {
        add(term(Kind::Up, i as u64, u64::from(*up)));
    }
    for (i, t) in state.timers.iter().enumerate() {
        add(term(Kind::Timers, i as u64, t.cached_hash()));
    }
    for (i, c) in state.choices.iter().enumerate() {
        add(term(Kind::Choices, i as u64, c.cached_hash()));
    }
    // From every part, not the kept sum: debug builds compare the two on every step.
    add(state.network.sum_terms());
    add(term(Kind::Budget, 0, fixed_hash(&state.budget)));
    add(term(Kind::Ghost, 0, state.ghost.cached_hash()));
    fp
}

/// The term of a stray `env` with `copies` copies.
pub(crate) fn stray_term(env: &crate::world::state::Envelope, copies: u8) -> u64 {
    term(Kind::Stray, fixed_hash(env), u64::from(copies))
}

/// The fingerprint of `next` from the fingerprint `fp` of `before`: the terms of the parts
/// that differ are exchanged, found by pointer for shared parts and by value for the rest.
/// Any two states of one `System` will do; a step's successor shares most of its parent.
pub fn after_step<H: Record>(fp: u64, before: &SystemState<H>, next: &SystemState<H>) -> u64 {
    if before.nodes.len() != next.nodes.len() || before.storage.len() != next.storage.len() {
        return of(next);
    }
    let mut d = Delta(fp);
    for (i, (a, b)) in before.nodes.iter().zip(&next.nodes).enumerate() {
        d.shared(Kind::Node, i as u64, a, b);
    }
    for (i, (a, b)) in before.storage.iter().zip(&next.storage).enumerate() {
        let same = match (a, b) {
            (Some(a), Some(b)) => Shared::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if !same {
            d.swap(Kind::Storage, i as u64, storage_hash(a), storage_hash(b));
        }
    }
    for (i, (a, b)) in before.up.iter().zip(&next.up).enumerate() {
        d.swap(Kind::Up, i as u64, u64::from(*a), u64::from(*b));
    }
    for (i, (a, b)) in before.timers.iter().zip(&next.timers).enumerate() {
        d.shared(Kind::Timers, i as u64, a, b);
    }
    for (i, (a, b)) in before.choices.iter().zip(&next.choices).enumerate() {
        d.shared(Kind::Choices, i as u64, a, b);
    }
    d.network(&before.network, &next.network);
    if before.budget != next.budget {
        d.swap(
            Kind::Budget,
            0,
            fixed_hash(&before.budget),
            fixed_hash(&next.budget),
        );
    }
    d.shared(Kind::Ghost, 0, &before.ghost, &next.ghost);
    debug_assert_eq!(d.0, of(next), "the incremental fingerprint is the full one");
    d.0
}

/// A fingerprint being moved from one state to another.
struct Delta(u64);

impl Delta {
    fn add(&mut self, t: u64) {
        self.0 = self.0.wrapping_add(t);
    }

    fn sub(&mut self, t: u64) {
        self.0 = self.0.wrapping_sub(t);
    }

    /// Exchanges the term of slot (`kind`, `at`) with hash `old` for the one with `new`.
    fn swap(&mut self, kind: Kind, at: u64, old: u64, new: u64) {
        if old != new {
            self.sub(term(kind, at, old));
            self.add(term(kind, at, new));
        }
    }

    fn shared<T: Hash>(&mut self, kind: Kind, at: u64, a: &Shared<T>, b: &Shared<T>) {
        if !Shared::ptr_eq(a, b) {
            self.swap(kind, at, a.cached_hash(), b.cached_hash());
        }
    }

    /// The network's terms: the sums the networks keep (`Network::terms`).
    fn network(&mut self, a: &Network, b: &Network) {
        self.sub(a.terms());
        self.add(b.terms());
    }
}
