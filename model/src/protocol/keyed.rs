//! A value kept per key of a leader: at the share coordinator a `SharePartitionKey` (group,
//! topic, partition), which the model numbers by its share partition (0 for the first;
//! `ShareCoordinator::group_of` gives its group). Kafka's `ShareCoordinatorShard` keeps its
//! state per key (`shareStateMap`, `leaderEpochMap`, both keyed by `SharePartitionKey`), and
//! a transaction's pending acknowledgements, outcomes and KIP-890 verifications are per key
//! too (docs/fidelity.md, "Share coordinator"). A leader of one key (a data partition, the
//! group coordinator) keys everything at 0.
//!
//! A value of the first key is written as the bare value, so that the states, digests and
//! traces of every scenario with one key read as they did before values had a key (as a
//! persister message's `partition` is left out at 0); another key's is written
//! `{"partition": p, "key": value}`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// `key` at the key numbered `partition` (see the module's documentation).
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Keyed<K> {
    /// The key's share partition (0 for the first, and at a leader of one key).
    pub partition: u8,
    /// The value kept under the key: a producer id, a producer id and epoch, an outbox key.
    pub key: K,
}

impl<K> Keyed<K> {
    /// `key` at the key of share partition `partition`.
    pub const fn new(partition: u8, key: K) -> Keyed<K> {
        Keyed { partition, key }
    }

    /// `key` at the first key (a leader with one key has no other).
    pub const fn first(key: K) -> Keyed<K> {
        Keyed::new(0, key)
    }
}

/// The first key's value prints as the bare value, as traces rendered it before keys.
impl<K: fmt::Debug> fmt::Debug for Keyed<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.partition {
            0 => write!(f, "{:?}", self.key),
            p => write!(f, "SP{p}:{:?}", self.key),
        }
    }
}

/// The written form of another key than the first.
#[derive(Serialize, Deserialize)]
struct Named<K> {
    partition: u8,
    key: K,
}

impl<K: Serialize> Serialize for Keyed<K> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.partition {
            0 => self.key.serialize(s),
            partition => Named {
                partition,
                key: &self.key,
            }
            .serialize(s),
        }
    }
}

/// Either written form, the named one first: no value the model keys has fields named
/// `partition` and `key`, so a bare value never reads as a named one.
#[derive(Deserialize)]
#[serde(untagged)]
enum Written<K> {
    Named(Named<K>),
    Bare(K),
}

impl<'de, K: Deserialize<'de>> Deserialize<'de> for Keyed<K> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Keyed<K>, D::Error> {
        Ok(match Written::deserialize(d)? {
            Written::Named(n) => Keyed::new(n.partition, n.key),
            Written::Bare(key) => Keyed::first(key),
        })
    }
}
