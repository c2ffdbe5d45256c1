//! `delivery_limit`: no record is delivered more often than
//! `group.share.delivery.count.limit` allows, plus one per share-partition leader
//! failover. KIP-932 says the delivery count "cannot be relied upon to be precise": a new
//! leader starts from the persisted count, which does not include the in-flight delivery
//! (acquisition is not persisted), so each failover may cost one extra delivery.
//!
//! Twin `limit_archived`: a record reached the limit and was archived.

use sharetxn_model::{System, SystemState};

/// The violation, if any.
pub fn check(sys: &System, state: &SystemState) -> Option<String> {
    let share = &state.ghost.share;
    let bound = u16::from(sys.scenario.delivery_limit) + u16::from(share.failovers);
    share
        .deliveries
        .iter()
        .find(|(_, n)| u16::from(**n) > bound)
        .map(|(offset, n)| {
            format!(
                "offset {offset} was delivered {n} times; the limit is {} and SP0 failed over {} times",
                sys.scenario.delivery_limit, share.failovers
            )
        })
}

/// Twin: a record was archived at the delivery count limit.
pub fn witness(_sys: &System, state: &SystemState) -> bool {
    state.ghost.share.limit_archived
}
