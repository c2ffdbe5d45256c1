//! `at_least_once` (liveness): once the run is quiescent, every record of the share
//! partition is ACKNOWLEDGED or ARCHIVED in the share coordinator's persisted state (or
//! below its start offset). Share groups promise at-least-once delivery: a record may be
//! delivered twice, but none may be dropped without an acknowledgement or an archive.
//!
//! KIP-1289's clients run bounded loops (so that checks end), and a loop that ends after
//! aborting leaves its record AVAILABLE, which is no loss: the record is there for the next
//! consumer. So where acknowledgements commit in transactions, a record that both the
//! leader and the persisted state hold AVAILABLE at quiescence is left, not dropped; a
//! record stuck ACQUIRED or TX_PENDING, or AVAILABLE at one and not the other, is not.
//!
//! After an admin's offset reset (docs/kafka-cases.md S20) nothing is judged: a reset to
//! the log end skips records never acknowledged by its meaning, and a reset to offset 0
//! leaves processed records AVAILABLE in the new state that the leader, which learns of the
//! reset only when a write of it is fenced, may never deliver again (docs/findings.md S20,
//! docs/properties.md "Offset resets").
//!
//! Twin `lock_redelivered`: an acquisition lock expired and the record was delivered to a
//! different member.

use crate::view::{share_coordinator_state_of, share_partition_state_of, View};
use sharetxn_model::protocol::record_state::RecordState;
use sharetxn_model::protocol::width::Offset;

/// The violation, if any (judged only in quiescent states).
pub fn check(view: &View) -> Option<String> {
    let (sys, state) = (view.sys, view.state);
    if !view.is_quiescent() || crate::view::share_group_reset(sys, state) {
        return None;
    }
    // Each offset is judged against its own share partition's persisted state.
    let persisted = |o: Offset| share_coordinator_state_of(sys, state, o);
    persisted(0)?;
    let left_available = |o: Offset| {
        sys.scenario.has_share_transactions()
            && matches!(
                persisted(o).and_then(|p| p.state_of(o)),
                None | Some((RecordState::Available, _))
            )
            && share_partition_state_of(sys, state, o).is_some_and(|l| {
                l.loaded
                    && l.records
                        .get(&o)
                        .is_some_and(|r| r.state == RecordState::Available)
            })
    };
    (0..sys.scenario.share_offsets())
        .find(|o| !persisted(*o).is_some_and(|p| p.is_terminal(*o)) && !left_available(*o))
        .map(|o| {
            format!(
                "at quiescence SC persists offset {o} as {:?}: never acknowledged nor archived",
                persisted(o).and_then(|p| p.state_of(o))
            )
        })
}

/// Twin: a record whose lock expired went to another member.
pub fn witness(view: &View) -> bool {
    let state = view.state;
    state.ghost.share.lock_redelivered
}
