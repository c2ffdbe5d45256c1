//! The closed world. `System` implements `stateright::Model` over the actors: its state is
//! every actor's state, their durable storage, which actors are up, the armed timers, the
//! pending client choices, the messages in flight (a multiset: any order, any delay), the
//! fault budget left, and the history the properties read (any [`Record`]; the crate
//! root's `System` keeps `crate::history::History`), all in `crate::world::state`. Every
//! engine drives this one transition function: checkers, Explorer, simulator, replay and
//! shrinking. It knows no particular actor or property: actors declare what they wait for
//! and how they fail over (`crate::world::node`), and one call a step records the history.

use crate::design::Design;
use crate::protocol::ids::TransactionalId;
use crate::protocol::msg::Timer;
use crate::world::action_ref::{ActionRef, EnvelopeRef};
use crate::world::effects::StepEffects;
use crate::world::memo::{clone_command, ActorParts, Event, HandlerMemo, NodeCommand, Outcome};
use crate::world::node::{Node, NodeState};
use crate::world::observation::Observation;
use crate::world::record::{Record, Sent, StepFacts};
use crate::world::scenario::Scenario;
use crate::world::shared::Shared;
pub use crate::world::state::{Action, Envelope, SystemState};
use crate::world::timer_set::TimerSet;
use crate::world::topology::Topology;
use stateright::actor::{Actor, Id, Out};
use stateright::Model;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::marker::PhantomData;

/// The closed world for one design and scenario.
#[derive(Clone, Debug)]
pub struct System<H> {
    /// The protocol design.
    pub design: Design,
    /// The workload and its bounds.
    pub scenario: Scenario,
    /// Which actor is which.
    pub topology: Topology,
    /// The actors, indexed by `Id`.
    pub actors: Vec<Node>,
    /// The history each state keeps (see [`Record`]).
    history: PhantomData<fn() -> H>,
}

/// The transactional id of the scenario's first (in most scenarios only) client.
pub const TXN_ID: TransactionalId = TransactionalId(0);

impl<H: Record> System<H> {
    /// Builds the closed world for a design and a scenario.
    pub fn new(design: Design, scenario: Scenario) -> System<H> {
        let topology = Topology::for_scenario(&scenario);
        let actors = crate::world::assemble::actors(&design, &scenario, &topology);
        System {
            design,
            scenario,
            topology,
            actors,
            history: PhantomData,
        }
    }

    /// The initial state: every actor started from empty storage.
    pub fn init_state(&self) -> SystemState<H> {
        let mut state = SystemState::before_start(self.actors.len(), self.scenario.budget);
        for (i, actor) in self.actors.iter().enumerate() {
            let id = Id::from(i);
            let mut out = Out::new();
            let node = actor.on_start(id, &None, &mut out);
            state.nodes.push(Shared::new(node));
            let mut sent = Sent::new();
            state.apply_commands(id, out, None, &mut sent);
            H::record_sent(self, &mut state, &sent);
            self.debug_check_wire(&sent);
            state.network.send_all(sent);
        }
        state
    }

    /// Quiescence: no progress action is enabled, so nothing but a fault could still
    /// happen. Liveness properties are judged here.
    pub fn is_quiescent(&self, state: &SystemState<H>) -> bool {
        // Judged in every state by the liveness properties, so it stops at the first
        // progress action instead of listing them all (the same set `enabled_progress`
        // lists; a test keeps the two in agreement).
        state.up.iter().all(|up| *up)
            && !(0..self.actors.len()).any(|i| self.fails_over(state, Id::from(i)))
            && state.choices.iter().all(|c| c.is_empty())
            && !state.network.any(|_, dst, _| state.is_up(dst))
            && state.timers.iter().enumerate().all(|(i, timers)| {
                timers
                    .iter()
                    .all(|t| !self.timer_is_due(state, Id::from(i), t))
            })
    }

    /// Whether a timer firing now is due rather than early: what it waits for can no
    /// longer arrive (it was lost, or the other side crashed or gave up). An early firing
    /// is a fault (the `timeouts` budget): the outcome of what it waited for is unknown.
    pub fn timer_is_due(&self, state: &SystemState<H>, id: Id, timer: &Timer) -> bool {
        crate::world::timing::is_due(self, state, id, timer)
    }

    /// Whether actor `id`, up, is restarted now by its own supervisor (its declared
    /// failover policy): the crash is the application's reaction, not a fault.
    pub fn fails_over(&self, state: &SystemState<H>, id: Id) -> bool {
        state.is_up(id) && self.actors[usize::from(id)].fails_over(state.node(id))
    }

    /// Executes `action` (which must be enabled) and returns the next state.
    pub fn step(&self, state: &SystemState<H>, action: &Action) -> SystemState<H> {
        self.step_inner(state, action, None)
    }

    /// [`System::step`], answering a handler run from `memo` when the same actor state
    /// got the same event before (and remembering the runs it does): the same next state,
    /// for a search that steps many states sharing actor states.
    pub fn step_memo(
        &self,
        state: &SystemState<H>,
        action: &Action,
        memo: &mut HandlerMemo,
    ) -> SystemState<H> {
        self.step_inner(state, action, Some(memo))
    }

    /// [`System::step`] into `next`, a state whose vectors are reused, also returning the
    /// timers and choices the handler set, for a scheduler that gives each a real deadline
    /// (the simulator, which steps between two states rather than allocating one a step).
    ///
    /// The effects go into `effects`, cleared first: a caller that steps many times keeps
    /// one and its vectors.
    ///
    /// The history moves from `state` to `next` instead of being shared by both, so that
    /// the step's updates of it happen in place (`Shared::update` copies only a value
    /// something else still holds); `state` is left with `next`'s old history. No part of
    /// a step reads the history of the state before it (handlers cannot, and the
    /// history's rules read the actors and the network before the step, and the history
    /// after it), and debug builds check on every step that `next` is what
    /// [`System::step`] gives.
    pub fn step_with_effects_into(
        &self,
        state: &mut SystemState<H>,
        action: &Action,
        next: &mut SystemState<H>,
        effects: &mut StepEffects,
    ) {
        #[cfg(debug_assertions)]
        let expected = {
            // A copy of the history, not a second handle: the moved one stays unique.
            let mut before = state.clone();
            before.ghost = Shared::new(H::clone(&state.ghost));
            self.step(&before, action)
        };
        effects.clear();
        next.clone_world_from(state);
        std::mem::swap(&mut next.ghost, &mut state.ghost);
        self.step_onto(state, action.as_ref(), next, Some(effects), None);
        #[cfg(debug_assertions)]
        assert!(
            *next == expected,
            "a step with the history moved is the step"
        );
    }

    fn step_inner(
        &self,
        state: &SystemState<H>,
        action: &Action,
        memo: Option<&mut HandlerMemo>,
    ) -> SystemState<H> {
        let mut next = state.clone();
        self.step_onto(state, action.as_ref(), &mut next, None, memo);
        next
    }

    /// [`System::step_memo`] into `next`, a scratch state whose vectors are reused: `next`
    /// becomes the successor, and a searcher that already knows it has allocated nothing
    /// for it but the parts the step replaced (`docs/checker.md`).
    pub fn step_memo_into(
        &self,
        state: &SystemState<H>,
        action: ActionRef<'_>,
        memo: &mut HandlerMemo,
        next: &mut SystemState<H>,
    ) {
        next.clone_from(state);
        self.step_onto(state, action, next, None, Some(memo));
    }

    /// Executes `action` on `next`, a copy of `state`.
    fn step_onto(
        &self,
        state: &SystemState<H>,
        action: ActionRef<'_>,
        next: &mut SystemState<H>,
        effects: Option<&mut StepEffects>,
        memo: Option<&mut HandlerMemo>,
    ) {
        let mut facts = StepFacts::default();
        match action {
            ActionRef::Deliver(env) => {
                next.network.take(env);
                let event = Event::Msg(env.src, env.msg);
                self.run_handler(next, &mut facts, env.dst, event, effects, memo);
            }
            ActionRef::Drop(env) => {
                next.network.take(env);
                next.budget.drops -= 1;
            }
            ActionRef::Duplicate(env) => {
                next.network.add_stray(env.to_owned());
                next.budget.duplicates -= 1;
            }
            ActionRef::Fire { actor, timer } => {
                let on = (effects, memo);
                self.fire(state, next, &mut facts, actor, &timer, on)
            }
            ActionRef::Crash(id) => self.crash(state, next, id),
            ActionRef::Restart(id) => self.restart(next, &mut facts, id, effects),
            ActionRef::Choose { actor, choice } => {
                let i = usize::from(actor);
                next.choices[i].update(|c| c.retain(|_, options| !options.contains(&choice)));
                let event = Event::Choice(&choice);
                self.run_handler(next, &mut facts, actor, event, effects, memo);
            }
        }
        H::record(self, state, action, &facts, next);
        self.debug_check_wire(&facts.sent);
        next.network.send_all(facts.sent);
    }

    /// Fires `timer` of `id`: early (a fault) unless due.
    fn fire(
        &self,
        state: &SystemState<H>,
        next: &mut SystemState<H>,
        facts: &mut StepFacts,
        id: Id,
        timer: &Timer,
        (effects, memo): (Option<&mut StepEffects>, Option<&mut HandlerMemo>),
    ) {
        facts.due = self.timer_is_due(state, id, timer);
        if !facts.due {
            next.budget.timeouts -= 1;
        }
        next.timers[usize::from(id)].update(|t| {
            t.remove(timer);
        });
        if let Timer::RequestTimeout(key) = timer {
            // NetworkClient closes a connection whose request timed out.
            let actor = &self.actors[usize::from(id)];
            if let Some(dst) = actor.request_destination(state.node(id), *key) {
                next.network.disconnect(id, dst);
            }
        }
        if let Timer::VerificationTimeout(at) = timer {
            crate::world::timing::unsend_timed_out_verification(self, next, id, *at);
        }
        self.run_handler(next, facts, id, Event::Timer(timer), effects, memo);
    }

    /// `id` crashes: its volatile state, timers and pending choices are lost.
    fn crash(&self, state: &SystemState<H>, next: &mut SystemState<H>, id: Id) {
        let i = usize::from(id);
        // A task failover after a fatal error is the job's reaction, not a fault.
        if !self.fails_over(state, id) {
            next.budget.crashes -= 1;
        }
        next.up[i] = false;
        next.network.crash(id);
        next.timers[i].update(TimerSet::clear);
        next.choices[i].update(BTreeMap::clear);
    }

    /// `id` restarts from its durable storage.
    fn restart(
        &self,
        next: &mut SystemState<H>,
        facts: &mut StepFacts,
        id: Id,
        effects: Option<&mut StepEffects>,
    ) {
        let i = usize::from(id);
        let mut out = Out::new();
        let storage = next.storage[i].as_deref().cloned();
        let mut node = self.actors[i].on_start(id, &storage, &mut out);
        // Loading replays the log; that is not a move of the table.
        let _ = node.drain_observations();
        next.nodes[i] = Shared::new(node);
        next.up[i] = true;
        next.apply_commands(id, out, effects, &mut facts.sent);
    }

    /// Runs actor `id`'s handler of `event` on `next`, or replays its outcome from `memo`.
    fn run_handler(
        &self,
        next: &mut SystemState<H>,
        facts: &mut StepFacts,
        id: Id,
        event: Event<'_>,
        effects: Option<&mut StepEffects>,
        memo: Option<&mut HandlerMemo>,
    ) {
        let i = usize::from(id);
        let Some(memo) = memo else {
            let Outcome {
                state,
                commands,
                observations,
            } = self.run_event(&next.nodes[i], id, event);
            self.apply_outcome(next, facts, id, (state, observations), commands, effects);
            return;
        };
        #[cfg(debug_assertions)]
        let (input, parts_before) = (next.nodes[i].clone(), ActorParts::of(next, i));
        let (known, hit) = match memo.get(i, &next.nodes[i], event) {
            Some(known) => (known, true),
            None => {
                let input = next.nodes[i].clone();
                let outcome = self.run_event(&input, id, event);
                (memo.put(i, input, event, &outcome), false)
            }
        };
        // The sends share the remembered queues, and the other commands go into the world
        // one by one as copies (no list of them is built and dropped), or not at all when
        // they meet the parts they were last applied to.
        facts.sent.extend(known.sent(id));
        if let Some(s) = &known.state {
            next.nodes[i] = s.clone();
        }
        facts.observations = known.observations.clone();
        let commands = known.commands.iter().map(clone_command);
        match (&known.applied, effects) {
            (_, Some(effects)) => next.apply_commands(id, commands, Some(effects), &mut facts.sent),
            _ if known.commands.is_empty() => {}
            (Some((before, after)), None) if before.are_in(next, i) => after.put(next, i),
            (_, None) => {
                let before = ActorParts::of(next, i);
                next.apply_commands(id, commands, None, &mut facts.sent);
                known.applied = Some((before, ActorParts::of(next, i)));
            }
        }
        // A debug build audits some hits: it runs the handler again and compares.
        #[cfg(not(debug_assertions))]
        let _ = hit;
        #[cfg(debug_assertions)]
        if hit && memo.audit_due() {
            self.audit_hit(memo, next, id, event, (&input, &parts_before));
        }
    }

    /// The debug check of a memo hit: the handler run again gives the remembered outcome,
    /// and the commands applied again to the actor's parts before the step give the
    /// remembered parts after, where those were taken.
    #[cfg(debug_assertions)]
    fn audit_hit(
        &self,
        memo: &mut HandlerMemo,
        next: &SystemState<H>,
        id: Id,
        event: Event<'_>,
        (input, parts_before): (&Shared<NodeState>, &ActorParts),
    ) {
        let i = usize::from(id);
        let again = self.run_event(input, id, event);
        let known = memo.get(i, input, event).expect("just found");
        assert!(known.same_as(&again), "a handler's outcome is its inputs'");
        if let Some((before, after)) = &known.applied {
            if before == parts_before {
                let mut check = next.clone();
                parts_before.put(&mut check, i);
                let commands = known.commands.iter().map(clone_command);
                check.apply_commands(id, commands, None, &mut Sent::new());
                assert!(
                    after.are_in(&check, i),
                    "the remembered parts are the commands'"
                );
            }
        }
    }

    /// Runs actor `id`'s handler of `event` on `before`.
    fn run_event(&self, before: &Shared<NodeState>, id: Id, event: Event<'_>) -> Outcome {
        let actor = &self.actors[usize::from(id)];
        let mut cow = Cow::Borrowed(before.as_ref());
        let mut out = Out::new();
        match event {
            Event::Msg(src, msg) => actor.on_msg(id, &mut cow, src, msg.clone(), &mut out),
            Event::Timer(timer) => actor.on_timeout(id, &mut cow, timer, &mut out),
            Event::Choice(choice) => actor.on_random(id, &mut cow, choice, &mut out),
        }
        let mut outcome = Outcome {
            state: None,
            commands: out.into_iter().collect(),
            observations: Vec::new(),
        };
        if let Cow::Owned(mut s) = cow {
            outcome.observations = s.drain_observations();
            // Actors take their state mutably for every event, so an event they ignore
            // (a stale response) still yields a copy: keep sharing the old one.
            if s != **before {
                outcome.state = Some(Shared::new(s));
            }
        }
        outcome
    }

    /// Puts a handler's outcome into `next`: its state and observations, then its
    /// commands, which may be copies taken one by one from a remembered outcome.
    fn apply_outcome(
        &self,
        next: &mut SystemState<H>,
        facts: &mut StepFacts,
        id: Id,
        (state, observations): (Option<Shared<NodeState>>, Vec<Observation>),
        commands: impl IntoIterator<Item = NodeCommand>,
        effects: Option<&mut StepEffects>,
    ) {
        if let Some(s) = state {
            next.nodes[usize::from(id)] = s;
        }
        facts.observations = observations;
        next.apply_commands(id, commands, effects, &mut facts.sent);
    }

    /// A request a client sent: what a duplicate stands for is a client's retry of it on
    /// a new connection while the first copy is still in flight.
    pub fn is_client_request(&self, env: EnvelopeRef<'_>) -> bool {
        self.topology.retries_requests(env.src) && env.msg.response_error().is_none()
    }

    /// A one-line description of an action with actor names, for humans.
    pub fn describe(&self, action: &Action) -> String {
        action.describe(&self.topology)
    }
}

impl<H: Record> Model for System<H> {
    type State = SystemState<H>;
    type Action = Action;

    fn init_states(&self) -> Vec<SystemState<H>> {
        vec![self.init_state()]
    }

    fn actions(&self, state: &SystemState<H>, actions: &mut Vec<Action>) {
        self.enabled(state, actions);
    }

    fn next_state(&self, state: &SystemState<H>, action: Action) -> Option<SystemState<H>> {
        Some(self.step(state, &action))
    }

    fn format_action(&self, action: &Action) -> String {
        self.describe(action)
    }
}
