//! `no_hanging_transaction` (liveness): once the run is quiescent, every partition's last
//! stable offset has reached its high watermark. A transaction open on a partition that no
//! coordinator will ever end pins the LSO forever (KIP-664, KIP-890 part 1).
//!
//! Twin `timeout_abort`: the coordinator aborted a transaction that timed out.

use crate::view::logs;
use sharetxn_model::{System, SystemState};

/// The violation, if any (judged only in quiescent states).
pub fn check(sys: &System, state: &SystemState) -> Option<String> {
    if !sys.is_quiescent(state) {
        return None;
    }
    for (name, _, log) in logs(sys, state) {
        let (lso, hw) = (log.last_stable_offset(), log.high_watermark());
        if lso < hw {
            return Some(format!(
                "{name}'s last stable offset is stuck at {lso} below its high watermark {hw}: a transaction no coordinator will end is open there"
            ));
        }
    }
    None
}

/// Twin: a transaction timed out and was aborted by the coordinator.
pub fn witness(_sys: &System, state: &SystemState) -> bool {
    state.ghost.timeout_abort
}
