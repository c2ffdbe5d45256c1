//! `at_least_once` (liveness): once the run is quiescent, every record of the share
//! partition is ACKNOWLEDGED or ARCHIVED in the share coordinator's persisted state (or
//! below its start offset). Share groups promise at-least-once delivery: a record may be
//! delivered twice, but none may be dropped without an acknowledgement or an archive.
//!
//! Twin `lock_redelivered`: an acquisition lock expired and the record was delivered to a
//! different member.

use crate::view::share_coordinator_state;
use sharetxn_model::{System, SystemState};

/// The violation, if any (judged only in quiescent states).
pub fn check(sys: &System, state: &SystemState) -> Option<String> {
    if !sys.is_quiescent(state) {
        return None;
    }
    let persisted = share_coordinator_state(sys, state)?;
    (0..sys.scenario.records)
        .find(|o| !persisted.is_terminal(*o))
        .map(|o| {
            format!(
                "at quiescence SC persists offset {o} as {:?}: never acknowledged nor archived",
                persisted.state_of(o)
            )
        })
}

/// Twin: a record whose lock expired went to another member.
pub fn witness(_sys: &System, state: &SystemState) -> bool {
    state.ghost.share.lock_redelivered
}
