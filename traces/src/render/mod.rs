//! Rendering a trace for people: [`text`] (one line a step, fixed columns),
//! [`mermaid`] (a sequence diagram GitHub and the Kafka wiki draw) and [`svg`] (the same
//! diagram drawn by the tool, for a page that must work with no script or network). Each runs
//! the trace on the current model first, so that what a step changed comes from the states
//! themselves.

pub mod changes;
pub mod label;
pub mod mermaid;
pub mod svg;
pub mod text;

use crate::digest::Snapshot;
use crate::format::Trace;
use crate::inevitable::{inevitable, Inevitable, DEFAULT_CAP};
use crate::walk;
use sharetxn_model::{System, SystemState};

/// What a rendering says about the trace's outcome besides its steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judgement {
    /// The outcome in one line.
    pub outcome: String,
    /// Where a violation became inevitable, when the search settles it.
    pub inevitable: Option<Inevitable>,
    /// That step's cause in Kafka's terms: what happened and what it changed (`P0's
    /// TxnShareAcknowledge request times out, so P0 TransactionManager IN_TRANSACTION →
    /// ABORTING_TRANSACTION`).
    step: Option<String>,
}

impl Judgement {
    /// The outcome as the file records it, and the point of no return found now.
    pub fn of_file(trace: &Trace) -> Judgement {
        Judgement::with_outcome(trace, trace.outcome.describe())
    }

    /// `outcome` (judged now by a replay), and the point of no return found now.
    pub fn with_outcome(trace: &Trace, outcome: String) -> Judgement {
        // A trace that does not run cannot be rendered either; the renderer says why.
        let inevitable = inevitable(trace, DEFAULT_CAP).ok().flatten();
        let step = inevitable
            .as_ref()
            .and_then(|i| i.after_step.checked_sub(1))
            .and_then(|i| cause(trace, i));
        Judgement {
            outcome,
            inevitable,
            step,
        }
    }

    /// The note at the point of no return.
    pub fn inevitable_note(&self, property: &str) -> Option<(usize, String)> {
        self.inevitable.as_ref().map(|i| {
            let when = match &self.step {
                Some(step) => format!("after step {} ({step})", i.after_step),
                None => "from the initial state".to_string(),
            };
            let earlier = if i.exact { "" } else { " (or earlier: not settled further back)" };
            (
                i.after_step,
                format!("point of no return {when}{earlier}: every run that comes to rest violates {property}"),
            )
        })
    }
}

/// Step `i` (from 0) in Kafka's terms: the action in words, then what it changed that
/// decides the story (the first two changes of the actors, timers aside); `None` when the
/// trace does not run.
fn cause(trace: &Trace, i: usize) -> Option<String> {
    let step = trace.steps.get(i)?;
    let walked = Walked::new(trace).ok()?;
    let topology = &walked.sys.topology;
    let c = label::columns(topology, &step.action);
    let roles = label::legend(topology);
    let role = |name: &str| {
        roles
            .iter()
            .find(|(n, _)| n == name)
            .map_or_else(|| name.to_string(), |(n, what)| format!("{n} ({what})"))
    };
    let action = match c.kind {
        "deliver" => format!("{} handles {} from {}", c.to, c.label, c.from),
        "drop" => format!("{} from {} to {} is lost", c.label, c.from, c.to),
        "duplicate" => format!("{} from {} to {} is duplicated", c.label, c.from, c.to),
        "crash" => format!("{} crashes", role(&c.from)),
        "restart" => format!("{} restarts", role(&c.from)),
        "fire" => match c.label.strip_prefix("RequestTimeout(") {
            Some(request) => format!(
                "{}'s {} request times out",
                c.from,
                request.trim_end_matches(')')
            ),
            None => format!("{} fires at {}", c.label, c.from),
        },
        kind => format!("{} {kind}s {}", c.from, c.label),
    };
    let decisive: Vec<String> = walked
        .changes(i)
        .into_iter()
        .filter(|a| a.actor != "budget" && a.actor != "history")
        .flat_map(|a| a.changes)
        // Timers are bookkeeping, and a crash or restart is the action itself.
        .filter(|c| !c.contains(" arms ") && !c.contains(" disarms "))
        .filter(|c| !c.ends_with(" crashes") && !c.ends_with(" restarts"))
        .take(2)
        .collect();
    // Who is down once the step is taken: often half of why nothing can be undone (the
    // only copy of a staged ack sits at a crashed coordinator).
    let after = &walked.states[i + 1];
    let down: Vec<String> = (0..topology.len())
        .filter(|&a| !after.up[a] && c.from != topology.name(a.into()))
        .map(|a| topology.name(a.into()))
        .collect();
    let mut text = action;
    if !decisive.is_empty() {
        text.push_str(&format!(", so {}", decisive.join(" and ")));
    }
    if !down.is_empty() {
        let verb = if down.len() == 1 { "is" } else { "are" };
        text.push_str(&format!(", while {} {verb} down", down.join(" and ")));
    }
    Some(text)
}

/// A trace with every state along it, in canonical form.
pub struct Walked<'a> {
    /// The trace.
    pub trace: &'a Trace,
    /// The world it runs in.
    pub sys: System,
    /// The initial state, then the state after each step.
    pub states: Vec<SystemState>,
    /// The same states in canonical form.
    pub snapshots: Vec<Snapshot>,
}

impl<'a> Walked<'a> {
    /// Runs the trace; fails on the first action that is not enabled.
    pub fn new(trace: &'a Trace) -> Result<Walked<'a>, String> {
        let sys = System::new(trace.design.clone(), trace.scenario.clone());
        let states = walk::states(&sys, &trace.actions())?;
        let snapshots = states
            .iter()
            .map(|s| Snapshot::of(&sys, s))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("a state has no canonical form: {e}"))?;
        Ok(Walked {
            trace,
            sys,
            states,
            snapshots,
        })
    }

    /// What step `i` (from 0) changed, actor by actor, in Kafka's terms.
    pub fn changes(&self, i: usize) -> Vec<changes::ActorChanges> {
        changes::step_changes(
            &self.sys,
            (&self.states[i], &self.states[i + 1]),
            (&self.snapshots[i], &self.snapshots[i + 1]),
        )
    }

    /// The actors' short names, in topology order.
    pub fn actor_names(&self) -> Vec<String> {
        (0..self.sys.topology.len())
            .map(|i| self.sys.topology.name(i.into()))
            .collect()
    }
}
