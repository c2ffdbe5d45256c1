//! An actor's armed timers: a sorted set of a few elements, kept inline.
//!
//! An actor holds one to three timers at a time, and every state a step changed them in
//! owns its own set. A `BTreeSet` allocates a whole B-tree node for one element (about 200
//! bytes, and a second allocation besides the `Shared` that holds it), which made timers
//! one of the largest parts of a breadth-first frontier state (docs/checker.md, "Where
//! breadth-first memory goes"). This set keeps up to [`INLINE`] timers inside the value.
//!
//! It is the same value to everything that reads a state: iteration is in ascending order,
//! the hash writes the length and then each element as `BTreeSet`'s does (so fingerprints,
//! and with them every state count, are unchanged), and serde reads and writes a sequence,
//! as for a `BTreeSet` (so traces and their digests are unchanged).

use crate::protocol::msg::Timer;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use smallvec::SmallVec;
use std::hash::{Hash, Hasher};

/// How many timers the set holds without a heap allocation of its own.
pub const INLINE: usize = 2;

/// A set of timers in ascending order.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct TimerSet(SmallVec<[Timer; INLINE]>);

impl TimerSet {
    /// Adds `timer`; true if it was not armed.
    pub fn insert(&mut self, timer: Timer) -> bool {
        match self.0.binary_search(&timer) {
            Ok(_) => false,
            Err(at) => {
                self.0.insert(at, timer);
                true
            }
        }
    }

    /// Removes `timer`; true if it was armed.
    pub fn remove(&mut self, timer: &Timer) -> bool {
        match self.0.binary_search(timer) {
            Ok(at) => {
                self.0.remove(at);
                true
            }
            Err(_) => false,
        }
    }

    /// Whether `timer` is armed.
    pub fn contains(&self, timer: &Timer) -> bool {
        self.0.binary_search(timer).is_ok()
    }

    /// Disarms every timer.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// The timers in ascending order.
    pub fn iter(&self) -> std::slice::Iter<'_, Timer> {
        self.0.iter()
    }

    /// How many timers are armed.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no timer is armed.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The timers armed here and not in `other`, in ascending order.
    pub fn difference<'a>(&'a self, other: &'a TimerSet) -> impl Iterator<Item = &'a Timer> {
        self.iter().filter(move |t| !other.contains(t))
    }
}

impl FromIterator<Timer> for TimerSet {
    fn from_iter<I: IntoIterator<Item = Timer>>(iter: I) -> TimerSet {
        let mut timers: SmallVec<[Timer; INLINE]> = iter.into_iter().collect();
        timers.sort_unstable();
        timers.dedup();
        TimerSet(timers)
    }
}

impl Hash for TimerSet {
    /// The bytes `BTreeSet<Timer>` hashes: the length, then each element in order.
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(self.0.len());
        for timer in &self.0 {
            timer.hash(state);
        }
    }
}

impl std::fmt::Debug for TimerSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl Serialize for TimerSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for TimerSet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<TimerSet, D::Error> {
        Ok(Vec::<Timer>::deserialize(deserializer)?
            .into_iter()
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::width::Offset;
    use crate::world::shared::fixed_hash;
    use std::collections::BTreeSet;

    fn lock(offset: Offset) -> Timer {
        Timer::AcquisitionLock(offset)
    }

    /// The hash a `Shared` caches, which the fingerprint is built from.
    fn foldhash<T: Hash>(value: &T) -> u64 {
        fixed_hash(value)
    }

    #[test]
    fn it_is_the_btree_set_it_replaces_in_order_hash_and_json() {
        let timers = [
            lock(3),
            Timer::ReadStateTimeout,
            lock(1),
            Timer::StageRetry,
            lock(3),
        ];
        let mut set = TimerSet::default();
        let mut tree = BTreeSet::new();
        for t in timers {
            assert_eq!(set.insert(t), tree.insert(t), "{t:?}");
        }
        assert_eq!(
            set.iter().collect::<Vec<_>>(),
            tree.iter().collect::<Vec<_>>()
        );
        assert_eq!(foldhash(&set), foldhash(&tree));
        let json = serde_json::to_string(&set).unwrap();
        assert_eq!(json, serde_json::to_string(&tree).unwrap());
        assert_eq!(serde_json::from_str::<TimerSet>(&json).unwrap(), set);
        assert_eq!(format!("{set:?}"), format!("{tree:?}"));
        assert!(set.remove(&lock(1)) && tree.remove(&lock(1)));
        assert!(!set.remove(&lock(1)));
        assert_eq!(foldhash(&set), foldhash(&tree));
        assert!(set.contains(&lock(3)) && !set.contains(&lock(1)));
        set.clear();
        assert!(set.is_empty());
        assert_eq!(foldhash(&set), foldhash(&BTreeSet::<Timer>::new()));
    }

    #[test]
    fn a_sequence_out_of_order_or_repeated_reads_as_the_set() {
        let set: TimerSet = serde_json::from_str(
            r#"[{"AcquisitionLock":2},{"AcquisitionLock":1},{"AcquisitionLock":2}]"#,
        )
        .unwrap();
        assert_eq!(set.iter().copied().collect::<Vec<_>>(), [lock(1), lock(2)]);
    }
}
