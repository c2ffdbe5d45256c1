//! The SVG rendering: the same sequence diagram as [`super::mermaid`] (one lifeline per
//! actor in topology order, deliveries as arrows, every other step and the outcome as
//! notes), drawn by the tool itself so that a report page shows it with no script and no
//! network. Each message is a `g.message` and each note a `g.note`; the root `svg`
//! carries their counts (`data-participants`, `data-messages`, `data-notes`) so that a
//! browser check can compare what it draws with what the trace holds.

use super::label::{columns, legend};
use super::{Judgement, Walked};
use crate::format::Trace;

/// Pixels a character of the 12 px monospace font takes, rounded up.
const CHAR_WIDTH: usize = 8;
/// The narrowest and widest distance between two lifelines.
const COLUMN_MIN: usize = 130;
const COLUMN_MAX: usize = 340;
/// The height of one step's row, and of a participant's box.
const ROW: usize = 30;
const BOX: usize = 40;
const MARGIN: usize = 16;

/// One row of the diagram.
enum Item {
    /// A message from one lifeline to another.
    Arrow {
        from: usize,
        to: usize,
        text: String,
    },
    /// A note over the lifelines `first..=last`.
    Note {
        first: usize,
        last: usize,
        text: String,
    },
}

/// The SVG rendering of a trace with `judged.outcome` as its last note (the verdict judged
/// now by a replay, as [`super::mermaid::render_judged`] takes it) and a note at the point
/// of no return. `id` names the diagram's arrowhead, unique on a page of several diagrams.
pub fn render_judged(trace: &Trace, judged: &Judgement, id: &str) -> Result<String, String> {
    let walked = Walked::new(trace)?;
    let names = walked.actor_names();
    if names.is_empty() {
        return Err("a trace without actors cannot be drawn".into());
    }
    let items = items(trace, &walked, &names, judged);
    let column = column_width(&items);
    let layout = Layout {
        head: format!("head-{id}"),
        column,
        lifelines: names.len(),
        rows: items.len(),
    };
    let mut body = String::new();
    let roles = legend(&walked.sys.topology);
    for (i, (name, role)) in roles.iter().enumerate() {
        body.push_str(&layout.participant(i, name, role, MARGIN));
        body.push_str(&layout.participant(i, name, role, layout.bottom_box()));
        let x = layout.x(i);
        body.push_str(&format!(
            "<line class=\"lifeline\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/>\n",
            MARGIN + BOX,
            layout.bottom_box()
        ));
    }
    let (mut messages, mut notes) = (0, 0);
    for (row, item) in items.iter().enumerate() {
        let y = MARGIN + BOX + ROW * row + ROW / 2 + 6;
        match item {
            Item::Arrow { from, to, text } => {
                messages += 1;
                body.push_str(&layout.arrow(*from, *to, y, text));
            }
            Item::Note { first, last, text } => {
                notes += 1;
                body.push_str(&layout.note(*first, *last, y, text));
            }
        }
    }
    Ok(format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"sequence\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" data-participants=\"{}\" data-messages=\"{messages}\" \
         data-notes=\"{notes}\" font-family=\"monospace\" font-size=\"12\">\n{}{STYLE}{body}</svg>\n",
        names.len(),
        defs(&layout.head),
        w = layout.width(),
        h = layout.height(),
    ))
}

/// The arrowhead, once per diagram (each diagram stands alone).
fn defs(id: &str) -> String {
    format!(
        "<defs><marker id=\"{id}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"8\" \
         markerHeight=\"8\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" \
         fill=\"#333\"/></marker></defs>\n"
    )
}

/// The styles (the same in every diagram, so several on one page agree).
const STYLE: &str = "<style>.lifeline{stroke:#999;stroke-dasharray:4 3}\
.actor rect{fill:#eaeaf7;stroke:#667}.message line,.message path{stroke:#333;fill:none}\
.note rect{fill:#fff5ad;stroke:#aa3}.outcome rect{fill:#fde0e0;stroke:#a33}</style>\n";

/// Every row: the steps in order, the heal point where it falls, and the outcome last.
fn items(trace: &Trace, walked: &Walked<'_>, names: &[String], judged: &Judgement) -> Vec<Item> {
    let index = |name: &str| names.iter().position(|n| n == name).unwrap_or(0);
    let everyone = |text: String| Item::Note {
        first: 0,
        last: names.len() - 1,
        text,
    };
    let heal = trace.heal.as_ref().map(|h| {
        (
            h.after_step,
            format!("heal begins ({})", super::text::heal_line(h)),
        )
    });
    let no_return = judged.inevitable_note(trace.outcome.property());
    let mut items = Vec::with_capacity(trace.steps.len() + 3);
    for (i, step) in trace.steps.iter().enumerate() {
        if let Some((_, text)) = heal.as_ref().filter(|(after, _)| *after == i) {
            items.push(everyone(text.clone()));
        }
        if let Some((_, text)) = no_return.as_ref().filter(|(after, _)| *after == i) {
            items.push(everyone(text.clone()));
        }
        let c = columns(&walked.sys.topology, &step.action);
        let (from, n) = (index(&c.from), step.step);
        items.push(match c.kind {
            "deliver" => Item::Arrow {
                from,
                to: index(&c.to),
                text: format!("{n}. {}", c.label),
            },
            "drop" | "duplicate" => {
                let to = index(&c.to);
                Item::Note {
                    first: from.min(to),
                    last: from.max(to),
                    text: format!("{n}. {} {}", c.kind, c.label),
                }
            }
            "crash" | "restart" => Item::Note {
                first: from,
                last: from,
                text: format!("{n}. {}", c.kind),
            },
            kind => Item::Note {
                first: from,
                last: from,
                text: format!("{n}. {kind} {}", c.label),
            },
        });
    }
    if let Some((_, text)) = heal.filter(|(after, _)| *after == trace.steps.len()) {
        items.push(everyone(text));
    }
    if let Some((_, text)) = no_return.filter(|(after, _)| *after == trace.steps.len()) {
        items.push(everyone(text));
    }
    items.push(everyone(format!("outcome: {}", judged.outcome)));
    items
}

/// The distance between lifelines: wide enough for the longest arrow label over the
/// lifelines it spans, within bounds (a longer label runs past its arrow's ends).
fn column_width(items: &[Item]) -> usize {
    let widest = items
        .iter()
        .filter_map(|item| match item {
            Item::Arrow { from, to, text } => {
                let span = from.abs_diff(*to).max(1);
                Some((text.chars().count() * CHAR_WIDTH + 24) / span)
            }
            Item::Note { .. } => None,
        })
        .max()
        .unwrap_or(0);
    widest.clamp(COLUMN_MIN, COLUMN_MAX)
}

/// Where things go.
struct Layout {
    /// The arrowhead marker's id.
    head: String,
    column: usize,
    lifelines: usize,
    rows: usize,
}

impl Layout {
    /// The x of lifeline `i`.
    fn x(&self, i: usize) -> usize {
        MARGIN + self.column / 2 + i * self.column
    }

    fn width(&self) -> usize {
        2 * MARGIN + self.lifelines * self.column
    }

    /// The top of the bottom row of participant boxes.
    fn bottom_box(&self) -> usize {
        MARGIN + BOX + self.rows * ROW + ROW / 2
    }

    fn height(&self) -> usize {
        self.bottom_box() + BOX + MARGIN
    }

    fn participant(&self, i: usize, name: &str, role: &str, top: usize) -> String {
        let w = self.column - 12;
        let x = self.x(i) - w / 2;
        format!(
            "<g class=\"actor\"><title>{}: {}</title><rect x=\"{x}\" y=\"{top}\" width=\"{w}\" \
             height=\"{BOX}\" rx=\"3\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" \
             font-weight=\"bold\">{name}</text><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" \
             font-size=\"9\">{}</text></g>\n",
            escape(name),
            escape(role),
            self.x(i),
            top + 16,
            self.x(i),
            top + 31,
            escape(&clip(role, w / 6))
        )
    }

    fn arrow(&self, from: usize, to: usize, y: usize, text: &str) -> String {
        let (x1, x2) = (self.x(from), self.x(to));
        let text_x = if from == to { x1 + 40 } else { (x1 + x2) / 2 };
        let line = if from == to {
            // A message to itself: a loop out to the right and back.
            format!(
                "<path d=\"M{x1},{} h30 v12 h-28\" marker-end=\"url(#{})\"/>",
                y - 6,
                self.head
            )
        } else {
            // Stop short of the lifeline so the arrowhead touches it.
            let end = if x2 > x1 { x2 - 2 } else { x2 + 2 };
            format!(
                "<line x1=\"{x1}\" y1=\"{y}\" x2=\"{end}\" y2=\"{y}\" marker-end=\"url(#{})\"/>",
                self.head
            )
        };
        format!(
            "<g class=\"message\">{line}<text x=\"{text_x}\" y=\"{}\" text-anchor=\"middle\">{}</text></g>\n",
            y - 5,
            escape(text)
        )
    }

    fn note(&self, first: usize, last: usize, y: usize, text: &str) -> String {
        let class = if text.starts_with("outcome: ") {
            "note outcome"
        } else {
            "note"
        };
        let centre = (self.x(first) + self.x(last)) / 2;
        let span = self.x(last) - self.x(first) + self.column * 9 / 10;
        let w = span.max(text.chars().count() * CHAR_WIDTH + 16);
        let x = centre.saturating_sub(w / 2);
        format!(
            "<g class=\"{class}\"><rect x=\"{x}\" y=\"{}\" width=\"{w}\" height=\"{}\"/><text x=\"{centre}\" \
             y=\"{}\" text-anchor=\"middle\">{}</text></g>\n",
            y - 17,
            ROW - 6,
            y,
            escape(text)
        )
    }
}

/// At most `n` characters of `text`, with an ellipsis when cut.
fn clip(text: &str, n: usize) -> String {
    if text.chars().count() <= n {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(n.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Text made safe inside an SVG or HTML element or attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_escaped() {
        assert_eq!(escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
    }

    #[test]
    fn a_long_role_is_clipped() {
        assert_eq!(clip("share coordinator", 6), "share…");
        assert_eq!(clip("TC", 6), "TC");
    }
}
