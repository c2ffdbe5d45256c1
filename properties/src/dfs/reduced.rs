//! Depth-first search with the partial-order reduction (`reduction_rule.rs`).
//!
//! The plain search pushes every new successor of a state at once, so the states it has
//! seen but not expanded are not on the path to the state it expands. The reduction's
//! cycle proviso needs that path: a state is expanded through one actor's set only if no
//! successor through it is on the path from the root, so that every cycle of the graph
//! searched passes through a state expanded in full (`docs/checker.md`, "The reduction in
//! the search"). So this search goes one successor at a time, as a recursive search does:
//! each state on the path keeps the successors it has yet to enter, and a state is seen
//! when it is entered.

use super::{Dfs, SPARE};
use crate::check::Search;
use crate::reduction_rule::{self, Connections, Step};
use crate::visited::ROOT_IDX;
use sharetxn_model::{System, SystemState};

/// A state on the path: its depth and the successors still to enter (last first).
type Frame = (u64, Vec<(u32, u64, SystemState)>);

/// Depth-first search from each of `roots` in turn (the initial state: a breadth-first
/// search that goes on depth-first does so unreduced), through the sets the reduction
/// takes.
pub(super) fn depth_first(
    sys: &System,
    search: &mut Search<'_, '_>,
    dfs: &mut Dfs,
    roots: Vec<(u64, SystemState, u64)>,
) {
    let mut frames: Vec<Frame> = Vec::new();
    let mut since_progress = 0u32;
    for (fp, state, depth) in roots.into_iter().rev() {
        let mut entering = Some((fp, state, depth, ROOT_IDX));
        loop {
            if let Some((fp, state, depth, idx)) = entering.take() {
                dfs.path.enter(fp, depth, idx);
                dfs.on_path.push(fp);
                search.max_depth = search.max_depth.max(depth);
                dfs.expand(sys, search, (fp, state, depth));
                let mut next = std::mem::take(&mut dfs.successors);
                if let Some(order) = dfs.order.as_mut() {
                    order.shuffle(&mut next);
                }
                // Entered last first: the first action's successor is entered first.
                next.reverse();
                frames.push((depth, next));
                since_progress += 1;
                if since_progress == 50_000 {
                    since_progress = 0;
                    let (unique, depth) = (search.unique, search.max_depth);
                    search.progress(unique, depth);
                }
                let more = || frames.iter().any(|(_, next)| !next.is_empty());
                if search.must_stop(search.unique) && more() {
                    search.exhaustive = false;
                    return;
                }
            }
            let Some((depth, next)) = frames.last_mut() else {
                break;
            };
            match next.pop() {
                Some((idx, nfp, nstate)) if dfs.seen.insert(nfp) => {
                    search.unique += 1;
                    entering = Some((nfp, nstate, *depth + 1, idx));
                }
                Some((.., nstate)) => {
                    if dfs.spare.len() < SPARE {
                        dfs.spare.push(nstate);
                    }
                }
                None => {
                    let (_, done) = frames.pop().unwrap_or_default();
                    dfs.successors = done;
                    dfs.on_path.pop();
                }
            }
        }
    }
}

impl Dfs {
    /// Keeps, of `state`'s successors, those through the set the partial-order reduction
    /// takes, if it takes one (fewest actions first, then the lowest actor, the first
    /// none of whose successors is on the path: the cycle proviso), then only those not
    /// seen yet.
    pub(super) fn reduce_to_ample(&mut self, sys: &System, state: &SystemState) {
        let mut events = Vec::new();
        sys.each_enabled(state, |a| events.push(reduction_rule::event_of(&a)));
        let actor_of = |idx: u32| events[idx as usize].0;
        let mut counts = vec![0usize; sys.actors.len()];
        for (idx, ..) in &self.successors {
            counts[actor_of(*idx)] += 1;
        }
        let mut candidates: Vec<(usize, usize)> = counts
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(a, c)| (*c, a))
            .collect();
        candidates.sort_unstable();
        let in_flight = Connections::of(state);
        let takes = |a: &usize| self.takes(sys, (state, &in_flight), &events, *a);
        let taken = (candidates.len() > 1)
            .then(|| candidates.iter().map(|(_, a)| *a).find(takes))
            .flatten();
        let (seen, spare) = (&self.seen, &mut self.spare);
        self.successors.retain_mut(|(idx, fp, next)| {
            let keep = taken.is_none_or(|a| actor_of(*idx) == a) && !seen.contains(*fp);
            if !keep && spare.len() < SPARE {
                spare.push(std::mem::take(next));
            }
            keep
        });
    }

    /// Whether the reduction takes actor `a`'s set at `state`, whose events (actor, and
    /// whether a crash and whether a restart) are `events` by action index: the state
    /// allows it, no successor through it is on the path (the cycle proviso), and its
    /// steps allow it. The state and the path are asked first: they cost less than the
    /// steps, which are worked out only for a set they leave standing.
    fn takes(
        &self,
        sys: &System,
        (state, in_flight): (&SystemState, &Connections),
        events: &[(usize, (bool, bool))],
        a: usize,
    ) -> bool {
        let mine = || {
            let of_a = move |(idx, ..): &&(u32, u64, SystemState)| events[*idx as usize].0 == a;
            self.successors.iter().filter(of_a)
        };
        if !reduction_rule::state_allows(sys, state, a)
            || mine().any(|(_, f, _)| self.on_path.contains(f))
        {
            return false;
        }
        let steps: Vec<Step> = mine()
            .map(|(idx, _, next)| {
                let fault = events[*idx as usize].1;
                Step::of(sys, (state, in_flight), next, a, fault)
            })
            .collect();
        reduction_rule::steps_allow(sys, state, a, &steps)
    }
}
