//! `external_agreement`: in the seed's 4.5 custom two-phase commit, the external
//! participant and Kafka decide the same outcome for the same transaction: the transaction
//! coordinator commits the transaction the writer handed over (its first decision after
//! the hand-off; an attempt the writer aborted and retried before is not it) iff the
//! database commits its leg.
//!
//! Twin `external_commit`: both committed.

use crate::view::View;

/// The violation, if any.
pub fn check(view: &View) -> Option<String> {
    let state = view.state;
    let g = &state.ghost.resume;
    match (g.kafka, g.external) {
        (Some(kafka), Some(external)) if kafka != external => Some(format!(
            "the transaction coordinator {} the writer's transaction but the external participant {} it",
            verb(kafka),
            verb(external)
        )),
        _ => None,
    }
}

/// Twin: Kafka and the external participant both committed.
pub fn witness(view: &View) -> bool {
    let state = view.state;
    let g = &state.ghost.resume;
    g.kafka == Some(true) && g.external == Some(true)
}

fn verb(commit: bool) -> &'static str {
    if commit {
        "committed"
    } else {
        "aborted"
    }
}
