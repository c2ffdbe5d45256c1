//! `delivery_limit`: no record is delivered more often than
//! `group.share.delivery.count.limit` allows, counted as the share-partition leader can
//! count. KIP-932 says the delivery count "cannot be relied upon to be precise": a new
//! leader starts from the persisted count, and acquisitions are not persisted (nor is a
//! count whose state write was lost), so the deliveries the persisted count misses at a
//! failover are forgiven (`ShareGhost::forgotten`). So are, on `spl-move`, the acquisitions
//! of a replaced leader after the moved-in leader read the state: its writes are fenced,
//! so the count that goes on never learns of them. What the property still catches is a
//! leader that delivers past the limit it knows of.
//!
//! Twin `limit_archived`: a record reached the limit and was archived.

use crate::view::View;

/// The violation, if any.
pub fn check(view: &View) -> Option<String> {
    let (sys, state) = (view.sys, view.state);
    let share = &state.ghost.share;
    let limit = u16::from(sys.scenario.delivery_limit);
    share.deliveries.iter().find_map(|(offset, n)| {
        let forgotten = share.forgotten.get(offset).copied().unwrap_or(0);
        (u16::from(*n) > limit + u16::from(forgotten)).then(|| {
            format!(
                "offset {offset} was delivered {n} times; the limit is {limit} and the leader's persisted count missed {forgotten} of them"
            )
        })
    })
}

/// Twin: a record was archived at the delivery count limit.
pub fn witness(view: &View) -> bool {
    let state = view.state;
    state.ghost.share.limit_archived
}
