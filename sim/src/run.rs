//! One simulated run: a fault phase, then a heal phase. Every safety property is checked
//! after every step (and in the initial state); the run stops at the first violation. When
//! the fault phase ends (its steps or its virtual time are used up, or nothing is left to
//! do) the heal begins, and the run must then become quiescent within the heal deadline,
//! where every liveness property must hold.

use crate::faults::FaultPlan;
use crate::options::SimOptions;
use crate::outcome::{Outcome, TimedAction, HEAL_DEADLINE};
use crate::rng::SimRng;
use crate::schedule::Schedule;
use crate::scheduler::{Pick, Scheduler};
use crate::swarm::{Sizable, Swarm};
use sharetxn_model::world::effects::StepEffects;
use sharetxn_model::world::scenario::FaultBudget;
use sharetxn_model::{Action, Design, Scenario, System, SystemState};
use sharetxn_properties::{Kind, View, Violation, PROPERTIES};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Runs seed `seed`: the swarm draws its choices, then the run follows them.
pub fn run_seed(design: &Design, scenario: &Scenario, options: &SimOptions, seed: u64) -> Outcome {
    let mut rng = SimRng::new(seed);
    let sizable = Sizable {
        records: scenario.has_share_group(),
        producers: scenario.producers > 0,
        consumers: scenario.consumers > 0,
    };
    let swarm = Swarm::draw_sized(&mut rng, options, !scenario.crashable.is_empty(), sizable);
    let mut scenario = scenario.clone();
    scenario.inputs = swarm.inputs;
    scenario.txns = swarm.txns;
    scenario.partitions = swarm.partitions;
    scenario.records = swarm.records.unwrap_or(scenario.records);
    scenario.producers = swarm.producers.unwrap_or(scenario.producers);
    scenario.consumers = swarm.consumers.unwrap_or(scenario.consumers);
    let plan = FaultPlan::Swarm(swarm.clone());
    simulate(
        design,
        generous(scenario, options),
        options,
        plan,
        rng,
        seed,
        Some(swarm),
    )
}

/// Runs `scenario` as given under exactly the faults of `schedule`; `seed` draws only
/// latencies and client decisions.
pub fn run_schedule(
    design: &Design,
    scenario: &Scenario,
    options: &SimOptions,
    schedule: &Schedule,
    seed: u64,
) -> Outcome {
    let plan = FaultPlan::Schedule(schedule.clone());
    let rng = SimRng::new(seed);
    simulate(
        design,
        generous(scenario.clone(), options),
        options,
        plan,
        rng,
        seed,
        None,
    )
}

/// The simulator's budgets: as much as the model can count, so that the simulator's
/// probabilities, not the budget, decide how many faults happen. A budget that runs out
/// simply stops the model from enabling that fault. Retries are Kafka's too: the
/// coordinator resends markers until they are answered, and a client resends a request
/// until `delivery.timeout.ms` runs out.
fn generous(mut scenario: Scenario, options: &SimOptions) -> Scenario {
    scenario.marker_retries = None;
    // `PersisterStateManager`: a read is tried `MAX_FIND_COORD_ATTEMPTS` (5) times.
    scenario.read_retries = 4;
    scenario.request_retries = options.request_retries();
    scenario.budget = FaultBudget {
        drops: u8::MAX,
        duplicates: u8::MAX,
        crashes: u8::MAX,
        timeouts: u8::MAX,
    };
    scenario
}

/// The first safety property `state` violates, of those the run judges.
fn safety(sys: &System, state: &SystemState, only: Option<&[String]>) -> Option<Violation> {
    judge(sys, state, Kind::Always, only)
}

fn judge(
    sys: &System,
    state: &SystemState,
    kind: Kind,
    only: Option<&[String]>,
) -> Option<Violation> {
    let judged = |name: &str| only.is_none_or(|names| names.iter().any(|n| n == name));
    // One view for every property judged here: what several of them read is built once.
    let view = View::new(sys, state);
    PROPERTIES
        .iter()
        .filter(|p| p.kind == kind && judged(p.name))
        .find_map(|p| {
            (p.check)(&view).map(|message| Violation {
                property: p.name.to_string(),
                message,
            })
        })
}

struct Run<'a> {
    sys: &'a System,
    /// The properties judged (`None`: all).
    only: Option<&'a [String]>,
    state: SystemState,
    /// The state before the last step, whose vectors the next step reuses.
    spare: SystemState,
    trace: Vec<TimedAction>,
    /// The last step's effects, kept for their vectors.
    effects: StepEffects,
}

impl Run<'_> {
    fn step(&mut self, sched: &mut Scheduler<'_>, at_ms: u64, action: Action) -> Option<Violation> {
        let next = &mut self.spare;
        let effects = &mut self.effects;
        self.sys
            .step_with_effects_into(&mut self.state, &action, next, effects);
        sched.taken(at_ms, &action, &self.state, next, effects);
        std::mem::swap(&mut self.state, next);
        self.trace.push(TimedAction {
            time_ms: sched.now(),
            action,
        });
        safety(self.sys, &self.state, self.only)
    }

    /// A progress action the model enables that nothing scheduled (a guard against a
    /// side table that missed something: the run still ends).
    fn unscheduled(&self) -> Option<Action> {
        let mut actions = Vec::new();
        self.sys.enabled_progress(&self.state, &mut actions);
        actions.into_iter().next()
    }
}

/// How many closed worlds a thread keeps built. The default swarm on `ctp` draws 128
/// distinct sizes in 2,000 seeds; a world and its initial state take about 20 KB (peak
/// memory of 5,000 `ctp` seeds on one thread: 13.4 MB against 8.7 MB without the cache),
/// so this bounds the cache to about 5 MB a thread.
const BUILT_WORLDS: usize = 256;

/// A closed world and its initial state.
type World = Rc<(System, SystemState)>;

thread_local! {
    /// The closed worlds this thread built, with their initial states, by design and
    /// scenario. Building one assembles every actor and starts it (a few percent of a
    /// short run); both are pure functions of the design and the scenario, so a seed
    /// that draws the same sizes as an earlier one runs in the very same world.
    static WORLDS: RefCell<BTreeMap<(Design, Scenario), World>> =
        const { RefCell::new(BTreeMap::new()) };
}

/// The closed world of `design` and `scenario` and its initial state, built once per
/// thread.
fn built(design: &Design, scenario: Scenario) -> (World, SystemState) {
    let world = WORLDS.with_borrow_mut(|worlds| {
        let key = (design.clone(), scenario);
        if let Some(world) = worlds.get(&key) {
            return Rc::clone(world);
        }
        if worlds.len() >= BUILT_WORLDS {
            worlds.clear();
        }
        let sys = System::new(key.0.clone(), key.1.clone());
        let mut init = sys.init_state();
        // Runs are never fingerprinted: a step need not hash the queues it changes.
        init.network.forget_terms();
        let world = Rc::new((sys, init));
        worlds.insert(key, Rc::clone(&world));
        world
    });
    let init = world.1.clone();
    (world, init)
}

fn simulate(
    design: &Design,
    scenario: Scenario,
    options: &SimOptions,
    plan: FaultPlan,
    rng: SimRng,
    seed: u64,
    swarm: Option<Swarm>,
) -> Outcome {
    let (world, init) = built(design, scenario);
    let sys = &world.0;
    let mut sched = Scheduler::new(sys, options, plan, rng, &init);
    let mut run = Run {
        sys,
        only: options.properties.as_deref(),
        state: init,
        spare: SystemState::default(),
        // A ctp seed takes about 85 steps: growing from empty would move the trace 7 times.
        trace: Vec::with_capacity(128),
        effects: StepEffects::default(),
    };
    let mut late_due_ms = None;
    let (violation, heal_at_ms, heal_at_step) = match safety(sys, &run.state, run.only)
        .or_else(|| fault_phase(&mut run, &mut sched, options))
    {
        Some(v) => (Some(v), None, None),
        None => {
            let (heal_at, heal_step) = (sched.now(), run.trace.len() as u64);
            let verdict = heal_phase(&mut run, &mut sched, options, &mut late_due_ms);
            (verdict, Some(heal_at), Some(heal_step))
        }
    };
    Outcome {
        seed,
        swarm,
        scenario: sys.scenario.clone(),
        steps: run.trace.len() as u64,
        virtual_ms: sched.now(),
        heal_at_ms,
        heal_at_step,
        late_due_ms,
        violation,
        trace: run.trace,
    }
}

/// Runs the fault phase; on its end the heal has begun.
fn fault_phase(
    run: &mut Run<'_>,
    sched: &mut Scheduler<'_>,
    options: &SimOptions,
) -> Option<Violation> {
    let mut steps = 0u64;
    loop {
        if steps >= options.steps {
            sched.heal(sched.now());
            return None;
        }
        match sched.pick(&run.state) {
            Pick::Take(at, action) => {
                steps += 1;
                if let Some(v) = run.step(sched, at, action) {
                    return Some(v);
                }
            }
            Pick::FaultPhaseOver => {
                sched.heal(sched.fault_end_ms());
                return None;
            }
            Pick::Idle => {
                sched.heal(sched.now());
                return None;
            }
        }
    }
}

/// Runs the heal phase to quiescence, then judges liveness.
fn heal_phase(
    run: &mut Run<'_>,
    sched: &mut Scheduler<'_>,
    options: &SimOptions,
    late_due_ms: &mut Option<u64>,
) -> Option<Violation> {
    let start = sched.now();
    let deadline = start + options.heal_deadline_ms;
    let guard = options.steps.saturating_mul(10).saturating_add(10_000);
    let late = |sched: &Scheduler<'_>, why: String| Violation {
        property: HEAL_DEADLINE.to_string(),
        message: format!(
            "not quiescent {}ms after the heal began at {start}ms ({why}); still scheduled: {}",
            options.heal_deadline_ms,
            sched.describe_pending()
        ),
    };
    let mut steps = 0u64;
    loop {
        let (at, action) = match sched.pick(&run.state) {
            Pick::Take(at, action) => (at, action),
            Pick::Idle | Pick::FaultPhaseOver => {
                if run.sys.is_quiescent(&run.state) {
                    return judge(run.sys, &run.state, Kind::Eventually, run.only);
                }
                match run.unscheduled() {
                    Some(action) => (sched.now() + 1, action),
                    None => return judge(run.sys, &run.state, Kind::Eventually, run.only),
                }
            }
        };
        if at > deadline {
            *late_due_ms = Some(at);
            return Some(late(sched, format!("the next action is due at {at}ms")));
        }
        steps += 1;
        if steps > guard {
            return Some(late(sched, format!("{guard} steps taken")));
        }
        if let Some(v) = run.step(sched, at, action) {
            return Some(v);
        }
    }
}
