//! `no_aborted_read`: a `read_committed` reader never sees a record of a transaction the
//! client aborted (Jepsen's G1a). Records are visible below the last stable offset and
//! only when a COMMIT marker of their producer follows them.
//!
//! Twin `abort_reached`: an aborted attempt left ABORT-marked records in a log.

use crate::view::{View, WriteStatus};

/// The violation, if any.
pub fn check(view: &View) -> Option<String> {
    let state = view.state;
    for (tag, commit) in &state.ghost.decisions {
        if *commit {
            continue;
        }
        for tp in state.ghost.writes.get(tag).into_iter().flatten() {
            if view
                .write_statuses(*tag, *tp)
                .contains(&WriteStatus::Committed)
            {
                return Some(format!(
                    "{tp:?} exposes attempt {tag} to read_committed readers, but the client aborted it"
                ));
            }
        }
    }
    None
}

/// Twin: an aborted attempt's record is in a log behind an ABORT marker.
pub fn witness(view: &View) -> bool {
    let state = view.state;
    state.ghost.decisions.iter().any(|(tag, commit)| {
        !commit
            && state.ghost.writes.get(tag).into_iter().flatten().any(|tp| {
                view.write_statuses(*tag, *tp)
                    .contains(&WriteStatus::Aborted)
            })
    })
}
