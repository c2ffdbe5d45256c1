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
use crate::walk;
use sharetxn_model::System;

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
