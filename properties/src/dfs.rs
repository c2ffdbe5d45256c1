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
use crate::seen::Seen;
use crate::swarm::Order;
use crate::visited::ROOT_IDX;
use sharetxn_model::{System, SystemState};

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
    let mut seen = Seen::new();
    if !after_bfs {
        // The initial state is counted by the table already; the set must know it too.
        roots.iter().for_each(|(fp, ..)| _ = seen.insert(*fp));
    }
    let mut stack: Vec<Entry> = roots
        .into_iter()
        .map(|(fp, state, depth)| (fp, state, depth, ROOT_IDX))
        .collect();
    let mut path = Path {
        root: 0,
        base: 0,
        indices: Vec::new(),
    };
    let mut since_progress = 0u32;
    let mut scratch = Scratch::default();
    // A state's kept successors: action index, fingerprint, state.
    let mut successors: Vec<(u32, u64, SystemState)> = Vec::new();
    // States already expanded, whose vectors a kept successor is copied into
    // (`SystemState::clone_from`) instead of allocating its own. At most `SPARE` are
    // kept: a spare state still holds its parts, and after a switch from breadth-first
    // search a million roots would otherwise all be kept once expanded.
    let mut spare: Vec<SystemState> = Vec::with_capacity(SPARE);
    let mut order = search.options.order.map(Order::new);
    // The slots still open change only when a discovery is made: computed again then, not
    // for every state.
    let mut open = search.judge.open(&search.found);
    while let Some((fp, state, depth, idx)) = stack.pop() {
        path.enter(fp, depth, idx);
        search.max_depth = search.max_depth.max(depth);
        let may_expand = search.options.max_depth.is_none_or(|d| depth < d);
        let table = &mut search.table;
        let kept = &mut successors;
        let spare_ref = &mut spare;
        let mut sink = |successor: Successor<'_>| match successor {
            Successor::Coming(nfp) => seen.prefetch(nfp),
            Successor::Stepped(idx, nfp, next) => {
                if !(seen.contains(nfp) || after_bfs && table.contains_mut(nfp)) {
                    let mut copy = spare_ref.pop().unwrap_or_default();
                    copy.clone_from(next);
                    kept.push((idx, nfp, copy));
                }
            }
        };
        let cut = expand(
            sys,
            (fp, &state),
            &open,
            may_expand,
            fuse,
            &mut sink,
            &mut scratch,
        );
        if spare.len() < SPARE {
            spare.push(state);
        }
        if !scratch.hits.is_empty() {
            for (slot, msg) in scratch.hits.drain(..) {
                search.found[slot].get_or_insert_with(|| (path.at(), msg));
            }
            open = search.judge.open(&search.found);
        }
        search.exhaustive &= !cut;
        if let Some(order) = order.as_mut() {
            order.shuffle(&mut successors);
        }
        // In reverse, so that the first action's successor is expanded first and, among
        // actions that lead to the same state, the last one is the one taken.
        for (idx, nfp, nstate) in successors.drain(..).rev() {
            if seen.insert(nfp) {
                search.unique += 1;
                stack.push((nfp, nstate, depth + 1, idx));
            } else if spare.len() < SPARE {
                spare.push(nstate);
            }
        }
        since_progress += 1;
        if since_progress == 50_000 {
            since_progress = 0;
            let (unique, depth) = (search.unique, search.max_depth);
            search.progress(unique, depth);
        }
        if !stack.is_empty() && search.must_stop(search.unique) {
            search.exhaustive = false;
            break;
        }
    }
}
