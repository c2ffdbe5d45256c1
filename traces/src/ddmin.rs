//! Delta debugging (Zeller's ddmin) over a run's actions, against a [`Test`] (the
//! property table's [`crate::oracle::Oracle`], or the heal phase's): the result
//! is 1-minimal (no single action can be removed and still show the outcome).

use crate::oracle::Test;
use sharetxn_model::Action;

/// How a candidate is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matching {
    /// Actions by value: one that is not enabled is skipped ([`Test::run`]).
    Exact,
    /// One that is not enabled is replaced by an enabled action of the same shape
    /// ([`Test::run_carried`]): removing a whole transaction changes the epoch every
    /// later message carries, and only this lets the rest of the run follow.
    Shape,
}

/// ddmin: try removing each of `n` chunks (the complement of each chunk); on success keep
/// the reduced run with one chunk fewer, otherwise split finer; at `n` = length every
/// single removal has failed, which is 1-minimality. `current` must pass the oracle.
pub fn ddmin(oracle: &mut impl Test, mut current: Vec<Action>, matching: Matching) -> Vec<Action> {
    let mut n = 2usize;
    while current.len() >= 2 {
        let len = current.len();
        let chunk = len.div_ceil(n);
        let mut reduced = None;
        for i in 0..n {
            let (lo, hi) = ((i * chunk).min(len), ((i + 1) * chunk).min(len));
            if lo == hi {
                continue;
            }
            let candidate: Vec<Action> = current[..lo]
                .iter()
                .chain(&current[hi..])
                .cloned()
                .collect();
            let run = match matching {
                Matching::Exact => oracle.run(&candidate),
                Matching::Shape => oracle.run_carried(&candidate),
            };
            if let Some(run) = run {
                reduced = Some(run);
                break;
            }
        }
        match reduced {
            Some(run) => {
                current = run;
                n = n.saturating_sub(1).max(2);
            }
            None if n >= len => break,
            None => n = (n * 2).min(len),
        }
    }
    if current.len() == 1 && oracle.run(&[]).is_some() {
        current.clear();
    }
    current
}
