//! The text rendering: a header naming the design, scenario, origin and outcome, then one
//! line a step in fixed columns (step, virtual time, kind, from, to, message, what changed)
//! and the outcome again at the end, where a reader's eye lands.

use super::changes::ActorChanges;
use super::label::{columns, legend, IDENTITIES};
use super::{Judgement, Walked};
use crate::format::{Heal, Origin, Trace};

/// How many changed leaves a line names before it says how many more there are.
const CHANGES_SHOWN: usize = 3;

/// The text rendering of a trace, its outcome as the file records it.
pub fn render(trace: &Trace) -> Result<String, String> {
    render_judged(trace, &Judgement::of_file(trace))
}

/// The text rendering of a trace with `judged.outcome` as its outcome lines: the verdict
/// judged now by a replay (`sharetxn render` passes it), so a file's edited outcome text
/// is never shown as if it were the model's. A line marks the point of no return.
pub fn render_judged(trace: &Trace, judged: &Judgement) -> Result<String, String> {
    let walked = Walked::new(trace)?;
    let outcome = &judged.outcome;
    let no_return = judged
        .inevitable_note(trace.outcome.property())
        .map(|(after, note)| (after, format!("   -  {note}\n")));
    let mut out = String::new();
    out.push_str(&format!("outcome   {outcome}\n"));
    out.push_str(&format!("design    {}\n", trace.design.describe()));
    out.push_str(&format!("scenario  {}\n", scenario_line(trace)));
    out.push_str(&format!("origin    {}\n", origin_line(&trace.origin)));
    let actors: Vec<String> = legend(&walked.sys.topology)
        .into_iter()
        .map(|(name, what)| format!("{name} {what}"))
        .collect();
    out.push_str(&format!("legend    {}; {IDENTITIES}\n", actors.join(", ")));
    if let Some(heal) = &trace.heal {
        out.push_str(&format!("heal      {}\n", heal_line(heal)));
    }
    out.push_str(&format!(
        "{:>4}  {:>9}  {:<9}  {:<4}  {:<4}  {:<34}  {}\n",
        "step", "time", "kind", "from", "to", "message", "changed"
    ));
    let heal_after = trace.heal.as_ref().map(|h| h.after_step);
    for (i, row) in rows(&walked).into_iter().enumerate() {
        if heal_after == Some(i) {
            out.push_str(HEAL_MARK);
        }
        if let Some((_, note)) = no_return.as_ref().filter(|(after, _)| *after == i) {
            out.push_str(note);
        }
        let line = format!(
            "{:>4}  {:>9}  {:<9}  {:<4}  {:<4}  {:<34}  {}",
            row.step, row.time, row.kind, row.from, row.to, row.message, row.changed
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if heal_after == Some(trace.steps.len()) {
        out.push_str(HEAL_MARK);
    }
    if let Some((_, note)) = no_return.filter(|(after, _)| *after == trace.steps.len()) {
        out.push_str(&note);
    }
    out.push_str(&format!(
        "end       {outcome} after {} steps\n",
        trace.steps.len()
    ));
    Ok(out)
}

/// One step as the text rendering's columns show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepRow {
    /// The step's number (from 1).
    pub step: usize,
    /// The virtual time the simulator ran it at, or `-`.
    pub time: String,
    /// `deliver`, `drop`, `duplicate`, `fire`, `crash`, `restart`, `choose`.
    pub kind: &'static str,
    /// The sender, or the actor the step happens at.
    pub from: String,
    /// The recipient, or `-`.
    pub to: String,
    /// The message, timer or choice, labelled with the fields that decide the story.
    pub message: String,
    /// What the step changed in the actors, the budget and the history, cut to a line.
    pub changed: String,
    /// Everything the step changed, actor by actor, in Kafka's terms.
    pub actors: Vec<ActorChanges>,
}

/// Every step of the trace as a row (the trace is run on the current model to see what
/// each step changed).
pub fn step_rows(trace: &Trace) -> Result<Vec<StepRow>, String> {
    Ok(rows(&Walked::new(trace)?))
}

fn rows(walked: &Walked<'_>) -> Vec<StepRow> {
    walked
        .trace
        .steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let c = columns(&walked.sys.topology, &step.action);
            let actors = walked.changes(i);
            StepRow {
                step: step.step,
                time: step
                    .time_ms
                    .map_or_else(|| "-".to_string(), |t| format!("{t}ms")),
                kind: c.kind,
                from: c.from,
                to: c.to,
                message: c.label,
                changed: changes_line(&actors),
                actors,
            }
        })
        .collect()
}

/// The scenario with its bounds in one line.
pub fn scenario_line(trace: &Trace) -> String {
    let s = &trace.scenario;
    let b = &s.budget;
    let crashable: Vec<String> = s.crashable.iter().map(|r| r.name().to_string()).collect();
    format!(
        "{} (inputs={}, txns={}, partitions={}, drops={}, duplicates={}, crashes={}, timeouts={}, crashable={}, request_retries={}, marker_retries={})",
        s.name,
        s.inputs,
        s.txns,
        s.partitions,
        b.drops,
        b.duplicates,
        b.crashes,
        b.timeouts,
        if crashable.is_empty() { "none".to_string() } else { crashable.join(",") },
        s.request_retries,
        s.marker_retries_text()
    )
}

/// The line between the fault phase and the heal phase.
const HEAL_MARK: &str = "   -  heal begins: no fault from here on\n";

/// The heal point in one line: where it began, the deadline, and the time that ended the
/// simulator's run where it recorded one.
pub fn heal_line(heal: &Heal) -> String {
    let mut line = format!("after step {}", heal.after_step);
    if let Some(at) = heal.at_ms {
        line.push_str(&format!(" at {at}ms"));
    }
    line.push_str(&format!(", deadline {}ms", heal.deadline_ms));
    if let Some(due) = heal.next_due_ms {
        line.push_str(&format!(", next action due at {due}ms"));
    }
    line
}

/// The origin in one line.
pub fn origin_line(origin: &Origin) -> String {
    match origin {
        Origin::Check {
            strategy,
            max_depth,
        } => match max_depth {
            Some(d) => format!("check --strategy {strategy} --max-depth {d}"),
            None => format!("check --strategy {strategy}"),
        },
        Origin::Sim { seed, options } => format!("sim seed {seed} {options}"),
        Origin::Swarm {
            search,
            max_states,
            max_depth,
        } => {
            let depth = max_depth.map_or(String::new(), |d| format!(" --max-depth {d}"));
            format!(
                "swarm --searches {search}..{} --max-states {max_states}{depth}",
                search.saturating_add(1)
            )
        }
        Origin::Shrunk {
            from_steps,
            original,
        } => format!("shrunk from {from_steps} steps; {}", origin_line(original)),
    }
}

/// What step `i` (from 0) changed, in Kafka's terms: the first few changes, then how
/// many more there are (the report page shows them all).
fn changes_line(actors: &[ActorChanges]) -> String {
    let all: Vec<&String> = actors.iter().flat_map(|a| &a.changes).collect();
    let shown: Vec<&str> = all.iter().take(CHANGES_SHOWN).map(|c| c.as_str()).collect();
    let mut line = shown.join("; ");
    if all.len() > shown.len() {
        line.push_str(&format!(" (+{} more)", all.len() - shown.len()));
    }
    line
}
