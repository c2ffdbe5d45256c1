//! KIP-1289's transactional path at the share coordinator: acknowledgements staged by
//! TxnShareAcknowledge are written to `__share_group_state` with the producer id and epoch,
//! pending until the transaction's marker; a COMMIT marker applies them through the same
//! merge as WriteShareGroupState (`applyPendingAcknowledgements`), an ABORT discards them
//! (`discardPendingAcknowledgements`). Both are log records, so a restart replays them
//! (`replayEndTransactionMarker`).
//!
//! Three design knobs decide what the seed leaves open (see `Design::seed`):
//! - `marker_match`: which pending entries a marker resolves;
//! - `sc_replay_pending`: whether a load replays staged records into the pending store or,
//!   as `ShareCoordinatorShard.replay()` does today, straight into the committed state;
//! - `stage_verification`: whether a staging is verified with the transaction coordinator
//!   first (KIP-890 part 1), as `scheduleTransactionalWriteOperation` does.
//!
//! Whatever the knobs, appends go through the `__share_group_state` log's producer state: a
//! staging or a marker older than the newest epoch the log holds for the producer id is
//! INVALID_PRODUCER_EPOCH, and a marker is written when it resolves something or carries a
//! newer epoch (a repeated marker writes nothing), as a partition log writes control
//! batches.

use crate::design::MarkerMatch;
use crate::partition::parked_write::{void_guard, VerifiedWrite, Verifier};
use crate::protocol::error::ErrorCode;
use crate::protocol::ids::{ProducerId, TopicPartition};
use crate::protocol::keyed::Keyed;
use crate::protocol::msg::{
    AddPartitionsToTxnResponse, ProducerIdAndEpoch, VerificationGuard, WriteTxnMarkersRequest,
};
use crate::protocol::output::{Host, Saves};
use crate::protocol::share_msg::{Acknowledgement, AcquiredRecord};
use crate::protocol::share_state::{ShareState, StateBatch};
pub use crate::protocol::txn_share_msg::PendingAcks;
use crate::protocol::txn_share_msg::TxnShareAcknowledgeRequest;
use crate::protocol::width::{Counter, Epoch};
use crate::share::share_coordinator::{ShareCoordinator, ShareCoordinatorState, ShareRecord};
use serde::{Deserialize, Serialize};
use stateright::actor::{Id, Out};

/// Ghost: how one transaction's staged acknowledgements left the pending store. Derived
/// from the log like the rest of the state (a load rebuilds it), never read by protocol
/// logic.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Resolution {
    /// The acknowledgements.
    pub acks: PendingAcks,
    /// Applied to the committed state (true) or discarded.
    pub commit: bool,
    /// Resolved by a marker (true), or applied by a load that ignored the producer id.
    pub by_marker: bool,
    /// The state epoch of the share state they were resolved in (left out at 0): above
    /// `acks.state_epoch` when an offset reset came between staging and marker.
    #[serde(default, skip_serializing_if = "is_zero_epoch")]
    pub state_epoch: Epoch,
    /// `sc_state_epoch_fence`: a COMMIT marker resolved them but the share coordinator did
    /// not apply them, since they were staged under an older state epoch (`commit` stays
    /// the marker's outcome; left out when false).
    #[serde(default, skip_serializing_if = "is_false")]
    pub fenced: bool,
}

fn is_zero_epoch(e: &Epoch) -> bool {
    *e == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A TxnShareAcknowledge parked while the transaction coordinator verifies it.
pub type ParkedStaging = crate::partition::parked_write::Parked<TxnShareAcknowledgeRequest>;

/// Where a transaction's staged acknowledgements stand at the share coordinator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TxnAckStatus {
    /// Staged, waiting for the marker.
    Pending,
    /// Applied to the committed state.
    Committed,
    /// Discarded by an ABORT marker.
    Aborted,
}

/// How a record of the log is replayed: live (just appended) or by a load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplayMode {
    /// The record was just appended by this incarnation.
    Live,
    /// The record is replayed from the log at load.
    Load,
}

/// The state batch an acknowledgement becomes. The share coordinator does not know the
/// delivery count limit: a released record is stored AVAILABLE and the share-partition
/// leader archives it at load when it is at the limit (`SharePartition::load`).
///
/// The delivery count is the one the request carries for the offset, which a staging
/// share-partition leader fills in from its own record state, as its WriteShareGroupState
/// state batches do. A client's TxnShareAcknowledge carries offsets and acknowledge types
/// only (KIP-1289 4.2), and acquisitions are not persisted, so the coordinator can only
/// take the count it has persisted for the offset (none written: 0).
pub fn ack_batch(
    ack: &Acknowledgement,
    carried: &[AcquiredRecord],
    persisted: &ShareState,
) -> Option<StateBatch> {
    let delivery_count = carried
        .iter()
        .find(|d| d.offset == ack.offset)
        .map(|d| d.delivery_count)
        .or_else(|| persisted.state_of(ack.offset).map(|(_, count)| count))
        .unwrap_or(0);
    ack.ack
        .target(delivery_count, u8::MAX)
        .map(|state| StateBatch {
            offset: ack.offset,
            state,
            delivery_count,
        })
}

impl ShareCoordinatorState {
    /// The acknowledgements staged and not yet resolved.
    pub fn pending_entries(&self) -> impl Iterator<Item = &PendingAcks> + '_ {
        self.pending.values()
    }
}

impl ShareCoordinator {
    /// TxnShareAcknowledge: stage the acks as a pending record of the transaction, after
    /// verifying it with the transaction coordinator when the producer has no transaction
    /// open here yet (`stage_verification`).
    pub fn on_txn_share_acknowledge<A: Saves<Vec<ShareRecord>>>(
        &self,
        s: &mut ShareCoordinatorState,
        src: Id,
        req: TxnShareAcknowledgeRequest,
        verified: bool,
        o: &mut Out<A>,
    ) {
        if let Some(error) = self.staging_refused(s, &req) {
            self.reply(o, src, &req, error);
            return;
        }
        // `hasOngoingTransaction(producerId, producerEpoch)`: only a first write of the
        // transaction at this key's partition is verified, so a transaction's staging for
        // a second share group is verified although the first group's is pending.
        let key = self.staging_key(&req);
        let ongoing = s.pending.contains_key(&Keyed::new(key, req.producer));
        if self.design.stage_verification && !verified && !ongoing {
            // Kafka's guard is an object identity, one per partition's
            // `VerificationStateEntry`; here the key and the log end (the key in the
            // generation, which the share coordinator has no other use for), so two keys'
            // verifications are told apart, and a marker between verification and append
            // (which moves the log end) voids it.
            let guard = VerificationGuard {
                generation: Epoch::from(key),
                counter: Counter::try_from(s.log.len()).expect("a log shorter than 2^32 entries"),
            };
            self.verifier(key)
                .park(&mut s.verifying, guard, src, req, o);
            return;
        }
        let batches = req
            .acks
            .iter()
            .filter_map(|a| ack_batch(a, &req.deliveries, s.partition(self.partition_of(a.offset))))
            .collect();
        let record = ShareRecord::TxnAcks(PendingAcks {
            producer: req.producer,
            tag: req.tag,
            batches,
            notify: req.notify.then_some(src),
            state_epoch: s.partition(key).state_epoch,
            partition: key,
        });
        self.append(s, record, o);
        self.reply(o, src, &req, ErrorCode::None);
    }

    /// Why the share coordinator refuses a staging before anything else, if it does: a
    /// key its group does not have, a replaced leader, an offset reset since, or a fenced
    /// producer epoch.
    fn staging_refused(
        &self,
        s: &ShareCoordinatorState,
        req: &TxnShareAcknowledgeRequest,
    ) -> Option<ErrorCode> {
        // Each acknowledgement is for the `SharePartitionKey` (group, topic, partition)
        // of its offset's share partition. The model's keys are those initialised at
        // start, so an offset the request's group has no key for names a partition the
        // coordinator cannot find: UNKNOWN_TOPIC_OR_PARTITION, as
        // `ShareCoordinatorShard.maybeGetWriteStateError` (1eb7644) answers one.
        let foreign = |a: &crate::protocol::share_msg::Acknowledgement| {
            self.group_of(self.partition_of(a.offset)) != req.group
        };
        if req.acks.iter().any(foreign) {
            return Some(ErrorCode::UnknownTopicOrPartition);
        }
        // `stage_leader_epoch`: a staging forwarded by a leader older than the one that
        // has since read its share partition's state (`ShareCoordinatorShard` fences WriteShareGroupState
        // the same way). Checked again when a verification resumes the staging, since a
        // new leader may have read the state while it was parked.
        let older = |e: Epoch| {
            req.acks
                .iter()
                .any(|a| e < s.partition(self.partition_of(a.offset)).leader_epoch)
        };
        if req.leader_epoch.is_some_and(older) {
            return Some(ErrorCode::FencedLeaderEpoch);
        }
        // `sc_state_epoch_fence`: a staging made for the state before an offset reset, as a
        // write's StateEpoch is fenced (`ShareCoordinatorShard` FENCED_STATE_EPOCH).
        let reset_since = |e: Epoch| {
            req.acks
                .iter()
                .any(|a| e < s.partition(self.partition_of(a.offset)).state_epoch)
        };
        if req.state_epoch.is_some_and(reset_since) {
            return Some(ErrorCode::FencedStateEpoch);
        }
        let fenced = s
            .producer_epochs
            .get(&req.producer.pid)
            .is_some_and(|e| req.producer.epoch < *e);
        fenced.then_some(ErrorCode::InvalidProducerEpoch)
    }

    /// The transaction coordinator's answer to a staging's verification.
    pub fn on_verified<A: Saves<Vec<ShareRecord>>>(
        &self,
        s: &mut ShareCoordinatorState,
        resp: AddPartitionsToTxnResponse,
        o: &mut Out<A>,
    ) {
        // The answer's guard names the key it was for.
        if let Some(parked) = self.verifier(0).resume(&mut s.verifying, &resp, o) {
            self.on_txn_share_acknowledge(s, parked.src, parked.request, true, o);
        }
    }

    /// The inter-broker request timeout of a staging's verification at a key ran out.
    pub fn on_verification_timeout<A: Saves<Vec<ShareRecord>>>(
        &self,
        s: &mut ShareCoordinatorState,
        at: Keyed<ProducerId>,
        o: &mut Out<A>,
    ) {
        self.verifier(at.partition)
            .time_out(&mut s.verifying, at, o);
    }

    /// The key a staging is for: its first acknowledgement's share partition's. A staging
    /// names one key's records (a client sends one TxnShareAcknowledge per share group,
    /// each group one share partition but in `draft-itest`, whose transactions acknowledge
    /// one record; a leader forwards its own share partition's), so its key is one key.
    fn staging_key(&self, req: &TxnShareAcknowledgeRequest) -> u8 {
        req.acks.first().map_or(0, |a| self.partition_of(a.offset))
    }

    /// The state epoch of the share state `p`'s acknowledgements would be applied to.
    fn current_state_epoch(&self, s: &ShareCoordinatorState, p: &PendingAcks) -> Epoch {
        s.partition(p.partition).state_epoch
    }

    /// The verifier of stagings for key `key`.
    fn verifier(&self, key: u8) -> Verifier {
        Verifier {
            txn_coordinator: self.txn_coordinator,
            tv: self.design.tv,
            partition: TopicPartition::ShareGroupState,
            // A retry of the staging being verified joins that verification even when a
            // marker voided it (it is answered INVALID_TXN_STATE when the answer comes):
            // displacing it would answer NETWORK_EXCEPTION, which the client retries,
            // without end.
            join_voided: true,
            key,
        }
    }

    /// The pending entries a marker of `marker` resolves, at every key (the model's one
    /// WriteTxnMarkers for `__share_group_state` stands for the marker of each key the
    /// transaction staged at), and whether some pending entry of its producer id is too
    /// new for it (`txn-epoch` fences such a marker).
    fn resolvable(
        &self,
        s: &ShareCoordinatorState,
        marker: ProducerIdAndEpoch,
    ) -> (Vec<Keyed<ProducerIdAndEpoch>>, bool) {
        let tv2 = self.design.tv.bumps_epoch_per_txn();
        let mut resolvable = Vec::new();
        let mut too_new = false;
        for at in s.pending.keys().filter(|at| at.key.pid == marker.pid) {
            let staged = at.key.epoch;
            let matches = match self.design.marker_match {
                MarkerMatch::ExactEpoch => staged == marker.epoch,
                MarkerMatch::ProducerId => true,
                // TV2 markers carry the epoch bumped at EndTxn (or by a fencing abort);
                // before TV2 only a fencing abort bumps it.
                MarkerMatch::TxnEpoch if tv2 => staged < marker.epoch,
                MarkerMatch::TxnEpoch => staged <= marker.epoch,
            };
            if matches {
                resolvable.push(*at);
            } else if self.design.marker_match == MarkerMatch::TxnEpoch {
                too_new = true;
            }
        }
        (resolvable, too_new)
    }

    /// WriteTxnMarkers for `__share_group_state`, answered like a partition leader.
    pub fn on_txn_marker<A: Saves<Vec<ShareRecord>>>(
        &self,
        s: &mut ShareCoordinatorState,
        src: Id,
        req: WriteTxnMarkersRequest,
        o: &mut Out<A>,
    ) {
        // `sc_coordinator_epoch`: the log's producer state fences a deposed transaction
        // coordinator before anything is applied (`ProducerAppendInfo.appendEndTxnMarker`).
        let deposed = self.design.sc_coordinator_epoch
            && s.coordinator_epochs
                .get(&req.producer.pid)
                .is_some_and(|ce| req.coordinator_epoch < *ce);
        if deposed {
            o.send(src, req.response(ErrorCode::TransactionCoordinatorFenced));
            return;
        }
        if !self.design.sc_live_markers {
            let error = self.append_marker_only(s, &req, o);
            o.send(src, req.response(error));
            return;
        }
        let log_epoch = s.producer_epochs.get(&req.producer.pid).copied();
        let (resolvable, too_new) = self.resolvable(s, req.producer);
        let error = if log_epoch.is_some_and(|e| req.producer.epoch < e)
            || (resolvable.is_empty() && too_new)
        {
            ErrorCode::InvalidProducerEpoch
        } else {
            let newer = log_epoch.is_none_or(|e| req.producer.epoch > e);
            if !resolvable.is_empty() || newer {
                self.append(s, self.marker_record(&req), o);
                self.notify_leader(s, req.producer.pid, o);
                // The marker ends whatever was open: a staging being verified for this
                // producer no longer guards a valid append (the ABA race).
                void_guard(&mut s.verifying, req.producer.pid);
            }
            ErrorCode::None
        };
        o.send(src, req.response(error));
    }

    fn marker_record(&self, req: &WriteTxnMarkersRequest) -> ShareRecord {
        ShareRecord::TxnMarker {
            producer: req.producer,
            commit: req.commit,
            coordinator_epoch: self
                .design
                .sc_coordinator_epoch
                .then_some(req.coordinator_epoch),
        }
    }

    /// `sc_live_markers=false`, Kafka's routing today: `KafkaApis.handleWriteTxnMarkersRequest`
    /// hands only `__consumer_offsets` markers to a coordinator, so this one is a control
    /// batch appended through `ReplicaManager.appendRecords`. The log checks the producer
    /// epoch as a data partition does (`PartitionLog::write_marker`) and updates its
    /// producer state; the shard's pending store is untouched until a load replays the
    /// marker (`ShareCoordinatorShard.replayEndTransactionMarker`), and no leader is told.
    fn append_marker_only(
        &self,
        s: &mut ShareCoordinatorState,
        req: &WriteTxnMarkersRequest,
        o: &mut Out<impl Saves<Vec<ShareRecord>>>,
    ) -> ErrorCode {
        let pid = req.producer.pid;
        if let Some(&e) = s.producer_epochs.get(&pid) {
            if req.tv >= 2 {
                if req.producer.epoch == e && !ongoing_in_log(&s.log, pid) {
                    return ErrorCode::None;
                }
                if req.producer.epoch <= e {
                    return ErrorCode::InvalidProducerEpoch;
                }
            } else if req.producer.epoch < e {
                return ErrorCode::InvalidProducerEpoch;
            }
        }
        let record = self.marker_record(req);
        self.note_marker(s, &record);
        s.log.push(record);
        o.save(s.log.clone().into());
        void_guard(&mut s.verifying, pid);
        ErrorCode::None
    }

    /// A marker's effect on the log's producer state (its producer and coordinator epoch),
    /// live or replayed, whoever resolves its pending acknowledgements.
    fn note_marker(&self, s: &mut ShareCoordinatorState, record: &ShareRecord) {
        let ShareRecord::TxnMarker {
            producer,
            coordinator_epoch,
            ..
        } = record
        else {
            return;
        };
        let e = s.producer_epochs.entry(producer.pid).or_default();
        *e = (*e).max(producer.epoch);
        if let Some(ce) = coordinator_epoch {
            s.coordinator_epochs.insert(producer.pid, *ce);
        }
    }

    /// Replays a transactional record, live or at load.
    pub(crate) fn replay_txn(
        &self,
        record: &ShareRecord,
        s: &mut ShareCoordinatorState,
        mode: ReplayMode,
    ) {
        match record {
            ShareRecord::TxnAcks(p) => self.replay_staging(p, s, mode),
            ShareRecord::TxnMarker {
                producer, commit, ..
            } => {
                let (resolvable, _) = self.resolvable(s, *producer);
                self.note_marker(s, record);
                for at in resolvable {
                    if let Some(p) = s.pending.remove(&at) {
                        self.replay_resolution(p, *commit, s);
                    }
                }
            }
            ShareRecord::Snapshot(_)
            | ShareRecord::Initialize { .. }
            | ShareRecord::PruneSnapshot { .. }
            | ShareRecord::Update { .. } => {}
        }
    }

    /// A `TxnAcks` record: pending under its key and producer, or, on today's load,
    /// merged as committed.
    fn replay_staging(&self, p: &PendingAcks, s: &mut ShareCoordinatorState, mode: ReplayMode) {
        let e = s.producer_epochs.entry(p.producer.pid).or_default();
        *e = (*e).max(p.producer.epoch);
        if mode == ReplayMode::Load && !self.design.sc_replay_pending {
            // Today's `replay()` ignores the producer id: the staged batches are
            // merged as if they were a ShareUpdate.
            let state_epoch = self.current_state_epoch(s, p);
            self.merge_staged(s, &p.batches);
            s.resolved.push(Resolution {
                acks: p.clone(),
                commit: true,
                by_marker: false,
                state_epoch,
                fenced: false,
            });
            return;
        }
        if self.design.marker_match == MarkerMatch::ProducerId {
            // One pending set per producer id at each key, as
            // `pendingTransactionalOffsets` keeps one per producer id and partition.
            s.pending
                .retain(|at, _| at.partition != p.partition || at.key.pid != p.producer.pid);
        }
        match s.pending.get_mut(&p.at()) {
            Some(staged) if self.design.sc_merge_pending => merge_pending(staged, p),
            _ => {
                s.pending.insert(p.at(), p.clone());
            }
        }
    }

    /// A marker resolved `p` (taken out of the pending store): COMMIT applies it to its
    /// key's state, ABORT discards it, and `notify` queues the outcome for its leader.
    fn replay_resolution(&self, p: PendingAcks, commit: bool, s: &mut ShareCoordinatorState) {
        let state_epoch = self.current_state_epoch(s, &p);
        // `sc_state_epoch_fence`: acknowledgements made for the state before an offset
        // reset are not applied to the reinitialised one; the leader that staged them
        // hears they were not applied.
        let fenced = commit && self.design.sc_state_epoch_fence && p.state_epoch < state_epoch;
        if commit && !fenced {
            self.merge_staged(s, &p.batches);
        }
        self.resolved(s, &p, commit && !fenced);
        s.resolved.push(Resolution {
            acks: p,
            commit,
            by_marker: true,
            state_epoch,
            fenced,
        });
    }
}

impl ShareCoordinator {
    /// A staging's answer. With `stage_leader_epoch` it echoes the staging's leader epoch
    /// (as `WriteShareGroupStateResponse` answers for the writer's), so that only the
    /// leader of that epoch takes it and a replaced one learns it is fenced; the share
    /// coordinator cannot know whether the leadership will move, so it echoes every time.
    fn reply(
        &self,
        o: &mut Out<impl Host>,
        dst: Id,
        req: &TxnShareAcknowledgeRequest,
        error: ErrorCode,
    ) {
        o.send(dst, req.response(error));
    }
}

/// Whether the log holds a staging of `pid` after its last marker (the producer state's
/// ongoing transaction, `ProducerStateEntry.currentTxnFirstOffset`).
fn ongoing_in_log(log: &[ShareRecord], pid: ProducerId) -> bool {
    for record in log.iter().rev() {
        match record {
            ShareRecord::TxnAcks(p) if p.producer.pid == pid => return true,
            ShareRecord::TxnMarker { producer, .. } if producer.pid == pid => return false,
            _ => {}
        }
    }
    false
}

/// `sc_merge_pending`: a later staging of the same transaction adds its batches to the
/// staged ones, an offset staged again taking the later batch (a resent staging carries
/// the same); the leader to tell is the later one's if it asked.
fn merge_pending(staged: &mut PendingAcks, later: &PendingAcks) {
    staged
        .batches
        .retain(|b| later.batches.iter().all(|l| l.offset != b.offset));
    staged.batches.extend(later.batches.iter().copied());
    staged.batches.sort_by_key(|b| b.offset);
    staged.notify = later.notify.or(staged.notify);
    // The merged acknowledgements are as old as their oldest part: a part staged before an
    // offset reset must not pass the fence by the later part's epoch.
    staged.state_epoch = staged.state_epoch.min(later.state_epoch);
}
