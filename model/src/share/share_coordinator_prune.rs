//! The share coordinator's log lifecycle (docs/kafka-cases.md S11): `ShareCoordinatorShard`
//! writes a fresh `ShareSnapshot` of a key once enough updates accumulated (or a cold
//! partition's interval passed), and in Kafka 4.x (not yet at 1eb7644) every
//! `share.coordinator.state.topic.prune.interval.ms` `ShareCoordinatorService` calls
//! `deleteRecords` up to the shard's `lastRedundantOffset`, the offset of the oldest key's
//! latest snapshot. Nothing in that offset accounts for KIP-1289's staged
//! records, and DeleteRecords is bounded by the high watermark, not the last stable offset:
//! a pending staging below the snapshot is deleted, and the next load has no pending
//! acknowledgements for its marker to resolve.
//!
//! The model takes a snapshot and a prune as one step (scenario `sc_prunes`): the log
//! becomes the snapshot of the committed state. With `sc_prune_lso` the prune stops at the
//! first staging still pending or whose outcome is still unanswered (the log cleaner's rule
//! for `__consumer_offsets`, which never cleans past the first unstable offset), and the
//! snapshot is written after what it keeps. The shard's state in memory is untouched either
//! way: only a load sees the pruned log.

use crate::protocol::keyed::Keyed;
use crate::protocol::msg::Timer;
use crate::protocol::output::{Host, Saves};
use crate::share::share_coordinator::{ShareCoordinator, ShareCoordinatorState, ShareRecord};
use crate::share::share_coordinator_notify::OutboxKey;
use stateright::actor::Out;
use std::time::Duration;

impl ShareCoordinator {
    /// Arms the prune cadence while this incarnation has prunes left.
    pub(crate) fn arm_prune(&self, s: &ShareCoordinatorState, o: &mut Out<impl Host>) {
        if s.pruned < self.prunes {
            o.set_timer(Timer::SharePrune, prune_interval());
        }
    }

    /// The prune cadence fired: snapshot the committed state and delete the log below it
    /// (a log that is one record already has nothing to prune).
    pub(crate) fn on_prune(
        &self,
        s: &mut ShareCoordinatorState,
        o: &mut Out<impl Saves<Vec<ShareRecord>>>,
    ) {
        if s.log.len() > 1 {
            let cut = self.prune_offset(s);
            let mut log = s.log.split_off(cut);
            log.push(ShareRecord::PruneSnapshot {
                state: s.state.clone(),
                resolved: s.resolved.clone(),
            });
            s.log = log;
            s.pruned += 1;
            o.save(s.log.clone().into());
        }
        self.arm_prune(s, o);
    }

    /// The first record the prune keeps: none of the old log today (`lastRedundantOffset`
    /// is the new snapshot's offset); with `sc_prune_lso` the first staging still pending
    /// or whose outcome the coordinator still has to tell its leader.
    fn prune_offset(&self, s: &ShareCoordinatorState) -> usize {
        let end = s.log.len();
        if !self.design.sc_prune_lso {
            return end;
        }
        let open = |r: &ShareRecord| match r {
            ShareRecord::TxnAcks(p) => {
                // Its own key's: another key's outcome does not hold this staging.
                let owed = |at: &Keyed<OutboxKey>| {
                    at.partition == p.partition && at.key.0 == p.producer.pid
                };
                s.pending.contains_key(&p.at()) || s.outbox.keys().any(owed)
            }
            _ => false,
        };
        s.log.iter().position(open).unwrap_or(end)
    }
}

/// The checker has no clock (every armed timer may fire); the simulator times the
/// cadence itself.
fn prune_interval() -> std::ops::Range<Duration> {
    Duration::ZERO..Duration::ZERO
}
