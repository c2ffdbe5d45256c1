//! The exhaustive checker: breadth-first (level by level, so every discovery is a shortest
//! trace) or depth-first, over `System::step`, evaluating the property table on every
//! state. A level is expanded by a pool of threads over a shared, lock-striped visited
//! table (`bfs.rs`, `visited.rs`): a known successor is dropped as soon as it is generated,
//! and each new state keeps the link of its lowest generator in the serial order, so the
//! result (counts, discoveries, traces) does not depend on the thread count. The table
//! holds fingerprints with parent links; states live only on the frontier, as records of
//! the distinct parts each level holds (`collapse.rs`), and a trace is rebuilt by
//! re-executing the actions along the links (`docs/checker.md`).
//!
//! Stateright's own BFS is not used for checking because it keeps overwriting discoveries
//! with longer paths and stops expanding once every property has a discovery (stateright 0.31,
//! `BfsChecker`); its Explorer is still served over the same `System`.
//!
//! Depth-first search uses one reduction, proved in `reduction.rs`: a duplication and the
//! first delivery of its copy are one edge.

use crate::bfs;
use crate::dfs;
use crate::frontier::Frontier;
use crate::reduction::{self, FUSED};
use crate::report::{PropertyReport, Report, Status};
use crate::visited::{Link, Table, ROOT, ROOT_IDX};
use crate::{Kind, View, PROPERTIES};
use sharetxn_model::world::action_ref::ActionRef;
use sharetxn_model::world::fingerprint;
use sharetxn_model::world::memo::HandlerMemo;
use sharetxn_model::world::settings;
use sharetxn_model::{Action, System, SystemState};
use smallvec::SmallVec;
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
    /// When a breadth-first level grows past this many states the check goes on
    /// depth-first from it (reported as `bfs-then-dfs`): a large check capped by
    /// `max_states` spends the rest of its cap on deep states, at the price of longer
    /// traces for what is discovered after the switch.
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
    /// Depth-first only: the seed of the order in which each state's new successors are
    /// searched (shuffled by ChaCha8 seeded from it; [`crate::swarm`]). `None` searches
    /// them in the order of the enabled actions. An exhaustive search reaches the same
    /// states and verdicts in any order; a capped one reaches a different part of the
    /// space for each seed, which is what swarm verification runs many of.
    pub order: Option<u64>,
    /// Depth-first only: the partial-order reduction. A state is expanded through one
    /// actor's enabled actions alone where the hand-written declarations say that set is
    /// persistent, commutes with every other actor's steps and unsets no label
    /// ([`crate::reduction_rule`]), and no successor through it is on the search's path;
    /// elsewhere in full. It applies only where the declarations do (`proposed` on
    /// `ctp`), and not to the depth-first search a breadth-first one goes on with; every
    /// verdict is the same, the states fewer (`docs/checker.md`, "The reduction in the
    /// search"). Off by default.
    pub partial_order: bool,
}

/// The default BFS level limit: about 150 MB of collapsed states on this model. It is
/// where a large check starts going deep: a check capped by `max_states` then spends the
/// rest of its cap on deep states rather than on one more wide level
/// (`docs/checker.md`, "Collapsed levels").
pub const DEFAULT_BFS_FRONTIER_LIMIT: usize = 1_000_000;

/// A default cap that stops a check well before 24 GiB of memory run out: a state costs
/// the visited table about 54 bytes breadth-first (less once a check goes deep) and a
/// level is held collapsed up to [`DEFAULT_BFS_FRONTIER_LIMIT`], so 150M states stay under
/// about 10 GB. It lies above share-basic's whole budget (101,672,616 states), the largest
/// space the default matrix explores exhaustively.
pub const DEFAULT_MAX_STATES: u64 = 150_000_000;

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
            order: None,
            partial_order: false,
        }
    }
}

/// The 64-bit fingerprint of a state (in memory only; never persisted): the sum of its
/// parts' terms (`sharetxn_model::world::fingerprint`). A search computes it this way only
/// for the initial state; a successor's comes from its parent's and the parts the step
/// replaced.
pub fn fingerprint(state: &SystemState) -> u64 {
    fingerprint::of(state)
}

/// What expanding one state yields, in buffers a searcher keeps from state to state so
/// that expanding a state allocates nothing of its own but what it keeps, and the
/// searcher's memo of handler runs, kept for the whole search (`docs/checker.md`).
#[derive(Default)]
pub(crate) struct Scratch {
    /// The properties the state violates or witnesses (slot, message).
    pub hits: Vec<(usize, Option<String>)>,
    /// The handler runs this searcher has seen (`System::step_memo`).
    memo: HandlerMemo,
    /// The successor being stepped: every successor is stepped into it, and only a new
    /// one is copied out (`System::step_memo_into`).
    next: SystemState,
    /// The successor stepped before it, whose fingerprint the caller was given to fetch
    /// while `next` was stepped, and which is now handed over to be judged new or known.
    prev: SystemState,
}

/// Slots in discovery order: for each property, its check then its twin.
pub(crate) fn slots() -> usize {
    PROPERTIES.len() * 2
}

fn evaluate(
    sys: &System,
    state: &SystemState,
    open: &[bool],
    hits: &mut Vec<(usize, Option<String>)>,
) {
    // One view for every property judged here: what several of them read is built once.
    let view = View::new(sys, state);
    for (i, p) in PROPERTIES.iter().enumerate() {
        if open[2 * i] {
            if let Some(msg) = (p.check)(&view) {
                hits.push((2 * i, Some(msg)));
            }
        }
        if open[2 * i + 1] && (p.witness)(&view) {
            hits.push((2 * i + 1, None));
        }
    }
}

/// What [`expand`] hands its caller about each successor, in the order of the actions.
pub(crate) enum Successor<'a> {
    /// The successor's fingerprint, as soon as it is known: the caller may start fetching
    /// what deciding whether the successor is new will read.
    Coming(u64),
    /// The successor (action index, fingerprint, state), one step after it was
    /// [`Successor::Coming`]: the caller copies it out only if it keeps it.
    Stepped(u32, u64, &'a SystemState),
}

/// Expands one state, given with its fingerprint: its hits replace `scratch`'s, and each
/// successor is handed to `sink`; returns whether successors exist that were not
/// generated (the depth bound). Most successors are states seen before: each is stepped
/// into the scratch state and fingerprinted from the parts the step replaced, and `sink`
/// copies out only one it keeps, rather than each being allocated and held until its
/// level is done.
///
/// Whether a successor is new is one random read of a large table, a cache miss. So a
/// successor is announced as soon as its fingerprint is known and handed over only after
/// the next one has been stepped: a caller that prefetches the table slot meanwhile has
/// the miss overlap the next step instead of stalling the thread. The successors are
/// handed over in the same order, each as the same value.
pub(crate) fn expand(
    sys: &System,
    (fp, state): (u64, &SystemState),
    open: &[bool],
    expand: bool,
    fuse: bool,
    sink: &mut dyn FnMut(Successor<'_>),
    scratch: &mut Scratch,
) -> bool {
    scratch.hits.clear();
    evaluate(sys, state, open, &mut scratch.hits);
    // Borrowed from `state`: listing and stepping a delivery copies no message.
    let mut actions = SmallVec::<[ActionRef<'_>; 32]>::new();
    sys.each_enabled(state, |a| actions.push(a));
    if !expand {
        return !actions.is_empty();
    }
    let mut pending = None;
    for (i, &action) in actions.iter().enumerate() {
        let idx = match (fuse, action) {
            (true, ActionRef::Duplicate(env)) => {
                if !reduction::fused(state, env) {
                    continue;
                }
                scratch.next = reduction::duplicate_and_deliver(sys, state, env);
                i as u32 | FUSED
            }
            _ => {
                sys.step_memo_into(state, action, &mut scratch.memo, &mut scratch.next);
                i as u32
            }
        };
        let nfp = fingerprint::after_step(fp, state, &scratch.next);
        sink(Successor::Coming(nfp));
        if let Some((pidx, pfp)) = pending.take() {
            sink(Successor::Stepped(pidx, pfp, &scratch.prev));
        }
        std::mem::swap(&mut scratch.next, &mut scratch.prev);
        pending = Some((idx, nfp));
    }
    if let Some((pidx, pfp)) = pending {
        sink(Successor::Stepped(pidx, pfp, &scratch.prev));
    }
    false
}

/// Replays the action indices from the initial state to `at` into actions by value.
fn actions_to(sys: &System, visited: &Table, at: &At) -> Vec<Action> {
    let mut indices = Vec::new();
    let mut fp = at.root;
    while let Some(Link { parent, idx, .. }) = visited.get(fp) {
        if parent == ROOT && idx == ROOT_IDX {
            break;
        }
        indices.push(idx);
        fp = parent;
    }
    indices.reverse();
    indices.extend_from_slice(&at.path);
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

/// Where a discovery was made: a state of the links table (`root`), or the state reached
/// from it by the action indices of `path` (a depth-first search, which keeps no links).
#[derive(Clone, Debug)]
pub(crate) struct At {
    /// A state the links table knows.
    pub root: u64,
    /// Action indices from `root` (with [`FUSED`] for a fused edge).
    pub path: Vec<u32>,
}

/// For each slot, its first discovery: where, and the violation message.
pub(crate) type Found = Vec<Option<(At, Option<String>)>>;

/// Which slots a check judges.
pub(crate) struct Judge {
    applies: Vec<bool>,
    excluded: Vec<Option<&'static str>>,
    judged: Vec<bool>,
    focus_slot: Option<usize>,
}

impl Judge {
    fn new(sys: &System, focus: Option<&str>) -> Judge {
        // Slots of properties that do not apply are closed from the start: never evaluated.
        let applies: Vec<bool> = PROPERTIES.iter().map(|p| (p.applies)(sys)).collect();
        // With a focus, only its slot is judged.
        let focus_slot = focus.map(|name| {
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
        Judge {
            applies,
            excluded,
            judged,
            focus_slot,
        }
    }

    /// The slots still to be judged: judged and not yet discovered.
    pub fn open(&self, found: &Found) -> Vec<bool> {
        found
            .iter()
            .enumerate()
            .map(|(slot, f)| f.is_none() && self.judged[slot])
            .collect()
    }

    fn focus_found(&self, found: &Found) -> bool {
        self.focus_slot
            .is_some_and(|f| found.get(f).is_some_and(Option::is_some))
    }
}

/// The state of a running search.
pub(crate) struct Search<'o, 'a> {
    pub options: &'o mut CheckOptions<'a>,
    pub judge: Judge,
    start: std::time::Instant,
    /// Links of the breadth-first levels (only the initial state's in a depth-first check).
    pub table: Table,
    pub found: Found,
    /// Distinct states seen, by either search.
    pub unique: u64,
    pub exhaustive: bool,
    pub max_depth: u64,
    /// Whether the depth-first search ran with the partial-order reduction (asked for,
    /// and where it applies).
    pub reduced: bool,
}

impl Search<'_, '_> {
    fn out_of_time(&self) -> bool {
        self.options
            .timeout
            .is_some_and(|t| self.start.elapsed() >= t)
    }

    pub fn must_stop(&self, unique: u64) -> bool {
        unique >= self.options.max_states
            || self.out_of_time()
            || self.judge.focus_found(&self.found)
    }

    pub fn progress(&mut self, unique_states: u64, depth: u64) {
        let seconds = self.start.elapsed().as_secs_f64();
        if let Some(p) = self.options.progress.as_mut() {
            p(Progress {
                unique_states,
                depth,
                seconds,
            });
        }
    }
}

/// Explores every state of `sys` within the options' bounds and judges every property.
pub fn check(sys: &System, mut options: CheckOptions<'_>) -> Report {
    let start = now();
    let init = sys.init_state();
    let init_fp = fingerprint(&init);
    let mut table = Table::new();
    table.insert_mut(init_fp, ROOT, ROOT_IDX);
    let strategy = options.strategy;
    let mut search = Search {
        judge: Judge::new(sys, options.focus),
        options: &mut options,
        start,
        table,
        found: vec![None; slots()],
        unique: 1,
        exhaustive: true,
        max_depth: 0,
        reduced: false,
    };
    let mut switched = false;
    let roots = match strategy {
        Strategy::Bfs => {
            let rest = breadth_first(sys, &mut search, (init_fp, init));
            switched = !rest.is_empty();
            rest
        }
        Strategy::Dfs => vec![(init_fp, init, 0u64)],
    };
    // Depth-first: the whole search (`dfs`), or the rest of it after a switch.
    dfs::depth_first(sys, &mut search, roots, switched);
    let seconds = start.elapsed().as_secs_f64();
    report(sys, &search, strategy, switched, seconds)
}

/// Breadth-first levels on the pool; returns the stack to go on depth-first from if a
/// level outgrew `bfs_frontier_limit` (empty otherwise).
fn breadth_first(
    sys: &System,
    search: &mut Search<'_, '_>,
    init: (u64, SystemState),
) -> Vec<(u64, SystemState, u64)> {
    let threads = search.options.threads.max(1);
    let table = std::mem::replace(&mut search.table, Table::new());
    let (rest, table) = bfs::with_pool(sys, table, threads, |pool| {
        let mut frontier = Frontier::single(init);
        let mut depth = 0u64;
        while frontier.len() > 0 {
            search.max_depth = depth;
            let open = search.judge.open(&search.found);
            let may_expand = search.options.max_depth.is_none_or(|d| depth < d);
            let deadline = search.options.timeout.map(|t| search.start + t);
            let (next, level) = pool.level(frontier, &open, may_expand, deadline);
            if level.late {
                // The deadline passed inside the level: a level cut short is dropped whole.
                search.exhaustive = false;
                return Vec::new();
            }
            for (slot, hit) in level.hits.into_iter().enumerate() {
                if let Some((_, fp, msg)) = hit {
                    let at = At {
                        root: fp,
                        path: Vec::new(),
                    };
                    search.found[slot].get_or_insert((at, msg));
                }
            }
            search.exhaustive &= !level.cut;
            let unique = pool.unique();
            search.unique = unique;
            search.progress(unique, depth);
            if next.len() > 0 && search.must_stop(unique) {
                search.exhaustive = false;
                return Vec::new();
            }
            if next.len() > search.options.bfs_frontier_limit {
                // The next level is too wide to search breadth-first to the cap: go on
                // depth-first from it. Discoveries made so far keep their shortest traces.
                return next
                    .into_states()
                    .into_iter()
                    .rev()
                    .map(|(fp, s)| (fp, s, depth + 1))
                    .collect();
            }
            frontier = next;
            depth += 1;
        }
        Vec::new()
    });
    search.table = table;
    rest
}

/// How a report names the search that ran: the strategy asked for, `bfs-then-dfs` if
/// breadth-first search went on depth-first (`switched`), `dfs-partial-order` if the
/// depth-first search was `reduced`.
fn strategy_name(strategy: Strategy, switched: bool, reduced: bool) -> &'static str {
    match (strategy, switched) {
        (Strategy::Bfs, false) => "bfs",
        (Strategy::Bfs, true) => "bfs-then-dfs",
        (Strategy::Dfs, _) if reduced => "dfs-partial-order",
        (Strategy::Dfs, _) => "dfs",
    }
}

fn report(
    sys: &System,
    search: &Search<'_, '_>,
    strategy: Strategy,
    switched: bool,
    seconds: f64,
) -> Report {
    let (judge, found, exhaustive) = (&search.judge, &search.found, search.exhaustive);
    let trace = |f: &Option<(At, Option<String>)>| {
        f.as_ref()
            .map(|(at, _)| actions_to(sys, &search.table, at))
            .unwrap_or_default()
    };
    let mut properties = Vec::new();
    for (i, p) in PROPERTIES.iter().enumerate() {
        let (check, twin) = (&found[2 * i], &found[2 * i + 1]);
        let (applies, excluded) = (judge.applies[i], judge.excluded[i]);
        properties.push(PropertyReport {
            name: p.name.into(),
            kind: p.kind,
            status: match (check, exhaustive) {
                _ if !applies => Status::NotApplicable,
                (None, _) if !judge.judged[2 * i] => Status::Unknown,
                (Some(_), _) => Status::Violated,
                (None, true) => Status::Holds,
                (None, false) => Status::Unknown,
            },
            message: check.as_ref().and_then(|(_, m)| m.clone()),
            trace: None,
            actions: trace(check),
        });
        properties.push(PropertyReport {
            name: p.twin.into(),
            kind: Kind::Sometimes,
            status: if !applies || excluded.is_some() {
                Status::NotApplicable
            } else if twin.is_some() {
                Status::Witnessed
            } else {
                Status::Unreached
            },
            message: excluded
                .filter(|_| applies)
                .map(|why| format!("not applicable: {why}")),
            trace: None,
            actions: trace(twin),
        });
    }
    let unique_states = search.unique;
    Report {
        scenario: sys.scenario.name.clone(),
        design: sys.design.name.clone(),
        settings: settings::as_json(&sys.design, &sys.scenario),
        strategy: strategy_name(strategy, switched, search.reduced).into(),
        exhaustive,
        unique_states,
        max_depth: search.max_depth,
        seconds,
        states_per_second: if seconds > 0.0 {
            unique_states as f64 / seconds
        } else {
            0.0
        },
        properties,
    }
}
