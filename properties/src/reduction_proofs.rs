//! What a reduction that proves each candidate set as the search goes would cost,
//! measured on the whole state graph (`docs/checker.md`, "Why there is no partial-order
//! reduction yet"): a proof of an actor's set at a state visits every state the other
//! actors reach from it first, and the ceiling's conditions are what it would check
//! there. Only the proofs that succeed are counted, so the cost is a lower bound.

use crate::reduction_graph::Graph;
use crate::reduction_sizing::Visible;
use std::cell::{Cell, RefCell};

/// The caps on a proof ([`Graph::proofs`]) sized, one row each.
pub const PROOF_CAPS: [usize; 3] = [32, 128, 1024];

/// What a reduction that proves each set by visiting what it skips would cost
/// ([`Graph::proofs`]).
#[derive(Debug)]
pub struct Proofs {
    /// Distinct states the reduced search reached.
    pub states: usize,
    /// Whether every property's violation and twin came out as over the whole space.
    pub same: bool,
    /// States the proofs that succeeded visited, counted once per proof.
    pub visits: u64,
    /// Distinct states the proofs that succeeded visited.
    pub distinct: usize,
}

impl Graph {
    /// The states reachable from `s` by steps of actors other than `a` (what a proof of
    /// `a`'s set at `s` visits), into `seen` (its states) with `stamp` marking them by
    /// `round`; false if more than `cap`.
    fn skipped(
        &self,
        (s, a, cap): (usize, usize, usize),
        round: u32,
        stamp: &mut [u32],
        seen: &mut Vec<u32>,
    ) -> bool {
        seen.clear();
        stamp[s] = round;
        seen.push(s as u32);
        let mut next = 0;
        while let Some(&t) = seen.get(next) {
            next += 1;
            let others = self.edges[t as usize]
                .iter()
                .filter(|e| usize::from(e.actor) != a);
            for e in others {
                if stamp[e.to as usize] != round {
                    stamp[e.to as usize] = round;
                    seen.push(e.to);
                    if seen.len() > cap {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// A reduction that proves each candidate set by visiting every state the other
    /// actors reach first, giving up past `cap` states: the ceiling's sets whose proof
    /// fits. Only the proofs that succeed are counted, each at every state it must visit;
    /// the failed ones, which a real reduction also pays for up to the state that refutes
    /// them or the cap, are not, so the visits are a lower bound.
    pub fn proofs(&self, cap: usize) -> Proofs {
        let ceiling = self.ceiling(Visible::Every);
        let visits = Cell::new(0u64);
        // Scratch for one proof: its states, and for each state the last proof that saw it.
        let seen = RefCell::new(Vec::new());
        let stamps = RefCell::new((0u32, vec![u32::MAX; self.states()]));
        let visited = RefCell::new(vec![false; self.states()]);
        let takes = |s: usize, a: usize| -> bool {
            let seen = &mut seen.borrow_mut();
            let (round, stamp) = &mut *stamps.borrow_mut();
            *round += 1;
            if !self.skipped((s, a, cap), *round, stamp, seen) || ceiling[a][s] {
                return false;
            }
            visits.set(visits.get() + seen.len() as u64);
            let mut visited = visited.borrow_mut();
            seen.iter().for_each(|t| visited[*t as usize] = true);
            true
        };
        let (states, verdicts, _) = self.search(takes, true);
        let distinct = visited.borrow().iter().filter(|v| **v).count();
        Proofs {
            states,
            same: verdicts == self.verdicts(),
            visits: visits.get(),
            distinct,
        }
    }
}
