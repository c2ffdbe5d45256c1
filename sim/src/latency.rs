//! Message latency. Each link (sender, recipient) draws its own typical latency the first
//! time it is used, around the configured one, so some links are slower than others; each
//! message then varies around its link's typical latency with a long tail (1 in 100 up to
//! 10 times slower, 1 in 1000 up to 100 times), the shape of a real data centre network
//! with retransmits and busy brokers. Spikes far beyond this are a fault (`faults.rs`).

use crate::rng::SimRng;
use stateright::actor::Id;
use std::collections::BTreeMap;

/// Latencies per link.
#[derive(Clone, Debug)]
pub struct Latency {
    typical_ms: u64,
    links: BTreeMap<(Id, Id), u64>,
}

impl Latency {
    /// Links around `typical_ms`.
    pub fn new(typical_ms: u64) -> Latency {
        Latency {
            typical_ms: typical_ms.max(1),
            links: BTreeMap::new(),
        }
    }

    /// The latency of one message from `src` to `dst`, at least 1 ms.
    pub fn sample(&mut self, rng: &mut SimRng, src: Id, dst: Id) -> u64 {
        let typical = self.typical_ms;
        let base = *self
            .links
            .entry((src, dst))
            .or_insert_with(|| rng.between((typical / 2).max(1), typical * 2));
        let mut ms = base + rng.below(base + 1);
        match rng.below(1000) {
            0 => ms *= rng.between(10, 100),
            1..=9 => ms *= rng.between(2, 10),
            _ => {}
        }
        ms.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mostly_near_typical_with_a_tail() {
        let mut l = Latency::new(4);
        let mut rng = SimRng::new(9);
        let (a, b) = (Id::from(0), Id::from(1));
        let xs: Vec<u64> = (0..10_000).map(|_| l.sample(&mut rng, a, b)).collect();
        let near = xs.iter().filter(|x| **x <= 16).count();
        let far = xs.iter().filter(|x| **x > 16).count();
        assert!(near > 9_800, "{near}");
        assert!(far > 10, "the tail exists: {far}");
        assert!(xs.iter().all(|x| *x >= 1));
    }
}
