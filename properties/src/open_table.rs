//! An open-addressing table keyed by fingerprint: slots of the fingerprint and a value,
//! a power of two in number, probed linearly from the fingerprint's low bits, doubled when
//! four fifths full. Depth-first search's visited set is 4,096 of them with no value
//! (`seen.rs`, 8 bytes a slot); breadth-first search's visited table is 64 of them with a
//! [`crate::visited::Link`] (24 bytes a slot).
//!
//! It is a table of its own rather than a `HashMap` so that the slot a lookup will read can
//! be prefetched ([`OpenTable::prefetch`]) while the next successor is stepped: deciding
//! whether a successor is new is one random read of a table far larger than the caches.
//! A table is probed by key only and never iterated.

/// Empty slots hold this key; a fingerprint equal to it is kept apart.
const EMPTY: u64 = 0;
/// Slots before the first growth.
const FIRST_SLOTS: usize = 16;

/// A fingerprint with its value.
#[derive(Clone, Copy)]
struct Slot<V> {
    fp: u64,
    value: V,
}

/// Fingerprint to value.
#[derive(Clone)]
pub(crate) struct OpenTable<V> {
    /// A power of two in number; a fingerprint's home is its low bits.
    slots: Vec<Slot<V>>,
    /// Occupied slots.
    used: usize,
    /// The value of the fingerprint equal to [`EMPTY`], if held.
    zero: Option<V>,
}

impl<V: Copy + Default> Default for OpenTable<V> {
    fn default() -> OpenTable<V> {
        OpenTable {
            slots: vec![Self::vacant(); FIRST_SLOTS],
            used: 0,
            zero: None,
        }
    }
}

impl<V: Copy + Default> OpenTable<V> {
    fn vacant() -> Slot<V> {
        Slot {
            fp: EMPTY,
            value: V::default(),
        }
    }

    /// The number of fingerprints held.
    pub fn len(&self) -> usize {
        self.used + usize::from(self.zero.is_some())
    }

    /// Starts fetching the cache line of `fp`'s home slot. Only a hint: it changes no
    /// answer.
    pub fn prefetch(&self, fp: u64) {
        prefetch_index::prefetch_index(&self.slots, self.home(fp));
    }

    fn home(&self, fp: u64) -> usize {
        (fp as usize) & (self.slots.len() - 1)
    }

    /// Where `fp` is (`Ok`), or the empty slot where it would go (`Err`); `fp` is not
    /// [`EMPTY`].
    fn find(&self, fp: u64) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut at = self.home(fp);
        loop {
            match self.slots[at].fp {
                EMPTY => return Err(at),
                s if s == fp => return Ok(at),
                _ => at = (at + 1) & mask,
            }
        }
    }

    /// The value of `fp`, if held.
    pub fn get(&self, fp: u64) -> Option<V> {
        if fp == EMPTY {
            return self.zero;
        }
        self.find(fp).ok().map(|at| self.slots[at].value)
    }

    /// The value of `fp` to change, if held.
    pub fn get_mut(&mut self, fp: u64) -> Option<&mut V> {
        if fp == EMPTY {
            return self.zero.as_mut();
        }
        match self.find(fp) {
            Ok(at) => Some(&mut self.slots[at].value),
            Err(_) => None,
        }
    }

    /// The value of `fp`, with `value` inserted first if `fp` was not held; true if it
    /// was inserted.
    pub fn entry(&mut self, fp: u64, value: V) -> (bool, &mut V) {
        if fp == EMPTY {
            let new = self.zero.is_none();
            return (new, self.zero.get_or_insert(value));
        }
        let at = match self.find(fp) {
            Ok(at) => return (false, &mut self.slots[at].value),
            Err(at) if (self.used + 1) * 5 <= self.slots.len() * 4 => at,
            Err(_) => {
                self.grow();
                self.find(fp).expect_err("not held before growing")
            }
        };
        self.slots[at] = Slot { fp, value };
        self.used += 1;
        (true, &mut self.slots[at].value)
    }

    fn grow(&mut self) {
        let bigger = vec![Self::vacant(); self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, bigger);
        for slot in old.into_iter().filter(|s| s.fp != EMPTY) {
            let at = self.find(slot.fp).expect_err("each fingerprint once");
            self.slots[at] = slot;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::visited::Link;

    /// A fixed mix of the index, so the test's fingerprints spread as real ones do.
    fn fp(i: u64) -> u64 {
        i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ 0xD6E8_FEB8_6659_FD93
    }

    fn link(i: u64) -> Link {
        Link {
            parent: i,
            idx: i as u32,
            pos: (i >> 3) as u32,
        }
    }

    #[test]
    fn a_link_is_inserted_once_and_found_across_growth() {
        let mut map = OpenTable::<Link>::default();
        for i in 0..100_000 {
            assert!(map.entry(fp(i), link(i)).0, "{i} is new");
        }
        for i in 0..100_000 {
            assert_eq!(map.get(fp(i)), Some(link(i)), "{i}");
            let (new, held) = map.entry(fp(i), link(i + 1));
            assert!(!new);
            assert_eq!(*held, link(i), "an entry keeps the first link");
        }
        assert!((100_000..101_000).all(|i| map.get(fp(i)).is_none()));
        assert_eq!(map.len(), 100_000);
        map.get_mut(fp(7)).unwrap().pos = 99;
        assert_eq!(map.get(fp(7)).map(|l| l.pos), Some(99));
    }

    #[test]
    fn a_slot_without_a_value_is_a_fingerprint_alone() {
        assert_eq!(std::mem::size_of::<Slot<()>>(), 8);
        assert_eq!(std::mem::size_of::<Slot<Link>>(), 24);
    }

    #[test]
    fn the_empty_key_and_keys_sharing_a_home_are_held_like_any_other() {
        let mut map = OpenTable::<Link>::default();
        assert!(map.get(EMPTY).is_none());
        assert!(map.entry(EMPTY, link(1)).0);
        assert!(!map.entry(EMPTY, link(2)).0);
        assert_eq!(map.get(EMPTY), Some(link(1)));
        let same_home = [1u64, 1 + (1 << 20), 1 + (2 << 20)];
        for (i, f) in same_home.into_iter().enumerate() {
            assert!(map.entry(f, link(i as u64)).0);
        }
        for (i, f) in same_home.into_iter().enumerate() {
            assert_eq!(map.get(f), Some(link(i as u64)));
        }
        assert_eq!(map.len(), 4);
    }
}
