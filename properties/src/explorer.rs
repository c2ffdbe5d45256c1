//! Stateright's web Explorer over the same `System`, with the property table attached so
//! the Explorer shows each property's status along the path being browsed.
//!
//! The Explorer must tell the same story as [`crate::check`]: it attaches exactly the
//! properties `check` judges on the loaded scenario and design (each row's `applies`, and
//! a twin only where `twin_excluded` does not rule it out), under the names `check`
//! reports. What is left out, and which scenario, design and settings are loaded, is
//! written in a header drawn above every step (stateright shows a model's
//! [`Model::as_svg`] there), since the page has no other place for it.
//!
//! Liveness rows are attached as stateright `always` properties: their `check` functions
//! judge only quiescent states themselves (see the crate docs), which is what
//! [`crate::check`] does too, whereas stateright's own `eventually` means something else
//! (a condition met on every path).

use crate::{Kind, PropertyDef, View, PROPERTIES};
use sharetxn_model::{world::settings, Action, System, SystemState};
use stateright::{Model, Path, Property};

/// `System` with the property table, as a `stateright::Model`.
pub struct Checked(pub System);

/// A stateright condition: a plain function pointer, as `Property` requires.
type Condition = fn(&Checked, &SystemState) -> bool;

/// One pair of conditions per row of [`PROPERTIES`] (the property holds, the twin is
/// witnessed), in the table's order. Stateright takes function pointers, not closures
/// over an index, so each row gets its own pair.
macro_rules! conditions {
    ($($i:literal),*) => {
        const CONDITIONS: &[(Condition, Condition)] = &[$((
            |m: &Checked, s: &SystemState| (PROPERTIES[$i].check)(&View::new(&m.0, s)).is_none(),
            |m: &Checked, s: &SystemState| (PROPERTIES[$i].witness)(&View::new(&m.0, s)),
        )),*];
    };
}

conditions!(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21);

// A property added to the table without a pair of conditions here would be missing from
// the Explorer: refuse to build instead.
const _: () = assert!(CONDITIONS.len() == PROPERTIES.len());

/// Why a row (or its twin) is left out of the Explorer, if it is.
enum Left {
    /// The property and its twin do not apply to the scenario and design.
    NotApplicable,
    /// The property applies; the scenario's bounds exclude its twin, for this reason.
    TwinExcluded(&'static str),
}

impl Checked {
    fn left_out(&self, p: &PropertyDef) -> Option<Left> {
        if !(p.applies)(&self.0) {
            Some(Left::NotApplicable)
        } else {
            (p.twin_excluded)(&self.0).map(Left::TwinExcluded)
        }
    }

    /// The properties attached, as `check` judges them: each applicable property under its
    /// own name, and its twin unless the scenario's bounds exclude it.
    pub fn attached(&self) -> Vec<Property<Checked>> {
        let mut out = Vec::new();
        for (p, (holds, witnessed)) in PROPERTIES.iter().zip(CONDITIONS) {
            match self.left_out(p) {
                Some(Left::NotApplicable) => continue,
                Some(Left::TwinExcluded(_)) => out.push(Property::always(p.name, *holds)),
                None => {
                    out.push(Property::always(p.name, *holds));
                    out.push(Property::sometimes(p.twin, *witnessed));
                }
            }
        }
        out
    }

    /// The header's lines: the scenario, design and settings loaded, how liveness is
    /// judged, and what is not attached and why.
    pub fn header(&self) -> Vec<String> {
        let sys = &self.0;
        let mut lines = vec![format!(
            "scenario {}, design {}",
            sys.scenario.name, sys.design.name
        )];
        let settings = settings::as_json(&sys.design, &sys.scenario);
        let pairs: Vec<String> = settings
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| format!("{k}={}", v.to_string().trim_matches('"')))
            .collect();
        lines.extend(wrap("settings: ", &pairs, 100));
        let liveness: Vec<String> = PROPERTIES
            .iter()
            .filter(|p| p.kind == Kind::Eventually && (p.applies)(sys))
            .map(|p| p.name.to_string())
            .collect();
        if !liveness.is_empty() {
            lines.extend(wrap("judged at quiescence only: ", &liveness, 100));
        }
        let mut not_applicable = Vec::new();
        for p in PROPERTIES {
            match self.left_out(p) {
                Some(Left::NotApplicable) => {
                    not_applicable.push(format!("{} (twin {})", p.name, p.twin))
                }
                Some(Left::TwinExcluded(why)) => {
                    lines.push(format!("twin {} not applicable: {why}", p.twin))
                }
                None => {}
            }
        }
        if !not_applicable.is_empty() {
            lines.extend(wrap(
                "not applicable here (not attached): ",
                &not_applicable,
                100,
            ));
        }
        lines
    }
}

/// `items` joined with ", " after `lead`, in lines of about `width` characters.
fn wrap(lead: &str, items: &[String], width: usize) -> Vec<String> {
    let mut lines = vec![lead.to_string()];
    for (i, item) in items.iter().enumerate() {
        let last = lines.last_mut().expect("at least the lead");
        let piece = if i + 1 < items.len() {
            format!("{item}, ")
        } else {
            item.clone()
        };
        if last.len() + piece.len() > width && last.len() > lead.len() {
            lines.push(format!("  {piece}"));
        } else {
            last.push_str(&piece);
        }
    }
    lines
}

/// Text made safe inside an SVG element.
fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The header as an SVG of one text line per header line.
fn header_svg(lines: &[String]) -> String {
    const LINE: usize = 16;
    let width = 8 * lines.iter().map(String::len).max().unwrap_or(0) + 20;
    let height = LINE * lines.len() + 10;
    let mut svg = format!(
        "<svg version='1.1' baseProfile='full' width='{width}' height='{height}' \
         viewBox='0 0 {width} {height}' xmlns='http://www.w3.org/2000/svg'>"
    );
    for (i, line) in lines.iter().enumerate() {
        svg.push_str(&format!(
            "<text x='10' y='{}' font-family='monospace' font-size='13'>{}</text>",
            LINE * (i + 1),
            xml_escape(line)
        ));
    }
    svg.push_str("</svg>");
    svg
}

impl Model for Checked {
    type State = SystemState;
    type Action = Action;

    fn init_states(&self) -> Vec<SystemState> {
        self.0.init_states()
    }

    fn actions(&self, state: &SystemState, actions: &mut Vec<Action>) {
        self.0.actions(state, actions)
    }

    fn next_state(&self, state: &SystemState, action: Action) -> Option<SystemState> {
        self.0.next_state(state, action)
    }

    fn format_action(&self, action: &Action) -> String {
        self.0.describe(action)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        self.attached()
    }

    fn as_svg(&self, _path: Path<SystemState, Action>) -> Option<String> {
        Some(header_svg(&self.header()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_between_items() {
        let items: Vec<String> = ["aaaa", "bbbb", "cccc"].map(String::from).into();
        assert_eq!(wrap("x: ", &items, 10), ["x: aaaa, ", "  bbbb, ", "  cccc"]);
        assert_eq!(wrap("x: ", &items, 100), ["x: aaaa, bbbb, cccc"]);
    }

    #[test]
    fn header_text_is_escaped() {
        let svg = header_svg(&["a<b & c>d".to_string()]);
        assert!(svg.contains("a&lt;b &amp; c&gt;d"), "{svg}");
    }
}
