//! The share-partition leader (SPL): the input partition's leader and, in memory, its
//! `SharePartition` for the share group: the in-flight records between the share-partition
//! start offset (SPSO) and the end of the input log, each with its `RecordState`, delivery
//! count, the member holding it, and the state transition in progress.
//!
//! * ShareFetch acquires AVAILABLE records for the member (delivery count +1, an
//!   acquisition lock per offset; acquisition is not persisted), or waits (long poll) until
//!   some become available. Acknowledgements piggyback on it or come in ShareAcknowledge.
//! * Both run inside a share session: epoch 0 opens one, then each request carries the next
//!   epoch; a stale or repeated request is INVALID_SHARE_SESSION_EPOCH, and an unknown
//!   session (after a restart) SHARE_SESSION_NOT_FOUND.
//! * Acknowledgements are validated as a whole (the member holds the acquisition, the
//!   record is ACQUIRED, no transition in progress; else INVALID_RECORD_STATE), then take
//!   two phases: start the transition, WriteShareGroupState, complete it when the write
//!   succeeds or roll it back when it fails. The answer waits for the write.
//! * A lock expiry makes the record AVAILABLE (ARCHIVED at the delivery limit) at once and
//!   writes that; the move stands whatever the write's outcome.
//! * A start is a leader failover: a new leader epoch (durable), ReadShareGroupState, and
//!   requests wait until the state is loaded. Nothing is ACQUIRED after a load: in-flight
//!   deliveries and their delivery counts are what Kafka loses on failover.
//!
//! The persister retries a write whose answer does not come (`PersisterStateManager`
//! retries with backoff; the model's losses are bounded, so its retries need no bound).

use crate::design::Design;
use crate::protocol::error::ErrorCode;
use crate::protocol::ghost::Ghost;
use crate::protocol::ids::{GroupId, MemberId};
use crate::protocol::msg::{Msg, ProducerIdAndEpoch, Timer};
use crate::protocol::output::{Host, Saves};
use crate::protocol::record_state::{released, AckType, RecordState};
use crate::protocol::share_msg::*;
use crate::protocol::share_state::{ShareState, StateBatch};
use crate::protocol::width::{Counter, Epoch, Offset};
use crate::share::share_coordinator_txn::PendingAcks;
use crate::share::share_partition_txn::Staged;
use serde::{Deserialize, Serialize};
use stateright::actor::{Id, Out};
use std::collections::BTreeMap;
use std::time::Duration;

/// A state transition waiting for its write (`InFlightState.rollbackState`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Ongoing {
    /// The acknowledgement that started it.
    pub ack: AckType,
    /// The state it moves to when the write succeeds.
    pub target: RecordState,
    /// The write it waits for.
    pub write: Counter,
    /// The acquisition lock expired meanwhile: a rollback releases the record.
    pub lock_expired: bool,
}

/// One in-flight offset (`InFlightState`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct InFlightRecord {
    /// The record's state.
    pub state: RecordState,
    /// Deliveries so far, as this leader knows them.
    pub delivery_count: u8,
    /// The member holding the acquisition.
    pub member: Option<MemberId>,
    /// The transition in progress, if any.
    pub ongoing: Option<Ongoing>,
    /// KIP-1289: the transactional acknowledgement staged on a TX_PENDING record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staged: Option<Staged>,
}

/// What the share-partition leader did, for the history (drained by the `System` into an
/// `Observation` after every handler; never stored).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ShareEvent {
    /// A record was acquired: a delivery.
    Acquired {
        /// The offset.
        offset: Offset,
        /// The delivery.
        tag: DeliveryTag,
    },
    /// An acquisition lock expired on an ACQUIRED record held by `member`.
    LockExpired {
        /// The offset.
        offset: Offset,
        /// The member that held it.
        member: MemberId,
    },
    /// An acknowledgement was applied to an acquisition.
    AckApplied {
        /// The offset.
        offset: Offset,
        /// The delivery the acknowledgement was made for.
        ack: Ghost<DeliveryTag>,
        /// The acquisition it was applied to.
        acquisition: DeliveryTag,
        /// It was staged in a transaction (KIP-1289's TxnShareAcknowledge), so it commits
        /// with the outputs of the delivery it was made for; else a ShareFetch or
        /// ShareAcknowledge applied it outright.
        transactional: bool,
    },
    /// A plain acknowledgement (ShareFetch, ShareAcknowledge) made a record terminal: the
    /// state write of its transition completed.
    PlainSettled {
        /// The offset.
        offset: Offset,
        /// The member whose acquisition it settled.
        member: Option<MemberId>,
        /// ACKNOWLEDGED or ARCHIVED.
        state: RecordState,
    },
    /// Acknowledgements were rejected with INVALID_RECORD_STATE.
    AckRejected {
        /// For plain acknowledgements (ShareFetch, ShareAcknowledge), the request's member
        /// and the records they named, as the leader held them when it rejected them, so
        /// that `ack_owner` can tell a late acknowledgement from one of records the member
        /// still holds; `None` for a transactional one (TxnShareAcknowledge).
        plain: Option<(MemberId, Vec<Option<InFlightRecord>>)>,
    },
    /// A record was archived because its delivery count reached the limit.
    LimitArchived,
    /// The leader loaded its state from the share coordinator; `terminal` when that state
    /// had an ACKNOWLEDGED or ARCHIVED record.
    Loaded {
        /// The loaded state had a terminal record.
        terminal: bool,
        /// The delivery count the leader starts from, per offset it will deliver.
        counts: Vec<(Offset, u8)>,
    },
}

/// A consumer request waiting for a write before it is answered.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Reply {
    /// The consumer.
    pub src: Id,
    /// Its request.
    pub request: Msg,
}

/// A write sent to the share coordinator and not yet answered.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PendingWrite {
    /// The request (resent as it is by the persister).
    pub request: WriteShareGroupStateRequest,
    /// The consumer request answered when the write returns (none for lock expiry).
    pub reply: Option<Reply>,
}

/// The share-partition leader's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SharePartitionState {
    /// This leader's epoch (durable; bumped by every start).
    pub leader_epoch: Epoch,
    /// The state has been read from the share coordinator.
    pub loaded: bool,
    /// The share-partition start offset.
    pub start_offset: Offset,
    /// In-flight records from the start offset to the log end, by offset.
    pub records: BTreeMap<Offset, InFlightRecord>,
    /// Open share sessions: the epoch each member's next request must carry.
    pub sessions: BTreeMap<MemberId, Counter>,
    /// Requests that arrived before the state was loaded.
    pub loading: Vec<(Id, Msg)>,
    /// ShareFetches waiting for records (long poll), with their acknowledgements' error.
    pub parked: Vec<(Id, ShareFetchRequest, ErrorCode)>,
    /// Writes in flight, by number.
    pub writes: BTreeMap<Counter, PendingWrite>,
    /// The next write's number.
    pub next_write: Counter,
    /// KIP-1289 `refresh`: a re-read of the persisted state is in flight.
    #[serde(default, skip_serializing_if = "is_false")]
    pub refreshing: bool,
    /// KIP-1289 `refresh-guarded`: the records pending and durable when the read in flight
    /// was sent, with the producer each was staged by (the draft's `pendingRecords()`);
    /// only these may be resolved by its answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refresh_pending: Vec<(Offset, ProducerIdAndEpoch)>,
    /// How often the refresh's read in flight may still be sent again after its request
    /// timeout (`ReadStateHandler`'s attempts left) before it fails.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub refresh_retries: u8,
    /// The share coordinator fenced this leader (FENCED_LEADER_EPOCH): another broker leads
    /// the share partition now. `SharePartitionManager` drops a fenced `SharePartition`
    /// from its cache, so every later request is answered NOT_LEADER_OR_FOLLOWER.
    #[serde(default, skip_serializing_if = "is_false")]
    pub fenced: bool,
    /// The state epoch of the state it loaded (`SharePartition.stateEpoch`), which its
    /// writes carry; an offset reset moves the share coordinator's on (left out at 0).
    #[serde(default, skip_serializing_if = "is_zero_epoch")]
    pub state_epoch: Epoch,
    /// Record moves the current handler made; drained by the `System` for
    /// `legal_transitions`, so stored states have none.
    #[serde(skip)]
    pub transitions: Vec<(RecordState, RecordState)>,
    /// Ghost events of the current handler; drained like `transitions`.
    #[serde(skip)]
    pub events: Vec<ShareEvent>,
}

/// The share-partition leader's configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SharePartition {
    /// The design (its share-group knobs).
    pub design: Design,
    /// The share coordinator.
    pub share_coordinator: Id,
    /// Records in the input log.
    pub records: Offset,
    /// Which share partition of the input topic this leader leads (0 but in `draft-itest`).
    pub index: u8,
    /// The share group whose share partition it leads (its `SharePartitionKey`'s group).
    pub group: GroupId,
    /// The model's offset of this partition's first record: its records are
    /// `first_offset..first_offset + records` ([`crate::world::scenario::Scenario::share_offsets`]).
    pub first_offset: Offset,
    /// `group.share.delivery.count.limit`.
    pub delivery_limit: u8,
    /// How often a refresh's ReadShareGroupState is sent again after its request timeout
    /// before it fails (scenario `read_retries`).
    pub read_retries: u8,
    /// Scenario `spl-move`: the leader the share partition's leadership moves to, with
    /// the partition leader epoch after the first leader's ([`MOVED_LEADER_EPOCH`]).
    pub moves_in: bool,
    /// Scenario `spl-move`: the leader the share partition's leadership moves away from.
    /// At [`Timer::LeaderMove`] its broker applies the metadata that it is a follower now
    /// (`SharePartitionManager`'s leader-change listener), at its own pace: before or
    /// after the new leader applies its own.
    pub moves_out: bool,
}

/// What the share-partition leader saves: its leader epoch, the partition's metadata
/// (durable in Kafka's controller, bumped at each failover).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharePartitionStorage {
    /// The last leader epoch.
    pub leader_epoch: Epoch,
}

/// The partition leader epoch of a moved-in leader: the controller bumps the epoch when
/// leadership moves, and the first leader led at epoch 1 (it cannot crash in `spl-move`,
/// so its epoch never moves on).
pub const MOVED_LEADER_EPOCH: Epoch = 2;

impl SharePartition {
    /// Becomes leader: bumps the leader epoch and reads the share state.
    /// A moved-in leader starts at the controller's next leader epoch
    /// ([`MOVED_LEADER_EPOCH`]): the move is in the metadata from the start, and when it
    /// takes effect is when its ReadShareGroupState reaches the share coordinator, which
    /// the network may delay past any step of the old leader.
    pub fn on_start<A: Saves<SharePartitionStorage>>(
        &self,
        leader_epoch: Option<Epoch>,
        o: &mut Out<A>,
    ) -> SharePartitionState {
        if self.moves_out && leader_epoch.is_none() {
            o.set_timer(Timer::LeaderMove, timeout());
        }
        let first = if self.moves_in { MOVED_LEADER_EPOCH } else { 1 };
        let leader_epoch = leader_epoch.map_or(first, |e| e + 1);
        o.save(SharePartitionStorage { leader_epoch }.into());
        self.read(leader_epoch, o);
        self.follower(leader_epoch)
    }

    /// The state of a leader at `leader_epoch` before its load.
    fn follower(&self, leader_epoch: Epoch) -> SharePartitionState {
        SharePartitionState {
            leader_epoch,
            loaded: false,
            start_offset: 0,
            records: BTreeMap::new(),
            sessions: BTreeMap::new(),
            loading: Vec::new(),
            parked: Vec::new(),
            writes: BTreeMap::new(),
            next_write: 0,
            refreshing: false,
            refresh_pending: Vec::new(),
            refresh_retries: 0,
            fenced: false,
            state_epoch: 0,
            transitions: Vec::new(),
            events: Vec::new(),
        }
    }

    fn read<A: Host>(&self, leader_epoch: Epoch, o: &mut Out<A>) {
        self.read_state(leader_epoch, self.design.rebuild_pending, false, o);
        o.set_timer(Timer::ReadStateTimeout, timeout());
    }

    pub(crate) fn read_state<A: Host>(
        &self,
        leader_epoch: Epoch,
        pending: bool,
        refresh: bool,
        o: &mut Out<A>,
    ) {
        o.send(
            self.share_coordinator,
            Msg::ReadShareGroupState(ReadShareGroupStateRequest {
                leader_epoch,
                pending,
                partition: self.index,
                refresh,
            }),
        );
    }

    /// Handles consumer requests and the share coordinator's answers.
    pub fn on_msg<A: Host>(&self, s: &mut SharePartitionState, src: Id, msg: Msg, o: &mut Out<A>) {
        if s.fenced {
            not_leader(src, &msg, o);
            return;
        }
        match msg {
            Msg::ShareFetch(_)
            | Msg::ShareAcknowledge(_)
            | Msg::TxnShareAcknowledge(_)
            | Msg::TxnShareAcksResolved(_)
                if !s.loaded =>
            {
                s.loading.push((src, msg));
            }
            // The share coordinator has seen a newer leader epoch: another broker leads.
            Msg::WriteShareGroupStateResponse(r) if self.replaced(s, r.leader_epoch, r.error) => {
                self.fence(s, o)
            }
            Msg::ReadShareGroupStateResponse(r) if self.replaced(s, r.leader_epoch, r.error) => {
                self.fence(s, o)
            }
            Msg::TxnShareAcknowledge(req) => self.on_txn_share_acknowledge(s, src, req, o),
            Msg::TxnShareAcknowledgeResponse(r) => self.on_stage_response(s, r, o),
            Msg::TxnShareAcksResolved(r) => self.on_acks_resolved(s, src, r, o),
            Msg::ReadShareGroupStateResponse(r)
                if r.leader_epoch == s.leader_epoch
                    && s.loaded
                    && s.refreshing
                    && r.refresh == self.design.leader_resolution.flags_refresh_reads() =>
            {
                self.on_refresh(s, r, o)
            }
            Msg::ShareFetch(req) => self.on_share_fetch(s, src, req, o),
            Msg::ShareAcknowledge(req) => self.on_share_acknowledge(s, src, req, o),
            Msg::ReadShareGroupStateResponse(r)
                if r.leader_epoch == s.leader_epoch && !s.loaded =>
            {
                if let Some(state) = r.state {
                    o.cancel_timer(Timer::ReadStateTimeout);
                    self.load(s, &state, &r.pending, o);
                }
            }
            // Answers to an earlier leader incarnation are not this leader's.
            Msg::WriteShareGroupStateResponse(r) if r.leader_epoch == s.leader_epoch => {
                self.on_write_response(s, r, o);
            }
            _ => {}
        }
    }

    /// Timers: acquisition locks, and the persister's resends.
    pub fn on_timeout<A: Host>(&self, s: &mut SharePartitionState, timer: Timer, o: &mut Out<A>) {
        if s.fenced {
            return;
        }
        match timer {
            Timer::AcquisitionLock(offset) => self.on_lock_expired(s, offset, o),
            Timer::PersisterTimeout(write) => {
                if let Some(w) = s.writes.get(&write) {
                    o.send(
                        self.share_coordinator,
                        Msg::WriteShareGroupState(w.request.clone()),
                    );
                    o.set_timer(Timer::PersisterTimeout(write), timeout());
                }
            }
            Timer::ReadStateTimeout if !s.loaded => self.read(s.leader_epoch, o),
            Timer::ReadStateTimeout if s.refreshing => self.on_refresh_timeout(s, o),
            // The old leader's broker learns it is a follower now: as when fenced. Only a
            // leader the scenario moves away from arms this timer (`on_start`).
            Timer::LeaderMove => self.fence(s, o),
            Timer::StageRetry | Timer::TxnRefresh => self.on_txn_timeout(s, timer, o),
            _ => {}
        }
    }

    /// Builds the in-flight records from the persisted state (`maybeInitialize`): no member,
    /// so nothing ACQUIRED; an AVAILABLE record at the delivery limit is ARCHIVED.
    fn load<A: Host>(
        &self,
        s: &mut SharePartitionState,
        state: &ShareState,
        pending: &[PendingAcks],
        o: &mut Out<A>,
    ) {
        s.loaded = true;
        s.state_epoch = state.state_epoch;
        // A share partition's state starts at offset 0; the model's offsets of `SP1` and
        // later start at their `first_offset`.
        s.start_offset = state.start_offset.max(self.first_offset);
        let end = self.first_offset + self.records;
        s.records = (s.start_offset..end)
            .map(|offset| {
                let (st, count) = state
                    .state_of(offset)
                    .unwrap_or((RecordState::Available, 0));
                let st = if st == RecordState::Available {
                    released(count, self.delivery_limit)
                } else {
                    st
                };
                (
                    offset,
                    InFlightRecord {
                        state: st,
                        delivery_count: count,
                        member: None,
                        ongoing: None,
                        staged: None,
                    },
                )
            })
            .collect();
        let terminal = (self.first_offset..end).any(|offset| state.is_terminal(offset));
        let counts = s
            .records
            .iter()
            .map(|(offset, r)| (*offset, r.delivery_count))
            .collect();
        s.events.push(ShareEvent::Loaded { terminal, counts });
        self.rebuild_pending(s, pending, o);
        self.advance_start(s);
        for (src, msg) in std::mem::take(&mut s.loading) {
            self.on_msg(s, src, msg, o);
        }
    }

    /// Checks the request's share session epoch and moves the session on.
    fn session(&self, s: &mut SharePartitionState, member: MemberId, epoch: Counter) -> ErrorCode {
        if epoch == 0 {
            s.sessions.insert(member, 1);
            return ErrorCode::None;
        }
        match s.sessions.get_mut(&member) {
            None => ErrorCode::ShareSessionNotFound,
            Some(next) if *next != epoch => ErrorCode::InvalidShareSessionEpoch,
            Some(next) => {
                *next = epoch.saturating_add(1);
                ErrorCode::None
            }
        }
    }

    fn on_share_fetch<A: Host>(
        &self,
        s: &mut SharePartitionState,
        src: Id,
        req: ShareFetchRequest,
        o: &mut Out<A>,
    ) {
        let error = self.session(s, req.member, req.session_epoch);
        if error != ErrorCode::None {
            o.send(
                src,
                fetch_response(&req, error, ErrorCode::None, Vec::new()),
            );
            return;
        }
        let reply = Reply {
            src,
            request: Msg::ShareFetch(req.clone()),
        };
        // Without an error now, the answer waits for the acknowledgements' write.
        if let Some(ack_error) = self.acknowledge(s, req.member, &req.acks, reply, o) {
            self.fetch(s, src, req, ack_error, o);
        }
    }

    fn on_share_acknowledge<A: Host>(
        &self,
        s: &mut SharePartitionState,
        src: Id,
        req: ShareAcknowledgeRequest,
        o: &mut Out<A>,
    ) {
        // Acknowledgements need an open session: epoch 0 would open one.
        let error = if req.session_epoch == 0 {
            ErrorCode::InvalidShareSessionEpoch
        } else {
            self.session(s, req.member, req.session_epoch)
        };
        if error != ErrorCode::None {
            o.send(src, acknowledge_response(&req, error));
            return;
        }
        let reply = Reply {
            src,
            request: Msg::ShareAcknowledge(req.clone()),
        };
        if let Some(ack_error) = self.acknowledge(s, req.member, &req.acks, reply, o) {
            o.send(src, acknowledge_response(&req, ack_error));
        }
    }

    /// Validates and applies acknowledgements. Returns their error when they are done now,
    /// or `None` when a write was issued and `reply` is answered when it returns.
    fn acknowledge<A: Host>(
        &self,
        s: &mut SharePartitionState,
        member: MemberId,
        acks: &[Acknowledgement],
        reply: Reply,
        o: &mut Out<A>,
    ) -> Option<ErrorCode> {
        // Acknowledgements below the start offset are skipped silently.
        let acks: Vec<&Acknowledgement> =
            acks.iter().filter(|a| a.offset >= s.start_offset).collect();
        let valid = acks.iter().all(|a| {
            s.records.get(&a.offset).is_some_and(|r| {
                r.state == RecordState::Acquired
                    && r.ongoing.is_none()
                    && (!self.design.ack_member_check || r.member == Some(member))
            })
        });
        if !valid {
            let held = acks.iter().map(|a| s.records.get(&a.offset).cloned());
            s.events.push(ShareEvent::AckRejected {
                plain: Some((member, held.collect())),
            });
            return Some(ErrorCode::InvalidRecordState);
        }
        let write = s.next_write;
        let mut batches = Vec::new();
        for a in acks {
            let r = s.records.get_mut(&a.offset).expect("validated");
            s.events.push(ShareEvent::AckApplied {
                offset: a.offset,
                ack: a.tag,
                acquisition: DeliveryTag {
                    member: r.member.unwrap_or(member),
                    delivery_count: r.delivery_count,
                },
                transactional: false,
            });
            match a.ack.target(r.delivery_count, self.delivery_limit) {
                None => {
                    // RENEW: the lock starts again; nothing is persisted.
                    o.set_timer(Timer::AcquisitionLock(a.offset), timeout());
                }
                Some(target) => {
                    r.ongoing = Some(Ongoing {
                        ack: a.ack,
                        target,
                        write,
                        lock_expired: false,
                    });
                    batches.push(StateBatch {
                        offset: a.offset,
                        state: target,
                        delivery_count: r.delivery_count,
                    });
                }
            }
        }
        if batches.is_empty() {
            return Some(ErrorCode::None);
        }
        self.write(s, batches, Some(reply), o);
        None
    }

    pub(crate) fn write<A: Host>(
        &self,
        s: &mut SharePartitionState,
        batches: Vec<StateBatch>,
        reply: Option<Reply>,
        o: &mut Out<A>,
    ) {
        let write = s.next_write;
        s.next_write = s.next_write.wrapping_add(1);
        let request = WriteShareGroupStateRequest {
            leader_epoch: s.leader_epoch,
            state_epoch: s.state_epoch,
            write,
            start_offset: s.start_offset,
            batches,
            partition: self.index,
        };
        o.send(
            self.share_coordinator,
            Msg::WriteShareGroupState(request.clone()),
        );
        o.set_timer(Timer::PersisterTimeout(write), timeout());
        s.writes.insert(write, PendingWrite { request, reply });
    }

    fn on_write_response<A: Host>(
        &self,
        s: &mut SharePartitionState,
        r: WriteShareGroupStateResponse,
        o: &mut Out<A>,
    ) {
        let Some(pending) = s.writes.remove(&r.write) else {
            return;
        };
        o.cancel_timer(Timer::PersisterTimeout(r.write));
        let ok = r.error == ErrorCode::None;
        let offsets: Vec<Offset> = s
            .records
            .iter()
            .filter(|(_, rec)| rec.ongoing.is_some_and(|g| g.write == r.write))
            .map(|(offset, _)| *offset)
            .collect();
        for offset in offsets {
            let rec = s.records.get_mut(&offset).expect("listed");
            let ongoing = rec.ongoing.take().expect("listed");
            let to = if ok {
                Some(ongoing.target)
            } else if ongoing.lock_expired {
                Some(released(rec.delivery_count, self.delivery_limit))
            } else {
                None // rolled back: still ACQUIRED, its lock still running
            };
            if let Some(to) = to {
                if ok && to.is_terminal() {
                    s.events.push(ShareEvent::PlainSettled {
                        offset,
                        member: rec.member,
                        state: to,
                    });
                }
                s.transitions.push((rec.state, to));
                rec.state = to;
                rec.member = None;
                if to == RecordState::Archived
                    && ongoing.ack != AckType::Reject
                    && rec.delivery_count >= self.delivery_limit
                {
                    s.events.push(ShareEvent::LimitArchived);
                }
                // KAFKA-19476: the fixed code cancels the lock when the transition completes.
                if !self.design.lock_timer_race && !ongoing.lock_expired {
                    o.cancel_timer(Timer::AcquisitionLock(offset));
                }
            }
        }
        // Persister errors reach the client as NOT_LEADER_OR_FOLLOWER (FENCED_*).
        let ack_error = if ok {
            ErrorCode::None
        } else {
            ErrorCode::NotLeaderOrFollower
        };
        self.advance_start(s);
        if let Some(reply) = pending.reply {
            match reply.request {
                Msg::ShareFetch(req) => self.fetch(s, reply.src, req, ack_error, o),
                Msg::ShareAcknowledge(req) => {
                    o.send(reply.src, acknowledge_response(&req, ack_error))
                }
                _ => {}
            }
        }
        self.wake(s, o);
    }

    fn on_lock_expired<A: Host>(
        &self,
        s: &mut SharePartitionState,
        offset: Offset,
        o: &mut Out<A>,
    ) {
        let Some(rec) = s.records.get_mut(&offset) else {
            return;
        };
        if let Some(g) = rec.ongoing.as_mut() {
            g.lock_expired = true;
            return;
        }
        // KAFKA-19476: the buggy timer task does not look at the state it finds.
        if rec.state != RecordState::Acquired && !self.design.lock_timer_race {
            return;
        }
        let to = released(rec.delivery_count, self.delivery_limit);
        s.transitions.push((rec.state, to));
        if let Some(member) = rec.member {
            s.events.push(ShareEvent::LockExpired { offset, member });
        }
        if to == RecordState::Archived {
            s.events.push(ShareEvent::LimitArchived);
        }
        rec.state = to;
        rec.member = None;
        let batch = StateBatch {
            offset,
            state: to,
            delivery_count: rec.delivery_count,
        };
        self.write(s, vec![batch], None, o);
        self.advance_start(s);
        self.wake(s, o);
    }

    /// The fetch part of a ShareFetch: acquire, or wait for records.
    fn fetch<A: Host>(
        &self,
        s: &mut SharePartitionState,
        src: Id,
        req: ShareFetchRequest,
        ack_error: ErrorCode,
        o: &mut Out<A>,
    ) {
        let acquired = self.acquire(s, req.member, req.max_records, o);
        if acquired.is_empty() {
            s.parked.push((src, req, ack_error));
        } else {
            o.send(
                src,
                fetch_response(&req, ErrorCode::None, ack_error, acquired),
            );
        }
    }

    fn acquire<A: Host>(
        &self,
        s: &mut SharePartitionState,
        member: MemberId,
        max_records: u8,
        o: &mut Out<A>,
    ) -> Vec<AcquiredRecord> {
        let mut acquired = Vec::new();
        for (offset, rec) in s.records.iter_mut() {
            if acquired.len() >= usize::from(max_records) {
                break;
            }
            if rec.state != RecordState::Available || rec.ongoing.is_some() {
                continue;
            }
            s.transitions.push((rec.state, RecordState::Acquired));
            rec.state = RecordState::Acquired;
            rec.delivery_count = rec.delivery_count.saturating_add(1);
            rec.member = Some(member);
            o.set_timer(Timer::AcquisitionLock(*offset), timeout());
            let tag = DeliveryTag {
                member,
                delivery_count: rec.delivery_count,
            };
            s.events.push(ShareEvent::Acquired {
                offset: *offset,
                tag,
            });
            acquired.push(AcquiredRecord {
                offset: *offset,
                delivery_count: rec.delivery_count,
            });
        }
        acquired
    }

    /// Answers parked fetches while records are available (`DelayedShareFetch`).
    pub(crate) fn wake<A: Host>(&self, s: &mut SharePartitionState, o: &mut Out<A>) {
        let mut still = Vec::new();
        for (src, req, ack_error) in std::mem::take(&mut s.parked) {
            let acquired = self.acquire(s, req.member, req.max_records, o);
            if acquired.is_empty() {
                still.push((src, req, ack_error));
            } else {
                o.send(
                    src,
                    fetch_response(&req, ErrorCode::None, ack_error, acquired),
                );
            }
        }
        s.parked = still;
    }

    /// `maybeUpdateCachedStateAndOffsets`: the start offset moves over terminal records.
    pub(crate) fn advance_start(&self, s: &mut SharePartitionState) {
        while let Some(rec) = s.records.get(&s.start_offset) {
            if !rec.state.is_terminal() || rec.ongoing.is_some() {
                break;
            }
            s.records.remove(&s.start_offset);
            s.start_offset += 1;
        }
    }
}

impl SharePartition {
    /// Whether an answer to this leader epoch says FENCED_LEADER_EPOCH: the share
    /// coordinator has stored a newer leader epoch, so another broker leads now. The leader
    /// cannot know whether its leadership will move, so it reacts whenever the answer
    /// comes (with one leader it never does: its own epoch is always the newest stored).
    pub(crate) fn replaced(&self, s: &SharePartitionState, epoch: Epoch, error: ErrorCode) -> bool {
        epoch == s.leader_epoch && error == ErrorCode::FencedLeaderEpoch
    }

    /// FENCED_LEADER_EPOCH from the share coordinator: a newer leader read the state, so
    /// this one no longer leads (or its broker learnt from the metadata that it follows). As `SharePartitionManager` removes a fenced share
    /// partition from its cache (`maybeCompleteInitializationWithException` at 1eb7644, the
    /// fenced-partition handling of 4.x), its state is dropped, and every request it holds
    /// is answered NOT_LEADER_OR_FOLLOWER (`fetchPersisterError` maps FENCED_LEADER_EPOCH
    /// to it), so that the clients find the new leader.
    pub(crate) fn fence<A: Host>(&self, s: &mut SharePartitionState, o: &mut Out<A>) {
        self.drop_cache(s, o);
        s.fenced = true;
    }

    /// FENCED_STATE_EPOCH for a KIP-1289 staging (`sc_state_epoch_fence`): an offset reset
    /// reinitialised the
    /// share partition's state (docs/kafka-cases.md S20). As `SharePartitionManager` removes
    /// the share partition from its cache on `FencedStateEpochException`
    /// (`maybeCompleteInitializationWithException`, 1eb7644) and the next request builds a
    /// new `SharePartition` that reads the state again, the leader drops its cached state,
    /// answers what it holds NOT_LEADER_OR_FOLLOWER (the client retries as after a
    /// fencing), and reads the reinitialised state at its own leader epoch. A failed
    /// WriteShareGroupState still only rolls its transition back, as `SharePartition` does
    /// at 1eb7644 (`conformance/share_partition.rs`); the cache removal on an acknowledge's
    /// FENCED_STATE_EPOCH is 4.x's and not modelled (docs/fidelity.md).
    pub(crate) fn reinitialise<A: Host>(&self, s: &mut SharePartitionState, o: &mut Out<A>) {
        self.drop_cache(s, o);
        s.loaded = false;
        s.start_offset = 0;
        self.read(s.leader_epoch, o);
    }

    /// What a fenced or reinitialised leader forgets: its records, sessions, writes and
    /// timers; every client request it holds is answered NOT_LEADER_OR_FOLLOWER.
    fn drop_cache<A: Host>(&self, s: &mut SharePartitionState, o: &mut Out<A>) {
        let mut held: Vec<(Id, Msg)> = std::mem::take(&mut s.loading);
        held.extend(
            std::mem::take(&mut s.parked)
                .into_iter()
                .map(|(src, req, _)| (src, Msg::ShareFetch(req))),
        );
        for (write, w) in std::mem::take(&mut s.writes) {
            o.cancel_timer(Timer::PersisterTimeout(write));
            held.extend(w.reply.map(|r| (r.src, r.request)));
        }
        for (offset, rec) in std::mem::take(&mut s.records) {
            o.cancel_timer(Timer::AcquisitionLock(offset));
            // A client waits only on a staging not yet durable (its forward still out).
            if let Some((client, forward)) = rec.staged.and_then(|st| st.reply.zip(st.forward)) {
                held.push((client, Msg::TxnShareAcknowledge(forward)));
            }
        }
        for timer in [
            Timer::ReadStateTimeout,
            Timer::StageRetry,
            Timer::TxnRefresh,
        ] {
            o.cancel_timer(timer);
        }
        s.sessions.clear();
        s.refreshing = false;
        s.refresh_pending.clear();
        s.refresh_retries = 0;
        let mut answered: Vec<Id> = Vec::new();
        for (src, msg) in held {
            // One answer per client request, however many records it covered.
            if matches!(msg, Msg::TxnShareAcknowledge(_)) && answered.contains(&src) {
                continue;
            }
            answered.push(src);
            not_leader(src, &msg, o);
        }
    }
}

/// A fenced leader's answer to a client request: NOT_LEADER_OR_FOLLOWER. Anything else
/// (the share coordinator's answers and outcomes) it ignores.
fn not_leader<A: Host>(src: Id, msg: &Msg, o: &mut Out<A>) {
    let error = ErrorCode::NotLeaderOrFollower;
    match msg {
        Msg::ShareFetch(req) => o.send(src, fetch_response(req, error, error, Vec::new())),
        Msg::ShareAcknowledge(req) => o.send(src, acknowledge_response(req, error)),
        Msg::TxnShareAcknowledge(req) => o.send(
            src,
            Msg::TxnShareAcknowledgeResponse(
                crate::protocol::txn_share_msg::TxnShareAcknowledgeResponse {
                    producer: req.producer,
                    error,
                    group: req.group,
                    leader_epoch: None,
                },
            ),
        ),
        _ => {}
    }
}

fn fetch_response(
    req: &ShareFetchRequest,
    error: ErrorCode,
    ack_error: ErrorCode,
    acquired: Vec<AcquiredRecord>,
) -> Msg {
    Msg::ShareFetchResponse(ShareFetchResponse {
        member: req.member,
        session_epoch: req.session_epoch,
        error,
        ack_error,
        acquired,
    })
}

fn acknowledge_response(req: &ShareAcknowledgeRequest, error: ErrorCode) -> Msg {
    Msg::ShareAcknowledgeResponse(ShareAcknowledgeResponse {
        member: req.member,
        session_epoch: req.session_epoch,
        error,
    })
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

fn is_zero_epoch(e: &Epoch) -> bool {
    *e == 0
}

fn timeout() -> std::ops::Range<Duration> {
    Duration::ZERO..Duration::ZERO
}
