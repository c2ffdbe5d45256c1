//! `ack_owner`: an acknowledgement is applied only to the acquisition it was made for
//! (the same member and the same delivery). A consumer that stalled past its lock may still
//! send its acknowledgement after the record was redelivered; the share-partition leader
//! must reject it (INVALID_RECORD_STATE), not apply it to the new holder's acquisition.
//! Each acknowledgement carries a ghost tag of its delivery, which the protocol never reads.
//!
//! Twin `late_ack_rejected`: an acknowledgement was rejected with INVALID_RECORD_STATE.

use sharetxn_model::{System, SystemState};

/// The violation, if any.
pub fn check(_sys: &System, state: &SystemState) -> Option<String> {
    state.ghost.share.misapplied_ack.clone()
}

/// Twin: an acknowledgement was rejected.
pub fn witness(_sys: &System, state: &SystemState) -> bool {
    state.ghost.share.late_ack_rejected
}
