//! `txn_atomicity`: a transaction's writes are committed all together or not at all. An
//! attempt with a committed write may have no write that is aborted or lost; every
//! participant resolves it the same way. (KIP-98; the KIP-890 part 2 and Jepsen Bufstream
//! anomalies break it: a late produce or a late EndTxn or marker lands in the next
//! transaction.)
//!
//! Under KIP-1289 the share coordinator's staged acknowledgements are one more write of the
//! attempt (on `__share_group_state`): a transaction's outputs are committed iff its share
//! acks are.
//!
//! Twin `commit_reached`: an attempt committed on every output partition and the offset
//! store (or, under KIP-1289, the share acknowledgements).

use crate::view::{View, WriteStatus};

/// The violation, if any.
pub fn check(view: &View) -> Option<String> {
    let state = view.state;
    for (tag, tps) in &state.ghost.writes {
        // Only the first committed and the first broken write are named, and only when
        // both exist: nothing is formatted on a state that holds (this runs on every state).
        let mut committed = None;
        let mut broken = None;
        for tp in tps {
            let statuses = view.write_statuses(*tag, *tp);
            if statuses.contains(&WriteStatus::Committed) {
                committed.get_or_insert(*tp);
            }
            if broken.is_none() {
                if statuses.contains(&WriteStatus::Aborted) {
                    broken = Some(("aborted", *tp));
                } else if statuses.contains(&WriteStatus::Lost) {
                    broken = Some(("lost", *tp));
                }
            }
        }
        if let (Some(c), Some((how, b))) = (committed, broken) {
            return Some(format!(
                "attempt {tag} committed on {c:?} but {how} on {b:?}"
            ));
        }
    }
    None
}

/// Twin: some attempt committed every one of its writes.
pub fn witness(view: &View) -> bool {
    let (sys, state) = (view.sys, view.state);
    // The output partitions one transaction writes, and the offset or share-ack store.
    let participants = usize::from(sys.scenario.outputs_per_txn()) + 1;
    state.ghost.writes.iter().any(|(tag, tps)| {
        tps.len() == participants
            && tps.iter().all(|tp| {
                view.write_statuses(*tag, *tp)
                    .contains(&WriteStatus::Committed)
            })
    })
}
