//! The exhaustive checker: breadth-first (level by level, so every discovery is a shortest
//! trace) or depth-first, over `System::step`, evaluating the property table on every
//! state. Levels are expanded on several threads and merged in a fixed order, so the
//! result (counts, discoveries, traces) does not depend on the thread count.
//!
//! Stateright's own BFS is not used for checking because it keeps overwriting discoveries
//! with longer paths and stops expanding once every property has a discovery (see
//! `anchors.md` 1.11); its Explorer is still served over the same `System`.
//!
//! Depth-first search uses one reduction, proved in `reduction.rs`: a duplication and the
//! first delivery of its copy are one edge.

use crate::reduction::{self, FUSED};
use crate::report::{PropertyReport, Report, Status};
use crate::{Kind, PROPERTIES};
use sharetxn_model::settings;
use sharetxn_model::{Action, System, SystemState};
use std::collections::hash_map::Entry;
#[allow(clippy::disallowed_types)] // looked up by key only, never iterated
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Duration;

/// How the state space is walked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Breadth-first: discoveries are shortest traces.
    Bfs,
    /// Depth-first: less memory, longer traces.
    Dfs,
}

/// Progress of a running check, for a terminal progress line.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Distinct states so far.
    pub unique_states: u64,
    /// The depth reached.
    pub depth: u64,
    /// Seconds since the start.
    pub seconds: f64,
}

/// Options of a check.
pub struct CheckOptions<'a> {
    /// BFS or DFS.
    pub strategy: Strategy,
    /// Stop (reporting `exhaustive: false`) after this many distinct states.
    pub max_states: u64,
    /// Do not expand states at this depth (reporting `exhaustive: false` if any had
    /// successors).
    pub max_depth: Option<u64>,
    /// Threads expanding a BFS level.
    pub threads: usize,
    /// Stop after this long (reporting `exhaustive: false`).
    pub timeout: Option<Duration>,
    /// Called now and then with progress.
    pub progress: Option<Box<dyn FnMut(Progress) + 'a>>,
    /// Breadth-first search holds two levels in memory; when a level grows past this many
    /// states the check goes on depth-first from it (reported as `bfs-then-dfs`), so large
    /// bounds finish in the memory of a laptop, at the price of longer traces for what is
    /// discovered after the switch.
    pub bfs_frontier_limit: usize,
    /// Judge only this property or twin (by name), and stop as soon as it is found: at
    /// the end of the breadth-first level that first shows it, so a BFS discovery is
    /// still a shortest trace. Every other property is reported `unknown` (a twin
    /// `unreached`). For searches that want one answer fast, such as shrinking a trace.
    pub focus: Option<&'a str>,
    /// Depth-first search takes a duplication together with the first delivery of the
    /// copy, where that is sound ([`reduction::fuses_duplicates`]); breadth-first levels
    /// never do. A fused edge is one step of depth (`max_depth` counts edges) and two
    /// actions of a trace. Off only to compare: the verdicts are the same, the states more.
    pub fuse_duplicates: bool,
}

/// The default BFS level limit: about 4 GiB of states on this model.
pub const DEFAULT_BFS_FRONTIER_LIMIT: usize = 1_000_000;

/// A default cap that stops a check well before 24 GiB of memory run out.
pub const DEFAULT_MAX_STATES: u64 = 20_000_000;

impl Default for CheckOptions<'_> {
    fn default() -> Self {
        CheckOptions {
            strategy: Strategy::Bfs,
            max_states: DEFAULT_MAX_STATES,
            max_depth: None,
            threads: 1,
            timeout: None,
            progress: None,
            bfs_frontier_limit: DEFAULT_BFS_FRONTIER_LIMIT,
            focus: None,
            fuse_duplicates: true,
        }
    }
}

/// The 64-bit fingerprint of a state (in memory only; never persisted). Actor states hash
/// as their cached hashes, so this walks only the network, timers and choices.
pub fn fingerprint(state: &SystemState) -> u64 {
    sharetxn_model::shared::fixed_hash(state)
}

/// Fingerprints are already hashes: the visited set uses them as they are.
#[derive(Default)]
struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) | u64::from(*b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

#[allow(clippy::disallowed_types)] // looked up by key only, never iterated
type Visited = HashMap<u64, (u64, u32), BuildHasherDefault<IdentityHasher>>;

const ROOT: u64 = 0;

/// What one state yields: the properties it violates or witnesses, and its successors.
struct Expansion {
    hits: Vec<(usize, Option<String>)>,
    successors: Vec<(u32, u64, SystemState)>,
    /// Successors exist but were not generated (the depth bound).
    cut: bool,
}

/// Slots in discovery order: for each property, its check then its twin.
fn slots() -> usize {
    PROPERTIES.len() * 2
}

fn evaluate(sys: &System, state: &SystemState, open: &[bool]) -> Vec<(usize, Option<String>)> {
    let mut hits = Vec::new();
    for (i, p) in PROPERTIES.iter().enumerate() {
        if open[2 * i] {
            if let Some(msg) = (p.check)(sys, state) {
                hits.push((2 * i, Some(msg)));
            }
        }
        if open[2 * i + 1] && (p.witness)(sys, state) {
            hits.push((2 * i + 1, None));
        }
    }
    hits
}

/// Expands one state. Successors already in `visited` are dropped at once: most
/// successors are states seen before, and keeping them until the level is merged would
/// make a level's memory its branching factor times larger.
fn expand(
    sys: &System,
    state: &SystemState,
    open: &[bool],
    expand: bool,
    fuse: bool,
    visited: &Visited,
) -> Expansion {
    let hits = evaluate(sys, state, open);
    let mut successors = Vec::new();
    let mut actions = Vec::new();
    sys.enabled(state, &mut actions);
    let cut = !expand && !actions.is_empty();
    if expand {
        for (i, action) in actions.iter().enumerate() {
            let (idx, next) = match (fuse, action) {
                (true, Action::Duplicate(env)) => match reduction::fused(state, action) {
                    Some(true) => (
                        i as u32 | FUSED,
                        reduction::duplicate_and_deliver(sys, state, env),
                    ),
                    _ => continue,
                },
                _ => (i as u32, sys.step(state, action)),
            };
            let fp = fingerprint(&next);
            if !visited.contains_key(&fp) {
                successors.push((idx, fp, next));
            }
        }
    }
    Expansion {
        hits,
        successors,
        cut,
    }
}

/// Replays the action indices from the initial state into actions by value.
fn actions_to(sys: &System, visited: &Visited, fp: u64) -> Vec<Action> {
    let mut indices = Vec::new();
    let mut at = fp;
    while let Some((parent, idx)) = visited.get(&at) {
        if *parent == ROOT && *idx == u32::MAX {
            break;
        }
        indices.push(*idx);
        at = *parent;
    }
    indices.reverse();
    let mut state = sys.init_state();
    let mut out = Vec::with_capacity(indices.len());
    let mut actions = Vec::new();
    for idx in indices {
        actions.clear();
        sys.enabled(&state, &mut actions);
        let action = actions[(idx & !FUSED) as usize].clone();
        let steps = match &action {
            Action::Duplicate(env) if idx & FUSED != 0 => reduction::fused_actions(env).to_vec(),
            _ => vec![action],
        };
        for action in steps {
            state = sys.step(&state, &action);
            out.push(action);
        }
    }
    out
}

#[allow(clippy::disallowed_methods)] // wall time is reported, never used to explore
fn now() -> std::time::Instant {
    std::time::Instant::now()
}

/// Explores every state of `sys` within the options' bounds and judges every property.
pub fn check(sys: &System, mut options: CheckOptions<'_>) -> Report {
    let start = now();
    let init = sys.init_state();
    let init_fp = fingerprint(&init);
    let mut visited = Visited::default();
    visited.insert(init_fp, (ROOT, u32::MAX));
    let mut found: Vec<Option<(u64, Option<String>)>> = vec![None; slots()];
    // Slots of properties that do not apply are closed from the start: never evaluated.
    let applies: Vec<bool> = PROPERTIES.iter().map(|p| (p.applies)(sys)).collect();
    // With a focus, only its slot is judged.
    let focus_slot = options.focus.map(|name| {
        PROPERTIES
            .iter()
            .enumerate()
            .find_map(|(i, p)| {
                (p.name == name)
                    .then_some(2 * i)
                    .or((p.twin == name).then_some(2 * i + 1))
            })
            .unwrap_or(usize::MAX)
    });
    // Twins the scenario's bounds exclude by construction are not judged either.
    let excluded: Vec<Option<&'static str>> =
        PROPERTIES.iter().map(|p| (p.twin_excluded)(sys)).collect();
    let judged: Vec<bool> = (0..slots())
        .map(|slot| {
            applies[slot / 2]
                && !(slot % 2 == 1 && excluded[slot / 2].is_some())
                && focus_slot.is_none_or(|f| f == slot)
        })
        .collect();
    let closed = |found: &[Option<(u64, Option<String>)>]| -> Vec<bool> {
        found
            .iter()
            .enumerate()
            .map(|(slot, f)| f.is_none() && judged[slot])
            .collect()
    };
    let focus_found = |found: &[Option<(u64, Option<String>)>]| {
        focus_slot.is_some_and(|f| found.get(f).is_some_and(Option::is_some))
    };
    let mut exhaustive = true;
    let mut max_depth = 0u64;
    let threads = options.threads.max(1);
    let out_of_time =
        |options: &CheckOptions<'_>| options.timeout.is_some_and(|t| start.elapsed() >= t);

    let fuse = options.fuse_duplicates && reduction::fuses_duplicates(sys);
    let mut stack: Vec<(u64, SystemState, u64)> = Vec::new();
    let mut switched = false;
    match options.strategy {
        Strategy::Bfs => {
            let mut frontier = vec![(init_fp, init)];
            let mut depth = 0u64;
            while !frontier.is_empty() {
                max_depth = depth;
                let open = closed(&found);
                let may_expand = options.max_depth.is_none_or(|d| depth < d);
                // The deadline is also checked inside the level: one level can take
                // longer than a whole --timeout, and a level cut short is dropped whole.
                let timeout = options.timeout;
                let passed = move || timeout.is_some_and(|t| start.elapsed() >= t);
                let Some(results) = expand_level(
                    sys, &frontier, &open, may_expand, threads, &visited, &passed,
                ) else {
                    exhaustive = false;
                    break;
                };
                let mut next = Vec::new();
                for ((fp, _), exp) in frontier.iter().zip(results) {
                    for (slot, msg) in exp.hits {
                        found[slot].get_or_insert((*fp, msg));
                    }
                    if exp.cut {
                        exhaustive = false;
                    }
                    for (idx, nfp, nstate) in exp.successors {
                        if let Entry::Vacant(v) = visited.entry(nfp) {
                            v.insert((*fp, idx));
                            next.push((nfp, nstate));
                        }
                    }
                }
                if let Some(p) = options.progress.as_mut() {
                    p(Progress {
                        unique_states: visited.len() as u64,
                        depth,
                        seconds: start.elapsed().as_secs_f64(),
                    });
                }
                if !next.is_empty()
                    && (visited.len() as u64 >= options.max_states
                        || out_of_time(&options)
                        || focus_found(&found))
                {
                    exhaustive = false;
                    break;
                }
                if next.len() > options.bfs_frontier_limit {
                    // The next level would not fit in memory: go on depth-first from it.
                    // Discoveries made so far keep their shortest traces.
                    switched = true;
                    stack = next
                        .into_iter()
                        .rev()
                        .map(|(fp, s)| (fp, s, depth + 1))
                        .collect();
                    break;
                }
                frontier = next;
                depth += 1;
            }
        }
        Strategy::Dfs => stack.push((init_fp, init, 0u64)),
    }
    // Depth-first: the whole search (`dfs`), or the rest of it after a switch.
    {
        {
            let mut since_progress = 0u32;
            while let Some((fp, state, depth)) = stack.pop() {
                max_depth = max_depth.max(depth);
                let open = closed(&found);
                let may_expand = options.max_depth.is_none_or(|d| depth < d);
                let exp = expand(sys, &state, &open, may_expand, fuse, &visited);
                for (slot, msg) in exp.hits {
                    found[slot].get_or_insert((fp, msg));
                }
                if exp.cut {
                    exhaustive = false;
                }
                for (idx, nfp, nstate) in exp.successors.into_iter().rev() {
                    if let Entry::Vacant(v) = visited.entry(nfp) {
                        v.insert((fp, idx));
                        stack.push((nfp, nstate, depth + 1));
                    }
                }
                since_progress += 1;
                if since_progress == 50_000 {
                    since_progress = 0;
                    if let Some(p) = options.progress.as_mut() {
                        p(Progress {
                            unique_states: visited.len() as u64,
                            depth: max_depth,
                            seconds: start.elapsed().as_secs_f64(),
                        });
                    }
                }
                if !stack.is_empty()
                    && (visited.len() as u64 >= options.max_states
                        || out_of_time(&options)
                        || focus_found(&found))
                {
                    exhaustive = false;
                    break;
                }
            }
        }
    }

    let seconds = start.elapsed().as_secs_f64();
    let mut properties = Vec::new();
    for (i, p) in PROPERTIES.iter().enumerate() {
        let (check, twin) = (&found[2 * i], &found[2 * i + 1]);
        properties.push(PropertyReport {
            name: p.name.into(),
            kind: p.kind,
            status: match (check, exhaustive) {
                _ if !applies[i] => Status::NotApplicable,
                (None, _) if !judged[2 * i] => Status::Unknown,
                (Some(_), _) => Status::Violated,
                (None, true) => Status::Holds,
                (None, false) => Status::Unknown,
            },
            message: check.as_ref().and_then(|(_, m)| m.clone()),
            trace: None,
            actions: check
                .as_ref()
                .map(|(fp, _)| actions_to(sys, &visited, *fp))
                .unwrap_or_default(),
        });
        properties.push(PropertyReport {
            name: p.twin.into(),
            kind: Kind::Sometimes,
            status: if !applies[i] || excluded[i].is_some() {
                Status::NotApplicable
            } else if twin.is_some() {
                Status::Witnessed
            } else {
                Status::Unreached
            },
            message: excluded[i]
                .filter(|_| applies[i])
                .map(|why| format!("not applicable: {why}")),
            trace: None,
            actions: twin
                .as_ref()
                .map(|(fp, _)| actions_to(sys, &visited, *fp))
                .unwrap_or_default(),
        });
    }
    let unique_states = visited.len() as u64;
    Report {
        scenario: sys.scenario.name.clone(),
        design: sys.design.name.clone(),
        settings: settings::as_json(&sys.design, &sys.scenario),
        strategy: match (options.strategy, switched) {
            (Strategy::Bfs, false) => "bfs".into(),
            (Strategy::Bfs, true) => "bfs-then-dfs".into(),
            (Strategy::Dfs, _) => "dfs".into(),
        },
        exhaustive,
        unique_states,
        max_depth,
        seconds,
        states_per_second: if seconds > 0.0 {
            unique_states as f64 / seconds
        } else {
            0.0
        },
        properties,
    }
}

fn expand_level(
    sys: &System,
    frontier: &[(u64, SystemState)],
    open: &[bool],
    may_expand: bool,
    threads: usize,
    visited: &Visited,
    passed: &(dyn Fn() -> bool + Sync),
) -> Option<Vec<Expansion>> {
    // `None` once the deadline passed: a clock read every 256 states costs nothing.
    let part_of = |part: &[(u64, SystemState)]| -> Option<Vec<Expansion>> {
        let mut out = Vec::with_capacity(part.len());
        for (i, (_, s)) in part.iter().enumerate() {
            if i % 256 == 255 && passed() {
                return None;
            }
            out.push(expand(sys, s, open, may_expand, false, visited));
        }
        Some(out)
    };
    if threads == 1 || frontier.len() < 64 {
        return part_of(frontier);
    }
    let chunk = frontier.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = frontier
            .chunks(chunk)
            .map(|part| scope.spawn(move || part_of(part)))
            .collect();
        let parts: Vec<Option<Vec<Expansion>>> = handles
            .into_iter()
            .map(|h| h.join().expect("a checker thread panicked"))
            .collect();
        parts
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .map(|p| p.into_iter().flatten().collect())
    })
}
