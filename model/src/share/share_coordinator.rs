//! The share coordinator: leader of the `__share_group_state` partition that holds the
//! share partition's state (`ShareCoordinatorShard`).
//!
//! Its durable log holds share records: the initial `ShareSnapshot` (what
//! InitializeShareGroupState writes; the model starts with the key initialised), then a
//! `ShareUpdate` per accepted write and per leader-epoch bump. A restart replays the log
//! through the same merge, so the state it serves again is exactly what it served before.
//! Kafka writes a fresh snapshot every 500 updates; the model's runs are far shorter, so
//! its log is the snapshot and its updates.
//!
//! ReadShareGroupState carries the reading leader's epoch: an older epoch than the stored
//! one is FENCED_LEADER_EPOCH; a newer one is stored (a log record), which fences every
//! write of older leaders. WriteShareGroupState is fenced by the leader epoch and the
//! state epoch, then merged (`PersisterStateBatchCombiner`, see [`crate::protocol::share_state`]).

use crate::design::Design;
use crate::partition::parked_write::Verifying;
use crate::protocol::error::ErrorCode;
use crate::protocol::ghost::Ghost;
use crate::protocol::ids::{CoordinatorEpoch, GroupId, ProducerEpoch, ProducerId};
use crate::protocol::keyed::Keyed;
use crate::protocol::msg::Msg;
use crate::protocol::msg::ProducerIdAndEpoch;
use crate::protocol::output::Saves;
use crate::protocol::share_msg::*;
use crate::protocol::share_state::{ShareState, StateBatch};
use crate::protocol::txn_share_msg::TxnShareAcknowledgeRequest;
use crate::protocol::width::{Epoch, Offset};
use crate::share::share_coordinator_txn::{PendingAcks, ReplayMode, Resolution};
use serde::{Deserialize, Serialize};
use stateright::actor::{Id, Out};
use std::collections::BTreeMap;

/// A record of the `__share_group_state` log for the share partition's key.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ShareRecord {
    /// `ShareSnapshot`: the whole state.
    Snapshot(ShareState),
    /// `ShareUpdate`: a leader epoch and a delta merged into the state.
    Update {
        /// The writer's (or reader's) leader epoch.
        leader_epoch: Epoch,
        /// The writer's start offset.
        start_offset: Offset,
        /// The changed offsets.
        batches: Vec<StateBatch>,
        /// The share partition whose key the record is for (left out at 0).
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: u8,
    },
    /// KIP-1289: acknowledgements staged within a transaction, written with the
    /// producer id and epoch.
    TxnAcks(PendingAcks),
    /// The `ShareSnapshot` a prune writes (docs/kafka-cases.md S11): the whole committed
    /// state, and, as a ghost, how staged acknowledgements left the pending store before
    /// it, so the history a load rebuilds from the pruned log is the one before the prune.
    PruneSnapshot {
        /// The committed state.
        state: ShareState,
        /// Ghost: the resolutions up to the snapshot.
        resolved: Ghost<Vec<Resolution>>,
    },
    /// The `ShareSnapshot` InitializeShareGroupState writes for an offset reset
    /// (docs/kafka-cases.md S20): the share partition's state starts again at the new state
    /// epoch and start offset with no persisted offsets; the leader epoch stays, so an old
    /// leader is still fenced by it.
    Initialize {
        /// The new state epoch.
        state_epoch: Epoch,
        /// The new start offset.
        start_offset: Offset,
        /// The share partition whose key the record is for (left out at 0).
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: u8,
    },
    /// KIP-1289: the transaction marker for the producer's staged acknowledgements.
    TxnMarker {
        /// The marker's producer id and epoch.
        producer: ProducerIdAndEpoch,
        /// COMMIT (apply) or ABORT (discard).
        commit: bool,
        /// The sending transaction coordinator's epoch, recorded in the log's producer
        /// state with `sc_coordinator_epoch` (left out without it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        coordinator_epoch: Option<CoordinatorEpoch>,
    },
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

impl ShareRecord {
    /// Applies the record to the coordinator's states (replay and live writes take the
    /// same path). The snapshot is the first share partition's: the others start from
    /// the empty state InitializeShareGroupState writes, which is the default. With
    /// `start_from_write` an update's start offset replaces the stored one even when it is
    /// lower, as `ShareCoordinatorShard.merge` does (the knob `sc_start_offset_from_write`).
    pub fn apply(&self, sc: &mut ShareCoordinatorState, start_from_write: bool) {
        match self {
            ShareRecord::Snapshot(s) => sc.state = s.clone(),
            ShareRecord::PruneSnapshot { state, resolved } => {
                sc.state = state.clone();
                sc.resolved = resolved.clone();
            }
            ShareRecord::Update {
                leader_epoch,
                start_offset,
                batches,
                partition,
            } => {
                let state = sc.partition_mut(*partition);
                state.leader_epoch = state.leader_epoch.max(*leader_epoch);
                if start_from_write {
                    state.merge_from_write(*start_offset, batches);
                } else {
                    state.merge(*start_offset, batches);
                }
            }
            ShareRecord::Initialize {
                state_epoch,
                start_offset,
                partition,
            } => {
                let state = sc.partition_mut(*partition);
                *state = ShareState {
                    state_epoch: *state_epoch,
                    leader_epoch: state.leader_epoch,
                    start_offset: *start_offset,
                    batches: BTreeMap::new(),
                };
            }
            // Transactional records change the served state only through the marker
            // (`ShareCoordinator::replay_txn`), which needs the pending acks as well.
            ShareRecord::TxnAcks(_) | ShareRecord::TxnMarker { .. } => {}
        }
    }
}

/// The share coordinator's state: the merged share state (its log is its storage).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShareCoordinatorState {
    /// The share state, the log replayed (of the first share partition, when there are
    /// several).
    pub state: ShareState,
    /// The share states of the share partitions after the first (`draft-itest`), each
    /// under its own key as `ShareCoordinatorShard` keeps them; empty with one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more: Vec<ShareState>,
    /// The log (what a restart replays).
    pub log: Vec<ShareRecord>,
    /// KIP-1289: acknowledgements pending in a transaction, by the `SharePartitionKey` they
    /// were staged for and the producer id and epoch they were written with. Kafka's shard
    /// keeps its state per key (`ShareCoordinatorShard.shareStateMap`), and a pending
    /// transactional write per producer id and key (`OffsetMetadataManager`'s
    /// `pendingTransactionalOffsets`: producer id, then group, topic and partition, which
    /// KIP-1289 says the share coordinator mirrors): two share groups' stagings of one
    /// transaction are two entries, each resolved by the marker into its own key's state.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pending: BTreeMap<Keyed<ProducerIdAndEpoch>, PendingAcks>,
    /// Ghost: how staged acknowledgements left the pending store, in log order.
    #[serde(default, skip_serializing_if = "Ghost::is_empty")]
    pub resolved: Ghost<Vec<Resolution>>,
    /// KIP-1289: the newest producer epoch the log holds per producer id (the log's
    /// producer state, rebuilt by replay).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub producer_epochs: BTreeMap<ProducerId, ProducerEpoch>,
    /// With `sc_coordinator_epoch`: the coordinator epoch of the last marker the log holds
    /// per producer id (`ProducerStateEntry.coordinatorEpoch`, rebuilt by replay).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub coordinator_epochs: BTreeMap<ProducerId, CoordinatorEpoch>,
    /// KIP-1289: stagings parked while the transaction coordinator verifies them, one per
    /// producer id at each key (volatile: lost with the incarnation).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub verifying: Verifying<TxnShareAcknowledgeRequest>,
    /// KIP-1289 `notify`: outcomes not yet acknowledged by the leader that staged them,
    /// per key, since each key's outcome goes to that key's share-partition leader.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub outbox: BTreeMap<
        Keyed<crate::share::share_coordinator_notify::OutboxKey>,
        crate::share::share_coordinator_notify::Resolution,
    >,
    /// How often this incarnation has pruned its log (`sc_prunes`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pruned: u8,
}

/// The share coordinator's configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShareCoordinator {
    /// The design (KIP-1289's share-coordinator knobs, the transaction version).
    pub design: Design,
    /// The transaction coordinator (for KIP-890 verification of stagings).
    pub txn_coordinator: Id,
    /// The share partitions whose state it keeps, each a `SharePartitionKey` (group,
    /// topic, partition): 1 but in `draft-itest` and `ctp-two-groups`.
    pub share_partitions: u8,
    /// The share groups those keys belong to (1 but in `ctp-two-groups`): each group has
    /// `share_partitions / groups` of them, numbered group by group.
    pub groups: u8,
    /// Records in each share partition, which tells the share partition of an offset of
    /// a staged acknowledgement ([`crate::world::scenario::Scenario::share_offsets`]).
    pub records: Offset,
    /// Scenario `spl-move`: the leader the first share partition moves to and its leader
    /// epoch, where `notify` outcomes go once that epoch is stored.
    pub moved_leader: Option<(Id, Epoch)>,
    /// How often an incarnation may snapshot and prune its log (scenario `sc_prunes`).
    pub prunes: u8,
}

impl ShareCoordinatorState {
    /// The share state of share partition `partition`.
    pub fn partition(&self, partition: u8) -> &ShareState {
        match partition.checked_sub(1) {
            Some(i) => self.more.get(usize::from(i)).unwrap_or(&self.state),
            None => &self.state,
        }
    }

    /// The share state of share partition `partition`, to change.
    pub fn partition_mut(&mut self, partition: u8) -> &mut ShareState {
        match partition.checked_sub(1) {
            Some(i) if usize::from(i) < self.more.len() => &mut self.more[usize::from(i)],
            _ => &mut self.state,
        }
    }
}

impl ShareCoordinator {
    /// Loads the coordinator: replays its log, or writes the initial snapshot.
    pub fn on_start<A: Saves<Vec<ShareRecord>>>(
        &self,
        log: Option<&Vec<ShareRecord>>,
        o: &mut Out<A>,
    ) -> ShareCoordinatorState {
        let log = match log {
            Some(l) => l.clone(),
            None => {
                let log = vec![ShareRecord::Snapshot(ShareState::default())];
                o.save(log.clone().into());
                log
            }
        };
        let mut s = ShareCoordinatorState {
            state: ShareState::default(),
            more: vec![ShareState::default(); usize::from(self.share_partitions.max(1)) - 1],
            log: Vec::new(),
            pending: BTreeMap::new(),
            resolved: Ghost::default(),
            producer_epochs: BTreeMap::new(),
            coordinator_epochs: BTreeMap::new(),
            verifying: BTreeMap::new(),
            outbox: BTreeMap::new(),
            pruned: 0,
        };
        for record in &log {
            record.apply(&mut s, self.design.sc_start_offset_from_write);
            self.replay_txn(record, &mut s, ReplayMode::Load);
        }
        s.log = log;
        self.resend_outcomes(&s, o);
        self.arm_prune(&s, o);
        s
    }

    pub(crate) fn append<A: Saves<Vec<ShareRecord>>>(
        &self,
        s: &mut ShareCoordinatorState,
        record: ShareRecord,
        o: &mut Out<A>,
    ) {
        record.apply(s, self.design.sc_start_offset_from_write);
        self.replay_txn(&record, s, ReplayMode::Live);
        s.log.push(record);
        o.save(s.log.clone().into());
    }

    /// Handles ReadShareGroupState and WriteShareGroupState.
    pub fn on_msg<A: Saves<Vec<ShareRecord>>>(
        &self,
        s: &mut ShareCoordinatorState,
        src: Id,
        msg: Msg,
        o: &mut Out<A>,
    ) {
        match msg {
            Msg::ReadShareGroupState(req) => self.on_read(s, src, req, o),
            Msg::WriteShareGroupState(req) => self.on_write(s, src, req, o),
            Msg::InitializeShareGroupState(req) => self.on_initialize(s, src, req, o),
            Msg::TxnShareAcknowledge(req) => self.on_txn_share_acknowledge(s, src, req, false, o),
            Msg::AddPartitionsToTxnResponse(resp) => self.on_verified(s, resp, o),
            Msg::WriteTxnMarkers(req) => self.on_txn_marker(s, src, req, o),
            Msg::TxnShareAcksResolvedResponse(r) => self.on_outcome_answered(s, src, r, o),
            _ => {}
        }
    }

    /// ReadShareGroupState: a leader loads its share partition's state; a newer leader
    /// epoch is stored, which fences the older leaders' writes.
    fn on_read<A: Saves<Vec<ShareRecord>>>(
        &self,
        s: &mut ShareCoordinatorState,
        src: Id,
        req: ReadShareGroupStateRequest,
        o: &mut Out<A>,
    ) {
        let stored = s.partition(req.partition).leader_epoch;
        let error = if stored > req.leader_epoch {
            ErrorCode::FencedLeaderEpoch
        } else {
            if req.leader_epoch > stored {
                let bump = ShareRecord::Update {
                    leader_epoch: req.leader_epoch,
                    start_offset: s.partition(req.partition).start_offset,
                    batches: Vec::new(),
                    partition: req.partition,
                };
                self.append(s, bump, o);
            }
            ErrorCode::None
        };
        let pending = if req.pending && error == ErrorCode::None {
            // The pending acks of this share partition's key only.
            s.pending
                .iter()
                .filter(|(at, _)| at.partition == req.partition)
                .map(|(_, p)| p.clone())
                .collect()
        } else {
            Vec::new()
        };
        o.send(
            src,
            Msg::ReadShareGroupStateResponse(ReadShareGroupStateResponse {
                leader_epoch: req.leader_epoch,
                error,
                state: (error == ErrorCode::None).then(|| s.partition(req.partition).clone()),
                pending,
                refresh: req.refresh,
            }),
        );
    }

    /// WriteShareGroupState: fenced by the leader epoch and the state epoch, then merged.
    fn on_write<A: Saves<Vec<ShareRecord>>>(
        &self,
        s: &mut ShareCoordinatorState,
        src: Id,
        req: WriteShareGroupStateRequest,
        o: &mut Out<A>,
    ) {
        let persisted = s.partition(req.partition);
        let error = if persisted.leader_epoch > req.leader_epoch {
            ErrorCode::FencedLeaderEpoch
        } else if persisted.state_epoch > req.state_epoch {
            ErrorCode::FencedStateEpoch
        } else {
            let update = ShareRecord::Update {
                leader_epoch: req.leader_epoch,
                start_offset: req.start_offset,
                batches: req.batches.clone(),
                partition: req.partition,
            };
            self.append(s, update, o);
            ErrorCode::None
        };
        o.send(
            src,
            Msg::WriteShareGroupStateResponse(WriteShareGroupStateResponse {
                leader_epoch: req.leader_epoch,
                write: req.write,
                error,
            }),
        );
    }

    /// InitializeShareGroupState (an admin's offset reset, docs/kafka-cases.md S20): an
    /// older state epoch than the stored one is FENCED_STATE_EPOCH, as a write's is
    /// (`ShareCoordinatorShard` at 1eb7644 fences writes so; KIP-932 gives initialisation
    /// the same rule); otherwise a snapshot at the new state epoch and start offset. The
    /// pending transactional acknowledgements stay: the reset is no marker, and their
    /// transaction still ends with one.
    fn on_initialize<A: Saves<Vec<ShareRecord>>>(
        &self,
        s: &mut ShareCoordinatorState,
        src: Id,
        req: InitializeShareGroupStateRequest,
        o: &mut Out<A>,
    ) {
        let error = if s.partition(req.partition).state_epoch > req.state_epoch {
            ErrorCode::FencedStateEpoch
        } else {
            let record = ShareRecord::Initialize {
                state_epoch: req.state_epoch,
                start_offset: req.start_offset,
                partition: req.partition,
            };
            self.append(s, record, o);
            ErrorCode::None
        };
        o.send(
            src,
            Msg::InitializeShareGroupStateResponse(InitializeShareGroupStateResponse {
                state_epoch: req.state_epoch,
                error,
            }),
        );
    }

    /// The share group whose key share partition `partition` is.
    pub(crate) fn group_of(&self, partition: u8) -> GroupId {
        let per_group = (self.share_partitions.max(1) / self.groups.max(1)).max(1);
        GroupId(partition / per_group)
    }

    /// The share partition an offset of a staged acknowledgement belongs to.
    pub(crate) fn partition_of(&self, offset: Offset) -> u8 {
        let last = self.share_partitions.max(1) - 1;
        match offset.checked_div(self.records) {
            Some(k) => u8::try_from(k).unwrap_or(u8::MAX).min(last),
            None => 0,
        }
    }

    /// Merges staged batches into the states of the share partitions they belong to,
    /// each at its own start offset (a marker's COMMIT, or today's replay as committed).
    pub(crate) fn merge_staged(&self, s: &mut ShareCoordinatorState, batches: &[StateBatch]) {
        for k in 0..self.share_partitions.max(1) {
            let mine: Vec<StateBatch> = batches
                .iter()
                .filter(|b| self.partition_of(b.offset) == k)
                .copied()
                .collect();
            if mine.is_empty() && k > 0 {
                continue;
            }
            let state = s.partition_mut(k);
            let start = state.start_offset;
            state.merge(start, &mine);
        }
    }
}
