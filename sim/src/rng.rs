//! The one source of randomness of a run: ChaCha8 seeded from the run's `u64` seed. Every
//! draw goes through here, with integer arithmetic only, so the same seed makes the same
//! run on every machine and every Rust version (no floating point, no platform RNG).

use crate::ratio::Ratio;
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

/// A seeded, deterministic random source.
#[derive(Clone, Debug)]
pub struct SimRng(ChaCha8Rng);

impl SimRng {
    /// The random source of seed `seed`.
    pub fn new(seed: u64) -> SimRng {
        SimRng(ChaCha8Rng::seed_from_u64(seed))
    }

    /// A number in `0..n` (0 when `n` is 0), without modulo bias: rejection keeps every
    /// value equally likely, which matters when a rate is read back from many runs.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let x = self.0.next_u64();
            if x < zone {
                return x % n;
            }
        }
    }

    /// A number in `lo..=hi` (`lo` when the range is empty).
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        match (hi - lo).checked_add(1) {
            Some(span) => lo + self.below(span),
            None => self.0.next_u64(),
        }
    }

    /// True with probability `ratio`.
    pub fn chance(&mut self, ratio: Ratio) -> bool {
        ratio.num > 0 && self.below(u64::from(ratio.den)) < u64::from(ratio.num)
    }

    /// A fair coin.
    pub fn coin(&mut self) -> bool {
        self.0.next_u64() & 1 == 1
    }

    /// One element of `items`, if any.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            return None;
        }
        let i = self.below(items.len() as u64) as usize;
        items.get(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_draws_and_ranges_hold() {
        let (mut a, mut b) = (SimRng::new(7), SimRng::new(7));
        let xs: Vec<u64> = (0..100).map(|_| a.between(3, 9)).collect();
        let ys: Vec<u64> = (0..100).map(|_| b.between(3, 9)).collect();
        assert_eq!(xs, ys);
        assert!(xs.iter().all(|x| (3..=9).contains(x)));
        assert!(
            (3..=9).all(|v| xs.contains(&v)),
            "every value is drawn: {xs:?}"
        );
        assert_eq!(a.between(5, 5), 5);
        assert_eq!(a.below(0), 0);
    }

    #[test]
    fn chance_follows_the_ratio() {
        let mut r = SimRng::new(1);
        assert!(!(0..1000).any(|_| r.chance(Ratio::new(0, 10))));
        assert!((0..1000).all(|_| r.chance(Ratio::new(10, 10))));
        let hits = (0..10_000).filter(|_| r.chance(Ratio::new(1, 4))).count();
        assert!((2_200..2_800).contains(&hits), "{hits}");
    }
}
