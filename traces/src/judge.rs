//! Judging states the way the exhaustive checker does: every property of the table on
//! every state. Eventually-properties judge quiescence themselves (their check returns
//! nothing in a state where progress is still possible), so one rule fits all kinds.

use crate::format::Outcome;
use sharetxn_model::{System, SystemState};
use sharetxn_properties::{Kind, PropertyDef, View, PROPERTIES};

/// The table row behind an outcome: the property of a violation, or the property whose
/// twin a witness names.
pub fn definition(outcome: &Outcome) -> Option<&'static PropertyDef> {
    match outcome {
        Outcome::Violation { property, .. } => PROPERTIES.iter().find(|p| p.name == property),
        Outcome::Witness { property } => PROPERTIES.iter().find(|p| p.twin == property),
    }
}

/// Why an outcome names nothing this build knows, if it does not.
pub fn unknown(outcome: &Outcome) -> Option<String> {
    if let Outcome::Violation { property, kind, .. } = outcome {
        if property == crate::heal::HEAL_DEADLINE {
            return (*kind != Kind::Eventually).then(|| {
                format!(
                    "'{property}' is a liveness verdict (eventually), not {}",
                    kind_name(*kind)
                )
            });
        }
    }
    let Some(def) = definition(outcome) else {
        let mut known: Vec<&str> = PROPERTIES.iter().flat_map(|p| [p.name, p.twin]).collect();
        known.push(crate::heal::HEAL_DEADLINE);
        return Some(format!(
            "unknown property '{}' (known: {})",
            outcome.property(),
            known.join(", ")
        ));
    };
    match outcome {
        Outcome::Violation { kind, .. } if *kind != def.kind => Some(format!(
            "property '{}' is {}, not {}",
            def.name,
            kind_name(def.kind),
            kind_name(*kind)
        )),
        _ => None,
    }
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Always => "always",
        Kind::Eventually => "eventually",
        Kind::Sometimes => "sometimes",
    }
}

/// Whether `state` shows the outcome's property again: the violation's message, or an
/// empty message for a witness.
pub fn shows(
    def: &PropertyDef,
    outcome: &Outcome,
    sys: &System,
    state: &SystemState,
) -> Option<String> {
    match outcome {
        Outcome::Violation { .. } => (def.check)(&View::new(sys, state)),
        Outcome::Witness { .. } => (def.witness)(&View::new(sys, state)).then(String::new),
    }
}

/// Every property `state` violates, with its message, in table order.
pub fn violations(sys: &System, state: &SystemState) -> Vec<(&'static str, String)> {
    let view = View::new(sys, state);
    PROPERTIES
        .iter()
        .filter_map(|p| (p.check)(&view).map(|m| (p.name, m)))
        .collect()
}
