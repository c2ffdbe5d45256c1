//! Every verdict `replay` and `render` print, judged now rather than read from the file:
//! the model replays the actions and judges the outcome, and a heal-phase verdict that
//! rests on the simulator's recorded virtual times is believed only if the simulator,
//! run again on the recorded seed and options, records the same times. An edited file
//! can therefore change what is replayed, never what is said about it.

use crate::sim_trace::heal_point;
use sharetxn_sim::{run_seed, SimOptions};
use sharetxn_traces::heal::is_heal;
use sharetxn_traces::{replay, Origin, Outcome, Replay, Trace, Verdict};

/// The replay of `trace`, its verdict judged now (see the module's comment).
pub fn judge(trace: &Trace) -> Result<Replay, String> {
    let result = replay(trace)?;
    let timed = trace
        .heal
        .as_ref()
        .is_some_and(|h| h.at_ms.is_some() || h.next_due_ms.is_some());
    if !(is_heal(&trace.outcome) && timed && matches!(result.verdict, Verdict::Reproduced { .. })) {
        return Ok(result);
    }
    let Err(why) = simulator_agrees(trace) else {
        return Ok(result);
    };
    // The times are not the simulator's: judge by the model alone (a fair cycle).
    let mut untimed = trace.clone();
    if let Some(heal) = untimed.heal.as_mut() {
        heal.at_ms = None;
        heal.next_due_ms = None;
    }
    let mut again = replay(&untimed)?;
    if let Verdict::NotReproducedBecause(model) = &again.verdict {
        again.verdict =
            Verdict::NotReproducedBecause(format!("{why}; by the model alone, {model}"));
    }
    Ok(again)
}

/// Whether the simulator, run again on the trace's seed and options, records the same
/// actions, times and heal point; otherwise why not.
fn simulator_agrees(trace: &Trace) -> Result<(), String> {
    let Origin::Sim { seed, options } = &trace.origin else {
        return Err("the heal times are recorded but the trace is not the simulator's".into());
    };
    let options: SimOptions = options
        .get("options")
        .cloned()
        .ok_or_else(|| "the trace records no simulator options".to_string())
        .and_then(|o| serde_json::from_value(o).map_err(|e| e.to_string()))
        .map_err(|e| format!("the simulator options cannot be read: {e}"))?;
    let outcome = run_seed(&trace.design, &trace.scenario, &options, *seed);
    let times: Vec<Option<u64>> = outcome.trace.iter().map(|t| Some(t.time_ms)).collect();
    let recorded: Vec<Option<u64>> = trace.steps.iter().map(|s| s.time_ms).collect();
    let actions: Vec<_> = outcome.trace.iter().map(|t| t.action.clone()).collect();
    if heal_point(&options, &outcome) != trace.heal
        || times != recorded
        || actions != trace.actions()
    {
        return Err(format!(
            "the recorded heal times are not the simulator's (seed {seed} run again records others)"
        ));
    }
    Ok(())
}

/// The outcome as judged now, in one line (what `render` prints in place of the file's).
pub fn outcome_line(trace: &Trace, judged: &Replay) -> Result<String, String> {
    let property = trace.outcome.property();
    match (&judged.verdict, &trace.outcome) {
        (Verdict::Reproduced { message, .. }, Outcome::Violation { .. }) => {
            Ok(format!("{property} violated: {message}"))
        }
        (Verdict::Reproduced { .. }, Outcome::Witness { .. }) => {
            Ok(format!("{property} witnessed"))
        }
        (Verdict::NotReproduced, _) => Ok(format!(
            "{property} not reproduced: the current model does not show it"
        )),
        (Verdict::NotReproducedBecause(why), _) => Ok(format!("{property} not reproduced: {why}")),
        (Verdict::Blocked { problem, .. }, _) => Err(problem.clone()),
    }
}
