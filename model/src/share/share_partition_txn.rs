//! KIP-1289 at the share-partition leader (`stage_at_leader`): the TX_PENDING record
//! state of the draft PR apache/kafka#22357 and what moves a record in and out of it.
//!
//! * TxnShareAcknowledge arrives at the leader. It validates the acknowledgements as the
//!   design's `stage_owner_check` says, moves each record ACQUIRED -> TX_PENDING (its lock
//!   is cancelled: TX_PENDING is out of lock expiry and out of acquisition), and stages the
//!   acknowledgements at the share coordinator under the producer id and epoch (the
//!   coordinator's transactional path). The client's answer waits for that write; a failed
//!   write rolls the record back to ACQUIRED with a new lock, except a retriable one
//!   (NETWORK_EXCEPTION: the coordinator's verification timed out), which is sent again.
//! * The outcome reaches the leader as `leader_resolution` says: never (until a restart),
//!   by `refresh` (re-read the persisted state; ACKNOWLEDGED/ARCHIVED is a commit, anything
//!   else an abort), or by the coordinator's `notify` (an explicit COMMIT or ABORT). A
//!   commit makes the record ACKNOWLEDGED (ARCHIVED for REJECT); the coordinator already
//!   persisted it. An abort releases it (AVAILABLE, or ARCHIVED at the delivery limit; the
//!   delivery count is not refunded), which the leader persists as a lock expiry does.
//! * `rebuild_pending`: a new leader asks the coordinator for the pending acknowledgements
//!   and loads those records TX_PENDING instead of AVAILABLE.

use crate::design::spl_knobs::{LeaderResolution, StageOwnerCheck};
use crate::protocol::error::ErrorCode;
use crate::protocol::ghost::Ghost;
use crate::protocol::ids::{GroupId, TxnTag};
use crate::protocol::msg::{Msg, ProducerIdAndEpoch, Timer};
use crate::protocol::output::Host;
use crate::protocol::record_state::{released, AckType, RecordState};
use crate::protocol::share_msg::{
    Acknowledgement, AcquiredRecord, DeliveryTag, ReadShareGroupStateResponse,
};
use crate::protocol::share_state::{ShareState, StateBatch};
use crate::protocol::txn_share_msg::*;
use crate::protocol::width::Offset;
use crate::share::share_coordinator_txn::PendingAcks;
use crate::share::share_partition::{
    InFlightRecord, ShareEvent, SharePartition, SharePartitionState,
};
use serde::{Deserialize, Serialize};
use stateright::actor::{Id, Out};
use std::time::Duration;

/// A transactional acknowledgement staged on a TX_PENDING record (the draft's staged
/// producer id and epoch in `InFlightState`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Staged {
    /// The producer id and epoch it was staged with.
    pub producer: ProducerIdAndEpoch,
    /// The acknowledgement type (ACCEPT or REJECT commit to ACKNOWLEDGED or ARCHIVED).
    pub ack: AckType,
    /// Ghost: the client attempt that staged it (never read by protocol logic).
    pub tag: Ghost<TxnTag>,
    /// The staging write to the share coordinator while it is unanswered; `None` once the
    /// staging is durable.
    pub forward: Option<TxnShareAcknowledgeRequest>,
    /// The client waiting for the staging's answer.
    pub reply: Option<Id>,
}

impl SharePartition {
    /// TxnShareAcknowledge at the leader: validate, move to TX_PENDING, stage at the SC.
    pub(crate) fn on_txn_share_acknowledge<A: Host>(
        &self,
        s: &mut SharePartitionState,
        src: Id,
        req: TxnShareAcknowledgeRequest,
        o: &mut Out<A>,
    ) {
        if !self.design.stage_at_leader {
            return;
        }
        // The leader's share partition is one `SharePartitionKey` (group, topic,
        // partition): another group's acknowledgements name a share partition this
        // broker does not have, as `SharePartitionManager.acknowledge` answers a group
        // it holds no partition of (1eb7644, `testAcknowledgeIncorrectGroupId`).
        if req.group != self.group {
            answer(
                src,
                (req.producer, req.group),
                ErrorCode::UnknownTopicOrPartition,
                o,
            );
            return;
        }
        let acks: Vec<_> = req
            .acks
            .iter()
            .filter(|a| a.offset >= s.start_offset)
            .copied()
            .collect();
        if Self::is_restaged(s, &req, &acks) {
            Self::on_restaged(s, src, &req, &acks, o);
            return;
        }
        if !self.acks_valid(s, &req, &acks) {
            s.events.push(ShareEvent::AckRejected { plain: None });
            answer(
                src,
                (req.producer, req.group),
                ErrorCode::InvalidRecordState,
                o,
            );
            return;
        }
        self.stage_acks(s, src, &req, &acks, o);
    }

    /// Whether the staging is a resent one of what is already TX_PENDING for this
    /// producer, which is idempotent.
    fn is_restaged(
        s: &SharePartitionState,
        req: &TxnShareAcknowledgeRequest,
        acks: &[Acknowledgement],
    ) -> bool {
        !acks.is_empty()
            && acks.iter().all(|a| {
                s.records.get(&a.offset).is_some_and(|r| {
                    r.state == RecordState::TxPending
                        && r.staged
                            .as_ref()
                            .is_some_and(|st| st.producer == req.producer)
                })
            })
    }

    /// A resent staging: answered at once if the first one is durable, else its answer
    /// goes to `src` when the share coordinator's arrives.
    fn on_restaged<A: Host>(
        s: &mut SharePartitionState,
        src: Id,
        req: &TxnShareAcknowledgeRequest,
        acks: &[Acknowledgement],
        o: &mut Out<A>,
    ) {
        let durable = acks.iter().all(|a| {
            s.records[&a.offset]
                .staged
                .as_ref()
                .is_some_and(|st| st.forward.is_none())
        });
        if durable {
            answer(src, (req.producer, req.group), ErrorCode::None, o);
        } else {
            for a in acks {
                if let Some(st) = s.records.get_mut(&a.offset).and_then(|r| r.staged.as_mut()) {
                    st.reply = Some(src);
                }
            }
        }
    }

    /// Whether every acknowledgement is of a record ACQUIRED by the sender (as
    /// `stage_owner_check` judges it) and not in a transaction already; none is invalid.
    fn acks_valid(
        &self,
        s: &SharePartitionState,
        req: &TxnShareAcknowledgeRequest,
        acks: &[Acknowledgement],
    ) -> bool {
        !acks.is_empty()
            && !self.names_a_record_twice(acks)
            && acks.iter().all(|a| {
                s.records.get(&a.offset).is_some_and(|r| {
                    r.state == RecordState::Acquired
                        && r.ongoing.is_none()
                        && self.owner_ok(r, req, a.offset)
                })
            })
    }

    /// `stage_owner_check=acquisition`: a request acknowledging one record twice (two
    /// deliveries of it, to two members of a shuffle, docs/kafka-cases.md S22) is refused,
    /// since its acquisitions are named per offset and an older delivery's acknowledgement
    /// would pass as the current one's (`ack_owner`, simulator seed 751 on `flink-shuffle`).
    fn names_a_record_twice(&self, acks: &[Acknowledgement]) -> bool {
        self.design.stage_owner_check == StageOwnerCheck::Acquisition
            && acks
                .iter()
                .enumerate()
                .any(|(i, a)| acks[..i].iter().any(|b| b.offset == a.offset))
    }

    /// Moves each acknowledged record ACQUIRED -> TX_PENDING (its lock cancelled) and
    /// stages the acknowledgements at the share coordinator, with the leader's own
    /// delivery counts.
    fn stage_acks<A: Host>(
        &self,
        s: &mut SharePartitionState,
        src: Id,
        req: &TxnShareAcknowledgeRequest,
        acks: &[Acknowledgement],
        o: &mut Out<A>,
    ) {
        let forward = self.staging_request(s, req, acks);
        for a in acks {
            let r = s.records.get_mut(&a.offset).expect("validated");
            s.events.push(ShareEvent::AckApplied {
                offset: a.offset,
                ack: a.tag,
                acquisition: DeliveryTag {
                    member: r.member.unwrap_or(req.member),
                    delivery_count: r.delivery_count,
                },
                transactional: true,
            });
            s.transitions.push((r.state, RecordState::TxPending));
            r.state = RecordState::TxPending;
            r.staged = Some(Staged {
                producer: req.producer,
                ack: a.ack,
                tag: req.tag,
                forward: Some(forward.clone()),
                reply: Some(src),
            });
            o.cancel_timer(Timer::AcquisitionLock(a.offset));
        }
        o.send(self.share_coordinator, Msg::TxnShareAcknowledge(forward));
        o.set_timer(Timer::StageRetry, immediate());
    }

    /// The staging the leader sends the share coordinator for the client's request.
    fn staging_request(
        &self,
        s: &SharePartitionState,
        req: &TxnShareAcknowledgeRequest,
        acks: &[Acknowledgement],
    ) -> TxnShareAcknowledgeRequest {
        // The leader's own delivery counts, which the share coordinator writes with the
        // acknowledgements (the client's copy is only what it was handed).
        let deliveries = acks
            .iter()
            .filter_map(|a| {
                s.records.get(&a.offset).map(|r| AcquiredRecord {
                    offset: a.offset,
                    delivery_count: r.delivery_count,
                })
            })
            .collect();
        // `strict_wire_format`: the share coordinator reads no member (docs/wire.md).
        let (member, members) = if self.design.strict_wire_format {
            (crate::protocol::ids::MemberId::NONE, Vec::new())
        } else {
            (req.member, req.members.clone())
        };
        TxnShareAcknowledgeRequest {
            member,
            members,
            acks: acks.to_vec(),
            deliveries,
            notify: self.design.leader_resolution == LeaderResolution::Notify,
            leader_epoch: self.design.stage_leader_epoch.then_some(s.leader_epoch),
            state_epoch: self.design.sc_state_epoch_fence.then_some(s.state_epoch),
            ..req.clone()
        }
    }

    fn owner_ok(
        &self,
        r: &InFlightRecord,
        req: &TxnShareAcknowledgeRequest,
        offset: Offset,
    ) -> bool {
        match self.design.stage_owner_check {
            StageOwnerCheck::None => true,
            StageOwnerCheck::MemberEpoch => r.member == Some(req.member),
            StageOwnerCheck::Acquisition => {
                // Each acknowledgement against its own member's acquisition: the request's
                // member, or the one it names for that offset (several members' acks in one
                // transaction, docs/kafka-cases.md S22).
                let member = req
                    .members
                    .iter()
                    .find(|m| m.offset == offset)
                    .map_or(req.member, |m| m.member);
                r.member == Some(member)
                    && req
                        .deliveries
                        .iter()
                        .any(|d| d.offset == offset && d.delivery_count == r.delivery_count)
            }
        }
    }

    /// The share coordinator answered a staging: durable, sent again (a retriable error), or
    /// rolled back.
    pub(crate) fn on_stage_response<A: Host>(
        &self,
        s: &mut SharePartitionState,
        r: TxnShareAcknowledgeResponse,
        o: &mut Out<A>,
    ) {
        // `stage_leader_epoch`: only the answer to this leader epoch's own staging (an
        // earlier incarnation's is not this one's, as for WriteShareGroupState).
        if r.leader_epoch.is_some_and(|e| e != s.leader_epoch) {
            return;
        }
        if r.leader_epoch.is_some_and(|e| self.replaced(s, e, r.error)) {
            self.fence(s, o);
            return;
        }
        // `sc_state_epoch_fence`: an offset reset reinitialised the state since the load.
        if r.error == ErrorCode::FencedStateEpoch {
            self.reinitialise(s, o);
            return;
        }
        let offsets = forwarded_stagings(s, r.producer);
        if !offsets.is_empty() && r.error.is_retriable() {
            self.resend_stagings(s, &offsets, o);
            return;
        }
        let mut client = None;
        for offset in &offsets {
            let rec = s.records.get_mut(offset).expect("listed");
            let st = rec.staged.as_mut().expect("listed");
            client = client.or(st.reply.take());
            if r.error == ErrorCode::None {
                st.forward = None;
            } else {
                // `rollbackState`: back to ACQUIRED by the same member, with a new lock.
                rec.staged = None;
                s.transitions.push((rec.state, RecordState::Acquired));
                rec.state = RecordState::Acquired;
                o.set_timer(Timer::AcquisitionLock(*offset), immediate());
            }
        }
        if offsets.is_empty() {
            return;
        }
        if !has_unstaged(s) {
            o.cancel_timer(Timer::StageRetry);
        }
        if r.error == ErrorCode::None && self.design.leader_resolution == LeaderResolution::Refresh
        {
            o.set_timer(Timer::TxnRefresh, immediate());
        }
        if self.design.leader_resolution == LeaderResolution::RefreshGuarded
            && !has_unstaged(s)
            && has_durable_pending(s)
        {
            // `persistStaging` ends the `stagingWrites` guard on success or failure alike,
            // and a refresh the guard skipped is due once no staging is in flight.
            o.set_timer(Timer::TxnRefresh, immediate());
        }
        if let Some(client) = client {
            answer(client, (r.producer, r.group), r.error, o);
        }
    }

    /// The coordinator's verification timed out (NETWORK_EXCEPTION): the stagings of
    /// `offsets` are sent again, as the persister retries a retriable error, rather than
    /// rolled back. A copy still on its way may yet be verified and staged, and a rollback
    /// would leave it pending behind the leader's back, its late answer taken for the
    /// answer to the client's next staging (simulator seed 32665).
    fn resend_stagings<A: Host>(
        &self,
        s: &SharePartitionState,
        offsets: &[Offset],
        o: &mut Out<A>,
    ) {
        let mut resent: Vec<&TxnShareAcknowledgeRequest> = Vec::new();
        for offset in offsets {
            let st = s.records[offset].staged.as_ref().expect("listed");
            if let Some(f) = st.forward.as_ref().filter(|f| !resent.contains(f)) {
                resent.push(f);
            }
        }
        for f in resent {
            o.send(self.share_coordinator, Msg::TxnShareAcknowledge(f.clone()));
        }
    }

    /// `notify`: the share coordinator's explicit outcome.
    pub(crate) fn on_acks_resolved<A: Host>(
        &self,
        s: &mut SharePartitionState,
        src: Id,
        r: TxnShareAcksResolvedRequest,
        o: &mut Out<A>,
    ) {
        // `stage_leader_epoch`: an outcome sent for a newer leader epoch tells this leader
        // it was replaced (another broker read the state since); it applies and answers
        // nothing (the new leader is told), as it reacts to FENCED_LEADER_EPOCH.
        if r.leader_epoch.is_some_and(|e| e > s.leader_epoch) {
            self.fence(s, o);
            return;
        }
        let offsets: Vec<Offset> = r
            .offsets
            .iter()
            .copied()
            .filter(|offset| {
                s.records.get(offset).is_some_and(|rec| {
                    rec.state == RecordState::TxPending
                        && rec
                            .staged
                            .as_ref()
                            .is_some_and(|st| st.producer == r.producer)
                })
            })
            .collect();
        self.resolve(s, &offsets, r.commit, o);
        o.send(
            src,
            Msg::TxnShareAcksResolvedResponse(TxnShareAcksResolvedResponse {
                producer: r.producer,
                answered: self
                    .design
                    .outcome_per_transaction
                    .then(|| (r.commit, r.offsets.clone())),
                // The share coordinator retires nothing for a replaced leader's answer.
                leader_epoch: self.design.stage_leader_epoch.then_some(s.leader_epoch),
            }),
        );
    }

    /// Timers of the transactional path: the staging resend and `refresh()`.
    pub(crate) fn on_txn_timeout<A: Host>(
        &self,
        s: &mut SharePartitionState,
        timer: Timer,
        o: &mut Out<A>,
    ) {
        match timer {
            Timer::StageRetry => {
                let mut sent: Vec<&TxnShareAcknowledgeRequest> = Vec::new();
                for rec in s.records.values() {
                    if let Some(f) = rec.staged.as_ref().and_then(|st| st.forward.as_ref()) {
                        if !sent.contains(&f) {
                            sent.push(f);
                        }
                    }
                }
                for f in &sent {
                    o.send(
                        self.share_coordinator,
                        Msg::TxnShareAcknowledge((*f).clone()),
                    );
                }
                if !sent.is_empty() {
                    o.set_timer(Timer::StageRetry, immediate());
                }
            }
            Timer::TxnRefresh if s.loaded && !s.refreshing && has_durable_pending(s) => {
                let guarded = self.design.leader_resolution == LeaderResolution::RefreshGuarded;
                if guarded {
                    // The draft's `refresh()`: "a read before a stage becomes durable must
                    // not mistake AVAILABLE for an abort", so no read while one is in flight.
                    if has_unstaged(s) {
                        return;
                    }
                    s.refresh_pending = durable_pending(s);
                }
                s.refreshing = true;
                self.send_refresh_read(s, self.read_retries, o);
            }
            _ => {}
        }
    }

    /// Sends the refresh's ReadShareGroupState, armed with its request timeout
    /// (`PersisterStateManager.ReadStateHandler`: a read that times out or is disconnected
    /// is REQUEST_TIMED_OUT / NETWORK_EXCEPTION, retriable), `retries` resends left.
    fn send_refresh_read<A: Host>(&self, s: &mut SharePartitionState, retries: u8, o: &mut Out<A>) {
        let guarded = self.design.leader_resolution == LeaderResolution::RefreshGuarded;
        s.refresh_retries = retries;
        self.read_state(s.leader_epoch, guarded, guarded, o);
        o.set_timer(Timer::ReadStateTimeout, immediate());
    }

    /// The refresh's read got no answer in its request timeout: `ReadStateHandler` sends
    /// it again while it has attempts left (`ExponentialBackoffManager.canAttempt`, at most
    /// `maxRPCRetryAttempts`), then fails the read's future, which the refresh takes as a
    /// failed read ([`Self::fail_refresh`]). A late answer to a resent read is the same
    /// read's answer, since the read was sent after the refresh took its pending records.
    pub(crate) fn on_refresh_timeout<A: Host>(&self, s: &mut SharePartitionState, o: &mut Out<A>) {
        match s.refresh_retries.checked_sub(1) {
            Some(left) => self.send_refresh_read(s, left, o),
            None => self.fail_refresh(s, o),
        }
    }

    /// A refresh's read failed (an answer without state, or no answer after its last
    /// attempt). Under `refresh-guarded`, `completeRefresh` clears the refresh in flight on
    /// a failed read, and a later `refresh()` reads again; under `refresh` (the earlier
    /// draft) the read stays marked in flight (docs/conformance.md DR-3).
    fn fail_refresh<A: Host>(&self, s: &mut SharePartitionState, o: &mut Out<A>) {
        s.refresh_retries = 0;
        if self.design.leader_resolution == LeaderResolution::RefreshGuarded {
            s.refreshing = false;
            s.refresh_pending.clear();
            o.set_timer(Timer::TxnRefresh, immediate());
        }
    }

    /// `refresh()`'s answer: persisted ACKNOWLEDGED/ARCHIVED is taken as a commit, anything
    /// else as an abort. Records whose staging is not yet durable are left alone (the
    /// draft's `stagingWrites` guard).
    pub(crate) fn on_refresh<A: Host>(
        &self,
        s: &mut SharePartitionState,
        r: ReadShareGroupStateResponse,
        o: &mut Out<A>,
    ) {
        let guarded = self.design.leader_resolution == LeaderResolution::RefreshGuarded;
        o.cancel_timer(Timer::ReadStateTimeout);
        let Some(state) = r.state else {
            self.fail_refresh(s, o);
            return;
        };
        s.refreshing = false;
        s.refresh_retries = 0;
        if guarded {
            self.on_guarded_refresh(s, &state, &r.pending, o);
            return;
        }
        let durable: Vec<Offset> = s
            .records
            .iter()
            .filter(|(_, rec)| {
                rec.state == RecordState::TxPending
                    && rec.staged.as_ref().is_some_and(|st| st.forward.is_none())
            })
            .map(|(offset, _)| *offset)
            .collect();
        let (committed, aborted): (Vec<Offset>, Vec<Offset>) = durable
            .into_iter()
            .partition(|offset| state.is_terminal(*offset));
        self.resolve(s, &committed, true, o);
        self.resolve(s, &aborted, false, o);
    }

    /// `refresh-guarded`'s answer (the draft's `completeRefresh`): of the records pending
    /// when the read was sent, those still staged by the same producer id and epoch
    /// (`applyPersistedTxnState`) are resolved by `finalState`: below the start offset or
    /// ACKNOWLEDGED/ARCHIVED is a commit, AVAILABLE an abort, and an offset the share
    /// coordinator still holds pending (its form of a persisted TX_PENDING batch) nothing.
    fn on_guarded_refresh<A: Host>(
        &self,
        s: &mut SharePartitionState,
        state: &ShareState,
        pending: &[PendingAcks],
        o: &mut Out<A>,
    ) {
        let mut committed = Vec::new();
        let mut aborted = Vec::new();
        for (offset, producer) in std::mem::take(&mut s.refresh_pending) {
            let still_staged = s.records.get(&offset).is_some_and(|rec| {
                rec.state == RecordState::TxPending
                    && rec
                        .staged
                        .as_ref()
                        .is_some_and(|st| st.producer == producer)
            });
            let held = pending
                .iter()
                .any(|p| p.batches.iter().any(|b| b.offset == offset));
            if !still_staged || held {
                continue;
            }
            // The model's share coordinator keeps a staging apart from the persisted
            // batches and an abort drops it, leaving the offset as it was before: AVAILABLE
            // or not persisted at all, which a load also reads as AVAILABLE.
            if state.is_terminal(offset) {
                committed.push(offset);
            } else {
                aborted.push(offset);
            }
        }
        self.resolve(s, &committed, true, o);
        self.resolve(s, &aborted, false, o);
        if has_durable_pending(s) {
            // A record the read left TX_PENDING (its transaction still open) is read again
            // later: the draft's caller refreshes again (its trigger is not in the draft's
            // test; the timer stands for any later one).
            o.set_timer(Timer::TxnRefresh, immediate());
        }
    }

    /// Applies an outcome to TX_PENDING records: COMMIT to the staged ack's target, ABORT
    /// to released (persisted, as a lock expiry is).
    fn resolve<A: Host>(
        &self,
        s: &mut SharePartitionState,
        offsets: &[Offset],
        commit: bool,
        o: &mut Out<A>,
    ) {
        let mut releases = Vec::new();
        for offset in offsets {
            let Some(rec) = s.records.get_mut(offset) else {
                continue;
            };
            let Some(st) = rec.staged.take() else {
                continue;
            };
            let to = if commit {
                st.ack
                    .target(rec.delivery_count, self.delivery_limit)
                    .unwrap_or(RecordState::Acquired)
            } else {
                released(rec.delivery_count, self.delivery_limit)
            };
            s.transitions.push((rec.state, to));
            rec.state = to;
            if to == RecordState::Acquired {
                o.set_timer(Timer::AcquisitionLock(*offset), immediate());
                continue;
            }
            rec.member = None;
            // A committed RELEASE at the delivery count limit archives the record here, and
            // the share coordinator, which stored it AVAILABLE, is told as for an abort's
            // release (`SharePartition.acknowledge` archives a RELEASE at the limit, 1eb7644).
            let limit_release = commit && st.ack == AckType::Release && to == RecordState::Archived;
            if !commit || limit_release {
                if to == RecordState::Archived {
                    s.events.push(ShareEvent::LimitArchived);
                }
                releases.push(StateBatch {
                    offset: *offset,
                    state: to,
                    delivery_count: rec.delivery_count,
                });
            }
        }
        if !releases.is_empty() {
            self.write(s, releases, None, o);
        }
        self.advance_start(s);
        self.wake(s, o);
    }

    /// `rebuild_pending` at load: records with acknowledgements pending at the share
    /// coordinator are TX_PENDING (durable), not AVAILABLE.
    pub(crate) fn rebuild_pending<A: Host>(
        &self,
        s: &mut SharePartitionState,
        pending: &[PendingAcks],
        o: &mut Out<A>,
    ) {
        if !self.design.rebuild_pending {
            return;
        }
        for p in pending {
            for b in &p.batches {
                let Some(rec) = s.records.get_mut(&b.offset) else {
                    continue;
                };
                if rec.state.is_terminal() {
                    continue;
                }
                rec.state = RecordState::TxPending;
                rec.delivery_count = rec.delivery_count.max(b.delivery_count);
                rec.staged = Some(Staged {
                    producer: p.producer,
                    // The staged batch's state is the staged type's target (`ack_batch`):
                    // a RELEASE is stored AVAILABLE (docs/kafka-cases.md S21).
                    ack: match b.state {
                        RecordState::Archived => AckType::Reject,
                        RecordState::Available => AckType::Release,
                        _ => AckType::Accept,
                    },
                    tag: p.tag,
                    forward: None,
                    reply: None,
                });
            }
        }
        if self.design.leader_resolution.refreshes() && has_durable_pending(s) {
            o.set_timer(Timer::TxnRefresh, immediate());
        }
    }
}

/// Whether the leader holds a client's TxnShareAcknowledge while staging it.
pub(crate) fn holds_reply(s: &SharePartitionState, client: Id) -> bool {
    s.records
        .values()
        .any(|r| r.staged.as_ref().is_some_and(|st| st.reply == Some(client)))
}

/// KIP-1289: a client's parked poll will be answered once a TX_PENDING record's outcome
/// arrives (a commit moves the start offset, an abort makes the record available), so it
/// is not the empty `poll` that ends the client's loop: a real consumer polls again.
pub(crate) fn answers_parked(s: &SharePartitionState, client: Id) -> bool {
    s.parked.iter().any(|(src, _, _)| *src == client)
        && s.records
            .values()
            .any(|r| r.state == RecordState::TxPending)
}

/// Whether a staging is still to be sent or answered at the share coordinator.
pub(crate) fn has_unstaged(s: &SharePartitionState) -> bool {
    s.records
        .values()
        .any(|r| r.staged.as_ref().is_some_and(|st| st.forward.is_some()))
}

fn has_durable_pending(s: &SharePartitionState) -> bool {
    s.records.values().any(|r| {
        r.state == RecordState::TxPending
            && r.staged.as_ref().is_some_and(|st| st.forward.is_none())
    })
}

/// The records TX_PENDING with a durable staging, with its producer (the draft's
/// `pendingRecords()`).
fn durable_pending(s: &SharePartitionState) -> Vec<(Offset, ProducerIdAndEpoch)> {
    s.records
        .iter()
        .filter_map(|(offset, r)| {
            let st = r.staged.as_ref()?;
            (r.state == RecordState::TxPending && st.forward.is_none())
                .then_some((*offset, st.producer))
        })
        .collect()
}

fn answer<A: Host>(
    client: Id,
    to: (ProducerIdAndEpoch, GroupId),
    error: ErrorCode,
    o: &mut Out<A>,
) {
    let (producer, group) = to;
    o.send(
        client,
        Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
            producer,
            error,
            group,
            leader_epoch: None,
        }),
    );
}

fn immediate() -> std::ops::Range<Duration> {
    Duration::ZERO..Duration::ZERO
}

/// The offsets whose staging by `producer` was forwarded to the share coordinator and is
/// unanswered.
fn forwarded_stagings(s: &SharePartitionState, producer: ProducerIdAndEpoch) -> Vec<Offset> {
    let forwarded = |rec: &&InFlightRecord| {
        rec.staged
            .as_ref()
            .is_some_and(|st| st.producer == producer && st.forward.is_some())
    };
    let records = s.records.iter().filter(|(_, rec)| forwarded(rec));
    records.map(|(offset, _)| *offset).collect()
}
