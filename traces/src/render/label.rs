//! Short labels for actions. Labels come from `Debug` output with the fields stripped
//! rather than from a match over `Msg`, so messages the model adds (the share-group RPCs)
//! get labels without a change here.

use sharetxn_model::error::ErrorCode;
use sharetxn_model::msg::Msg;
use sharetxn_model::topology::Topology;
use sharetxn_model::Action;
use std::fmt::Debug;

/// The variant name of an enum value: its `Debug` text up to the first `(`, `{` or space.
pub fn variant_name(value: &impl Debug) -> String {
    let text = format!("{value:?}");
    let end = text.find(['(', '{', ' ']).unwrap_or(text.len());
    text[..end].to_string()
}

/// A message's RPC name, with the error of a response that failed.
pub fn message(msg: &Msg) -> String {
    let name = variant_name(msg);
    match msg.response_error() {
        Some(error) if error != ErrorCode::None => format!("{name}({})", variant_name(&error)),
        _ => name,
    }
}

/// What a timer or choice is, with its argument when it has one (`RequestTimeout(Produce)`).
pub fn detail(value: &impl Debug) -> String {
    let text = format!("{value:?}");
    // One level of argument is informative; deeper structure is noise in one column.
    match text.split_once('(') {
        Some((name, rest)) => {
            let inner = rest.trim_end_matches(')');
            format!("{name}({})", variant_name(&Raw(inner)))
        }
        None => text,
    }
}

/// A string whose `Debug` is itself, so [`variant_name`] can cut it.
struct Raw<'a>(&'a str);

impl Debug for Raw<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// An action in columns: what kind of step it is, who it goes from and to, and its label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Columns {
    /// `deliver`, `drop`, `duplicate`, `fire`, `crash`, `restart`, `choose`.
    pub kind: &'static str,
    /// The sender, or the actor the step happens at.
    pub from: String,
    /// The recipient, or `-`.
    pub to: String,
    /// The message, timer or choice.
    pub label: String,
}

/// The columns of an action, with actor names from the topology.
pub fn columns(topology: &Topology, action: &Action) -> Columns {
    let n = |id| topology.name(id);
    let (kind, from, to, label) = match action {
        Action::Deliver(e) => ("deliver", n(e.src), n(e.dst), message(&e.msg)),
        Action::Drop(e) => ("drop", n(e.src), n(e.dst), message(&e.msg)),
        Action::Duplicate(e) => ("duplicate", n(e.src), n(e.dst), message(&e.msg)),
        Action::Fire { actor, timer } => ("fire", n(*actor), "-".into(), detail(timer)),
        Action::Crash(id) => ("crash", n(*id), "-".into(), "crash".into()),
        Action::Restart(id) => ("restart", n(*id), "-".into(), "restart".into()),
        Action::Choose { actor, choice } => ("choose", n(*actor), "-".into(), detail(choice)),
    };
    Columns {
        kind,
        from,
        to,
        label,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sharetxn_model::msg::{RequestKey, Timer};

    #[test]
    fn names_come_from_debug() {
        assert_eq!(variant_name(&Some(3)), "Some");
        assert_eq!(variant_name(&ErrorCode::ProducerFenced), "ProducerFenced");
        let timer = Timer::RequestTimeout(RequestKey::Produce(Default::default()));
        assert_eq!(detail(&timer), "RequestTimeout(Produce)");
        assert_eq!(detail(&RequestKey::Coordinator), "Coordinator");
    }
}
