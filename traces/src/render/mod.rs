//! Rendering a trace for people: [`text`] (one line a step, fixed columns),
//! [`mermaid`] (a sequence diagram GitHub and the Kafka wiki draw) and [`svg`] (the same
//! diagram drawn by the tool, for a page that must work with no script or network). Each runs
//! the trace on the current model first, so that what a step changed comes from the states
//! themselves.

pub mod label;
pub mod mermaid;
pub mod svg;
pub mod text;

use crate::digest::Snapshot;
use crate::format::Trace;
use crate::inevitable::{inevitable, Inevitable, DEFAULT_CAP};
use crate::walk;
use sharetxn_model::System;

/// What a rendering says about the trace's outcome besides its steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judgement {
    /// The outcome in one line.
    pub outcome: String,
    /// Where a violation became inevitable, when the search settles it.
    pub inevitable: Option<Inevitable>,
    /// That step in words (`fire RequestTimeout(TxnShareAcknowledge) at P0`).
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
            .and_then(|i| trace.steps.get(i))
            .map(|step| {
                let sys = System::new(trace.design.clone(), trace.scenario.clone());
                let c = label::columns(&sys.topology, &step.action);
                match c.kind {
                    "deliver" => format!("{} reaches {} from {}", c.label, c.to, c.from),
                    "drop" | "duplicate" => format!("{} {} {}->{}", c.kind, c.label, c.from, c.to),
                    "crash" | "restart" => format!("{} {}", c.from, c.kind),
                    kind => format!("{kind} {} at {}", c.label, c.from),
                }
            });
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

/// A trace with every state along it, in canonical form.
pub struct Walked<'a> {
    /// The trace.
    pub trace: &'a Trace,
    /// The world it runs in.
    pub sys: System,
    /// The initial state, then the state after each step.
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
            snapshots,
        })
    }

    /// The actors' short names, in topology order.
    pub fn actor_names(&self) -> Vec<String> {
        (0..self.sys.topology.len())
            .map(|i| self.sys.topology.name(i.into()))
            .collect()
    }
}
