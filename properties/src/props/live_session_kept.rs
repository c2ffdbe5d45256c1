//! `live_session_kept`: with KIP-1309 heartbeats, the transaction coordinator aborts a
//! transaction for missing heartbeats only when its session can no longer send them
//! (crashed or failed), never while the session is up and merely busy: KIP-1310 moves the
//! heartbeat into the session so that "liveness detection covers the entire transaction
//! duration -- including task.put() latency". An abort after heartbeats that arrived too
//! late (an early firing of the deadline, a `timeouts` fault) is not a violation: that is
//! a slow session, which the heartbeat timeout is there to cut off. That slow session must
//! then learn of the abort: a heartbeat answered PRODUCER_FENCED (or no such producer any
//! more) for its open transaction makes it fail (FATAL_ERROR) in the same step, rather
//! than go on with a transaction the coordinator has aborted.
//!
//! Twin `heartbeat_abort`: the coordinator aborted a transaction whose heartbeats stopped.
//! [`told_fenced`] is the fence clause's own reachability (a session failed on a fenced
//! heartbeat), which the heartbeat scenario's tests witness.

use crate::view::View;

/// The violation, if any.
pub fn check(view: &View) -> Option<String> {
    let session = &view.state.ghost.session;
    session
        .live_heartbeat_abort
        .clone()
        .or_else(|| session.ignored_fence.clone())
}

/// Twin: a transaction was aborted for missing heartbeats.
pub fn witness(view: &View) -> bool {
    let state = view.state;
    state.ghost.session.heartbeat_abort
}

/// Whether a session failed on a heartbeat answer that told it its transaction is fenced.
pub fn told_fenced(view: &View) -> bool {
    view.state.ghost.session.fenced_heartbeat_failed
}
