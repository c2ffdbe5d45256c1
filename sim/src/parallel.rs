//! Many seeds over several threads. Runs are independent, so threads take seeds as they
//! free up; results are handed on strictly in seed order, so the output is the same for
//! any thread count, and a machine's output is a pure function of its seeds.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// Runs `run` on every seed of `seeds` with `threads` threads and calls `emit` with each
/// outcome in the order of `seeds`. `emit` returns false to stop early (no seed after
/// the one it refused is emitted). Simulator runs and swarm searches both go through here.
pub fn run_seeds<T, R, E>(seeds: &[u64], threads: usize, run: R, mut emit: E)
where
    T: Send,
    R: Fn(u64) -> T + Sync,
    E: FnMut(T) -> bool,
{
    let threads = threads.clamp(1, seeds.len().max(1));
    if threads == 1 {
        for seed in seeds {
            if !emit(run(*seed)) {
                return;
            }
        }
        return;
    }
    let next = AtomicUsize::new(0);
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, T)>();
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, stop, run) = (&next, &stop, &run);
            scope.spawn(move || loop {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(seed) = seeds.get(i) else { return };
                if tx.send((i, run(*seed))).is_err() {
                    return;
                }
            });
        }
        drop(tx);
        let mut waiting = BTreeMap::new();
        let mut due = 0usize;
        for (i, outcome) in rx {
            waiting.insert(i, outcome);
            while let Some(outcome) = waiting.remove(&due) {
                due += 1;
                if !emit(outcome) {
                    stop.store(true, Ordering::Relaxed);
                    return;
                }
            }
        }
    });
}
