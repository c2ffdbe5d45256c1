//! A model's whole state graph, with what the reduction rules of
//! [`crate::reduction_sizing`] read at each state, and the depth-first search that
//! expands each state through the set a rule takes.

use crate::reduction_rule::{self, Connections, Step};
use crate::reduction_written::{commutes, requests_into, timers_may_move};
use crate::{View, PROPERTIES};
use sharetxn_model::protocol::msg::{Msg, Timer};
use sharetxn_model::world::fingerprint;
use sharetxn_model::{Action, System, SystemState};
use stateright::actor::Id;
use std::cell::OnceCell;
use std::collections::{BTreeMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};

/// One step of the graph.
pub(crate) struct Edge {
    /// The state it leads to.
    pub(crate) to: u32,
    /// The actor whose event it is.
    pub(crate) actor: u8,
    /// Whether it is a crash.
    pub(crate) crash: bool,
    /// A hash of the action, which names it in every state it is enabled in.
    pub(crate) action: u64,
    /// The connections the step put a message on (bits of [`bit`]).
    pub(crate) sent: u128,
    /// The kind of event it is (see [`Graph::kinds`]).
    pub(crate) kind: u16,
    /// What it sent: recipient, on the answers' connection, and the kind of event the
    /// message is at the recipient.
    pub(crate) sends: Vec<(u8, bool, u16)>,
    /// Whether it may unset a label, by the hand-written declarations
    /// ([`crate::reduction_visible::may_unset`]).
    pub(crate) may_unset: bool,
}

/// The whole state graph with what the rules read.
pub struct Graph {
    /// How many actors the model has.
    pub(crate) actors: usize,
    /// Per state (numbered breadth first from the initial state, 0): its steps, in the
    /// order the model enables them.
    pub(crate) edges: Vec<Vec<Edge>>,
    /// Per state and actor: a hash of its own state, timers, choices and being up.
    pub(crate) own: Vec<Vec<u64>>,
    /// Per state and actor: a hash of its own state and the messages in flight to it.
    pub(crate) queued: Vec<Vec<u64>>,
    /// Per state and actor: a hash of its enabled timer firings.
    pub(crate) fires: Vec<Vec<u64>>,
    /// Per state and actor: the peers whose answer its armed timers await (bits by
    /// actor).
    pub(crate) awaits: Vec<Vec<u8>>,
    /// Per state: the connections that hold a message.
    pub(crate) held: Vec<u128>,
    /// Per state and actor: the kinds of event pending at it (messages in flight to it,
    /// armed timers, enabled actions), sorted.
    pub(crate) pending: Vec<Vec<Vec<u16>>>,
    /// Event kinds by name, each with its number: a message (`src>Name`), a timer (its
    /// variant), a choice, a crash, a restart, a fault.
    pub(crate) kinds: BTreeMap<String, u16>,
    /// Per state: each applicable property's violation and twin (two bits each).
    pub(crate) labels: Vec<u64>,
    /// Per state and actor: the request connections into it that may get a message before
    /// it acts, by the hand-written declarations ([`crate::reduction_written`]).
    pub(crate) written: Vec<Vec<u128>>,
    /// Per state: the actors whose due timers may change before they act, by the
    /// hand-written declarations (bits by actor).
    pub(crate) written_timers: Vec<u8>,
    /// Per state: the actors whose enabled actions commute with every other actor's step
    /// before they act, by the hand-written declarations (bits by actor).
    pub(crate) commuting: Vec<u8>,
    /// Per state: the actors whose set the search's reduction takes
    /// ([`crate::reduction_rule::takes`]; bits by actor).
    pub(crate) rule: Vec<u8>,
    /// The labels that stay set once set, by the property table: the twins declared
    /// [`crate::PropertyDef::twin_stable`].
    pub(crate) stable: u64,
    /// Per ceiling (by [`crate::reduction_sizing::Visible::index`]), actor and state:
    /// whether its set is refused by the ceiling's conditions, computed once, when a rule
    /// first asks.
    pub(crate) refused: [OnceCell<Vec<Vec<bool>>>; 4],
    /// Per actor and state: whether its enabled timer firings can change before it acts,
    /// computed once, when a rule first asks.
    pub(crate) timers_move: OnceCell<Vec<Vec<bool>>>,
}

/// The bit of the connection `src -> dst` that carries answers (`answer`) or requests.
pub fn bit(src: usize, dst: usize, answer: bool) -> u128 {
    1u128 << (src * 16 + dst * 2 + usize::from(answer))
}

/// The actor an action is an event of.
fn actor_of(a: &Action) -> usize {
    match a {
        Action::Deliver(e) | Action::Drop(e) | Action::Duplicate(e) => usize::from(e.dst),
        Action::Fire { actor, .. } | Action::Choose { actor, .. } => usize::from(*actor),
        Action::Crash(id) | Action::Restart(id) => usize::from(*id),
    }
}

/// A hash that is the same in every run (`DefaultHasher::new` has fixed keys).
pub(crate) fn hash(x: &impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    x.hash(&mut h);
    h.finish()
}

/// A message in flight: its connection (sender, recipient, carries answers), a hash of
/// the message, and its RPC name.
type InFlight = (usize, usize, bool, u64, &'static str);

/// The messages in flight, counted.
fn in_flight(s: &SystemState) -> BTreeMap<InFlight, usize> {
    let mut m = BTreeMap::new();
    for e in s.network.iter() {
        let answer = e.msg.response_error().is_some();
        let key = (
            e.src.into(),
            e.dst.into(),
            answer,
            hash(&e.msg),
            e.msg.name(),
        );
        *m.entry(key).or_insert(0) += 1;
    }
    m
}

/// The kind of event a message from `src` named `name` is at its recipient.
fn message_kind(src: usize, name: &str) -> String {
    format!("{src}>{name}")
}

/// A timer's kind: its variant, without what it is for (every variant is a tuple or a
/// unit).
fn timer_kind(t: &Timer) -> String {
    let d = format!("timer:{t:?}");
    d.split('(').next().unwrap_or(&d).to_string()
}

/// The bit of `property`'s violation, or of its twin, among the labels of `sys`'s states
/// (each applicable property's, two bits each, in the table's order); `None` where the
/// property does not apply.
pub fn label_bit(sys: &System, property: &str, twin: bool) -> Option<u64> {
    let mut applicable = PROPERTIES.iter().filter(|p| (p.applies)(sys));
    let i = applicable.position(|p| p.name == property)?;
    Some(1 << (2 * i + usize::from(twin)))
}

/// The twins of `sys`'s applicable properties declared to stay witnessed.
fn stable_labels(sys: &System) -> u64 {
    let applicable = PROPERTIES.iter().filter(|p| (p.applies)(sys));
    applicable
        .enumerate()
        .filter(|(_, p)| p.twin_stable)
        .fold(0, |b, (i, _)| b | 1 << (2 * i + 1))
}

/// Each applicable property's violation and twin in `s`, two bits each.
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
        let mut g = Graph::empty(sys);
        let init = sys.init_state();
        let mut index = BTreeMap::from([(fingerprint::of(&init), 0u32)]);
        // Breadth first, so that states are recorded in the order they are numbered.
        let mut todo = VecDeque::from([init]);
        let mut actions = Vec::new();
        let mut steps: Vec<(usize, Step)> = Vec::new();
        let applies = reduction_rule::applies(sys);
        while let Some(s) = todo.pop_front() {
            steps.clear();
            let i = g.edges.len();
            actions.clear();
            sys.enabled(&s, &mut actions);
            g.record(sys, &s, &actions);
            let before = in_flight(&s);
            let counts = Connections::of(&s);
            for a in &actions {
                let t = sys.step(&s, a);
                let (sent, sends) = g.sends(&before, &t);
                let kind = g.kind_of_action(a);
                let actor = actor_of(a);
                let fault = (
                    matches!(a, Action::Crash(_)),
                    matches!(a, Action::Restart(_)),
                );
                let step = Step::of(sys, (&s, &counts), &t, actor, fault);
                steps.push((actor, step));
                let next = index.len() as u32;
                let to = *index.entry(fingerprint::of(&t)).or_insert_with(|| {
                    todo.push_back(t);
                    next
                });
                g.edges[i].push(Edge {
                    to,
                    actor: actor as u8,
                    crash: fault.0,
                    action: hash(a),
                    sent,
                    kind,
                    sends,
                    may_unset: step.may_unset,
                });
            }
            g.record_rule(sys, &s, &steps, applies);
        }
        g
    }

    /// A graph of `sys` with no state yet (at most 8 actors).
    fn empty(sys: &System) -> Graph {
        let n = sys.actors.len();
        assert!(n <= 8, "the graph's bit sets hold 8 actors");
        assert!(
            PROPERTIES.len() <= 32,
            "a state's labels hold 32 properties"
        );
        Graph {
            actors: n,
            edges: Vec::new(),
            own: Vec::new(),
            queued: Vec::new(),
            fires: Vec::new(),
            awaits: Vec::new(),
            held: Vec::new(),
            pending: Vec::new(),
            kinds: BTreeMap::new(),
            labels: Vec::new(),
            stable: stable_labels(sys),
            written: Vec::new(),
            written_timers: Vec::new(),
            commuting: Vec::new(),
            rule: Vec::new(),
            refused: [
                OnceCell::new(),
                OnceCell::new(),
                OnceCell::new(),
                OnceCell::new(),
            ],
            timers_move: OnceCell::new(),
        }
    }

    /// Adds the hand-written declarations' verdicts on state `s`'s sets, whose steps
    /// (by actor) are `steps`: whether each commutes, and whether the search's reduction
    /// takes it (where it `applies`).
    fn record_rule(
        &mut self,
        sys: &System,
        s: &SystemState,
        steps: &[(usize, Step)],
        applies: bool,
    ) {
        let (mut commuting, mut taken) = (0u8, 0u8);
        for a in 0..self.actors {
            let mine: Vec<Step> = steps
                .iter()
                .filter(|(x, _)| *x == a)
                .map(|(_, st)| *st)
                .collect();
            let sends = mine.iter().fold(0, |b, st| b | st.sends);
            let commits = mine.iter().any(|st| st.commits);
            if commutes(sys, s, a, (sends, commits)) {
                commuting |= 1 << a;
            }
            if applies && !mine.is_empty() && reduction_rule::takes(sys, s, a, &mine) {
                taken |= 1 << a;
            }
        }
        self.commuting.push(commuting);
        self.rule.push(taken);
    }

    /// What a step that left `before` in flight and reached `t` sent: the connections (bits
    /// of [`bit`]) and the messages ([`Edge::sends`]).
    fn sends(
        &mut self,
        before: &BTreeMap<InFlight, usize>,
        t: &SystemState,
    ) -> (u128, Vec<(u8, bool, u16)>) {
        let (mut sent, mut sends) = (0, Vec::new());
        let after = in_flight(t).into_iter();
        for ((src, dst, ans, _, name), _) in
            after.filter(|(k, c)| before.get(k).is_none_or(|b| b < c))
        {
            sent |= bit(src, dst, ans);
            sends.push((dst as u8, ans, self.kind(message_kind(src, name))));
        }
        sends.sort_unstable();
        sends.dedup();
        (sent, sends)
    }

    /// Per actor: the kinds of event pending at it in `s` (messages in flight to it, its
    /// armed timers, its enabled actions other than deliveries), sorted.
    fn pending(&mut self, s: &SystemState, enabled: &[Action]) -> Vec<Vec<u16>> {
        let mut pending = vec![Vec::new(); self.actors];
        for e in s.network.iter() {
            let k = self.kind(message_kind(e.src.into(), e.msg.name()));
            pending[usize::from(e.dst)].push(k);
        }
        for (i, p) in pending.iter_mut().enumerate() {
            for t in s.timers[i].iter() {
                p.push(self.kind(timer_kind(t)));
            }
        }
        for a in enabled.iter().filter(|a| !matches!(a, Action::Deliver(_))) {
            let k = self.kind_of_action(a);
            pending[actor_of(a)].push(k);
        }
        for p in pending.iter_mut() {
            p.sort_unstable();
            p.dedup();
        }
        pending
    }

    /// Adds state `s`'s own facts, as the next state; `enabled` are its actions.
    fn record(&mut self, sys: &System, s: &SystemState, enabled: &[Action]) {
        let n = self.actors;
        let mut fire_sets: Vec<Vec<&Action>> = vec![Vec::new(); n];
        for a in enabled.iter().filter(|a| matches!(a, Action::Fire { .. })) {
            fire_sets[actor_of(a)].push(a);
        }
        let own: Vec<u64> = (0..n)
            .map(|i| hash(&(&s.nodes[i], &s.timers[i], &s.choices[i], s.up[i])))
            .collect();
        let queued = (0..n)
            .map(|i| {
                let to_me = s.network.iter().filter(|e| usize::from(e.dst) == i);
                let to_me: Vec<(Id, Msg)> = to_me.map(|e| (e.src, e.msg)).collect();
                hash(&(own[i], to_me))
            })
            .collect();
        let awaits = (0..n).map(|i| reduction_rule::awaited(sys, s, i)).collect();
        let pending = self.pending(s, enabled);
        self.pending.push(pending);
        self.edges.push(Vec::new());
        self.own.push(own);
        self.queued.push(queued);
        self.fires.push(fire_sets.iter().map(hash).collect());
        self.awaits.push(awaits);
        self.held.push(reduction_rule::held(s));
        self.labels.push(labels(sys, s));
        self.written
            .push((0..n).map(|a| requests_into(sys, s, a)).collect());
        let moving = (0..n).filter(|a| timers_may_move(sys, s, *a));
        self.written_timers.push(moving.fold(0, |b, a| b | 1 << a));
    }

    /// The kind named `name`, interned.
    fn kind(&mut self, name: String) -> u16 {
        let next = self.kinds.len() as u16;
        *self.kinds.entry(name).or_insert(next)
    }

    /// The kind of event `a` is.
    fn kind_of_action(&mut self, a: &Action) -> u16 {
        let name = match a {
            Action::Deliver(e) => message_kind(e.src.into(), e.msg.name()),
            Action::Drop(_) => "drop".into(),
            Action::Duplicate(_) => "duplicate".into(),
            Action::Fire { timer, .. } => timer_kind(timer),
            Action::Choose { choice, .. } => format!("choose:{choice:?}"),
            Action::Crash(_) => "crash".into(),
            Action::Restart(_) => "restart".into(),
        };
        self.kind(name)
    }

    /// The number of states.
    pub fn states(&self) -> usize {
        self.edges.len()
    }

    /// Every property's violation and twin over the whole space.
    pub fn verdicts(&self) -> u64 {
        self.labels.iter().fold(0, |b, l| b | l)
    }

    /// The labels some step unsets (bits of [`label_bit`]): set in a state and not in
    /// one of its successors.
    pub fn unset(&self) -> u64 {
        let edges = self.edges.iter().enumerate();
        edges.fold(0, |b, (s, es)| {
            es.iter()
                .fold(b, |b, e| b | self.labels[s] & !self.labels[e.to as usize])
        })
    }

    /// The hand-written declarations' request connections into `a` in state `s`
    /// ([`crate::reduction_written::requests_into`]).
    pub fn written(&self, s: usize, a: usize) -> u128 {
        self.written[s][a]
    }

    /// Whether the hand-written declarations say `a`'s due timers may change before it
    /// acts in state `s` ([`crate::reduction_written::timers_may_move`]).
    pub fn written_timers_move(&self, s: usize, a: usize) -> bool {
        self.written_timers[s] & (1 << a) != 0
    }

    /// Whether the search's reduction takes `a`'s set in state `s`
    /// ([`crate::reduction_rule::takes`]).
    pub fn rule_takes(&self, s: usize, a: usize) -> bool {
        self.rule[s] & (1 << a) != 0
    }

    /// Whether the hand-written declarations say `a`'s enabled actions in state `s`
    /// commute with every other actor's step before it acts
    /// ([`crate::reduction_written::commutes`]).
    pub fn written_commutes(&self, s: usize, a: usize) -> bool {
        self.commuting[s] & (1 << a) != 0
    }

    /// The labels the property table declares stay set once set
    /// ([`crate::PropertyDef::twin_stable`]).
    pub fn stable(&self) -> u64 {
        self.stable
    }

    /// A depth-first search of the graph that expands a state through an actor's set
    /// `takes` allows, fewest actions first, then the lowest actor, unless a successor
    /// through it is on the path (the cycle proviso). For the ceiling (`learned` false),
    /// the first set allowed or nothing, as the proof search it replaces did; for a
    /// learned rule, the first allowed that passes the proviso, never a set of crashes
    /// alone. Returns the states reached, their violations and twins, and the states
    /// expanded through one actor's set, with the actor.
    pub(crate) fn search(
        &self,
        takes: impl Fn(usize, usize) -> bool,
        learned: bool,
    ) -> (usize, u64, Vec<(u32, u8)>) {
        let mut visited = vec![false; self.states()];
        let mut on_path = vec![false; self.states()];
        let (mut reached, mut verdicts) = (0, 0);
        let mut taken_at = Vec::new();
        let mut stack: Vec<(usize, Vec<u32>)> = Vec::new();
        let mut entering = Some(0usize);
        loop {
            if let Some(s) = entering.take() {
                visited[s] = true;
                on_path[s] = true;
                reached += 1;
                verdicts |= self.labels[s];
                let (next, taken) = self.ample(s, (&takes, learned), &on_path);
                if let Some(a) = taken {
                    taken_at.push((s as u32, a as u8));
                }
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
        (reached, verdicts, taken_at)
    }

    /// The successors `s` is expanded through, and the actor whose set alone they are.
    fn ample(
        &self,
        s: usize,
        (takes, learned): (&impl Fn(usize, usize) -> bool, bool),
        on_path: &[bool],
    ) -> (Vec<u32>, Option<usize>) {
        let edges = &self.edges[s];
        let mut sets: BTreeMap<usize, (usize, bool)> = BTreeMap::new();
        for e in edges {
            let set = sets.entry(usize::from(e.actor)).or_insert((0, true));
            *set = (set.0 + 1, set.1 && e.crash);
        }
        let mut candidates: Vec<(usize, usize)> = sets
            .iter()
            .filter(|(_, (_, crashes))| !(learned && *crashes))
            .map(|(a, (count, _))| (*count, *a))
            .collect();
        candidates.sort_unstable();
        if sets.len() > 1 {
            for (_, a) in candidates {
                let mine = edges.iter().filter(|e| usize::from(e.actor) == a);
                if !takes(s, a) {
                    continue;
                }
                if mine.clone().all(|e| !on_path[e.to as usize]) {
                    return (mine.map(|e| e.to).collect(), Some(a));
                }
                if !learned {
                    break;
                }
            }
        }
        (edges.iter().map(|e| e.to).collect(), None)
    }
}
