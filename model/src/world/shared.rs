//! `Shared<T>`: an immutable value shared between states, with its hash computed once.
//!
//! Successor states share every actor state that a step did not touch, so cloning a state
//! copies pointers, and fingerprinting a state hashes one precomputed `u64` per actor
//! instead of walking every log and table again. Equality compares the cached hashes first,
//! so two different states almost never compare their contents.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::hash::{BuildHasher, Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

/// The fixed hash function of in-memory fingerprints: fast, seeded with a constant, so a
/// run explores in the same order every time. Never persisted (traces use their own
/// canonical digest).
pub fn fixed_hasher() -> impl Hasher {
    foldhash::quality::FixedState::with_seed(0x5ba2_e7c0_ffee_0001).build_hasher()
}

/// The in-memory 64-bit hash of any value under [`fixed_hasher`].
pub fn fixed_hash<T: Hash + ?Sized>(value: &T) -> u64 {
    let mut h = fixed_hasher();
    value.hash(&mut h);
    h.finish()
}

struct Inner<T> {
    hash: u64,
    value: T,
}

/// An immutable, reference-counted value with its hash cached.
pub struct Shared<T>(Arc<Inner<T>>);

impl<T: Hash> Shared<T> {
    /// Wraps `value`, hashing it once.
    pub fn new(value: T) -> Shared<T> {
        Shared(Arc::new(Inner {
            hash: fixed_hash(&value),
            value,
        }))
    }
}

impl<T: Hash + Clone> Shared<T> {
    /// A copy of the value with `f` applied, rehashed.
    pub fn with(&self, f: impl FnOnce(&mut T)) -> Shared<T> {
        let mut value = self.0.value.clone();
        f(&mut value);
        Shared::new(value)
    }
}

impl<T: Hash + Clone + PartialEq> Shared<T> {
    /// Applies `f` to a copy and keeps the copy only when it differs, so a no-op update
    /// still shares memory with the states before it.
    pub fn update(&mut self, f: impl FnOnce(&mut T)) {
        let mut value = self.0.value.clone();
        f(&mut value);
        if value != self.0.value {
            *self = Shared::new(value);
        }
    }
}

impl<T> Shared<T> {
    /// The cached hash.
    pub fn cached_hash(&self) -> u64 {
        self.0.hash
    }

    /// Whether both handles point at the same value in memory.
    pub fn ptr_eq(a: &Shared<T>, b: &Shared<T>) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(Arc::clone(&self.0))
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0.value
    }
}

impl<T> AsRef<T> for Shared<T> {
    fn as_ref(&self) -> &T {
        &self.0.value
    }
}

impl<T: PartialEq> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Shared::ptr_eq(self, other)
            || (self.0.hash == other.0.hash && self.0.value == other.0.value)
    }
}

impl<T: Eq> Eq for Shared<T> {}

impl<T> Hash for Shared<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.0.hash);
    }
}

impl<T: fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.value.fmt(f)
    }
}

impl<T: Serialize> Serialize for Shared<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.value.serialize(s)
    }
}

impl<'de, T: Deserialize<'de> + Hash> Deserialize<'de> for Shared<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(Shared::new)
    }
}
