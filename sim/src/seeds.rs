//! Which seeds a process runs: a half-open range `A..B`, optionally one shard `I/N` of it
//! (every N-th seed from the I-th), so that N machines given the same range and shards
//! 0..N run every seed exactly once and their JSON lines merge into one summary.

use std::fmt;

/// Seeds `start..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeedRange {
    /// The first seed.
    pub start: u64,
    /// One past the last seed.
    pub end: u64,
}

/// Shard `index` of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which shard, from 0.
    pub index: u64,
    /// How many shards.
    pub count: u64,
}

impl SeedRange {
    /// Parses `A..B` with `A < B`.
    pub fn parse(text: &str) -> Result<SeedRange, String> {
        let bad = || format!("--seeds {text}: expected A..B with whole numbers A < B");
        let (a, b) = text.split_once("..").ok_or_else(bad)?;
        let (start, end): (u64, u64) =
            (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
        if start >= end {
            return Err(bad());
        }
        Ok(SeedRange { start, end })
    }

    /// The seeds of `shard` in this range, in order.
    pub fn seeds(self, shard: Shard) -> impl Iterator<Item = u64> {
        (self.start..self.end).filter(move |s| (s - self.start) % shard.count == shard.index)
    }
}

impl fmt::Display for SeedRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

impl Shard {
    /// The whole range.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Parses `I/N` with `I < N`.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("--shard {text}: expected I/N with whole numbers 0 <= I < N");
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (u64, u64) =
            (i.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_the_range_once() {
        let r = SeedRange::parse("10..20").unwrap();
        let mut all: Vec<u64> = (0..3)
            .flat_map(|i| r.seeds(Shard { index: i, count: 3 }))
            .collect();
        all.sort_unstable();
        assert_eq!(all, (10..20).collect::<Vec<_>>());
        assert_eq!(r.seeds(Shard::ALL).count(), 10);
    }

    #[test]
    fn bad_ranges_and_shards_are_refused() {
        for bad in ["5..5", "6..5", "x..9", "5", "..9", "-1..3"] {
            assert!(SeedRange::parse(bad).is_err(), "{bad}");
        }
        for bad in ["3/2", "2/2", "0/0", "1", "a/b", "-1/2"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Shard::parse("1/4").unwrap(), Shard { index: 1, count: 4 });
    }
}
