//! The breadth-first pool: a fixed set of threads, started once per check, that expand
//! one level at a time.
//!
//! A level is a sequence of blocks of at most [`BLOCK`] states, in the serial order. Each
//! thread expands the blocks it produced itself first (so a state is mostly freed by the
//! thread that allocated it), then takes what is left of other threads' blocks from the
//! end. Every successor is offered to the shared visited table as soon as it is generated
//! and dropped at once if the table already knows it ([`Table::offer`]); what is kept is
//! settled after the level by the thread that produced it ([`Table::claim`]), which also
//! drops the records of the copies that lost. The next level keeps the order of the blocks it came from,
//! so the level, every link and every discovery are those of a one-threaded search.
//!
//! A level's states are kept as records of the parts their producer thread interned
//! (`collapse`): a successor is encoded as soon as the table keeps it, and decoded into
//! one reused state when it is expanded.
//!
//! A pool of one thread holds the table whole for a level and reaches it without the
//! shards' locks: an uncontended lock is cheap, but its release is a full barrier that
//! waits for the insert's cache miss, which the thread could otherwise run ahead of.

use crate::check::{expand, slots, Scratch, Successor};
use crate::collapse::{self, Moved, Parent, Parts};
use crate::frontier::{Frontier, Packed};
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

/// The first discovery of a slot in a level: the position of the state, its
/// fingerprint, and the violation message.
pub(crate) type Hit = (u32, u64, Option<String>);

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
/// the action's index) tells whether it won its state. Its record is in its block's
/// output at the same position.
struct Succ {
    pos: u32,
    idx: u32,
    fp: u64,
}

struct Block {
    base: u32,
    owner: usize,
    claimed: AtomicBool,
    producer: AtomicUsize,
    input: Mutex<Packed>,
    output: Mutex<(Vec<Succ>, Vec<u32>)>,
    next: Mutex<Vec<Packed>>,
}

struct Job {
    blocks: Vec<Block>,
    /// The parts the blocks' records index, by the thread that produced them. Each thread
    /// frees its own once the level is expanded ([`release_parts`]).
    parts: Vec<RwLock<Option<Parts>>>,
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
    table: RwLock<Table>,
    threads: usize,
    actors: usize,
    /// The parts each thread interned for the next level.
    next_parts: Mutex<Vec<Option<Parts>>>,
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

/// Runs `f` with a pool of `threads` threads over `table`; gives the table back.
pub(crate) fn with_pool<R>(
    sys: &System,
    table: Table,
    threads: usize,
    f: impl FnOnce(&mut Pool<'_, '_>) -> R,
) -> (R, Table) {
    let actors = sys.init_state().nodes.len();
    let shared = Shared {
        sys,
        table: RwLock::new(table),
        threads,
        actors,
        next_parts: Mutex::new((0..threads).map(|_| None).collect()),
        job: RwLock::new(None),
        start: Barrier::new(threads + 1),
        mid: Barrier::new(threads),
        end: Barrier::new(threads + 1),
        hits: Mutex::new(vec![None; slots()]),
        cut: AtomicBool::new(false),
        late: AtomicBool::new(false),
        panic: Mutex::new(None),
    };
    let result = std::thread::scope(|scope| {
        for w in 0..threads {
            let shared = &shared;
            scope.spawn(move || worker(shared, w));
        }
        let mut pool = Pool { shared: &shared };
        // The pool stops when `pool` is dropped, even if `f` panics.
        f(&mut pool)
    });
    let table = shared
        .table
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    (result, table)
}

/// How a thread reaches the visited table during a level: shared with the other threads of
/// the pool, through the shards' locks, or held whole by the pool's only thread.
enum Access<'t> {
    Shared(&'t Table),
    Owned(&'t mut Table),
}

impl Access<'_> {
    fn offer(&mut self, fp: u64, link: Link) -> bool {
        match self {
            Access::Shared(t) => t.offer(fp, link),
            Access::Owned(t) => t.offer_mut(fp, link),
        }
    }

    fn claim(&mut self, fp: u64, pos: u32, idx: u32) -> bool {
        match self {
            Access::Shared(t) => t.claim(fp, pos, idx),
            Access::Owned(t) => t.claim_mut(fp, pos, idx),
        }
    }

    fn prefetch(&mut self, fp: u64) {
        match self {
            Access::Shared(t) => t.prefetch(fp),
            Access::Owned(t) => t.prefetch_mut(fp),
        }
    }
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
    /// The number of states seen (between levels).
    pub fn unique(&self) -> u64 {
        let table = self.shared.table.read();
        table.unwrap_or_else(PoisonError::into_inner).len()
    }

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
                    input: Mutex::new(Packed::default()),
                    output: Mutex::new((Vec::new(), Vec::new())),
                    next: Mutex::new(Vec::new()),
                };
                base += items.fps.len() as u32;
                *lock(&block.input) = items;
                block
            })
            .collect();
        let shared = self.shared;
        *shared.job.write().unwrap_or_else(PoisonError::into_inner) = Some(Job {
            blocks,
            parts: frontier
                .parts
                .into_iter()
                .map(|p| RwLock::new(Some(p)))
                .collect(),
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
        let parts = lock(&shared.next_parts)
            .iter_mut()
            .map(|p| p.take().unwrap_or_else(|| Parts::new(shared.actors)))
            .collect();
        let hits = std::mem::replace(&mut *lock(&shared.hits), vec![None; slots()]);
        let cut = shared.cut.swap(false, Ordering::AcqRel);
        let late = shared.late.swap(false, Ordering::AcqRel);
        let next = Frontier {
            blocks: next,
            parts,
        };
        (next, Level { hits, cut, late })
    }
}

fn worker(shared: &Shared<'_>, w: usize) {
    // Kept from level to level: its memo of handler runs serves the whole search.
    let mut scratch = Scratch::default();
    // The state being expanded, decoded over the one before it.
    let mut current = SystemState::default();
    loop {
        shared.start.wait();
        {
            let guard = shared.job.read().unwrap_or_else(PoisonError::into_inner);
            let Some(job) = guard.as_ref() else {
                return;
            };
            // Held until the level is settled, and released before the main thread reads
            // the table again.
            let (mut write, read);
            let mut access = if shared.threads == 1 {
                write = shared.table.write().unwrap_or_else(PoisonError::into_inner);
                Access::Owned(&mut write)
            } else {
                read = shared.table.read().unwrap_or_else(PoisonError::into_inner);
                Access::Shared(&read)
            };
            let expanded = catch_unwind(AssertUnwindSafe(|| {
                expand_blocks(shared, job, w, (&mut scratch, &mut current), &mut access)
            }));
            // Every successor of the level has been offered: the table holds each new
            // state's winning generator.
            shared.mid.wait();
            let filtered = expanded.and_then(|_| {
                catch_unwind(AssertUnwindSafe(|| {
                    settle(shared, job, w, &mut access);
                    release_parts(job, w);
                }))
            });
            if let Err(payload) = filtered {
                lock(&shared.panic).get_or_insert(payload);
            }
        }
        shared.end.wait();
    }
}

/// Expands this thread's own blocks, then any left, keeping for each slot the discovery
/// at the lowest position, and interning the successors it keeps into its parts for the
/// next level.
fn expand_blocks(
    shared: &Shared<'_>,
    job: &Job,
    w: usize,
    (scratch, current): (&mut Scratch, &mut SystemState),
    access: &mut Access<'_>,
) {
    let own = job.blocks.iter().filter(|b| b.owner == w);
    let mut hits: Vec<Option<Hit>> = vec![None; slots()];
    let mut cut = false;
    let mut next_parts = Parts::new(shared.actors);
    // What each producer's parts became in `next_parts`.
    let mut moved: Vec<Moved> = job.parts.iter().map(|_| Moved::default()).collect();
    for block in own.chain(job.blocks.iter().rev()) {
        if block.claimed.swap(true, Ordering::AcqRel) {
            continue;
        }
        block.producer.store(w, Ordering::Release);
        let into = (&mut next_parts, &mut moved[block.owner], &mut hits[..]);
        cut |= expand_block(shared, job, block, (scratch, current), access, into);
    }
    lock(&shared.next_parts)[w] = Some(next_parts);
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

/// Expands the states of one claimed `block` into its output: the successors this thread
/// won, encoded into `next_parts`; the discoveries go to `hits`. True if a bound cut the
/// expansion short.
fn expand_block(
    shared: &Shared<'_>,
    job: &Job,
    block: &Block,
    (scratch, current): (&mut Scratch, &mut SystemState),
    access: &mut Access<'_>,
    (next_parts, moved, hits): (&mut Parts, &mut Moved, &mut [Option<Hit>]),
) -> bool {
    let input = std::mem::take(&mut *lock(&block.input));
    let parts = job.parts[block.owner]
        .read()
        .unwrap_or_else(PoisonError::into_inner);
    let parts = parts
        .as_ref()
        .expect("parts are freed only after the level's expansion");
    let (mut output, mut records, mut cut) = (Vec::new(), Vec::new(), false);
    let inputs = input
        .fps
        .iter()
        .zip(input.records.chunks_exact(parts.stride()));
    for (k, (&fp, record)) in inputs.enumerate() {
        if k % CLOCK_EVERY == 0 && job.deadline.is_some_and(past) {
            shared.late.store(true, Ordering::Release);
        }
        if shared.late.load(Ordering::Acquire) {
            break;
        }
        let pos = block.base + k as u32;
        parts.decode(record, current);
        let mut sink = |successor: Successor<'_>| {
            let (idx, nfp, next) = match successor {
                Successor::Coming(nfp) => return access.prefetch(nfp),
                Successor::Stepped(idx, nfp, next) => (idx, nfp, next),
            };
            let link = Link {
                parent: fp,
                idx,
                pos,
            };
            if access.offer(nfp, link) {
                output.push(Succ { pos, idx, fp: nfp });
                let parent = Parent {
                    state: current,
                    record,
                    moved,
                };
                next_parts.encode(next, Some(parent), &mut records);
            }
        };
        cut |= expand(
            shared.sys,
            (fp, current),
            &job.open,
            job.may_expand,
            false,
            &mut sink,
            scratch,
        );
        for (slot, msg) in scratch.hits.drain(..) {
            if hits[slot].as_ref().is_none_or(|h| pos < h.0) {
                hits[slot] = Some((pos, fp, msg));
            }
        }
    }
    *lock(&block.output) = (output, records);
    cut
}

/// Frees the parts thread `w` interned for the level just expanded. Every thread frees its
/// own, at once and with the allocator's thread-local free lists, rather than the main
/// thread freeing all of them while the pool waits: that was 0.18 s, 7% of a two-thread
/// search of ctp/proposed at two records.
fn release_parts(job: &Job, w: usize) {
    if let Some(parts) = job.parts.get(w) {
        drop(parts.write().unwrap_or_else(PoisonError::into_inner).take());
    }
}

/// Settles the successors this thread produced: keeps the winners' records in blocks of
/// the next level, drops the rest.
fn settle(shared: &Shared<'_>, job: &Job, w: usize, access: &mut Access<'_>) {
    let stride = collapse::stride(shared.actors);
    for block in &job.blocks {
        if block.producer.load(Ordering::Acquire) != w {
            continue;
        }
        let (output, records) = std::mem::take(&mut *lock(&block.output));
        // Claimed first and counted, so every block of the next level is allocated at its
        // size.
        let won: Vec<bool> = output
            .iter()
            .map(|s| access.claim(s.fp, s.pos, s.idx))
            .collect();
        let mut left = won.iter().filter(|w| **w).count();
        let mut chunks: Vec<Packed> = Vec::new();
        let kept = output.iter().zip(records.chunks_exact(stride)).zip(won);
        for ((s, record), _) in kept.filter(|(_, won)| *won) {
            if chunks
                .last()
                .is_none_or(|c| c.fps.len() == c.fps.capacity())
            {
                chunks.push(Packed::with_capacity(left.min(BLOCK), stride));
            }
            let chunk = chunks.last_mut().expect("a chunk with room");
            chunk.fps.push(s.fp);
            chunk.records.extend_from_slice(record);
            left -= 1;
        }
        *lock(&block.next) = chunks;
    }
}
