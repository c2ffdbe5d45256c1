//! `no_hanging_transaction` (liveness): once the run is quiescent, every partition's last
//! stable offset has reached its high watermark. A transaction open on a partition that no
//! coordinator will ever end pins the LSO forever (KIP-664, KIP-890 part 1).
//!
//! Twin `timeout_abort`: the coordinator aborted a transaction that timed out.

use crate::view::View;

/// The violation, if any (judged only in quiescent states).
pub fn check(view: &View) -> Option<String> {
    if !view.is_quiescent() {
        return None;
    }
    for (id, log) in view.logs() {
        let (lso, hw) = (log.last_stable_offset(), log.high_watermark());
        if lso < hw {
            return Some(format!(
                "{}'s last stable offset is stuck at {lso} below its high watermark {hw}: a transaction no coordinator will end is open there",
                view.name(*id)
            ));
        }
    }
    None
}

/// Twin: a transaction timed out and was aborted by the coordinator.
pub fn witness(view: &View) -> bool {
    let state = view.state;
    state.ghost.timeout_abort
}
