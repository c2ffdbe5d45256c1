//! Making a trace from a run: the actions are run again on the model to digest every
//! state, so a trace's digests always come from the model that wrote it, whichever engine
//! found the run.

use crate::digest::Snapshot;
use crate::format::{Origin, Outcome, Step, Trace, FORMAT, TOOL_VERSION, VERSION};
use crate::walk;
use sharetxn_model::{Action, System};
use sharetxn_properties::{Kind, PropertyReport};

/// The trace of `actions` on `sys`, with the virtual time of each step where it has one
/// (`times` may be empty, or as long as `actions`).
pub fn record(
    sys: &System,
    origin: Origin,
    outcome: Outcome,
    actions: &[Action],
    times: &[Option<u64>],
) -> Result<Trace, String> {
    if !times.is_empty() && times.len() != actions.len() {
        return Err(format!(
            "{} times for {} actions",
            times.len(),
            actions.len()
        ));
    }
    let states = walk::states(sys, actions)?;
    let digest = |i: usize| {
        Snapshot::of(sys, &states[i])
            .map(|s| s.digest())
            .map_err(|e| format!("state {i} has no canonical form: {e}"))
    };
    let mut steps = Vec::with_capacity(actions.len());
    for (i, action) in actions.iter().enumerate() {
        let after = digest(i + 1)?;
        steps.push(Step {
            step: i + 1,
            time_ms: times.get(i).copied().flatten(),
            action: action.clone(),
            text: sys.describe(action),
            digest: after.digest,
            parts: after.parts,
        });
    }
    Ok(Trace {
        format: FORMAT.into(),
        version: VERSION,
        tool_version: TOOL_VERSION.into(),
        design: sys.design.clone(),
        scenario: sys.scenario.clone(),
        origin,
        outcome,
        heal: None,
        initial: digest(0)?,
        steps,
    })
}

/// The trace of a checker discovery, or `None` when it has no actions (the property is
/// decided in the initial state, or nothing was found).
pub fn from_report(
    sys: &System,
    property: &PropertyReport,
    origin: Origin,
) -> Result<Option<Trace>, String> {
    if property.actions.is_empty() {
        return Ok(None);
    }
    let outcome = match property.kind {
        Kind::Sometimes => Outcome::Witness {
            property: property.name.clone(),
        },
        kind => Outcome::Violation {
            property: property.name.clone(),
            kind,
            message: property.message.clone().unwrap_or_default(),
        },
    };
    record(sys, origin, outcome, &property.actions, &[]).map(Some)
}
