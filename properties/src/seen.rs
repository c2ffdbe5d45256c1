//! The visited set of depth-first search: fingerprints only, 8 bytes a slot.
//!
//! A depth-first search needs no links to rebuild a trace: the path from its root to the
//! state being expanded is the chain of states it is expanding, so a discovery's trace is
//! taken from that path when it is made (`check.rs`). What is left to remember of a state
//! is whether it was seen, and an entry of this set is its fingerprint and nothing else.
//!
//! The set is split by the top 12 bits of the fingerprint into 4,096 open-addressing
//! tables with linear probing (`open_table.rs`), each grown on its own when it is four
//! fifths full. Growing
//! one table allocates only that table's new slots, so the set's peak is its own size plus
//! one small table, not the twice-over of a single table that doubles: between 10 and 20
//! bytes a state (`docs/checker.md`, "The visited table"). The tables are probed by key
//! only and never iterated in an order that reaches a result.

use crate::open_table::OpenTable;

const SHARD_BITS: u32 = 12;

/// A set of 64-bit fingerprints for one thread: 4,096 tables of 8-byte slots (16 slots
/// each before their first growth: 512 KiB in all).
pub(crate) struct Seen {
    shards: Box<[OpenTable<()>]>,
    len: u64,
}

impl Seen {
    /// An empty set.
    pub fn new() -> Seen {
        Seen {
            shards: vec![OpenTable::default(); 1 << SHARD_BITS].into_boxed_slice(),
            len: 0,
        }
    }

    /// The table `fp` belongs to: its top bits.
    fn index(fp: u64) -> usize {
        (fp >> (64 - SHARD_BITS)) as usize
    }

    fn shard(&self, fp: u64) -> &OpenTable<()> {
        &self.shards[Self::index(fp)]
    }

    /// Whether `fp` was inserted.
    pub fn contains(&self, fp: u64) -> bool {
        self.shard(fp).get(fp).is_some()
    }

    /// Starts fetching where [`Seen::contains`] will look for `fp`, so that a lookup made
    /// a little later does not wait for memory. Only a hint: it changes no answer.
    pub fn prefetch(&self, fp: u64) {
        self.shard(fp).prefetch(fp);
    }

    /// Inserts `fp`; true if it was not there yet.
    pub fn insert(&mut self, fp: u64) -> bool {
        let new = self.shards[Self::index(fp)].entry(fp, ()).0;
        self.len += u64::from(new);
        new
    }

    /// How many fingerprints were inserted.
    #[cfg(test)]
    pub fn len(&self) -> u64 {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixed mix of the index, so the test's fingerprints spread as real ones do.
    fn fp(i: u64) -> u64 {
        i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ 0xD6E8_FEB8_6659_FD93
    }

    #[test]
    fn a_fingerprint_is_new_once_and_known_after() {
        let mut seen = Seen::new();
        for i in 0..200_000 {
            assert!(seen.insert(fp(i)), "{i} is new");
        }
        for i in 0..200_000 {
            assert!(seen.contains(fp(i)), "{i} is kept across growth");
            assert!(!seen.insert(fp(i)), "{i} is known");
        }
        for i in 200_000..210_000 {
            assert!(!seen.contains(fp(i)), "{i} was never inserted");
        }
        assert_eq!(seen.len(), 200_000);
    }

    #[test]
    fn the_empty_slot_value_is_a_fingerprint_like_any_other() {
        let mut seen = Seen::new();
        assert!(!seen.contains(0));
        assert!(seen.insert(0));
        assert!(!seen.insert(0));
        assert!(seen.contains(0));
        // Fingerprints that share a table and a home slot probe past one another.
        let same_home = [1u64, 1 + (1 << 20), 1 + (2 << 20)];
        for f in same_home {
            assert!(seen.insert(f));
        }
        assert!(same_home.iter().all(|&f| seen.contains(f)));
        assert_eq!(seen.len(), 4);
    }
}
