//! The matrix's checks side by side. The checker's own threads only share the expansion
//! of a BFS level; merging a level into the visited set is one thread's work, so a check
//! given two cores of this machine used about one (the full default matrix: 867 s of CPU
//! in 852 s of wall time). Independent checks keep every core busy instead, and a check on
//! one thread stops at its state cap on the same state every time, so a capped check's
//! `unknown` cells do not depend on scheduling.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// How `threads` cores are shared among `jobs` checks: how many run at once, and the
/// checker threads each gets. With at least as many checks as cores, one thread each;
/// with fewer, the spare cores go to the checks (so one check alone gets them all).
pub fn split(threads: usize, jobs: usize) -> (usize, usize) {
    let workers = threads.min(jobs).max(1);
    (workers, (threads / workers).max(1))
}

/// Runs `run` on every item with `workers` threads, each taking the next item as it frees
/// up (so the items given first, the largest checks, start first), and returns the
/// results in the order of `items`. `done` sees each result as it finishes, on the thread
/// that ran it.
pub fn run_ordered<T, R, F, D>(items: &[T], workers: usize, run: F, done: D) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(usize, &T) -> R + Sync,
    D: Fn(usize, &R) + Sync,
{
    let run_one = |i: usize, item: &T| {
        let result = run(i, item);
        done(i, &result);
        result
    };
    if workers <= 1 || items.len() <= 1 {
        return items
            .iter()
            .enumerate()
            .map(|(i, t)| run_one(i, t))
            .collect();
    }
    let next = AtomicUsize::new(0);
    let mut finished = BTreeMap::new();
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, R)>();
        for _ in 0..workers.min(items.len()) {
            let (tx, next, run_one) = (tx.clone(), &next, &run_one);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { return };
                if tx.send((i, run_one(i, item))).is_err() {
                    return;
                }
            });
        }
        drop(tx);
        finished.extend(rx);
    });
    finished.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_item_order_for_any_worker_count() {
        let items: Vec<u64> = (0..50).collect();
        // Later items finish first: a short job after a long one.
        let work = |_: usize, n: &u64| {
            let n = *n;
            std::thread::sleep(std::time::Duration::from_micros((50 - n) * 20));
            n * n
        };
        let expected: Vec<u64> = (0..50).map(|n| n * n).collect();
        for workers in [1, 2, 3, 8] {
            assert_eq!(run_ordered(&items, workers, work, |_, _| {}), expected);
        }
    }

    #[test]
    fn every_result_is_seen_once_as_it_finishes() {
        let seen = std::sync::Mutex::new(Vec::new());
        let out = run_ordered(
            &["a", "b", "c"],
            2,
            |i, s| format!("{i}{s}"),
            |i, r| seen.lock().expect("not poisoned").push((i, r.clone())),
        );
        assert_eq!(out, ["0a", "1b", "2c"]);
        let mut seen = seen.into_inner().expect("not poisoned");
        seen.sort();
        assert_eq!(seen, [(0, "0a".into()), (1, "1b".into()), (2, "2c".into())]);
    }

    #[test]
    fn cores_go_to_checks_first_then_to_threads() {
        assert_eq!(split(2, 24), (2, 1));
        assert_eq!(split(2, 1), (1, 2));
        assert_eq!(split(8, 3), (3, 2));
        assert_eq!(split(1, 5), (1, 1));
        assert_eq!(split(4, 0), (1, 4));
    }
}
