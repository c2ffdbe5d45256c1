//! How many states a persistent-set reduction spares on a model, and how far rules that
//! could decide it from the state would go, measured on the whole state graph
//! (`docs/checker.md`, "Partial-order reduction").
//!
//! Each rule takes an actor's enabled actions (deliveries to it, its timers and choices,
//! its crash or restart) alone, as the ample set, in some states; a depth-first search of
//! the graph then expands each state through the first set taken, fewest actions first,
//! unless a successor through it is on the search's path (the cycle proviso: the state
//! space has cycles, as a marker is resent for as long as it is lost). The search reports
//! the states it reached and whether each property's violation and twin came out as over
//! the whole space.
//!
//! - [`Rule::Ceiling`]: the exact conditions. An actor's set `E` in `s` is taken when,
//!   in every state `t` the other actors reach from `s` without it acting: its enabled
//!   actions are exactly `E`, each of them commutes with every other actor's enabled
//!   action (neither disables the other, and both orders reach the same state), and none
//!   changes a label [`Visible`] keeps: any property's violation or twin, or all but the
//!   twins that stay witnessed, or (to size what making every twin so would give) the
//!   violations alone. Decided for every state at once, as a
//!   fixpoint over the graph; a ceiling, as no rule that sees less can take more, and an
//!   oracle: a set a usable reduction takes must be one this takes.
//! - [`Rule::Connections`]: which connections between actors are ever used. An actor's set
//!   is taken when every connection into it that can still bring it something holds a
//!   message already: one that carries answers only while the actor has a request in
//!   flight on the way back or a timer awaiting that peer.
//! - [`Rule::Declared`]: for each actor, each of its own states (its state, timers,
//!   choices and whether it is up) and each other actor, the connections on which it may
//!   still send to that other actor before that one acts: the tightest declaration of
//!   what an actor may send that its own state can support. An actor's set is taken when
//!   each such connection holds a message already, and its enabled timer firings cannot
//!   change before it acts (decided exactly).
//! - [`Rule::Queued`]: as [`Rule::Declared`], with each actor's key its own state and the
//!   messages in flight to it.
//! - [`Rule::Requests`]: as [`Rule::Declared`] for requests; an answer, by Kafka's
//!   request-response discipline (each answer is to a request of its recipient's), may
//!   come only on a connection to an actor whose request to the sender is in flight or
//!   whose timer awaits the sender, as [`Rule::Connections`] has it. What is left to
//!   declare is then which requests each actor may send from its own state.
//! - [`Rule::Chased`]: what each kind of event (a message by its sender and RPC, a timer
//!   by its kind, a choice, a crash, a restart) may lead an actor to send, or arm or
//!   enable for itself, as one would read it off each RPC's handler; learned over the
//!   whole space, so the tightest such table. An actor's set is taken when, chasing that
//!   table from every event pending at the other actors (the messages in flight to them,
//!   their armed timers, their enabled actions), no connection into it that is empty may
//!   get a message, and its timer firings cannot change before it acts (decided exactly).
//!
//! - [`Rule::Written`]: as [`Rule::Requests`], with the requests declared by hand from
//!   the state ([`crate::reduction_written`]) instead of learned;
//!   [`Rule::WrittenTimers`], with whether timers may change declared by hand as well;
//!   and [`Rule::WrittenCommuting`], with whether the set's steps commute with the
//!   others' declared by hand too: everything but visibility.
//!
//! [`Visible::Unsets`] asks of a set only that its actions unset no label where it is
//! moved across, which is all the argument for a search that keeps verdicts needs
//! (`docs/checker.md`, "Labels a set must not unset").
//!
//! All but the ceiling and the written rules are learned from the whole space, so they know
//! more than a rule declared by hand could; they check neither commutation, faults nor
//! visibility, and never take a set of crashes alone. They size what declarations could
//! reach before those conditions take their share; they are not sound reductions.
//!
//! A learned rule is also sized within a ceiling: taking only the sets both take, the
//! most a sound rule that knows what it knows could take.
//!
//! `cargo bench -p sharetxn-properties --bench reduction_sizing [-- RECORDS...]` prints
//! the ceiling and the learned rules, alone and within the ceiling, for ctp/proposed at each
//! number of records given (default 1).

use crate::reduction_graph::{bit, hash, Edge, Graph};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

/// Which labels (each property's violation and twin) an action of a set taken alone must
/// leave unchanged in every state it is moved across: the visibility condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visible {
    /// Every label.
    Every,
    /// Every label but the twins that stay witnessed once witnessed
    /// ([`crate::PropertyDef::twin_stable`]): a persistent-set search with the cycle
    /// proviso still witnesses each of them (`docs/checker.md`, "Twins that stay
    /// witnessed").
    Unstable,
    /// The violations only: what the ceiling would be if every twin were stable, as the
    /// three that read partition logs and the share coordinator's state are not declared
    /// to be.
    Violations,
    /// No label may be unset: an action of a set taken alone may set a label but never
    /// clear one (`docs/checker.md`, "Labels a set must not unset"): the condition the
    /// argument for stable twins needs, asked of every label.
    Unsets,
}

impl Visible {
    /// Its index in [`Graph`]'s cache of ceilings.
    pub(crate) fn index(self) -> usize {
        match self {
            Visible::Every => 0,
            Visible::Unstable => 1,
            Visible::Violations => 2,
            Visible::Unsets => 3,
        }
    }
}

/// A rule sized here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// The exact conditions of a persistent-set reduction (the ceiling), with the labels
    /// its sets must leave unchanged.
    Ceiling(Visible),
    /// Which connections are ever used.
    Connections,
    /// What each actor may send from each of its own states.
    Declared,
    /// What each actor may send from each of its own states with the messages in flight
    /// to it.
    Queued,
    /// What each kind of event may send, chased over the actors from what is pending.
    Chased,
    /// The requests each actor may send from each of its own states; answers only where
    /// they are owed.
    Requests,
    /// The requests declared by hand ([`crate::reduction_written`]); answers only where
    /// they are owed.
    Written,
    /// As [`Rule::Written`], with whether the actor's timers may change declared by hand
    /// too ([`crate::reduction_written::timers_may_move`]) instead of decided exactly.
    WrittenTimers,
    /// As [`Rule::WrittenTimers`], with whether the actor's steps commute with the others'
    /// declared by hand too ([`crate::reduction_written::commutes`]).
    WrittenCommuting,
    /// As [`Rule::WrittenCommuting`], with which steps may unset a label declared by hand
    /// too ([`crate::reduction_visible::may_unset`]): every condition decided from the
    /// state, by the function the search's reduction uses
    /// ([`crate::reduction_rule::takes`]).
    WrittenAll,
}

/// The rules sized, by name, each alone or within a ceiling (`within` of [`Graph::size`]).
pub const ROWS: [(&str, Rule, Option<Visible>); 30] = [
    ("ceiling", Rule::Ceiling(Visible::Every), None),
    (
        "ceiling with stable twins",
        Rule::Ceiling(Visible::Unstable),
        None,
    ),
    (
        "ceiling if every twin were stable",
        Rule::Ceiling(Visible::Violations),
        None,
    ),
    (
        "ceiling where no set unsets a label",
        Rule::Ceiling(Visible::Unsets),
        None,
    ),
    ("connections", Rule::Connections, None),
    (
        "connections within the ceiling",
        Rule::Connections,
        Some(Visible::Every),
    ),
    ("declared", Rule::Declared, None),
    (
        "declared within the ceiling",
        Rule::Declared,
        Some(Visible::Every),
    ),
    (
        "declared within the ceiling with stable twins",
        Rule::Declared,
        Some(Visible::Unstable),
    ),
    (
        "declared within the ceiling if every twin were stable",
        Rule::Declared,
        Some(Visible::Violations),
    ),
    ("declared with what is queued", Rule::Queued, None),
    (
        "declared with what is queued, within the ceiling",
        Rule::Queued,
        Some(Visible::Every),
    ),
    (
        "declared with what is queued, within the ceiling with stable twins",
        Rule::Queued,
        Some(Visible::Unstable),
    ),
    (
        "declared with what is queued, within the ceiling if every twin were stable",
        Rule::Queued,
        Some(Visible::Violations),
    ),
    ("chased", Rule::Chased, None),
    (
        "chased within the ceiling",
        Rule::Chased,
        Some(Visible::Every),
    ),
    ("declared requests, answers owed", Rule::Requests, None),
    (
        "declared requests, answers owed, within the ceiling",
        Rule::Requests,
        Some(Visible::Every),
    ),
    (
        "declared requests, answers owed, within the ceiling with stable twins",
        Rule::Requests,
        Some(Visible::Unstable),
    ),
    (
        "declared requests, answers owed, within the ceiling if every twin were stable",
        Rule::Requests,
        Some(Visible::Violations),
    ),
    ("written requests, answers owed", Rule::Written, None),
    (
        "written requests, answers owed, within the ceiling",
        Rule::Written,
        Some(Visible::Every),
    ),
    (
        "written requests, answers owed, within the ceiling with stable twins",
        Rule::Written,
        Some(Visible::Unstable),
    ),
    ("written requests and timers", Rule::WrittenTimers, None),
    (
        "written requests and timers, within the ceiling",
        Rule::WrittenTimers,
        Some(Visible::Every),
    ),
    (
        "written requests and timers, within the ceiling with stable twins",
        Rule::WrittenTimers,
        Some(Visible::Unstable),
    ),
    (
        "written requests and timers, within the ceiling where no set unsets a label",
        Rule::WrittenTimers,
        Some(Visible::Unsets),
    ),
    (
        "written requests, timers and commutation",
        Rule::WrittenCommuting,
        None,
    ),
    (
        "written requests, timers and commutation, within the ceiling where no set unsets a label",
        Rule::WrittenCommuting,
        Some(Visible::Unsets),
    ),
    ("written, all four", Rule::WrittenAll, None),
];

/// Per actor and kind of event ([`Graph::kinds`]): what handling it may lead to, a
/// message (recipient, on the answers' connection, its kind there) or an event of the
/// actor's own (the actor itself, `false`, its kind).
type Summaries = BTreeMap<(u8, u16), BTreeSet<(u8, bool, u16)>>;

/// Every twin's bit among a state's labels (`reduction_graph::label_bit`).
const TWINS: u64 = 0xAAAA_AAAA_AAAA_AAAA;

/// What a rule's search reached.
#[derive(Debug)]
pub struct Sized {
    /// Distinct states reached.
    pub states: usize,
    /// Whether every property's violation and twin came out as over the whole space.
    pub same: bool,
    /// Per actor: the states expanded through its set alone.
    pub by_actor: Vec<u64>,
    /// How many of those sets the ceiling's exact conditions refuse: a sound rule takes
    /// none.
    pub refuted: u64,
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

    /// For each state: the connections other actors may send on before `b` acts, on any
    /// path.
    pub(crate) fn sends_before(&self, b: usize) -> Vec<u128> {
        self.before(b, 0u128, |v, _, e, later| v | e.sent | later)
    }

    /// Per actor `b`, per other actor `x` and own state of `x`: the connections `x` may
    /// send on before `b` acts, from any state of the space `x` is in.
    fn declarations(&self, key: &[Vec<u64>]) -> Vec<Vec<BTreeMap<u64, u128>>> {
        let n = self.actors;
        (0..n)
            .map(|b| {
                let sends = self.sends_before(b);
                let mut decl = vec![BTreeMap::new(); n];
                for (s, f) in sends.iter().enumerate() {
                    for (x, d) in decl.iter_mut().enumerate() {
                        *d.entry(key[s][x]).or_insert(0) |= f & (0xFFFF << (16 * x));
                    }
                }
                decl
            })
            .collect()
    }

    /// What each kind of event led each actor to anywhere in the space.
    fn summaries(&self) -> Summaries {
        let is_msg = self.message_kinds();
        let mut m: Summaries = BTreeMap::new();
        for edges in &self.edges {
            for e in edges {
                let out = m.entry((e.actor, e.kind)).or_default();
                out.extend(e.sends.iter().copied());
                let own = self.pending[e.to as usize][usize::from(e.actor)].iter();
                out.extend(
                    own.filter(|k| !is_msg[usize::from(**k)])
                        .map(|k| (e.actor, false, *k)),
                );
            }
        }
        m
    }

    /// By kind: whether it is a message's.
    fn message_kinds(&self) -> Vec<bool> {
        let mut v = vec![false; self.kinds.len()];
        for (name, k) in &self.kinds {
            v[usize::from(*k)] = name.contains('>');
        }
        v
    }

    /// The connections into `a` other actors may send on before it acts, chased from
    /// what is pending at them in `s` through `summaries`; `seen` is scratch, one flag per
    /// actor and kind.
    fn chase(&self, s: usize, a: usize, summaries: &Summaries, seen: &mut Vec<bool>) -> u128 {
        let kinds = self.kinds.len();
        seen.clear();
        seen.resize(self.actors * kinds, false);
        let mut todo: Vec<(u8, u16)> = Vec::new();
        let mut note = |y: usize, k: u16, todo: &mut Vec<(u8, u16)>| {
            let at = y * kinds + usize::from(k);
            if !seen[at] {
                seen[at] = true;
                todo.push((y as u8, k));
            }
        };
        for y in (0..self.actors).filter(|y| *y != a) {
            for k in &self.pending[s][y] {
                note(y, *k, &mut todo);
            }
        }
        let mut may = 0;
        while let Some((y, k)) = todo.pop() {
            for (z, ans, k2) in summaries.get(&(y, k)).into_iter().flatten() {
                if usize::from(*z) == a {
                    may |= bit(usize::from(y), a, *ans);
                } else {
                    note(usize::from(*z), *k2, &mut todo);
                }
            }
        }
        may
    }

    /// Per actor `b`: the states from which its enabled timer firings can change before
    /// it acts.
    pub(crate) fn timer_moves(&self) -> Vec<Vec<bool>> {
        (0..self.actors)
            .map(|b| {
                self.before(b, false, |v, s, e, later| {
                    v || later || self.fires[e.to as usize][b] != self.fires[s][b]
                })
            })
            .collect()
    }

    /// The hash of actor `a`'s enabled actions in `s`, as a set.
    fn enabled_of(&self, s: usize, a: usize) -> u64 {
        let mut mine: Vec<u64> = self.edges[s]
            .iter()
            .filter(|e| usize::from(e.actor) == a)
            .map(|e| e.action)
            .collect();
        mine.sort_unstable();
        hash(&mine)
    }

    /// Whether, in `t`, an action of `a` changes a label outside `stable` (a property's
    /// violation or twin), or does not commute with an action of another actor (one
    /// disables the other, or the two orders reach different states).
    fn breaks_at(&self, t: usize, a: usize, stable: u64, unsets: bool) -> bool {
        let edges = &self.edges[t];
        let after = |from: usize, action: u64| {
            let found = self.edges[from].iter().find(|e| e.action == action);
            found.map(|e| e.to)
        };
        let (mine, others): (Vec<&Edge>, Vec<&Edge>) =
            edges.iter().partition(|e| usize::from(e.actor) == a);
        mine.iter().any(|m| {
            let next = self.labels[m.to as usize];
            let changed = if unsets {
                self.labels[t] & !next
            } else {
                next ^ self.labels[t]
            };
            changed & !stable != 0
                || others.iter().any(|b| {
                    let mb = after(m.to as usize, b.action);
                    mb.is_none() || mb != after(b.to as usize, m.action)
                })
        })
    }

    /// Per actor `b`: the states where the ceiling refuses its set, with the labels
    /// `visible` it must leave unchanged; computed once per graph and `visible`.
    pub(crate) fn ceiling(&self, visible: Visible) -> &[Vec<bool>] {
        self.refused[visible.index()].get_or_init(|| {
            let stable = match visible {
                Visible::Every | Visible::Unsets => 0,
                Visible::Unstable => self.stable,
                Visible::Violations => TWINS,
            };
            self.not_persistent(stable, visible == Visible::Unsets)
        })
    }

    /// Per actor `b`: the states where its enabled set is not persistent (exactly):
    /// along some path of other actors' steps its enabled actions change, or one of them
    /// breaks ([`Graph::breaks_at`]) a label outside `stable`.
    fn not_persistent(&self, stable: u64, unsets: bool) -> Vec<Vec<bool>> {
        (0..self.actors)
            .map(|b| {
                let enabled: Vec<u64> = (0..self.states()).map(|s| self.enabled_of(s, b)).collect();
                let mut f: Vec<bool> = (0..self.states())
                    .map(|s| self.breaks_at(s, b, stable, unsets))
                    .collect();
                let mut changed = true;
                while changed {
                    changed = false;
                    for s in (0..self.states()).rev() {
                        if f[s] {
                            continue;
                        }
                        let others = self.edges[s].iter().filter(|e| usize::from(e.actor) != b);
                        if others.into_iter().any(|e| {
                            let t = e.to as usize;
                            f[t] || enabled[t] != enabled[s]
                        }) {
                            f[s] = true;
                            changed = true;
                        }
                    }
                }
                f
            })
            .collect()
    }

    /// Whether in `s` actor `a` has a request to `x` that `x` may still answer: in flight,
    /// or awaited by one of `a`'s timers.
    fn owes(&self, s: usize, a: usize, x: usize) -> bool {
        self.held[s] & bit(a, x, false) != 0 || self.awaits[s][a] & (1 << x) != 0
    }

    /// Whether in `s` no other actor may put a message on an empty connection into `a`
    /// before it acts, by `declared` (per other actor, the connections into `a` it may
    /// send on); with `owed`, answers come only where they are owed ([`Graph::owes`]) and
    /// the declarations count for requests only.
    fn quiet_toward(
        &self,
        s: usize,
        a: usize,
        owed: bool,
        declared: impl Fn(usize) -> u128,
    ) -> bool {
        let held = self.held[s];
        (0..self.actors).filter(|x| *x != a).all(|x| {
            let declared = declared(x);
            [false, true].into_iter().all(|ans| {
                let b = bit(x, a, ans);
                let may = if ans && owed {
                    self.owes(s, a, x)
                } else {
                    declared & b != 0
                };
                !may || held & b != 0
            })
        })
    }

    /// Searches the graph depth first taking the sets `rule` takes; `within` a ceiling,
    /// only those of them that ceiling takes too (what a sound rule that knows what
    /// `rule` knows could take at best). A set is counted refuted when the ceiling of
    /// `within` (every label visible, if none) refuses it.
    pub fn size(&self, rule: Rule, within: Option<Visible>) -> Sized {
        // Per actor, the states where the ceiling refuses its set, and for a declared
        // rule those where its timers may move first.
        let ceiling = match (rule, within) {
            (Rule::Ceiling(v), _) | (_, Some(v)) => self.ceiling(v),
            // Their sets are judged by the condition a search that keeps verdicts needs.
            (Rule::WrittenCommuting | Rule::WrittenAll, None) => self.ceiling(Visible::Unsets),
            _ => self.ceiling(Visible::Every),
        };
        let blocked = self.timers_move.get_or_init(|| self.timer_moves());
        let (used, decl) = match rule {
            Rule::Ceiling(_) | Rule::Chased => (0, Vec::new()),
            Rule::Connections => (self.used(), Vec::new()),
            Rule::Declared | Rule::Requests => (0, self.declarations(&self.own)),
            Rule::Written | Rule::WrittenTimers | Rule::WrittenCommuting | Rule::WrittenAll => {
                (0, Vec::new())
            }
            Rule::Queued => (0, self.declarations(&self.queued)),
        };
        let summaries = if rule == Rule::Chased {
            self.summaries()
        } else {
            BTreeMap::new()
        };
        let key = if rule == Rule::Queued {
            &self.queued
        } else {
            &self.own
        };
        let scratch = RefCell::new(Vec::new());
        let takes = |s: usize, a: usize| -> bool {
            if within.is_some() && ceiling[a][s] {
                return false;
            }
            let held = self.held[s];
            match rule {
                Rule::Ceiling(_) => !ceiling[a][s],
                Rule::Connections => (0..self.actors).filter(|x| *x != a).all(|x| {
                    [false, true].into_iter().all(|ans| {
                        let b = bit(x, a, ans);
                        used & b == 0 || held & b != 0 || (ans && !self.owes(s, a, x))
                    })
                }),
                Rule::Chased => {
                    let may = self.chase(s, a, &summaries, &mut scratch.borrow_mut());
                    !blocked[a][s] && may & !held == 0
                }
                Rule::Declared | Rule::Queued | Rule::Requests => {
                    let declared = |x: usize| decl[a][x].get(&key[s][x]).copied().unwrap_or(0);
                    let owed = rule == Rule::Requests;
                    !blocked[a][s] && self.quiet_toward(s, a, owed, declared)
                }
                Rule::Written => {
                    let declared = |_: usize| self.written[s][a];
                    !blocked[a][s] && self.quiet_toward(s, a, true, declared)
                }
                Rule::WrittenTimers => self.written_persistent(s, a),
                Rule::WrittenCommuting => self.written_takes(s, a),
                Rule::WrittenAll => self.rule_takes(s, a),
            }
        };
        let (states, verdicts, taken) = self.search(takes, !matches!(rule, Rule::Ceiling(_)));
        let (by_actor, refuted) = self.tally(&taken, ceiling);
        Sized {
            states,
            same: verdicts == self.verdicts(),
            by_actor,
            refuted,
        }
    }

    /// Whether the hand-written declarations say `a`'s set is persistent in `s`: no
    /// request may come on an empty connection, no answer but one owed, and no timer of
    /// `a` may change before it acts.
    pub fn written_persistent(&self, s: usize, a: usize) -> bool {
        let declared = |_: usize| self.written[s][a];
        !self.written_timers_move(s, a) && self.quiet_toward(s, a, true, declared)
    }

    /// Whether the hand-written declarations take `a`'s set in `s`: persistent, and its
    /// steps commute with the others'.
    pub fn written_takes(&self, s: usize, a: usize) -> bool {
        self.written_persistent(s, a) && self.written_commutes(s, a)
    }

    /// Per actor: the states where the search's reduction (every condition written by
    /// hand, [`crate::reduction_rule::takes`]) takes its set (one that holds an action
    /// other than a crash, beside another actor's) while the ceiling `visible` refuses
    /// it. Sound declarations leave none.
    pub fn written_refuted(&self, visible: Visible) -> Vec<usize> {
        self.refuted(visible, |s, a| self.rule_takes(s, a))
    }

    /// Per actor: the states where `takes` takes its set (one that holds an action other
    /// than a crash, beside another actor's) while the ceiling `visible` refuses it.
    pub fn refuted(&self, visible: Visible, takes: impl Fn(usize, usize) -> bool) -> Vec<usize> {
        let ceiling = self.ceiling(visible);
        let mut refuted = vec![0; self.actors];
        for (s, edges) in self.edges.iter().enumerate() {
            for (a, r) in refuted.iter_mut().enumerate() {
                let mine = edges.iter().any(|e| usize::from(e.actor) == a && !e.crash);
                let others = edges.iter().any(|e| usize::from(e.actor) != a);
                *r += usize::from(mine && others && ceiling[a][s] && takes(s, a));
            }
        }
        refuted
    }

    /// Per actor, the states expanded through its set alone (`taken`), and how many of
    /// those sets `ceiling` refuses.
    fn tally(&self, taken: &[(u32, u8)], ceiling: &[Vec<bool>]) -> (Vec<u64>, u64) {
        let mut by_actor = vec![0; self.actors];
        let mut refuted = 0;
        for (s, a) in taken {
            by_actor[usize::from(*a)] += 1;
            refuted += u64::from(ceiling[usize::from(*a)][*s as usize]);
        }
        (by_actor, refuted)
    }
}
