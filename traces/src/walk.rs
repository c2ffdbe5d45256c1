//! Running actions on the current model, refusing any that is not enabled. Recording a
//! trace and rendering one both need every state along the way; a trace whose action is
//! not enabled is one the model cannot run, and `System::step` must never see it.

use sharetxn_model::{Action, System, SystemState};

/// Every state from the initial one to the last, or the first step (numbered from 1)
/// whose action is not enabled, described.
pub fn states(sys: &System, actions: &[Action]) -> Result<Vec<SystemState>, String> {
    let mut states = Vec::with_capacity(actions.len() + 1);
    states.push(sys.init_state());
    for (i, action) in actions.iter().enumerate() {
        let state = &states[i];
        if !sys.is_enabled(state, action) {
            return Err(not_enabled(sys, i + 1, action));
        }
        let next = sys.step(state, action);
        states.push(next);
    }
    Ok(states)
}

/// The one-line report of an action the model cannot take.
pub fn not_enabled(sys: &System, step: usize, action: &Action) -> String {
    format!(
        "step {step}: the action is not enabled on the current model: {}",
        sys.describe(action)
    )
}
