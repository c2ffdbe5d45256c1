//! The network: Kafka talks over TCP, so messages on one connection arrive in the order
//! they were sent, while different connections are independent. A connection here is a
//! (sender, recipient, request-or-response) channel: requests a client sends to a broker
//! queue in order, and the broker's responses queue in order on their own channel, so a
//! verification answer and a coordinator's marker to the same broker (two different
//! connections in Kafka) may overtake each other.
//!
//! Messages that left their connection travel as strays, in any order: a duplicated
//! message (the copy a retry sends on a new connection), and everything still queued on a
//! connection that a request timeout closed (Kafka's `NetworkClient` disconnects on a
//! request timeout; what was already sent may still arrive, late and out of order).
//!
//! The network keeps the sum of its terms in a state's fingerprint (one per connection,
//! one per distinct stray, `fingerprint.rs`) up to date through every change, so that a
//! searcher fingerprints a successor's network without walking its connections. Its
//! fields are private for that reason: every change goes through a method here.

use crate::protocol::msg::Msg;
use crate::world::action_ref::{same_msg, EnvelopeRef};
use crate::world::fingerprint::{channel_term, stray_term};
use crate::world::record::Outgoing;
use crate::world::shared::Shared;
use crate::world::system::Envelope;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;
use stateright::actor::Id;
use std::hash::{Hash, Hasher};

/// A connection: (from, to, carries responses).
pub type Channel = (Id, Id, bool);

/// A connection's messages, oldest first. Most connections hold one message at a time (a
/// request, or its answer), so the queue keeps one in place and allocates only for more.
pub type Queue = SmallVec<[Msg; 1]>;

/// The deliverable messages of a state, borrowed ([`Network::deliverable_refs`]): rarely
/// more than eight, so listing them allocates nothing.
pub type Deliverable<'a> = SmallVec<[EnvelopeRef<'a>; 8]>;

/// Messages in flight.
#[derive(Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Network {
    /// Open connections, each a FIFO queue, sorted by connection. A step touches one or
    /// two queues, so the others stay shared with the state before it.
    channels: Vec<(Channel, Shared<Queue>)>,
    /// Messages off their connection, deliverable in any order, with multiplicity.
    strays: Vec<(Envelope, u8)>,
    /// The sum of the terms, if kept.
    #[serde(skip)]
    terms: Terms,
}

/// The wrapping sum of a network's fingerprint terms, or unknown: a network read from a
/// trace, or one whose holder never fingerprints it ([`Network::forget_terms`]). It is
/// derived data, so it takes no part in the network's equality, hash or serialized form.
#[derive(Clone, Copy, Debug)]
struct Terms(Option<u64>);

impl Default for Terms {
    /// A network deserialized is not empty: its sum is unknown until asked for.
    fn default() -> Self {
        Terms(None)
    }
}

impl PartialEq for Terms {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Terms {}

impl Hash for Terms {
    fn hash<S: Hasher>(&self, _: &mut S) {}
}

impl Terms {
    /// Exchanges `old` for `new` in a known sum.
    fn swap(&mut self, old: u64, new: u64) {
        if let Some(sum) = &mut self.0 {
            *sum = sum.wrapping_sub(old).wrapping_add(new);
        }
    }
}

impl Clone for Network {
    fn clone(&self) -> Self {
        Network {
            channels: self.channels.clone(),
            strays: self.strays.clone(),
            terms: self.terms,
        }
    }

    /// Reuses this network's vectors (a searcher's scratch state), and each queue pointer
    /// that is already `source`'s (`Shared::clone_from`); a tuple's own `clone_from` would
    /// copy the pointer anyway.
    fn clone_from(&mut self, source: &Self) {
        self.channels.truncate(source.channels.len());
        let kept = self.channels.len();
        for (to, from) in self.channels.iter_mut().zip(&source.channels) {
            to.0 = from.0;
            to.1.clone_from(&from.1);
        }
        self.channels.extend_from_slice(&source.channels[kept..]);
        // A step seldom changes the strays: comparing them spares copying (allocating)
        // every stray message again for every successor of a state that has any.
        if self.strays != source.strays {
            self.strays.clone_from(&source.strays);
        }
        self.terms = source.terms;
    }
}

fn channel_of(env: EnvelopeRef<'_>) -> Channel {
    (env.src, env.dst, env.msg.response_error().is_some())
}

impl Network {
    /// An empty network, its terms kept (their sum is 0). `Network::default()`, like a
    /// network read back from a trace, does not keep them.
    pub fn new() -> Network {
        Network {
            channels: Vec::new(),
            strays: Vec::new(),
            terms: Terms(Some(0)),
        }
    }

    /// The open connections, sorted by connection.
    pub fn channels(&self) -> &[(Channel, Shared<Queue>)] {
        &self.channels
    }

    /// The strays with their copies, sorted.
    pub fn strays(&self) -> &[(Envelope, u8)] {
        &self.strays
    }

    /// The sum of the network's fingerprint terms: kept, or computed from every part.
    pub fn terms(&self) -> u64 {
        self.terms.0.unwrap_or_else(|| self.sum_terms())
    }

    /// The sum of the network's fingerprint terms from every part (what [`Network::terms`]
    /// must equal).
    pub fn sum_terms(&self) -> u64 {
        let channels = self
            .channels
            .iter()
            .map(|(key, q)| channel_term(key, q.cached_hash()));
        let strays = self.strays.iter().map(|(env, n)| stray_term(env, *n));
        channels.chain(strays).fold(0, u64::wrapping_add)
    }

    /// Stops keeping the sum of the terms: a holder that never fingerprints this network
    /// (the simulator) spares hashing every queue a step changes.
    pub fn forget_terms(&mut self) {
        self.terms = Terms(None);
    }

    /// Puts `queue` in place of connection `i`'s queue.
    fn replace_queue(&mut self, i: usize, queue: Shared<Queue>) {
        let (key, old) = &self.channels[i];
        if self.terms.0.is_some() {
            let (old, new) = (old.cached_hash(), queue.cached_hash());
            self.terms
                .swap(channel_term(key, old), channel_term(key, new));
        }
        self.channels[i].1 = queue;
    }

    /// Opens connection `key` at position `i` with `queue`.
    fn open_channel(&mut self, i: usize, key: Channel, queue: Shared<Queue>) {
        if self.terms.0.is_some() {
            self.terms.swap(0, channel_term(&key, queue.cached_hash()));
        }
        self.channels.insert(i, (key, queue));
    }

    /// Closes connection `i`, returning its queue.
    fn close_channel(&mut self, i: usize) -> (Channel, Shared<Queue>) {
        let (key, queue) = self.channels.remove(i);
        if self.terms.0.is_some() {
            self.terms.swap(channel_term(&key, queue.cached_hash()), 0);
        }
        (key, queue)
    }

    /// Sets the copies of stray `i` to `n` (0 removes it).
    fn set_stray(&mut self, i: usize, n: u8) {
        let (env, old) = &self.strays[i];
        if self.terms.0.is_some() {
            let new = if n == 0 { 0 } else { stray_term(env, n) };
            self.terms.swap(stray_term(env, *old), new);
        }
        if n == 0 {
            self.strays.remove(i);
        } else {
            self.strays[i].1 = n;
        }
    }

    /// Keeps only the connections `keep` accepts.
    pub fn retain_channels(&mut self, mut keep: impl FnMut(&Channel) -> bool) {
        let mut i = 0;
        while i < self.channels.len() {
            if keep(&self.channels[i].0) {
                i += 1;
            } else {
                self.close_channel(i);
            }
        }
    }

    /// Sends each message in order, on its sender's connection.
    pub fn send_all(&mut self, sent: impl IntoIterator<Item = Outgoing>) {
        for out in sent {
            self.send(out);
        }
    }

    /// Sends on the sender's connection: a connection with nothing in flight opens with
    /// the message's own queue, shared as it is.
    pub fn send(&mut self, out: Outgoing) {
        let key = channel_of(out.env());
        match self.channels.binary_search_by(|(k, _)| k.cmp(&key)) {
            Ok(i) => {
                let q = self.channels[i].1.with(|q| q.push(out.msg().clone()));
                self.replace_queue(i, q);
            }
            Err(i) => self.open_channel(i, key, out.queue),
        }
    }

    fn queue(&self, key: &Channel) -> Option<&Queue> {
        self.channels
            .binary_search_by(|(k, _)| k.cmp(key))
            .ok()
            .map(|i| &*self.channels[i].1)
    }

    /// The messages that can arrive next: each connection's head and every stray, each
    /// once, sorted.
    pub fn deliverable(&self) -> Vec<Envelope> {
        let mut out = SmallVec::new();
        self.deliverable_refs(&mut out);
        out.into_iter().map(EnvelopeRef::to_owned).collect()
    }

    /// [`Network::deliverable`] borrowed from this network, into `out` (cleared first).
    pub fn deliverable_refs<'a>(&'a self, out: &mut Deliverable<'a>) {
        out.clear();
        out.extend(self.channels.iter().filter_map(|((src, dst, _), q)| {
            q.first().map(|msg| EnvelopeRef {
                src: *src,
                dst: *dst,
                msg,
            })
        }));
        let heads = out.len();
        for (env, _) in &self.strays {
            if !out[..heads].iter().any(|e| e.is(env)) {
                out.push(env.as_ref());
            }
        }
        out.sort_unstable();
    }

    /// Whether `env` can arrive next.
    pub fn is_deliverable(&self, env: &Envelope) -> bool {
        self.strays.iter().any(|(e, _)| e == env)
            || self
                .queue(&channel_of(env.as_ref()))
                .and_then(|q| q.first())
                .is_some_and(|m| *m == env.msg)
    }

    /// Removes `env` (a connection's head, or else a stray copy). A stray is taken first:
    /// the copy that left the connection is the one that can be anywhere.
    pub fn take(&mut self, env: EnvelopeRef<'_>) {
        if let Some(i) = self.strays.iter().position(|(e, _)| env.is(e)) {
            self.set_stray(i, self.strays[i].1 - 1);
            return;
        }
        let key = channel_of(env);
        if let Ok(i) = self.channels.binary_search_by(|(k, _)| k.cmp(&key)) {
            let q = &self.channels[i].1;
            if q.first().is_some_and(|m| same_msg(m, env.msg)) {
                if q.len() == 1 {
                    self.close_channel(i);
                } else {
                    // The rest, copied once: kept in place when one is left.
                    let rest = Shared::new(q[1..].iter().cloned().collect());
                    self.replace_queue(i, rest);
                }
            }
        }
    }

    /// Adds a stray copy of `env`.
    pub fn add_stray(&mut self, env: Envelope) {
        match self.strays.iter().position(|(e, _)| *e == env) {
            Some(i) => self.set_stray(i, self.strays[i].1 + 1),
            None => {
                if self.terms.0.is_some() {
                    self.terms.swap(0, stray_term(&env, 1));
                }
                self.strays.push((env, 1));
                self.strays.sort();
            }
        }
    }

    /// Closes the connection `src -> dst` (requests and responses): what it still holds
    /// becomes stray.
    pub fn disconnect(&mut self, src: Id, dst: Id) {
        for key in [(src, dst, false), (dst, src, true)] {
            if let Ok(i) = self.channels.binary_search_by(|(k, _)| k.cmp(&key)) {
                let (_, q) = self.close_channel(i);
                for msg in q.iter().cloned() {
                    self.add_stray(Envelope {
                        src: key.0,
                        dst: key.1,
                        msg,
                    });
                }
            }
        }
    }

    /// `id` crashed: what was on its way to it dies with its connections. What it sent
    /// before crashing is already on the wire and may still arrive.
    pub fn crash(&mut self, id: Id) {
        self.retain_channels(|(_, dst, _)| *dst != id);
        let mut i = 0;
        while i < self.strays.len() {
            if self.strays[i].0.dst == id {
                self.set_stray(i, 0);
            } else {
                i += 1;
            }
        }
    }

    /// Takes back the requests queued on `src -> dst` that satisfy `f`: they were never
    /// written to a socket (`dst` was down), so a sender that gives up on them leaves
    /// nothing behind. A copy already off the connection (a stray) may still arrive.
    pub fn unsend(&mut self, src: Id, dst: Id, mut f: impl FnMut(&Msg) -> bool) {
        let key = (src, dst, false);
        if let Ok(i) = self.channels.binary_search_by(|(k, _)| k.cmp(&key)) {
            if !self.channels[i].1.iter().any(&mut f) {
                return;
            }
            let kept = self.channels[i].1.with(|q| q.retain(|m| !f(m)));
            if kept.is_empty() {
                self.close_channel(i);
            } else {
                self.replace_queue(i, kept);
            }
        }
    }

    /// Every message in flight, each copy once.
    pub fn iter(&self) -> impl Iterator<Item = Envelope> + '_ {
        let queued = self.channels.iter().flat_map(|((src, dst, _), q)| {
            q.iter().map(move |msg| Envelope {
                src: *src,
                dst: *dst,
                msg: msg.clone(),
            })
        });
        let strays = self
            .strays
            .iter()
            .flat_map(|(e, n)| std::iter::repeat_n(e.clone(), usize::from(*n)));
        queued.chain(strays)
    }

    /// Whether nothing is in flight.
    pub fn is_empty(&self) -> bool {
        self.channels.is_empty() && self.strays.is_empty()
    }

    /// Whether any message in flight from `src` to `dst` satisfies `f`: only that pair's
    /// two connections (found by key) and the strays are looked at.
    pub fn any_from(&self, src: Id, dst: Id, mut f: impl FnMut(&Msg) -> bool) -> bool {
        let start = self
            .channels
            .partition_point(|((s, d, _), _)| (*s, *d) < (src, dst));
        self.channels[start..]
            .iter()
            .take_while(|((s, d, _), _)| *s == src && *d == dst)
            .any(|(_, q)| q.iter().any(&mut f))
            || self
                .strays
                .iter()
                .any(|(e, _)| e.src == src && e.dst == dst && f(&e.msg))
    }

    /// Whether any message in flight satisfies `f`.
    pub fn any(&self, mut f: impl FnMut(Id, Id, &Msg) -> bool) -> bool {
        self.channels
            .iter()
            .any(|((s, d, _), q)| q.iter().any(|m| f(*s, *d, m)))
            || self.strays.iter().any(|(e, _)| f(e.src, e.dst, &e.msg))
    }
}
