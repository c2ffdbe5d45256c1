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

use crate::protocol::msg::Msg;
use crate::world::shared::Shared;
use crate::world::system::Envelope;
use serde::{Deserialize, Serialize};
use stateright::actor::Id;
use std::collections::VecDeque;

/// A connection: (from, to, carries responses).
pub type Channel = (Id, Id, bool);

/// Messages in flight.
#[derive(Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Network {
    /// Open connections, each a FIFO queue, sorted by connection. A step touches one or
    /// two queues, so the others stay shared with the state before it.
    pub channels: Vec<(Channel, Shared<VecDeque<Msg>>)>,
    /// Messages off their connection, deliverable in any order, with multiplicity.
    pub strays: Vec<(Envelope, u8)>,
}

impl Clone for Network {
    fn clone(&self) -> Self {
        Network {
            channels: self.channels.clone(),
            strays: self.strays.clone(),
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
        self.strays.clone_from(&source.strays);
    }
}

fn channel_of(env: &Envelope) -> Channel {
    (env.src, env.dst, env.msg.response_error().is_some())
}

impl Network {
    /// Sends each envelope in order, on its sender's connection.
    pub fn send_all(&mut self, envs: Vec<Envelope>) {
        for env in envs {
            self.send(env);
        }
    }

    /// Sends on the sender's connection.
    pub fn send(&mut self, env: Envelope) {
        let key = channel_of(&env);
        match self.channels.binary_search_by(|(k, _)| k.cmp(&key)) {
            Ok(i) => {
                let q = &mut self.channels[i].1;
                *q = q.with(|q| q.push_back(env.msg));
            }
            Err(i) => self
                .channels
                .insert(i, (key, Shared::new(VecDeque::from([env.msg])))),
        }
    }

    fn queue(&self, key: &Channel) -> Option<&VecDeque<Msg>> {
        self.channels
            .binary_search_by(|(k, _)| k.cmp(key))
            .ok()
            .map(|i| &*self.channels[i].1)
    }

    /// The messages that can arrive next: each connection's head and every stray.
    pub fn deliverable(&self) -> Vec<Envelope> {
        let mut out: Vec<Envelope> = self
            .channels
            .iter()
            .filter_map(|((src, dst, _), q)| {
                q.front().map(|msg| Envelope {
                    src: *src,
                    dst: *dst,
                    msg: msg.clone(),
                })
            })
            .collect();
        for (env, _) in &self.strays {
            if !out.contains(env) {
                out.push(env.clone());
            }
        }
        out.sort();
        out
    }

    /// Whether `env` can arrive next.
    pub fn is_deliverable(&self, env: &Envelope) -> bool {
        self.strays.iter().any(|(e, _)| e == env)
            || self
                .queue(&channel_of(env))
                .and_then(|q| q.front())
                .is_some_and(|m| *m == env.msg)
    }

    /// Removes `env` (a connection's head, or else a stray copy). A stray is taken first:
    /// the copy that left the connection is the one that can be anywhere.
    pub fn take(&mut self, env: &Envelope) {
        if let Some(i) = self.strays.iter().position(|(e, _)| e == env) {
            self.strays[i].1 -= 1;
            if self.strays[i].1 == 0 {
                self.strays.remove(i);
            }
            return;
        }
        let key = channel_of(env);
        if let Ok(i) = self.channels.binary_search_by(|(k, _)| k.cmp(&key)) {
            let q = &self.channels[i].1;
            if q.front() == Some(&env.msg) {
                if q.len() == 1 {
                    self.channels.remove(i);
                } else {
                    self.channels[i].1 = q.with(|q| {
                        q.pop_front();
                    });
                }
            }
        }
    }

    /// Adds a stray copy of `env`.
    pub fn add_stray(&mut self, env: Envelope) {
        match self.strays.iter_mut().find(|(e, _)| *e == env) {
            Some((_, n)) => *n += 1,
            None => {
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
                let (_, q) = self.channels.remove(i);
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
        self.channels.retain(|((_, dst, _), _)| *dst != id);
        self.strays.retain(|(e, _)| e.dst != id);
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
                self.channels.remove(i);
            } else {
                self.channels[i].1 = kept;
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

    /// Whether any message in flight satisfies `f`.
    pub fn any(&self, mut f: impl FnMut(Id, Id, &Msg) -> bool) -> bool {
        self.channels
            .iter()
            .any(|((s, d, _), q)| q.iter().any(|m| f(*s, *d, m)))
            || self.strays.iter().any(|(e, _)| f(e.src, e.dst, &e.msg))
    }
}
