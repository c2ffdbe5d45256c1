//! How far two kinds of rule for a persistent-set reduction could go, measured on the whole
//! state graph (`docs/checker.md`, "Why there is no partial-order reduction yet"). Each
//! rule takes an actor's enabled actions alone, as the ample set, when what it knows says
//! no other actor can give that actor a new event first; both know more than a rule
//! declared by hand could, as they are learned from the whole space:
//!
//! - [`Rule::Connections`]: which connections between actors are ever used. An actor's set
//!   is taken when every connection into it that can still bring it something holds a
//!   message already: one that carries answers only while the actor has a request in
//!   flight on the way back or a timer awaiting that peer.
//! - [`Rule::Declared`]: for each actor, each of its own states (its state, timers,
//!   choices and whether it is up) and each other actor, the connections on which it may
//!   still send to that other actor before that one acts: the tightest declaration of
//!   what an actor may send that its own state can support. An actor's set is taken when
//!   each such connection holds a message already, and its enabled timer firings cannot
//!   change before it acts (decided exactly on the graph).
//!
//! Neither checks commutation, faults or visibility, so neither is a sound reduction: they
//! size what declarations could reach, before those conditions take their share. Both
//! search depth first with the cycle proviso, never take a set of crashes alone, and
//! report whether each property's verdict and twin came out the same.

use crate::{View, PROPERTIES};
use sharetxn_model::protocol::wait::Wait;
use sharetxn_model::world::fingerprint;
use sharetxn_model::{Action, System, SystemState};
use stateright::actor::Id;
use std::collections::{BTreeMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};

/// A rule sized here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Which connections are ever used.
    Connections,
    /// What each actor may send from each of its own states.
    Declared,
}

/// One step of the graph.
struct Edge {
    to: u32,
    actor: u8,
    crash: bool,
    /// The connections the step put a message on (bits of [`bit`]).
    sent: u128,
}

/// The whole state graph with what the rules read.
pub struct Graph {
    actors: usize,
    edges: Vec<Vec<Edge>>,
    /// Per state and actor: a hash of its own state, timers, choices and being up.
    own: Vec<Vec<u64>>,
    /// Per state and actor: a hash of its enabled timer firings.
    fires: Vec<Vec<u64>>,
    /// Per state and actor: the peers whose answer its armed timers await (bits by
    /// actor).
    awaits: Vec<Vec<u8>>,
    /// Per state: the connections that hold a message.
    held: Vec<u128>,
    /// Per state: each applicable property's violation and twin (two bits each).
    labels: Vec<u64>,
}

/// The bit of the connection `src -> dst` that carries answers (`answer`) or requests.
fn bit(src: usize, dst: usize, answer: bool) -> u128 {
    1u128 << (src * 16 + dst * 2 + usize::from(answer))
}

fn actor_of(a: &Action) -> usize {
    match a {
        Action::Deliver(e) | Action::Drop(e) | Action::Duplicate(e) => usize::from(e.dst),
        Action::Fire { actor, .. } | Action::Choose { actor, .. } => usize::from(*actor),
        Action::Crash(id) | Action::Restart(id) => usize::from(*id),
    }
}

fn hash(x: &impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    x.hash(&mut h);
    h.finish()
}

fn held(s: &SystemState) -> u128 {
    s.network.iter().fold(0, |b, e| {
        b | bit(e.src.into(), e.dst.into(), e.msg.response_error().is_some())
    })
}

/// The messages in flight, counted by connection and message.
fn in_flight(s: &SystemState) -> BTreeMap<(usize, usize, bool, u64), usize> {
    let mut m = BTreeMap::new();
    for e in s.network.iter() {
        let key = (
            e.src.into(),
            e.dst.into(),
            e.msg.response_error().is_some(),
            hash(&e.msg),
        );
        *m.entry(key).or_insert(0) += 1;
    }
    m
}

/// The peers whose answer `wait` awaits, into `out` (bits by actor).
fn peers(wait: &Wait, out: &mut u8) {
    match wait {
        Wait::Reply(r) => *out |= 1 << usize::from(r.peer),
        Wait::Any(ws) => ws.iter().for_each(|w| peers(w, out)),
        Wait::Client { .. } | Wait::Always | Wait::Never | Wait::Acquisition { .. } => {}
    }
}

fn labels(sys: &System, s: &SystemState) -> u64 {
    let view = View::new(sys, s);
    let applicable = PROPERTIES.iter().filter(|p| (p.applies)(sys));
    applicable.enumerate().fold(0, |b, (i, p)| {
        b | u64::from((p.check)(&view).is_some()) << (2 * i)
            | u64::from((p.witness)(&view)) << (2 * i + 1)
    })
}

impl Graph {
    /// Explores every state of `sys` (at most 8 actors).
    pub fn of(sys: &System) -> Graph {
        let n = sys.actors.len();
        assert!(n <= 8, "the graph's bit sets hold 8 actors");
        let mut g = Graph {
            actors: n,
            edges: Vec::new(),
            own: Vec::new(),
            fires: Vec::new(),
            awaits: Vec::new(),
            held: Vec::new(),
            labels: Vec::new(),
        };
        let init = sys.init_state();
        let mut index = BTreeMap::from([(fingerprint::of(&init), 0u32)]);
        // Breadth first, so that states are recorded in the order they are numbered.
        let mut todo = VecDeque::from([init]);
        let mut actions = Vec::new();
        while let Some(s) = todo.pop_front() {
            let i = g.edges.len();
            g.record(sys, &s);
            actions.clear();
            sys.enabled(&s, &mut actions);
            let before = in_flight(&s);
            for a in &actions {
                let t = sys.step(&s, a);
                let sent = in_flight(&t)
                    .into_iter()
                    .filter(|(k, c)| before.get(k).is_none_or(|b| b < c))
                    .fold(0, |b, ((src, dst, ans, _), _)| b | bit(src, dst, ans));
                let next = index.len() as u32;
                let to = *index.entry(fingerprint::of(&t)).or_insert_with(|| {
                    todo.push_back(t);
                    next
                });
                let crash = matches!(a, Action::Crash(_));
                let actor = actor_of(a) as u8;
                g.edges[i].push(Edge {
                    to,
                    actor,
                    crash,
                    sent,
                });
            }
        }
        g
    }

    /// Adds state `s`'s own facts, as the next state.
    fn record(&mut self, sys: &System, s: &SystemState) {
        let n = self.actors;
        let mut fire_sets = vec![Vec::new(); n];
        let mut all = Vec::new();
        sys.enabled(s, &mut all);
        for a in all.iter().filter(|a| matches!(a, Action::Fire { .. })) {
            fire_sets[actor_of(a)].push(a.clone());
        }
        let own = (0..n)
            .map(|i| hash(&(&s.nodes[i], &s.timers[i], &s.choices[i], s.up[i])))
            .collect();
        let awaits = (0..n)
            .map(|i| {
                let mut b = 0;
                for t in s.timers[i].iter() {
                    peers(&sys.actors[i].wait(s.node(Id::from(i)), t), &mut b);
                }
                b
            })
            .collect();
        self.edges.push(Vec::new());
        self.own.push(own);
        self.fires.push(fire_sets.iter().map(hash).collect());
        self.awaits.push(awaits);
        self.held.push(held(s));
        self.labels.push(labels(sys, s));
    }

    /// The number of states.
    pub fn states(&self) -> usize {
        self.edges.len()
    }

    /// Every property's violation and twin over the whole space.
    pub fn verdicts(&self) -> u64 {
        self.labels.iter().fold(0, |b, l| b | l)
    }
}

/// What a rule's search reached.
#[derive(Debug)]
pub struct Sized {
    /// Distinct states reached.
    pub states: usize,
    /// Whether every property's violation and twin came out as over the whole space.
    pub same: bool,
}

impl Graph {
    /// The connections that ever hold a message.
    fn used(&self) -> u128 {
        self.held.iter().fold(0, |b, h| b | h)
    }

    /// For each state: what may happen before actor `b` acts, folded with `step` (what
    /// one step that is not `b`'s gives) over every such path: the least fixpoint.
    fn before<T: Copy + PartialEq>(
        &self,
        b: usize,
        init: T,
        step: impl Fn(T, usize, &Edge, T) -> T,
    ) -> Vec<T> {
        let mut f = vec![init; self.states()];
        let mut changed = true;
        while changed {
            changed = false;
            for s in (0..self.states()).rev() {
                let mut v = f[s];
                for e in self.edges[s].iter().filter(|e| usize::from(e.actor) != b) {
                    v = step(v, s, e, f[e.to as usize]);
                }
                if v != f[s] {
                    f[s] = v;
                    changed = true;
                }
            }
        }
        f
    }

    /// Per actor `b`, per other actor `x` and own state of `x`: the connections `x` may
    /// send on before `b` acts, from any state of the space `x` is in.
    fn declarations(&self) -> Vec<Vec<BTreeMap<u64, u128>>> {
        let n = self.actors;
        (0..n)
            .map(|b| {
                let sends = self.before(b, 0u128, |v, _, e, later| v | e.sent | later);
                let mut decl = vec![BTreeMap::new(); n];
                for (s, f) in sends.iter().enumerate() {
                    for (x, d) in decl.iter_mut().enumerate() {
                        *d.entry(self.own[s][x]).or_insert(0) |= f & (0xFFFF << (16 * x));
                    }
                }
                decl
            })
            .collect()
    }

    /// Per actor `b`: the states from which its enabled timer firings can change before
    /// it acts.
    fn timer_moves(&self) -> Vec<Vec<bool>> {
        (0..self.actors)
            .map(|b| {
                self.before(b, false, |v, s, e, later| {
                    v || later || self.fires[e.to as usize][b] != self.fires[s][b]
                })
            })
            .collect()
    }

    /// Searches the graph depth first taking the sets `rule` takes.
    pub fn size(&self, rule: Rule) -> Sized {
        let (used, decl, timers) = match rule {
            Rule::Connections => (self.used(), Vec::new(), Vec::new()),
            Rule::Declared => (0, self.declarations(), self.timer_moves()),
        };
        let takes = |s: usize, a: usize| -> bool {
            let held = self.held[s];
            let others = (0..self.actors).filter(|x| *x != a);
            match rule {
                Rule::Connections => others.into_iter().all(|x| {
                    let owes = held & bit(a, x, false) != 0 || self.awaits[s][a] & (1 << x) != 0;
                    [false, true].into_iter().all(|ans| {
                        let b = bit(x, a, ans);
                        used & b == 0 || held & b != 0 || (ans && !owes)
                    })
                }),
                Rule::Declared => {
                    !timers[a][s]
                        && others.into_iter().all(|x| {
                            let may = decl[a][x].get(&self.own[s][x]).copied().unwrap_or(0);
                            [false, true].into_iter().all(|ans| {
                                let b = bit(x, a, ans);
                                may & b == 0 || held & b != 0
                            })
                        })
                }
            }
        };
        let (states, verdicts) = self.search(takes);
        Sized {
            states,
            same: verdicts == self.verdicts(),
        }
    }

    /// A depth-first search of the graph that expands a state through the first actor's
    /// set `takes` allows (fewest actions first, then the lowest actor), unless a
    /// successor through it is on the path (the cycle proviso); returns the states reached
    /// and their violations and twins.
    fn search(&self, takes: impl Fn(usize, usize) -> bool) -> (usize, u64) {
        let mut visited = vec![false; self.states()];
        let mut on_path = vec![false; self.states()];
        let (mut reached, mut verdicts) = (0, 0);
        let mut stack: Vec<(usize, Vec<u32>)> = Vec::new();
        let mut entering = Some(0usize);
        loop {
            if let Some(s) = entering.take() {
                visited[s] = true;
                on_path[s] = true;
                reached += 1;
                verdicts |= self.labels[s];
                let next = self.ample(s, &takes, &on_path);
                stack.push((s, next));
            }
            let Some((s, next)) = stack.last_mut() else {
                break;
            };
            match next.pop() {
                Some(t) if !visited[t as usize] => entering = Some(t as usize),
                Some(_) => {}
                None => {
                    on_path[*s] = false;
                    stack.pop();
                }
            }
        }
        (reached, verdicts)
    }

    /// The successors `s` is expanded through.
    fn ample(&self, s: usize, takes: &impl Fn(usize, usize) -> bool, on_path: &[bool]) -> Vec<u32> {
        let edges = &self.edges[s];
        let mut sets: BTreeMap<usize, (usize, bool)> = BTreeMap::new();
        for e in edges {
            let set = sets.entry(usize::from(e.actor)).or_insert((0, true));
            *set = (set.0 + 1, set.1 && e.crash);
        }
        let mut candidates: Vec<(usize, usize)> = sets
            .iter()
            .filter(|(_, (_, crashes))| !crashes)
            .map(|(a, (count, _))| (*count, *a))
            .collect();
        candidates.sort_unstable();
        if sets.len() > 1 {
            for (_, a) in candidates {
                let mine = edges.iter().filter(|e| usize::from(e.actor) == a);
                if takes(s, a) && mine.clone().all(|e| !on_path[e.to as usize]) {
                    return mine.map(|e| e.to).collect();
                }
            }
        }
        edges.iter().map(|e| e.to).collect()
    }
}
