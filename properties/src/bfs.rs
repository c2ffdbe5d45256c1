//! The breadth-first pool: a fixed set of threads, started once per check, that expand
//! one level at a time.
//!
//! A level is a sequence of blocks of at most [`BLOCK`] states, in the serial order. Each
//! thread expands the blocks it produced itself first (so a state is mostly freed by the
//! thread that allocated it), then takes what is left of other threads' blocks from the
//! end. Every successor is offered to the shared visited table as soon as it is generated
//! and dropped at once if the table already knows it ([`Table::offer`]); what is kept is
//! settled after the level by the thread that produced it ([`Table::claim`]), which also
//! frees the copies that lost. The next level keeps the order of the blocks it came from,
//! so the level, every link and every discovery are those of a one-threaded search.

use crate::check::{expand, slots, Scratch};
use crate::visited::{Link, Table};
use sharetxn_model::{System, SystemState};
use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex, PoisonError, RwLock};
use std::time::Instant;

/// The most states in a block: small enough for two threads to share a level evenly,
/// large enough that taking a block costs nothing against expanding it.
const BLOCK: usize = 512;

/// A state of a level with its fingerprint.
pub(crate) type Item = (u64, SystemState);

/// The first discovery of a slot in a level: the position of the state, its
/// fingerprint, and the violation message.
pub(crate) type Hit = (u32, u64, Option<String>);

/// One level, as blocks owned by the threads that produced them.
pub(crate) struct Frontier {
    blocks: Vec<(usize, Vec<Item>)>,
}

impl Frontier {
    /// The level of one state (the initial one).
    pub fn single(item: Item) -> Frontier {
        Frontier {
            blocks: vec![(0, vec![item])],
        }
    }

    /// The number of states.
    pub fn len(&self) -> usize {
        self.blocks.iter().map(|(_, b)| b.len()).sum()
    }

    /// The states in the serial order.
    pub fn into_items(self) -> impl DoubleEndedIterator<Item = Item> {
        self.blocks.into_iter().flat_map(|(_, b)| b)
    }
}

/// What a level yields besides the next one.
pub(crate) struct Level {
    /// For each slot, its first discovery in the level.
    pub hits: Vec<Option<Hit>>,
    /// Some state had successors that the depth bound kept from being generated.
    pub cut: bool,
    /// The deadline passed while the level was expanded: it is incomplete, and its hits
    /// and next level are to be dropped whole.
    pub late: bool,
}

/// A successor kept while its level is expanded: its generator (the parent's position and
/// the action's index) tells whether it won its state.
struct Succ {
    pos: u32,
    idx: u32,
    fp: u64,
    state: SystemState,
}

struct Block {
    base: u32,
    owner: usize,
    claimed: AtomicBool,
    producer: AtomicUsize,
    input: Mutex<Vec<Item>>,
    output: Mutex<Vec<Succ>>,
    next: Mutex<Vec<Vec<Item>>>,
}

struct Job {
    blocks: Vec<Block>,
    open: Vec<bool>,
    may_expand: bool,
    /// `--timeout`'s deadline, checked inside the level: one level can take longer than
    /// the whole timeout.
    deadline: Option<Instant>,
}

/// How many states a worker expands between two looks at the clock.
const CLOCK_EVERY: usize = 256;

#[allow(clippy::disallowed_methods)] // the --timeout deadline only stops the search
fn past(deadline: Instant) -> bool {
    Instant::now() >= deadline
}

struct Shared<'a> {
    sys: &'a System,
    table: &'a Table,
    job: RwLock<Option<Job>>,
    start: Barrier,
    mid: Barrier,
    end: Barrier,
    hits: Mutex<Vec<Option<Hit>>>,
    cut: AtomicBool,
    late: AtomicBool,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

/// The main thread's handle on the pool.
pub(crate) struct Pool<'s, 'a> {
    shared: &'s Shared<'a>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `f` with a pool of `threads` threads over `table`.
pub(crate) fn with_pool<R>(
    sys: &System,
    table: &Table,
    threads: usize,
    f: impl FnOnce(&mut Pool<'_, '_>) -> R,
) -> R {
    let shared = Shared {
        sys,
        table,
        job: RwLock::new(None),
        start: Barrier::new(threads + 1),
        mid: Barrier::new(threads),
        end: Barrier::new(threads + 1),
        hits: Mutex::new(vec![None; slots()]),
        cut: AtomicBool::new(false),
        late: AtomicBool::new(false),
        panic: Mutex::new(None),
    };
    std::thread::scope(|scope| {
        for w in 0..threads {
            let shared = &shared;
            scope.spawn(move || worker(shared, w));
        }
        let mut pool = Pool { shared: &shared };
        // The pool stops when `pool` is dropped, even if `f` panics.
        f(&mut pool)
    })
}

impl Drop for Pool<'_, '_> {
    fn drop(&mut self) {
        *self
            .shared
            .job
            .write()
            .unwrap_or_else(PoisonError::into_inner) = None;
        self.shared.start.wait();
    }
}

impl Pool<'_, '_> {
    /// Expands `frontier` with the `open` slots judged; returns the next level.
    pub fn level(
        &mut self,
        frontier: Frontier,
        open: &[bool],
        may_expand: bool,
        deadline: Option<Instant>,
    ) -> (Frontier, Level) {
        let mut base = 0u32;
        let blocks = frontier
            .blocks
            .into_iter()
            .map(|(owner, items)| {
                let block = Block {
                    base,
                    owner,
                    claimed: AtomicBool::new(false),
                    producer: AtomicUsize::new(owner),
                    input: Mutex::new(Vec::new()),
                    output: Mutex::new(Vec::new()),
                    next: Mutex::new(Vec::new()),
                };
                base += items.len() as u32;
                *lock(&block.input) = items;
                block
            })
            .collect();
        let shared = self.shared;
        *shared.job.write().unwrap_or_else(PoisonError::into_inner) = Some(Job {
            blocks,
            open: open.to_vec(),
            may_expand,
            deadline,
        });
        shared.start.wait();
        shared.end.wait();
        if let Some(payload) = lock(&shared.panic).take() {
            resume_unwind(payload);
        }
        let job = shared
            .job
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .expect("the level's job");
        let mut next = Vec::new();
        for block in job.blocks {
            let producer = block.producer.load(Ordering::Acquire);
            let chunks = std::mem::take(&mut *lock(&block.next));
            next.extend(chunks.into_iter().map(|c| (producer, c)));
        }
        let hits = std::mem::replace(&mut *lock(&shared.hits), vec![None; slots()]);
        let cut = shared.cut.swap(false, Ordering::AcqRel);
        let late = shared.late.swap(false, Ordering::AcqRel);
        (Frontier { blocks: next }, Level { hits, cut, late })
    }
}

fn worker(shared: &Shared<'_>, w: usize) {
    // Kept from level to level: its memo of handler runs serves the whole search.
    let mut scratch = Scratch::default();
    loop {
        shared.start.wait();
        {
            let guard = shared.job.read().unwrap_or_else(PoisonError::into_inner);
            let Some(job) = guard.as_ref() else {
                return;
            };
            let expanded = catch_unwind(AssertUnwindSafe(|| {
                expand_blocks(shared, job, w, &mut scratch)
            }));
            // Every successor of the level has been offered: the table holds each new
            // state's winning generator.
            shared.mid.wait();
            let filtered =
                expanded.and_then(|_| catch_unwind(AssertUnwindSafe(|| settle(shared, job, w))));
            if let Err(payload) = filtered {
                lock(&shared.panic).get_or_insert(payload);
            }
        }
        shared.end.wait();
    }
}

/// Expands this thread's own blocks, then any left, keeping for each slot the discovery
/// at the lowest position.
fn expand_blocks(shared: &Shared<'_>, job: &Job, w: usize, scratch: &mut Scratch) {
    let own = job.blocks.iter().filter(|b| b.owner == w);
    let mut hits: Vec<Option<Hit>> = vec![None; slots()];
    let mut cut = false;
    for block in own.chain(job.blocks.iter().rev()) {
        if block.claimed.swap(true, Ordering::AcqRel) {
            continue;
        }
        block.producer.store(w, Ordering::Release);
        let input = std::mem::take(&mut *lock(&block.input));
        let mut output = Vec::new();
        for (k, (fp, state)) in input.into_iter().enumerate() {
            if k % CLOCK_EVERY == 0 && job.deadline.is_some_and(past) {
                shared.late.store(true, Ordering::Release);
            }
            if shared.late.load(Ordering::Acquire) {
                break;
            }
            let pos = block.base + k as u32;
            let mut keep = |idx: u32, nfp: u64| {
                let link = Link {
                    parent: fp,
                    idx,
                    pos,
                };
                shared.table.offer(nfp, link)
            };
            cut |= expand(
                shared.sys,
                (fp, &state),
                &job.open,
                job.may_expand,
                false,
                &mut keep,
                scratch,
            );
            // Freed here, by the thread that expands it, while its successors are hot.
            drop(state);
            for (slot, msg) in scratch.hits.drain(..) {
                if hits[slot].as_ref().is_none_or(|h| pos < h.0) {
                    hits[slot] = Some((pos, fp, msg));
                }
            }
            output.extend(scratch.successors.drain(..).map(|(idx, nfp, state)| Succ {
                pos,
                idx,
                fp: nfp,
                state,
            }));
        }
        *lock(&block.output) = output;
    }
    let mut all = lock(&shared.hits);
    for (slot, hit) in hits.into_iter().enumerate() {
        if let Some(hit) = hit {
            if all[slot].as_ref().is_none_or(|h| hit.0 < h.0) {
                all[slot] = Some(hit);
            }
        }
    }
    if cut {
        shared.cut.store(true, Ordering::Release);
    }
}

/// Settles the successors this thread produced: keeps the winners in blocks of the next
/// level, drops (frees) the rest.
fn settle(shared: &Shared<'_>, job: &Job, w: usize) {
    for block in &job.blocks {
        if block.producer.load(Ordering::Acquire) != w {
            continue;
        }
        let output = std::mem::take(&mut *lock(&block.output));
        // Claimed first and counted, so every block of the next level is allocated at its
        // size: a level's states are most of the checker's memory.
        let won: Vec<bool> = output
            .iter()
            .map(|s| shared.table.claim(s.fp, s.pos, s.idx))
            .collect();
        let mut left = won.iter().filter(|w| **w).count();
        let mut chunks: Vec<Vec<Item>> = Vec::new();
        for (s, won) in output.into_iter().zip(won) {
            if !won {
                continue;
            }
            match chunks.last_mut() {
                Some(c) if c.len() < c.capacity() => c.push((s.fp, s.state)),
                _ => {
                    let mut c = Vec::with_capacity(left.min(BLOCK));
                    c.push((s.fp, s.state));
                    chunks.push(c);
                }
            }
            left -= 1;
        }
        *lock(&block.next) = chunks;
    }
}
