//! `Shared<T>`: an immutable value shared between states, with its hash computed at most
//! once.
//!
//! Successor states share every actor state that a step did not touch, so cloning a state
//! copies pointers, and fingerprinting a state hashes one cached `u64` per actor instead of
//! walking every log and table again. The hash is computed when first asked for, not when
//! the value is made: a checker fingerprints every state it reaches and pays it once per
//! value, while the simulator, which never compares states, never pays it. Equality
//! compares the hashes first when both are known, so two different states almost never
//! compare their contents.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::hash::{BuildHasher, Hash, Hasher};
use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};
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

/// The cached hash before it is computed. A value whose hash is `UNKNOWN` caches
/// [`UNKNOWN_STANDS_IN`] instead (one value in 2^64).
const UNKNOWN: u64 = 0;
const UNKNOWN_STANDS_IN: u64 = 1;

struct Inner<T> {
    /// The value's hash under [`fixed_hasher`], or [`UNKNOWN`]. Threads that race to fill
    /// it store the same number, so relaxed loads and stores are enough.
    hash: AtomicU64,
    value: T,
}

/// An immutable, reference-counted value with its hash cached.
pub struct Shared<T>(Arc<Inner<T>>);

impl<T: Hash> Shared<T> {
    /// Wraps `value`; its hash is computed on first use.
    pub fn new(value: T) -> Shared<T> {
        Shared(Arc::new(Inner {
            hash: AtomicU64::new(UNKNOWN),
            value,
        }))
    }

    /// The value's hash, computed on the first call and cached.
    pub fn cached_hash(&self) -> u64 {
        match self.0.hash.load(Ordering::Relaxed) {
            UNKNOWN => {
                let hash = match fixed_hash(&self.0.value) {
                    UNKNOWN => UNKNOWN_STANDS_IN,
                    hash => hash,
                };
                self.0.hash.store(hash, Ordering::Relaxed);
                hash
            }
            hash => hash,
        }
    }
}

impl<T: Hash + Clone> Shared<T> {
    /// A copy of the value with `f` applied (hashed again when first asked).
    pub fn with(&self, f: impl FnOnce(&mut T)) -> Shared<T> {
        let mut value = self.0.value.clone();
        f(&mut value);
        Shared::new(value)
    }
}

impl<T: Hash + Clone + PartialEq> Shared<T> {
    /// Applies `f` to a copy and keeps the copy only when it differs, so a no-op update
    /// still shares memory with the states before it. A value no other handle holds is
    /// changed in place instead (its hash computed again when next asked): nothing else
    /// can see the difference, and a step that updates one part twice, or the simulator,
    /// which moves the history from state to state, copies it at most once.
    pub fn update(&mut self, f: impl FnOnce(&mut T)) {
        // A plain load first: in a search almost every value is still shared with the
        // state before, and `Arc::get_mut` alone would cost two atomic writes to learn it.
        if Arc::strong_count(&self.0) == 1 {
            if let Some(inner) = Arc::get_mut(&mut self.0) {
                f(&mut inner.value);
                *inner.hash.get_mut() = UNKNOWN;
                return;
            }
        }
        let mut value = self.0.value.clone();
        f(&mut value);
        if value != self.0.value {
            *self = Shared::new(value);
        }
    }
}

impl<T> Shared<T> {
    /// Whether both handles point at the same value in memory.
    pub fn ptr_eq(a: &Shared<T>, b: &Shared<T>) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(Arc::clone(&self.0))
    }

    /// Leaves a pointer that is already `source`'s alone: a searcher resets its scratch
    /// state to the parent before every successor (`SystemState::clone_from`), and most
    /// parts are still the parent's, so this spares two atomic counts per part.
    fn clone_from(&mut self, source: &Self) {
        if !Arc::ptr_eq(&self.0, &source.0) {
            self.0 = Arc::clone(&source.0);
        }
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
        if Shared::ptr_eq(self, other) {
            return true;
        }
        // Different known hashes are different values; an unknown hash is not computed
        // here, since comparing the values stops at their first difference.
        let (a, b) = (
            self.0.hash.load(Ordering::Relaxed),
            other.0.hash.load(Ordering::Relaxed),
        );
        (a == UNKNOWN || b == UNKNOWN || a == b) && self.0.value == other.0.value
    }
}

impl<T: Eq> Eq for Shared<T> {}

impl<T: Hash> Hash for Shared<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.cached_hash());
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

#[cfg(test)]
mod tests {
    use super::{fixed_hash, Shared};

    #[test]
    fn an_update_of_a_held_value_leaves_the_other_handle_alone() {
        let mut a = Shared::new(vec![1, 2]);
        let b = a.clone();
        a.update(|v| v.push(3));
        assert_eq!((a.as_slice(), b.as_slice()), (&[1, 2, 3][..], &[1, 2][..]));
        assert!(!Shared::ptr_eq(&a, &b));
        assert_eq!(a.cached_hash(), fixed_hash(&vec![1, 2, 3]));
    }

    #[test]
    fn an_update_of_a_sole_value_is_in_place_and_hashed_again() {
        let mut a = Shared::new(vec![1, 2]);
        assert_eq!(a.cached_hash(), fixed_hash(&vec![1, 2]));
        let at: *const Vec<i32> = &*a;
        a.update(|v| v.push(3));
        assert!(std::ptr::eq(at, &*a), "changed where it was");
        assert_eq!(a.cached_hash(), fixed_hash(&vec![1, 2, 3]));
        assert_eq!(a, Shared::new(vec![1, 2, 3]));
    }
}
