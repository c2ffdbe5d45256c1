//! Swarm verification: many depth-first searches of one space, each from its own seed,
//! which orders every state's successors (ChaCha8 from that one `u64`), and each capped at
//! a number of distinct states, so that its memory is bounded whatever the space. A space
//! no single exhaustive run can finish is covered in parts: the searches diverge at the
//! first state whose successors they order differently, and each follows its own order
//! deep into the space before the cap stops it. A search that ends below its cap has
//! explored everything and is an exhaustive check on its own; otherwise the searches find
//! violations and witness twins but prove nothing, and say so (docs/checker.md).
//!
//! Searches are numbered like the simulator's seeds, so a range of them can be split into
//! shards (`sharetxn swarm --searches A..B --shard I/N`) that any batch system runs, one
//! JSON line per search, and [`Summary`] merges the lines of every shard into one verdict.

use crate::check::{check, CheckOptions, Strategy};
use crate::report::{Report, Status};
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use sharetxn_model::System;
use std::collections::{BTreeMap, BTreeSet};

/// The order in which one search takes each state's successors.
pub(crate) struct Order(ChaCha8Rng);

impl Order {
    /// The order of search `seed`.
    pub fn new(seed: u64) -> Order {
        Order(ChaCha8Rng::seed_from_u64(seed))
    }

    /// A number in `0..n` (`n` > 0), without modulo bias.
    fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let x = self.0.next_u64();
            if x < zone {
                return x % n;
            }
        }
    }

    /// Puts `items` in this search's next order (Fisher-Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

/// The bounds of every search of a swarm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Distinct states one search visits at most: its memory bound.
    pub max_states: u64,
    /// Do not expand states at this depth.
    pub max_depth: Option<u64>,
}

/// Runs search `seed` of `sys`: a depth-first check in the seed's successor order,
/// stopped at `bounds`.
pub fn search(sys: &System, seed: u64, bounds: Bounds) -> Report {
    let options = CheckOptions {
        strategy: Strategy::Dfs,
        max_states: bounds.max_states,
        max_depth: bounds.max_depth,
        threads: 1,
        order: Some(seed),
        ..CheckOptions::default()
    };
    check(sys, options)
}

/// What one search found, as one JSON line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchLine {
    /// The search's seed.
    pub search: u64,
    /// Distinct states it visited.
    pub unique_states: u64,
    /// The deepest state it expanded.
    pub max_depth: u64,
    /// It ended below its bounds: it explored the whole space (an exhaustive check).
    pub complete: bool,
    /// Each violated property with the length of the trace that shows it.
    pub violated: BTreeMap<String, usize>,
    /// Each twin it witnessed, with the length of the trace that shows it.
    pub witnessed: BTreeMap<String, usize>,
    /// The applicable twins it did not witness.
    pub unreached: BTreeSet<String>,
}

impl SearchLine {
    /// The line of search `seed`, from its report.
    pub fn of(seed: u64, report: &Report) -> SearchLine {
        let with = |status: Status| -> BTreeMap<String, usize> {
            report
                .properties
                .iter()
                .filter(|p| p.status == status)
                .map(|p| (p.name.clone(), p.actions.len()))
                .collect()
        };
        SearchLine {
            search: seed,
            unique_states: report.unique_states,
            max_depth: report.max_depth,
            complete: report.exhaustive,
            violated: with(Status::Violated),
            witnessed: with(Status::Witnessed),
            unreached: with(Status::Unreached).into_keys().collect(),
        }
    }
}

/// The first search that showed a property or twin, and the shortest trace any showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shown {
    /// The lowest search seed that showed it.
    pub first_search: u64,
    /// How many searches showed it.
    pub searches: u64,
    /// The shortest trace that showed it.
    pub shortest: usize,
    /// The search that showed that shortest trace (the lowest seed among equals).
    pub shortest_search: u64,
}

impl Shown {
    fn new(search: u64, steps: usize) -> Shown {
        Shown {
            first_search: search,
            searches: 1,
            shortest: steps,
            shortest_search: search,
        }
    }

    fn merge(&mut self, other: &Shown) {
        self.searches += other.searches;
        self.first_search = self.first_search.min(other.first_search);
        if (other.shortest, other.shortest_search) < (self.shortest, self.shortest_search) {
            self.shortest = other.shortest;
            self.shortest_search = other.shortest_search;
        }
    }
}

/// The verdict of many searches, merged from their lines in any order and from any
/// number of shards: the same lines give the same summary.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    /// Searches merged.
    pub searches: u64,
    /// Distinct states summed over the searches (a state two searches visited counts
    /// twice).
    pub states_visited: u64,
    /// The deepest state any search expanded.
    pub max_depth: u64,
    /// The lowest seed of a search that explored the whole space, if one did: its line
    /// is then an exhaustive check.
    pub complete_search: Option<u64>,
    /// Each violated property.
    pub violated: BTreeMap<String, Shown>,
    /// Each twin witnessed.
    pub witnessed: BTreeMap<String, Shown>,
    /// Every applicable twin (witnessed or not) of the searches.
    pub twins: BTreeSet<String>,
}

impl Summary {
    /// Adds one search's line.
    pub fn add(&mut self, line: &SearchLine) {
        let mut one = Summary {
            searches: 1,
            states_visited: line.unique_states,
            max_depth: line.max_depth,
            complete_search: line.complete.then_some(line.search),
            violated: shown(line.search, &line.violated),
            witnessed: shown(line.search, &line.witnessed),
            twins: line.unreached.clone(),
        };
        one.twins.extend(line.witnessed.keys().cloned());
        self.merge(&one);
    }

    /// Merges another summary (another shard's) into this one.
    pub fn merge(&mut self, other: &Summary) {
        self.searches += other.searches;
        self.states_visited += other.states_visited;
        self.max_depth = self.max_depth.max(other.max_depth);
        self.complete_search = match (self.complete_search, other.complete_search) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        for (maps, theirs) in [
            (&mut self.violated, &other.violated),
            (&mut self.witnessed, &other.witnessed),
        ] {
            for (name, s) in theirs {
                maps.entry(name.clone())
                    .and_modify(|mine| mine.merge(s))
                    .or_insert(*s);
            }
        }
        self.twins.extend(other.twins.iter().cloned());
    }

    /// The applicable twins no search witnessed.
    pub fn unreached(&self) -> Vec<&str> {
        self.twins
            .iter()
            .filter(|t| !self.witnessed.contains_key(*t))
            .map(String::as_str)
            .collect()
    }

    /// No search violated a property and every applicable twin was witnessed. A swarm
    /// that passed has found nothing wrong; only a complete search proves a property holds.
    pub fn passed(&self) -> bool {
        self.violated.is_empty() && self.unreached().is_empty()
    }
}

fn shown(search: u64, found: &BTreeMap<String, usize>) -> BTreeMap<String, Shown> {
    found
        .iter()
        .map(|(name, steps)| (name.clone(), Shown::new(search, *steps)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shuffle_is_a_permutation_and_its_seed_fixes_it() {
        let shuffled = |seed| {
            let mut items: Vec<u32> = (0..20).collect();
            let mut order = Order::new(seed);
            order.shuffle(&mut items);
            order.shuffle(&mut items);
            items
        };
        assert_eq!(shuffled(7), shuffled(7));
        assert_ne!(shuffled(7), shuffled(8));
        let mut sorted = shuffled(7);
        sorted.sort_unstable();
        assert_eq!(sorted, (0..20).collect::<Vec<_>>());
    }

    fn line(search: u64, violated: &[(&str, usize)], witnessed: &[&str]) -> SearchLine {
        SearchLine {
            search,
            unique_states: 10,
            max_depth: search,
            complete: false,
            violated: violated.iter().map(|(n, s)| (n.to_string(), *s)).collect(),
            witnessed: witnessed.iter().map(|n| (n.to_string(), 3)).collect(),
            unreached: ["a", "b"]
                .iter()
                .filter(|t| !witnessed.contains(t))
                .map(|t| t.to_string())
                .collect(),
        }
    }

    #[test]
    fn shards_merge_to_the_summary_of_all_lines_in_any_order() {
        let lines = [
            line(0, &[], &["a"]),
            line(1, &[("p", 9)], &[]),
            line(2, &[("p", 5)], &["b"]),
            line(3, &[("p", 5)], &[]),
        ];
        let mut all = Summary::default();
        lines.iter().for_each(|l| all.add(l));
        let (mut even, mut odd) = (Summary::default(), Summary::default());
        for l in lines.iter().rev() {
            if l.search % 2 == 0 {
                &mut even
            } else {
                &mut odd
            }
            .add(l);
        }
        odd.merge(&even);
        assert_eq!(odd, all);
        let p = all.violated["p"];
        assert_eq!(
            (p.first_search, p.searches, p.shortest, p.shortest_search),
            (1, 3, 5, 2)
        );
        assert_eq!(
            (all.searches, all.states_visited, all.max_depth),
            (4, 40, 3)
        );
        assert!(all.unreached().is_empty());
        assert!(!all.passed(), "p is violated");
    }

    #[test]
    fn a_twin_no_search_witnessed_keeps_the_swarm_from_passing() {
        let mut s = Summary::default();
        s.add(&line(0, &[], &["a"]));
        assert_eq!(s.unreached(), ["b"]);
        assert!(!s.passed());
        s.add(&line(1, &[], &["b"]));
        assert!(s.passed());
    }
}
