//! The Mermaid rendering: a `sequenceDiagram` with one participant per actor, in topology
//! order. Deliveries are arrows; everything that is not a message reaching its recipient
//! (a loss, a duplicate, a timer, a crash, a restart, a client's choice) is a note over
//! the actors it concerns, and the outcome is the last note, across every participant.

use super::label::{columns, legend};
use super::{Judgement, Walked};
use crate::format::Trace;

/// The Mermaid rendering of a trace, its outcome note as the file records it.
pub fn render(trace: &Trace) -> Result<String, String> {
    render_judged(trace, &Judgement::of_file(trace))
}

/// The Mermaid rendering of a trace with `judged.outcome` as its last note: the verdict
/// judged now by a replay (`sharetxn render` passes it), so a file's edited outcome text
/// is never shown as if it were the model's. A note marks the point of no return.
pub fn render_judged(trace: &Trace, judged: &Judgement) -> Result<String, String> {
    let outcome = &judged.outcome;
    let walked = Walked::new(trace)?;
    let names = walked.actor_names();
    let mut out = String::from("sequenceDiagram\n");
    for (name, what) in legend(&walked.sys.topology) {
        out.push_str(&format!("    participant {name} as {name} ({what})\n"));
    }
    let span = match (names.first(), names.last()) {
        (Some(first), Some(last)) if first != last => format!("{first},{last}"),
        (Some(only), _) => only.clone(),
        _ => return Err("a trace without actors cannot be drawn".into()),
    };
    let heal_note = trace.heal.as_ref().map(|h| {
        (
            h.after_step,
            format!(
                "    Note over {span}: heal begins ({})\n",
                escape(&super::text::heal_line(h))
            ),
        )
    });
    let no_return = judged
        .inevitable_note(trace.outcome.property())
        .map(|(after, note)| (after, format!("    Note over {span}: {}\n", escape(&note))));
    for (i, step) in trace.steps.iter().enumerate() {
        if let Some((_, note)) = heal_note.as_ref().filter(|(after, _)| *after == i) {
            out.push_str(note);
        }
        if let Some((_, note)) = no_return.as_ref().filter(|(after, _)| *after == i) {
            out.push_str(note);
        }
        let c = columns(&walked.sys.topology, &step.action);
        let n = step.step;
        let label = escape(&c.label);
        let line = match c.kind {
            "deliver" => format!("{}->>{}: {n}. {label}", c.from, c.to),
            "drop" | "duplicate" => {
                format!("Note over {},{}: {n}. {} {label}", c.from, c.to, c.kind)
            }
            "crash" | "restart" => format!("Note over {}: {n}. {}", c.from, c.kind),
            kind => format!("Note over {}: {n}. {kind} {label}", c.from),
        };
        out.push_str(&format!("    {line}\n"));
    }
    if let Some((_, note)) = heal_note
        .as_ref()
        .filter(|(after, _)| *after == trace.steps.len())
    {
        out.push_str(note);
    }
    if let Some((_, note)) = no_return.filter(|(after, _)| *after == trace.steps.len()) {
        out.push_str(&note);
    }
    out.push_str(&format!("    Note over {span}: {}\n", escape(outcome)));
    Ok(out)
}

/// Text made safe for a Mermaid message or note: `#` starts an entity and `;` ends a
/// statement, so both are written as entities.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '#' => out.push_str("#35;"),
            ';' => out.push_str("#59;"),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_are_escaped_once() {
        assert_eq!(escape("a;b#c"), "a#59;b#35;c");
    }
}
