//! `txn_completes` (liveness): once the run is quiescent, no transaction is left ongoing or
//! half-completed at the coordinator (KAFKA-16352, KAFKA-7519) and every client has either
//! finished its work or failed with a fatal error; none waits forever.
//!
//! Twin `commit_after_fault`: a transaction commits after a message was lost or duplicated
//! or an actor crashed.

use crate::view::View;
use sharetxn_model::coordinator::txn_state::TxnManagerState;

/// The violation, if any (judged only in quiescent states).
pub fn check(view: &View) -> Option<String> {
    let (sys, state) = (view.sys, view.state);
    if !view.is_quiescent() {
        return None;
    }
    if let Some(tc) = state.node(sys.topology.txn_coordinator).txn_coordinator() {
        for (txn, meta) in &tc.txns {
            if meta.state.is_in_flight() {
                return Some(format!("TC leaves {txn} in {:?} forever", meta.state));
            }
        }
    }
    // Every transactional client: producers, and the acknowledgers inside source readers
    // (done there means idle between `commitAcknowledgements` calls).
    for id in sys.topology.txn_clients() {
        if let Some(p) = state.node(id).txn_client() {
            if !p.done && p.tm != TxnManagerState::FatalError {
                return Some(format!(
                    "{} waits forever in {:?}",
                    sys.topology.name(id),
                    p.tm
                ));
            }
        }
    }
    None
}

/// Twin: a commit completed after a fault.
pub fn witness(view: &View) -> bool {
    let state = view.state;
    state.ghost.commit_after_fault
}
