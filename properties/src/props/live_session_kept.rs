//! `live_session_kept`: with KIP-1309 heartbeats, the transaction coordinator aborts a
//! transaction for missing heartbeats only when its session can no longer send them
//! (crashed or failed), never while the session is up and merely busy: KIP-1310 moves the
//! heartbeat into the session so that "liveness detection covers the entire transaction
//! duration -- including task.put() latency". An abort after heartbeats that arrived too
//! late (an early firing of the deadline, a `timeouts` fault) is not a violation: that is
//! a slow session, which the heartbeat timeout is there to cut off.
//!
//! Twin `heartbeat_abort`: the coordinator aborted a transaction whose heartbeats stopped.

use crate::view::View;

/// The violation, if any.
pub fn check(view: &View) -> Option<String> {
    let state = view.state;
    state.ghost.session.live_heartbeat_abort.clone()
}

/// Twin: a transaction was aborted for missing heartbeats.
pub fn witness(view: &View) -> bool {
    let state = view.state;
    state.ghost.session.heartbeat_abort
}
