//! Depth-first search: one thread, a stack of states still to expand, and a visited set of
//! fingerprints only (`seen.rs`).
//!
//! It keeps no links. The stack holds each state with its depth and the index of the
//! action that reached it, and `path` holds the action indices from the search's root to
//! the state being expanded: when a state of depth `d` is taken off the stack, every state
//! pushed after it has been expanded, so `path` holds its ancestors' indices up to depth
//! `d - 1`, and it is cut there and extended by the state's own index. A discovery takes
//! its trace from `path` when it is made. These are the traces a table of first links
//! gave: a state is pushed once, by the parent whose successor first inserted it.

use crate::check::{expand, At, Scratch, Search, Successor};
use crate::reduction;
use crate::reduction_rule;
use crate::seen::Seen;
use crate::swarm::Order;
use crate::visited::ROOT_IDX;
use sharetxn_model::{System, SystemState};

mod reduced;

/// The most expanded states kept for their vectors: a state keeps a few successors.
const SPARE: usize = 64;

/// A state to expand: fingerprint, state, depth, index of the action that reached it
/// ([`ROOT_IDX`] for a root).
type Entry = (u64, SystemState, u64, u32);

/// Where the search stands on the path from its root to the state being expanded.
struct Path {
    root: u64,
    base: u64,
    indices: Vec<u32>,
}

impl Path {
    /// Moves to the state `(fp, depth, idx)` just taken off the stack.
    fn enter(&mut self, fp: u64, depth: u64, idx: u32) {
        if idx == ROOT_IDX {
            self.root = fp;
            self.base = depth;
            self.indices.clear();
        } else {
            self.indices.truncate((depth - self.base - 1) as usize);
            self.indices.push(idx);
        }
    }

    fn at(&self) -> At {
        At {
            root: self.root,
            path: self.indices.clone(),
        }
    }
}

/// Depth-first search from `roots` (the initial state, or the last breadth-first level
/// when `after_bfs`: then the links table knows every state of the levels before, and a
/// successor it knows is not new).
pub(crate) fn depth_first(
    sys: &System,
    search: &mut Search<'_, '_>,
    roots: Vec<(u64, SystemState, u64)>,
    after_bfs: bool,
) {
    let fuse = search.options.fuse_duplicates && reduction::fuses_duplicates(sys);
    let mut dfs = Dfs {
        fuse,
        reduce: search.options.partial_order && !fuse && !after_bfs && reduction_rule::applies(sys),
        on_path: Vec::new(),
        after_bfs,
        seen: Seen::new(),
        stack: Vec::new(),
        path: Path {
            root: 0,
            base: 0,
            indices: Vec::new(),
        },
        scratch: Scratch::default(),
        successors: Vec::new(),
        spare: Vec::with_capacity(SPARE),
        order: search.options.order.map(Order::new),
        // The slots still open change only when a discovery is made: computed again
        // then, not for every state.
        open: search.judge.open(&search.found),
    };
    if !after_bfs {
        // The initial state is counted by the table already; the set must know it too.
        roots.iter().for_each(|(fp, ..)| _ = dfs.seen.insert(*fp));
    }
    if dfs.reduce {
        search.reduced = true;
        return reduced::depth_first(sys, search, &mut dfs, roots);
    }
    dfs.stack = roots
        .into_iter()
        .map(|(fp, state, depth)| (fp, state, depth, ROOT_IDX))
        .collect();
    let mut since_progress = 0u32;
    while let Some((fp, state, depth, idx)) = dfs.stack.pop() {
        dfs.path.enter(fp, depth, idx);
        search.max_depth = search.max_depth.max(depth);
        dfs.expand(sys, search, (fp, state, depth));
        dfs.push_successors(search, depth);
        since_progress += 1;
        if since_progress == 50_000 {
            since_progress = 0;
            let (unique, depth) = (search.unique, search.max_depth);
            search.progress(unique, depth);
        }
        if !dfs.stack.is_empty() && search.must_stop(search.unique) {
            search.exhaustive = false;
            break;
        }
    }
}

/// One depth-first search's working state.
struct Dfs {
    /// Whether duplications are fused with their delivery (`reduction.rs`).
    fuse: bool,
    /// Whether states are expanded through one actor's set where the partial-order
    /// reduction takes one (`reduction_rule.rs`).
    reduce: bool,
    /// With the reduction: the fingerprints of the states on the path from the root to
    /// the state being expanded, itself included. The cycle proviso refuses a set that
    /// leads to one of them (`docs/checker.md`, "The reduction in the search").
    on_path: Vec<u64>,
    /// Whether the search goes on from a breadth-first search's last level.
    after_bfs: bool,
    seen: Seen,
    stack: Vec<Entry>,
    path: Path,
    scratch: Scratch,
    /// A state's kept successors: action index, fingerprint, state.
    successors: Vec<(u32, u64, SystemState)>,
    /// States already expanded, whose vectors a kept successor is copied into
    /// (`SystemState::clone_from`) instead of allocating its own. At most `SPARE` are
    /// kept: a spare state still holds its parts, and after a switch from breadth-first
    /// search a million roots would otherwise all be kept once expanded.
    spare: Vec<SystemState>,
    order: Option<Order>,
    /// Per property slot, whether it is still open.
    open: Vec<bool>,
}

impl Dfs {
    /// Judges and expands `state`, keeping its successors not seen yet in `successors`.
    fn expand(&mut self, sys: &System, search: &mut Search<'_, '_>, at: (u64, SystemState, u64)) {
        let (fp, state, depth) = at;
        let may_expand = search.options.max_depth.is_none_or(|d| depth < d);
        let (seen, table, after_bfs) = (&self.seen, &mut search.table, self.after_bfs);
        let (kept, spare, reduce) = (&mut self.successors, &mut self.spare, self.reduce);
        let mut sink = |successor: Successor<'_>| match successor {
            Successor::Coming(nfp) => seen.prefetch(nfp),
            Successor::Stepped(idx, nfp, next) => {
                // The reduction chooses among every successor, known or new.
                if reduce || !(seen.contains(nfp) || after_bfs && table.contains_mut(nfp)) {
                    let mut copy = spare.pop().unwrap_or_default();
                    copy.clone_from(next);
                    kept.push((idx, nfp, copy));
                }
            }
        };
        let (open, fuse) = (&self.open, self.fuse);
        let cut = expand(
            sys,
            (fp, &state),
            open,
            may_expand,
            fuse,
            &mut sink,
            &mut self.scratch,
        );
        if self.reduce {
            self.reduce_to_ample(sys, &state);
        }
        if self.spare.len() < SPARE {
            self.spare.push(state);
        }
        if !self.scratch.hits.is_empty() {
            for (slot, msg) in self.scratch.hits.drain(..) {
                search.found[slot].get_or_insert_with(|| (self.path.at(), msg));
            }
            self.open = search.judge.open(&search.found);
        }
        search.exhaustive &= !cut;
    }

    /// Pushes the kept successors of the state at `depth` that are new.
    fn push_successors(&mut self, search: &mut Search<'_, '_>, depth: u64) {
        if let Some(order) = self.order.as_mut() {
            order.shuffle(&mut self.successors);
        }
        // In reverse, so that the first action's successor is expanded first and, among
        // actions that lead to the same state, the last one is the one taken.
        for (idx, nfp, nstate) in self.successors.drain(..).rev() {
            if self.seen.insert(nfp) {
                search.unique += 1;
                self.stack.push((nfp, nstate, depth + 1, idx));
            } else if self.spare.len() < SPARE {
                self.spare.push(nstate);
            }
        }
    }
}
