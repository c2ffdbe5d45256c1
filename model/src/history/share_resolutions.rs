//! The properties' queries over the share coordinator's ghost log of resolutions (how
//! staged acknowledgements left its pending store). They live in the history because they
//! open that log; the share coordinator only appends to it.

use crate::protocol::ghost::Ghost;
use crate::protocol::ids::TxnTag;
use crate::share::share_coordinator::ShareCoordinatorState;
use crate::share::share_coordinator_txn::{Resolution, TxnAckStatus};

fn status(r: &Resolution) -> TxnAckStatus {
    if r.commit {
        TxnAckStatus::Committed
    } else {
        TxnAckStatus::Aborted
    }
}

impl ShareCoordinatorState {
    /// Every status the acknowledgements staged by attempt `tag` have (a late copy of a
    /// staging can be pending again after the first copy was resolved).
    pub fn txn_ack_statuses(&self, tag: Ghost<TxnTag>) -> Vec<TxnAckStatus> {
        let mut out: Vec<TxnAckStatus> = self
            .resolved
            .open()
            .iter()
            .filter(|r| r.acks.tag == tag)
            .map(status)
            .collect();
        if self.pending.values().any(|p| p.tag == tag) {
            out.push(TxnAckStatus::Pending);
        }
        out.sort();
        out.dedup();
        out
    }

    /// Where the acknowledgements staged by attempt `tag` stand: the latest resolution,
    /// else pending, else `None` (never staged).
    pub fn txn_ack_status(&self, tag: Ghost<TxnTag>) -> Option<TxnAckStatus> {
        if self.pending.values().any(|p| p.tag == tag) {
            return Some(TxnAckStatus::Pending);
        }
        self.resolved
            .open()
            .iter()
            .rev()
            .find(|r| r.acks.tag == tag)
            .map(status)
    }

    /// The acknowledgements applied to the committed state, by a marker or by a load (a
    /// COMMIT that `sc_state_epoch_fence` kept from a reset state applied nothing).
    pub fn committed_entries(&self) -> impl Iterator<Item = &Resolution> + '_ {
        self.resolved
            .open()
            .iter()
            .filter(|r| r.commit && !r.fenced)
    }
}
