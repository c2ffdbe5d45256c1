//! Replay: the recorded actions on the current model, from the recorded design and
//! scenario. Each action must be enabled before it is taken; each state's digest is
//! compared with the recorded one; every property is judged after every step, as the
//! checker does. The result says whether the recorded outcome shows again, where the
//! run first went somewhere else and what differs there, and where it could not go on.

use crate::diff;
use crate::digest::{Snapshot, StateDigest};
use crate::format::{Outcome, Trace};
use crate::judge;
use sharetxn_model::{System, SystemState};
use sharetxn_properties::PropertyDef;

/// How many differing leaves a divergence report names per part.
const DIFF_LIMIT: usize = 3;

/// One step as replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayedStep {
    /// Its number, from 1.
    pub step: usize,
    /// The action as the current model describes it.
    pub text: String,
    /// The digest of the state it leads to now.
    pub digest: String,
    /// Whether that is the recorded digest.
    pub matches: bool,
    /// Properties this step's state violates that the previous state did not.
    pub new_violations: Vec<(String, String)>,
}

/// The first state whose digest differs from the recorded one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The step (0 for the initial state).
    pub step: usize,
    /// The parts whose digests differ (`P0`, `network`, ...), or parts that exist on one
    /// side only.
    pub parts: Vec<String>,
    /// What the step does now to each differing part, one line.
    pub detail: String,
}

/// How the replay ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The recorded outcome showed again (the first step where it did).
    Reproduced {
        /// The step.
        step: usize,
        /// The property's message now (empty for a witness).
        message: String,
    },
    /// Every action ran; the outcome did not show.
    NotReproduced,
    /// Every action ran; a heal-phase verdict did not show, for this reason.
    NotReproducedBecause(String),
    /// An action was not enabled: the model cannot run this trace any more.
    Blocked {
        /// The step.
        step: usize,
        /// The one-line report.
        problem: String,
    },
}

/// A finished replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// The steps that ran.
    pub steps: Vec<ReplayedStep>,
    /// The first state that is not the recorded one, if any.
    pub divergence: Option<Divergence>,
    /// How it ended.
    pub verdict: Verdict,
}

/// Replays `trace` on the current model.
pub fn replay(trace: &Trace) -> Result<Replay, String> {
    // A heal-phase verdict has no row in the table: it is judged once every step ran.
    let heal = crate::heal::is_heal(&trace.outcome);
    let def = definition(trace, heal)?;
    let sys = System::new(trace.design.clone(), trace.scenario.clone());
    let shows =
        |state: &SystemState| def.and_then(|d| judge::shows(d, &trace.outcome, &sys, state));
    let mut states = Vec::new();
    let mut state = sys.init_state();
    let snapshot = |s: &SystemState| {
        Snapshot::of(&sys, s).map_err(|e| format!("a state has no canonical form: {e}"))
    };
    let mut before = snapshot(&state)?;
    let mut divergence = compare(0, &trace.initial, None, &before, None);
    let mut reproduced = shows(&state).map(|m| (0, m));
    if heal {
        states.push(state.clone());
    }
    let mut violated = Vec::new();
    first_violations(&sys, &state, &mut violated);
    let mut steps = Vec::with_capacity(trace.steps.len());
    let mut recorded_before = trace.initial.clone();
    for step in &trace.steps {
        if !sys.is_enabled(&state, &step.action) {
            return Ok(Replay {
                steps,
                divergence,
                verdict: Verdict::Blocked {
                    step: step.step,
                    problem: crate::walk::not_enabled(&sys, step.step, &step.action),
                },
            });
        }
        state = sys.step(&state, &step.action);
        if heal {
            states.push(state.clone());
        }
        let after = snapshot(&state)?;
        let recorded = step.after();
        let now = after.digest();
        divergence = divergence.or_else(|| {
            let was = (Some(&recorded_before), Some(&before));
            compare(step.step, &recorded, was.0, &after, was.1)
        });
        let new_violations = first_violations(&sys, &state, &mut violated);
        if reproduced.is_none() {
            reproduced = shows(&state).map(|m| (step.step, m));
        }
        steps.push(ReplayedStep {
            step: step.step,
            text: sys.describe(&step.action),
            matches: now.digest == recorded.digest,
            digest: now.digest,
            new_violations,
        });
        before = after;
        recorded_before = recorded;
    }
    let verdict = match reproduced {
        Some((step, message)) => Verdict::Reproduced { step, message },
        None if heal => heal_verdict(&sys, trace, &states),
        None => Verdict::NotReproduced,
    };
    Ok(Replay {
        steps,
        divergence,
        verdict,
    })
}

/// The table's row for the trace's outcome; none for a heal-phase verdict.
fn definition(trace: &Trace, heal: bool) -> Result<Option<&'static PropertyDef>, String> {
    match judge::definition(&trace.outcome) {
        Some(def) => Ok(Some(def)),
        None if heal => Ok(None),
        None => Err(format!("unknown property '{}'", trace.outcome.property())),
    }
}

/// The violations `state` shows that no earlier state of the replay showed, each with its
/// message; `violated` gains their properties.
fn first_violations(
    sys: &System,
    state: &SystemState,
    violated: &mut Vec<String>,
) -> Vec<(String, String)> {
    let mut first = Vec::new();
    for (property, message) in judge::violations(sys, state) {
        if !violated.iter().any(|p| p == property) {
            violated.push(property.to_string());
            first.push((property.to_string(), message));
        }
    }
    first
}

/// A heal-phase verdict, judged once every step ran, on the replay's `states`.
fn heal_verdict(sys: &System, trace: &Trace, states: &[SystemState]) -> Verdict {
    match crate::heal::confirm(sys, trace, states) {
        Ok(message) => Verdict::Reproduced {
            step: trace.steps.len(),
            message,
        },
        Err(why) => Verdict::NotReproducedBecause(why),
    }
}

/// The divergence at `step`, if the state differs from the recorded one. Both previous
/// states are known to match (this is the first divergence), so what the step does now to
/// a differing part is what differs from what it did when recorded.
fn compare(
    step: usize,
    recorded: &StateDigest,
    recorded_before: Option<&StateDigest>,
    now: &Snapshot,
    now_before: Option<&Snapshot>,
) -> Option<Divergence> {
    let digests = now.digest();
    if digests.digest == recorded.digest {
        return None;
    }
    let mut names: Vec<&String> = digests.parts.keys().chain(recorded.parts.keys()).collect();
    names.sort();
    names.dedup();
    let parts: Vec<String> = names
        .into_iter()
        .filter(|n| digests.parts.get(*n) != recorded.parts.get(*n))
        .cloned()
        .collect();
    let mut details = Vec::new();
    for name in &parts {
        let line = match (now.part(name), now_before.and_then(|b| b.part(name))) {
            (None, _) => format!("{name} was recorded but the current model has no such part"),
            (Some(_), None) if now_before.is_none() => {
                format!("{name} starts differently from the recorded initial state")
            }
            (Some(_), None) => format!("{name} is new in the current model"),
            (Some(after), Some(before)) => {
                let recorded_changed = recorded_before
                    .map(|rb| rb.parts.get(name) != recorded.parts.get(name))
                    .unwrap_or(true);
                let (found, total) = diff::changes(before, after, DIFF_LIMIT);
                if found.is_empty() {
                    format!(
                        "{name}: the step now leaves it unchanged; the recorded step changed it"
                    )
                } else {
                    let list: Vec<String> = found.iter().map(|c| c.describe(40)).collect();
                    let more = if total > found.len() {
                        format!(" (+{} more)", total - found.len())
                    } else {
                        String::new()
                    };
                    let was = if recorded_changed {
                        "differently from the recorded step"
                    } else {
                        "where the recorded step left it unchanged"
                    };
                    format!(
                        "{name}: the step now changes {}{more}, {was}",
                        list.join(", ")
                    )
                }
            }
        };
        details.push(line);
    }
    if parts.is_empty() {
        details.push("the part digests agree but the whole differs (a part was renamed?)".into());
    }
    Some(Divergence {
        step,
        parts,
        detail: details.join("; "),
    })
}

impl Replay {
    /// The replay as lines for humans: each step, then the divergence and the verdict.
    pub fn render(&self, trace: &Trace) -> String {
        let mut out = String::new();
        for s in &self.steps {
            let mark = if s.matches { "ok  " } else { "DIFF" };
            out.push_str(&format!(
                "{:>5}  {mark}  {}  {}\n",
                s.step, s.digest, s.text
            ));
            for (p, m) in &s.new_violations {
                out.push_str(&format!("{:>5}  {p} violated: {m}\n", ""));
            }
        }
        if let Some(d) = &self.divergence {
            out.push_str(&format!(
                "diverged at step {}: {} differ: {}\n",
                d.step,
                d.parts.join(", "),
                d.detail
            ));
        }
        let n = trace.steps.len();
        out.push_str(&match &self.verdict {
            Verdict::Reproduced { step, message } => match &trace.outcome {
                Outcome::Violation { property, .. } => {
                    format!("reproduced at step {step} of {n}: {property} violated: {message}\n")
                }
                Outcome::Witness { property } => {
                    format!("reproduced at step {step} of {n}: {property} witnessed\n")
                }
            },
            Verdict::NotReproduced => format!(
                "not reproduced: all {n} steps ran and {} no longer shows\n",
                trace.outcome.property()
            ),
            Verdict::NotReproducedBecause(why) => format!(
                "not reproduced: all {n} steps ran and {} no longer shows: {why}\n",
                trace.outcome.property()
            ),
            Verdict::Blocked { problem, .. } => format!("cannot replay: {problem}\n"),
        });
        out
    }
}
