//! The share group's history, for `delivery_limit`, `at_least_once`, `ack_owner`,
//! `cache_agrees` and `no_duplicate_processing`: how often each record was delivered,
//! whose locks expired, which acknowledgements the leader applied to which acquisition,
//! what a new leader loaded, and what each completed checkpoint covered. Each field is
//! recorded by the rule below it, from the share-partition leader's and the source
//! readers' observations and from the share coordinator's state before and after a step.

use crate::clients::source_reader::{CheckpointId, Processed};
use crate::history::txn_ack_ghost::{self, TxnAckGhost};
use crate::protocol::ids::MemberId;
use crate::protocol::record_state::RecordState;
use crate::protocol::share_msg::DeliveryTag;
use crate::protocol::width::{Epoch, Offset};
use crate::share::share_partition::{InFlightRecord, ShareEvent};
use crate::world::node::NodeState;
use crate::{System, SystemState};
use serde::{Deserialize, Serialize};
use stateright::actor::Id;
use std::collections::BTreeMap;

/// Ghost facts about the share group.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShareGhost {
    /// Acquisitions (deliveries) of each offset so far, across leader failovers.
    pub deliveries: BTreeMap<Offset, u8>,
    /// Share-partition leader restarts so far.
    pub failovers: Epoch,
    /// Deliveries of each offset that the current leader cannot know of: at its load, the
    /// deliveries so far minus the persisted delivery count it started from (acquisitions
    /// are not persisted, and a lost state write loses the counts it carried).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub forgotten: BTreeMap<Offset, u8>,
    /// Offsets whose acquisition lock expired, with the member that held them.
    pub expired: BTreeMap<Offset, MemberId>,
    /// A record whose lock expired was delivered to another member.
    pub lock_redelivered: bool,
    /// A record was archived at the delivery count limit.
    pub limit_archived: bool,
    /// A late or foreign acknowledgement was rejected with INVALID_RECORD_STATE.
    pub late_ack_rejected: bool,
    /// The first acknowledgement applied to another member's acquisition.
    pub misapplied_ack: Option<String>,
    /// The first transactional acknowledgement (staged by TxnShareAcknowledge) applied to a
    /// later delivery of the same record to the same member (Kafka validates member id,
    /// offset and state, not the delivery).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub misapplied_delivery: Option<String>,
    /// The first plain acknowledgement (ShareFetch or ShareAcknowledge) that the leader
    /// rejected although every record it named was ACQUIRED by its member with no
    /// transition in progress: KIP-932 applies such an acknowledgement
    /// (`SharePartition.acknowledge`, 1eb7644, fails only a batch whose records are not
    /// ACQUIRED or are held by another member).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected_held: Option<String>,
    /// The first plain acknowledgement (ShareFetch or ShareAcknowledge) applied to a later
    /// delivery of the same record to the same member: Kafka applies it too, since a share
    /// session epoch names the session's requests, not its deliveries
    /// (`SharePartitionManager.newContext`, 1eb7644, starts a replacing session at epoch 1,
    /// so a late request of the replaced session at epoch 1 passes), and it settles a record
    /// the member processed, which KIP-932's at-least-once allows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub misapplied_plain_delivery: Option<String>,
    /// The share-partition leader restarted and loaded a state with a terminal record.
    pub spl_rebuilt: bool,
    /// The first persisted terminal state that went back.
    pub terminal_regressed: Option<String>,
    /// KIP-1289 facts (left out of traces while empty, so share-basic's digests stay).
    #[serde(default, skip_serializing_if = "TxnAckGhost::is_empty")]
    pub txn_acks: TxnAckGhost,
    /// Flink source readers: for each input offset, the completed checkpoints that cover
    /// a processing of it, with the delivery processed (left out of traces while empty).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub processed: BTreeMap<Offset, Vec<(CheckpointId, DeliveryTag)>>,
    /// Scenario `spl-move`: the share coordinator fenced a late staging or write of a
    /// replaced share-partition leader (FENCED_LEADER_EPOCH).
    #[serde(default, skip_serializing_if = "is_false")]
    pub stale_leader_fenced: bool,
    /// Scenario `spl-move`: the first staging, write or outcome answer of a replaced
    /// share-partition leader that the share coordinator took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stale_leader_accepted: Option<String>,
    /// Scenario `spl-move`: the moved-in leader has loaded the state. From then on it is
    /// the leader whose count `delivery_limit` follows, and an acquisition by the leader it
    /// replaced is one that count cannot know of (the replaced leader's writes are fenced,
    /// so its acquisitions are never persisted, as a failover's are not).
    #[serde(default, skip_serializing_if = "is_false")]
    pub moved_in_loaded: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl ShareGhost {
    /// Nothing recorded (always the case without a share group).
    pub fn is_empty(&self) -> bool {
        *self == ShareGhost::default()
    }

    /// The share-partition leader applied an acknowledgement of `offset`, made for the
    /// delivery its ghost tag `ack` names, to `acquisition` (`transactional` when it was
    /// staged in a transaction): records the first one applied to another member's
    /// acquisition, and the first of each path applied to a later delivery to the same
    /// member.
    pub fn observe_ack_applied(
        &mut self,
        offset: Offset,
        ack: crate::protocol::ghost::Ghost<DeliveryTag>,
        acquisition: DeliveryTag,
        transactional: bool,
    ) {
        let ack = *ack.open();
        let slot = if ack.member != acquisition.member {
            &mut self.misapplied_ack
        } else if transactional {
            &mut self.misapplied_delivery
        } else {
            &mut self.misapplied_plain_delivery
        };
        if ack != acquisition && slot.is_none() {
            *slot = Some(format!(
                "SP0 applied an acknowledgement of offset {offset} made for delivery {ack:?} to acquisition {acquisition:?}"
            ));
        }
    }
}

impl ShareGhost {
    /// The share-partition leader rejected a plain acknowledgement by `member` of
    /// `records` (as it held them; `None` where it held none): records the first one whose
    /// every record the member held, ACQUIRED with no transition in progress (the member is
    /// not compared where the design drops the leader's member check).
    pub fn observe_ack_rejected(
        &mut self,
        member: MemberId,
        records: &[Option<InFlightRecord>],
        member_check: bool,
    ) {
        let held = |r: &Option<InFlightRecord>| {
            r.as_ref().is_some_and(|r| {
                r.state == RecordState::Acquired
                    && r.ongoing.is_none()
                    && (!member_check || r.member == Some(member))
            })
        };
        if self.rejected_held.is_none() && !records.is_empty() && records.iter().all(held) {
            self.rejected_held = Some(format!(
                "SP0 rejected {member:?}'s acknowledgement of {} record(s) it held ACQUIRED",
                records.len()
            ));
        }
    }
}

/// The share-partition leader's events: one history update, then KIP-1289's redelivery
/// rule for each acquisition.
pub(crate) fn record_events(sys: &System, next: &mut SystemState, id: Id, events: &[ShareEvent]) {
    let moved = sys.topology.moved_share_partition;
    let moved_in = moved == Some(id);
    let replaced = moved.is_some() && sys.topology.share_partition == Some(id);
    next.ghost.update(|g| {
        for event in events {
            if let ShareEvent::AckRejected {
                plain: Some((member, records)),
            } = event
            {
                g.share
                    .observe_ack_rejected(*member, records, sys.design.ack_member_check);
            }
            if replaced && g.share.moved_in_loaded {
                record_replaced_leader_event(&mut g.share, event);
            } else {
                record_event(&mut g.share, event);
            }
            if moved_in && matches!(event, ShareEvent::Loaded { .. }) {
                g.share.moved_in_loaded = true;
            }
        }
    });
    for event in events {
        match event {
            ShareEvent::Acquired { offset, .. } => txn_ack_ghost::observe_acquired(next, *offset),
            // Only beside KIP-1289's clients: without share transactions nothing reads it.
            ShareEvent::PlainSettled {
                offset,
                member,
                state,
            } if sys.scenario.has_share_transactions() => {
                txn_ack_ghost::observe_plain_settled(sys, next, *offset, *member, *state)
            }
            // Only where the KIP-1289 client has plain paths of its own (`ctp-acks`).
            ShareEvent::AckApplied {
                offset,
                acquisition,
                transactional: false,
                ..
            } if sys.scenario.txn_plain_acks => {
                txn_ack_ghost::observe_own_plain_ack(sys, next, *offset, *acquisition)
            }
            _ => {}
        }
    }
}

/// One event of the share-partition leader.
fn record_event(share: &mut ShareGhost, event: &ShareEvent) {
    match event {
        ShareEvent::Acquired { offset, tag } => {
            let n = share.deliveries.entry(*offset).or_default();
            *n = n.saturating_add(1);
            if share.expired.get(offset).is_some_and(|m| *m != tag.member) {
                share.lock_redelivered = true;
            }
        }
        ShareEvent::LockExpired { offset, member } => {
            share.expired.insert(*offset, *member);
        }
        ShareEvent::AckApplied {
            offset,
            ack,
            acquisition,
            transactional,
        } => share.observe_ack_applied(*offset, *ack, *acquisition, *transactional),
        ShareEvent::AckRejected { .. } => share.late_ack_rejected = true,
        ShareEvent::PlainSettled { .. } => {}
        ShareEvent::LimitArchived => share.limit_archived = true,
        ShareEvent::Loaded { terminal, counts } => {
            if *terminal && share.failovers > 0 {
                share.spl_rebuilt = true;
            }
            for (offset, count) in counts {
                let delivered = share.deliveries.get(offset).copied().unwrap_or(0);
                let lost = delivered.saturating_sub(*count);
                if lost > 0 {
                    share.forgotten.insert(*offset, lost);
                } else {
                    share.forgotten.remove(offset);
                }
            }
        }
    }
}

/// `spl-move`: an event of the leader that the moved-in one replaced, after the moved-in
/// leader loaded. Its acquisition is a delivery, and one the moved-in leader's count cannot
/// know of (forgotten, as at a failover); its own load no longer sets what is forgotten,
/// since its count is not the one that goes on.
fn record_replaced_leader_event(share: &mut ShareGhost, event: &ShareEvent) {
    match event {
        ShareEvent::Acquired { offset, .. } => {
            record_event(share, event);
            let forgotten = share.forgotten.entry(*offset).or_default();
            *forgotten = forgotten.saturating_add(1);
        }
        ShareEvent::Loaded { .. } => {}
        _ => record_event(share, event),
    }
}

/// What a source reader's completed checkpoint covered.
pub(crate) fn record_processed(next: &mut SystemState, processed: &[Processed]) {
    for p in processed {
        next.ghost.update(|g| {
            let covered = g.share.processed.entry(p.offset).or_default();
            covered.push((p.checkpoint, p.delivery));
        });
    }
}

/// Actor `id` restarted: a share-partition leader's restart is a failover.
pub(crate) fn record_restart(sys: &System, next: &mut SystemState, id: Id) {
    if sys.topology.share_partition_index(id).is_some() {
        next.ghost
            .update(|g| g.share.failovers = g.share.failovers.saturating_add(1));
    }
}

/// A persisted terminal state (ACKNOWLEDGED or ARCHIVED, or below the start offset)
/// must stay terminal, across writes and across a share-coordinator restart. The one
/// exception is the step that moves the share partition's state epoch on: an admin's offset
/// reset initialises a new state (InitializeShareGroupState, docs/kafka-cases.md S20), and a
/// reset to offset 0 makes every record deliverable again by its meaning.
pub(crate) fn check_share_state(sys: &System, before: &NodeState, next: &mut SystemState, id: Id) {
    let (Some(b), Some(a)) = (
        before.share_coordinator(),
        next.node(id).share_coordinator(),
    ) else {
        return;
    };
    let of = |o: crate::protocol::width::Offset| sys.scenario.share_partition_of(o);
    let regressed = (0..sys.scenario.share_offsets()).find(|o| {
        let (b, a) = (b.partition(of(*o)), a.partition(of(*o)));
        b.state_epoch == a.state_epoch && b.is_terminal(*o) && !a.is_terminal(*o)
    });
    if let Some(offset) = regressed {
        if next.ghost.share.terminal_regressed.is_none() {
            let what = format!(
                "SC's persisted offset {offset} went from terminal {:?} back to {:?}",
                b.partition(of(offset)).state_of(offset),
                a.partition(of(offset)).state_of(offset)
            );
            next.ghost
                .update(|g| g.share.terminal_regressed = Some(what));
        }
    }
}
