//! `cache_agrees`: the share-partition leader's in-memory state and the share
//! coordinator's persisted state do not drift apart. Always: a persisted terminal state
//! (ACKNOWLEDGED, ARCHIVED, or below the start offset) never goes back, whatever order
//! writes arrive in, across share-coordinator restarts. At quiescence: for every offset,
//! both are terminal, or both hold the same state and delivery count.
//!
//! Offset resets (docs/kafka-cases.md S20): the step in which an admin's reset
//! reinitialises the persisted state at a new state epoch is no regression (it forgets the
//! state by its meaning), and at quiescence a leader still holding the state of an older
//! state epoch than the persisted one is not compared: it holds the state the reset
//! discarded, as Kafka's `SharePartition` does until a write of it is fenced with
//! FENCED_STATE_EPOCH (docs/properties.md, "Offset resets").
//!
//! Twin `spl_rebuilt`: the share-partition leader restarted and rebuilt its state from the
//! share coordinator, and that state had a terminal record.

use crate::view::{share_coordinator_state_of, share_partition_state_of, View};
use sharetxn_model::protocol::record_state::RecordState;

/// The violation, if any.
pub fn check(view: &View) -> Option<String> {
    let (sys, state) = (view.sys, view.state);
    if let Some(what) = &state.ghost.share.terminal_regressed {
        return Some(what.clone());
    }
    if !view.is_quiescent() {
        return None;
    }
    for offset in 0..sys.scenario.share_offsets() {
        // Each offset against its own share partition's leader and persisted state.
        let persisted = share_coordinator_state_of(sys, state, offset)?;
        let spl = share_partition_state_of(sys, state, offset)?;
        if !spl.loaded || spl.state_epoch < persisted.state_epoch {
            continue;
        }
        let cached = if offset < spl.start_offset {
            None
        } else {
            spl.records
                .get(&offset)
                .map(|r| (r.state, r.delivery_count))
        };
        let stored = if persisted.is_terminal(offset) && offset < persisted.start_offset {
            None
        } else {
            Some(
                persisted
                    .state_of(offset)
                    .unwrap_or((RecordState::Available, 0)),
            )
        };
        let terminal = |s: &Option<(RecordState, u8)>| s.is_none_or(|(st, _)| st.is_terminal());
        let agree = match (cached, stored) {
            (Some(a), Some(b)) => a == b,
            _ => terminal(&cached) && terminal(&stored),
        };
        if !agree {
            return Some(format!(
                "at quiescence SP{} holds offset {offset} as {cached:?} but SC persists {stored:?}",
                sys.scenario.share_partition_of(offset)
            ));
        }
    }
    None
}

/// Twin: the leader rebuilt a state with a terminal record after a restart.
pub fn witness(view: &View) -> bool {
    let state = view.state;
    state.ghost.share.spl_rebuilt
}
