//! `marker_match`: a COMMIT or ABORT marker resolves exactly the acknowledgements its own
//! transaction staged: none of another transaction, and it leaves none of its own pending.
//! A marker's own transaction is the one the transaction coordinator decided with that
//! marker's producer id and epoch; its acknowledgements are those staged under the
//! identity the transaction wrote with (the same epoch under TV0/1, one below the marker's
//! under TV2). Under TV0/1 two transactions of one producer share that identity, so no
//! participant, and not this property, can tell their markers apart; `txn_atomicity` and
//! `no_lost_record` report what follows from that.
//!
//! Twin `share_ack_aborted`: an ABORT marker discarded staged acknowledgements.

use crate::view::View;

/// The violation, if any (recorded by the system when the marker was delivered).
pub fn check(view: &View) -> Option<String> {
    let state = view.state;
    state.ghost.share.txn_acks.marker_mismatch.clone()
}

/// Twin: an ABORT marker discarded staged acknowledgements.
pub fn witness(view: &View) -> bool {
    let state = view.state;
    state.ghost.share.txn_acks.abort_discarded
}
