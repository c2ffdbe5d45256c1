//! `leader_fencing`: once a share partition's leadership moved to another broker and the
//! new leader read the state, the share coordinator takes nothing more from the old
//! leader: no staging it forwards (KIP-1289's staging path), no WriteShareGroupState, and
//! no answer to an outcome that would retire it before the new leader heard it. The old
//! leader stays up after the move and learns of it late, so its late messages are what
//! the leader epoch must fence (`ShareCoordinatorShard.maybeGetWriteStateError` fences a
//! write of an older epoch with FENCED_LEADER_EPOCH; `stage_leader_epoch` does the same
//! for a staging).
//!
//! Twin `stale_leader_fenced`: the share coordinator answered a late staging or write of
//! the replaced leader FENCED_LEADER_EPOCH.

use crate::view::View;

/// The violation, if any.
pub fn check(view: &View) -> Option<String> {
    let state = view.state;
    state.ghost.share.stale_leader_accepted.clone()
}

/// Twin: a replaced leader's late staging or write was fenced.
pub fn witness(view: &View) -> bool {
    let state = view.state;
    state.ghost.share.stale_leader_fenced
}
