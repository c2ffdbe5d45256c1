//! The producer's KIP-1289 mode: the seed's consume-transform-produce loop over a share
//! group. One actor is both the share consumer and the transactional producer, as in the
//! seed's loop (`consumer.poll`, `producer.send`, `producer.sendShareAcksToTransaction`,
//! `producer.commitTransaction`), so one incarnation owns the member and the producer id
//! and the existing request timeouts, retries and EndTxn flush apply unchanged.
//!
//! Per transaction: ShareFetch one record from the share-partition leader (acquiring it),
//! produce the output to every output partition, AddShareAcksToTxn at the transaction
//! coordinator, TxnShareAcknowledge (ACCEPT) at the share coordinator, then EndTxn commit or
//! abort by client choice. After either outcome it polls again: on abort the seed leaves
//! the record ACQUIRED until its lock expires ("records stay ACQUIRED -> acquisition lock
//! timeout -> records return to AVAILABLE -> re-delivered"). A poll that finds nothing
//! ends the loop (the request timeout of a parked ShareFetch stands for `poll` returning
//! empty), so runs stay bounded.

use crate::clients::producer::{Producer, ProducerState};
pub use crate::clients::producer_share_acks::AckTypes;
use crate::clients::share_acknowledger::HandedAck;
use crate::coordinator::txn_state::TxnManagerState;
use crate::protocol::error::ErrorCode;
use crate::protocol::ids::{GroupId, MemberId};
use crate::protocol::msg::*;
use crate::protocol::output::Host;
use crate::protocol::record_state::AckType;
use crate::protocol::share_msg::*;
use crate::protocol::txn_share_msg::*;
use crate::protocol::wait::Holding;
use crate::protocol::width::Counter;
use serde::{Deserialize, Serialize};
use stateright::actor::{Id, Out};

/// The share group the producer acknowledges to in KIP-1289 mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShareSource {
    /// The share-partition leader the client polls; `None` for the standalone
    /// `TransactionalShareAcknowledger`, which never polls: it is handed the
    /// acknowledgements to commit.
    pub share_partition: Option<Id>,
    /// The share-partition leader a `stage_at_leader` design stages acknowledgements at
    /// (the acknowledger's too, although it never polls it).
    pub leader: Id,
    /// Scenario `spl-move`: the broker the first share partition's leadership may move
    /// to, which the client's metadata names once a leader answered NOT_LEADER_OR_FOLLOWER.
    pub moved_leader: Option<Id>,
    /// The share partitions the client is assigned (1 but in `draft-itest`): their
    /// leaders are `leader` and the actors numbered right after it (`SP1`, `SP2`, as the
    /// topology numbers them).
    pub share_partitions: u8,
    /// The share coordinator (leader of `__share_group_state`).
    pub share_coordinator: Id,
    /// The share group the client consumes in, which AddShareAcksToTxn and
    /// TxnShareAcknowledge name (its first, with several).
    pub group: GroupId,
    /// The share groups the client consumes in (1 but in `ctp-two-groups`), each with one
    /// share partition: group `g`'s leader is share partition `g`'s (`SP0`, `SP1`).
    pub groups: u8,
    /// The member id the client joined the share group with, which TxnShareAcknowledge
    /// carries. The standalone acknowledger is no member: it carries [`NOT_A_MEMBER`].
    pub member: MemberId,
    /// How often the client may stall past the acquisition lock of the record it holds
    /// (the scenario's `stalls`): the application is slow or paused while its transaction
    /// is open, so the lock expiring is no fault (docs/kafka-cases.md S1's GC pause).
    pub stalls: u8,
    /// The acknowledge types the application stages by choice (the scenario's
    /// `txn_ack_types`; ACCEPT alone but in `ctp-acks`).
    pub ack_types: AckTypes,
    /// The share consumer's own plain paths beside the transaction: the implicit ACCEPT
    /// of the previous poll's batch and `close()` (the scenario's `txn_plain_acks`).
    pub plain_acks: bool,
    /// Scenario `ctp-implicit-add`: the client chooses, per transaction, how it puts
    /// `__share_group_state` into it ([`ShareAdd`]); otherwise it always sends
    /// AddShareAcksToTxn first (docs/kafka-cases.md S23).
    pub add_choices: bool,
}

/// The member id TxnShareAcknowledge carries when its sender is not a share-group member:
/// `commitAcknowledgements(acks, groupId)` takes a group id and no member (KIP-1289 3.2),
/// so the standalone acknowledger's requests name no member of the group.
pub const NOT_A_MEMBER: MemberId = MemberId::NONE;

/// The share-consumer half of the client's state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShareClientState {
    /// The share session epoch the next ShareFetch carries (to the first share
    /// partition's leader; a share session is per broker).
    pub session_epoch: Counter,
    /// With several share partitions: the session epochs for the leaders of the others.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more_session_epochs: Vec<Counter>,
    /// With several share partitions: the share partition polled now, whose record the
    /// client holds (`ConsumerRecord.partition()`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub partition: u8,
    /// With several share partitions: polls in a row that found nothing; the loop ends
    /// once every share partition came back empty.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub empty_polls: u8,
    /// The record acquired for the current transaction.
    pub fetched: Option<AcquiredRecord>,
    /// Scenario `ctp-two-groups`: the second share group's record acquired for the
    /// current transaction (see [`crate::clients::producer_share_groups`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub more_fetched: Option<AcquiredRecord>,
    /// Scenario `ctp-two-groups`: how many of the transaction's AddShareAcksToTxn (one per
    /// share group) were answered.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub groups_added: u8,
    /// The acknowledgements the standalone acknowledger was handed for the current
    /// transaction (empty for the consume-transform-produce client, which acknowledges
    /// what it fetched).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub acks: Vec<HandedAck>,
    /// Stalls left (left out of traces while 0, as in scenarios without stalls).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stalls_left: u8,
    /// The application is stalled past the lock of the record it holds.
    #[serde(default, skip_serializing_if = "is_false")]
    pub stalled: bool,
    /// Scenario `spl-move`: a leader answered NOT_LEADER_OR_FOLLOWER and the metadata
    /// refresh found the first share partition's new leader, where requests go from now on.
    #[serde(default, skip_serializing_if = "is_false")]
    pub moved: bool,
    /// The acknowledge type the application chose for the record it holds (`None`:
    /// ACCEPT, the only type but in `ctp-acks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack: Option<AckType>,
    /// `txn_plain_acks`: the previous poll's record, still in the share consumer's batch
    /// after its transaction ended; the next poll ACCEPTs it, `close()` releases it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<AcquiredRecord>,
    /// Scenario `ctp-implicit-add`: how the current transaction adds `__share_group_state`,
    /// once chosen (`None`: AddShareAcksToTxn first, the seed's client).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add: Option<ShareAdd>,
    /// The standalone acknowledger's acknowledgements of several members (scenario
    /// `flink-shuffle`), under a design whose TxnShareAcknowledge names one member: how
    /// many members' requests were answered in the current transaction (see
    /// [`Producer::member_group`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub staged_members: u8,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The choice key of a client's stall.
pub(crate) const STALL: &str = "stall";

/// The choice key of how a client adds `__share_group_state` (scenario `ctp-implicit-add`).
pub(crate) const SHARE_ADD: &str = "share-add";

impl Producer {
    /// `consumer.poll()`: one ShareFetch for one record.
    pub(crate) fn poll<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        let Some((src, share_partition)) = self
            .role
            .share_source()
            .and_then(|s| s.share_partition.map(|p| (s, p)))
        else {
            return;
        };
        let acks = self.implicit_acks(state);
        let Some(sh) = state.role.share_mut() else {
            return;
        };
        let partition = sh.partition;
        let epoch = session_epoch(sh, partition);
        let req = ShareFetchRequest {
            member: src.member,
            session_epoch: *epoch,
            max_records: 1,
            acks,
        };
        *epoch = epoch.saturating_add(1);
        let dst = current_leader(src, sh.moved, share_partition, partition);
        self.send_request(state, RequestKey::Share, dst, Msg::ShareFetch(req), o);
    }

    /// The poll found nothing at the share partition it asked (an empty answer, or the
    /// request timeout of a parked fetch): with several share partitions the next one is
    /// polled, and the loop ends only once each came back empty in a row.
    pub(crate) fn poll_found_nothing<A: Host>(
        &self,
        state: &mut ProducerState,
        o: &mut Out<A>,
    ) -> bool {
        if self.begin_held(state, o) {
            return true;
        }
        let n = self.role.share_source().map_or(1, |s| s.share_partitions);
        let Some(sh) = state.role.share_mut().filter(|_| n > 1) else {
            return false;
        };
        sh.empty_polls = sh.empty_polls.saturating_add(1);
        if sh.empty_polls >= n {
            return false;
        }
        sh.partition = (sh.partition + 1) % n;
        self.poll(state, o);
        true
    }

    /// The output partition a transaction writes with several share partitions: the one
    /// of its record's index, as the draft's test sends it (`record.partition()`), modulo
    /// the output partitions; `None`
    /// with one share partition, where every output partition is written.
    pub(crate) fn output_partition(&self, state: &ProducerState) -> Option<usize> {
        if self
            .role
            .share_source()
            .is_none_or(|s| s.share_partitions <= 1)
        {
            return None;
        }
        // Fewer sink partitions than source ones (a simulator's swarm may pick that):
        // the record's index wraps around them, so every transaction writes one.
        let n = self.partitions.len().max(1);
        state.role.share().map(|sh| usize::from(sh.partition) % n)
    }

    /// The poll's answer: a record begins a transaction; a session error reopens the
    /// session (epoch 0) and polls again.
    pub(crate) fn on_share_fetch_response<A: Host>(
        &self,
        state: &mut ProducerState,
        from: Id,
        r: ShareFetchResponse,
        o: &mut Out<A>,
    ) {
        // Session epochs are per leader, so an answer is matched by its sender too.
        let matches = matches!(
            state.manager.requests.get(&RequestKey::Share),
            Some(q) if q.dst == from
                && matches!(&q.msg, Msg::ShareFetch(f) if f.session_epoch == r.session_epoch)
        );
        if !matches {
            return;
        }
        state.manager.requests.remove(&RequestKey::Share);
        o.cancel_timer(Timer::RequestTimeout(RequestKey::Share));
        if r.error == ErrorCode::NotLeaderOrFollower {
            self.leader_moved(state);
        }
        if r.error != ErrorCode::None {
            if let Some(sh) = state.role.share_mut() {
                let partition = sh.partition;
                *session_epoch(sh, partition) = 0;
            }
            self.poll(state, o);
            return;
        }
        match r.acquired.first().copied() {
            Some(record) if self.hold_for_groups(state, record, o) => {}
            Some(record) => self.polled(state, record, o),
            None if self.poll_found_nothing(state, o) => {}
            None => self.polls_ended(state),
        }
    }

    /// The record `record` a poll acquired begins the client's next transaction.
    pub(crate) fn begin_polled<A: Host>(
        &self,
        state: &mut ProducerState,
        record: AcquiredRecord,
        o: &mut Out<A>,
    ) {
        let choices = self.role.share_source().is_some_and(|s| s.add_choices);
        if let Some(sh) = state.role.share_mut() {
            sh.fetched = Some(record);
            sh.empty_polls = 0;
            if sh.stalls_left > 0 {
                o.choose_random(STALL, vec![ClientChoice::Stall]);
            }
            if choices {
                // The application's client decides how this transaction adds the share
                // group's state partition before it begins (docs/kafka-cases.md S23).
                let offer = vec![
                    ClientChoice::ShareAdd(ShareAdd::Implicit),
                    ClientChoice::ShareAdd(ShareAdd::Early),
                ];
                o.choose_random(SHARE_ADD, offer);
                return;
            }
        }
        let waits = self
            .role
            .share_source()
            .is_some_and(|src| self.offer_ack_types(src, record.offset, o));
        if !waits {
            self.begin_txn(state, record.offset, o);
        }
    }

    /// Scenario `ctp-implicit-add`: the client chose how its transaction adds
    /// `__share_group_state`, and begins the transaction for the record it holds.
    pub(crate) fn on_share_add<A: Host>(
        &self,
        state: &mut ProducerState,
        add: ShareAdd,
        o: &mut Out<A>,
    ) {
        let Some(sh) = state.role.share_mut() else {
            return;
        };
        let Some(record) = sh.fetched.filter(|_| sh.add.is_none()) else {
            return;
        };
        sh.add = Some(add);
        o.choose_random(SHARE_ADD, Vec::new());
        self.begin_txn(state, record.offset, o);
    }

    /// What the client sends to add the share acknowledgements to its transaction:
    /// AddShareAcksToTxn, then TxnShareAcknowledge once it is answered (the seed's
    /// `sendShareAcksToTransaction`); with [`ShareAdd::Implicit`] TxnShareAcknowledge
    /// alone; with [`ShareAdd::Early`] both at once.
    pub(crate) fn add_share_acks<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        let add = state.role.share().and_then(|sh| sh.add);
        if add != Some(ShareAdd::Implicit) {
            self.send_add_share_acks(state, o);
        }
        if add.is_some() {
            self.send_txn_share_ack(state, o);
        }
    }

    /// AddShareAcksToTxn was answered: the staging follows, unless it went out with the
    /// add ([`ShareAdd::Early`]).
    pub(crate) fn share_acks_added<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        let i = self.group_added(state, o);
        if state.role.share().and_then(|sh| sh.add) != Some(ShareAdd::Early) {
            self.send_group_share_ack(state, i, o);
        }
        self.maybe_end(state, o);
    }

    /// The application stalls past the lock of the record it holds: the lock's expiry is
    /// due, and the client carries on with its transaction afterwards.
    pub(crate) fn on_stall<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        let Some(sh) = state.role.share_mut() else {
            return;
        };
        if sh.fetched.is_none() || sh.stalls_left == 0 {
            return;
        }
        sh.stalls_left -= 1;
        sh.stalled = true;
        o.choose_random(STALL, Vec::new());
    }

    /// The share group the next AddShareAcksToTxn adds: the client's one group, or with
    /// two the group of the transaction's next record whose add is not answered yet.
    fn share_group(&self, state: &ProducerState) -> GroupId {
        let one = self
            .role
            .share_source()
            .map_or(GroupId::default(), |s| s.group);
        state
            .role
            .share()
            .and_then(|sh| self.held_record(sh, sh.groups_added))
            .map_or(one, |(group, _)| group)
    }

    /// `sendShareAcksToTransaction`, first half: AddShareAcksToTxn.
    pub(crate) fn send_add_share_acks<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        let id = state.manager.identity();
        self.send_coordinator(
            state,
            Msg::AddShareAcksToTxn(AddShareAcksToTxnRequest {
                txn: self.txn,
                producer: id,
                group: self.share_group(state),
            }),
            o,
        );
    }

    /// `sendShareAcksToTransaction`, second half: TxnShareAcknowledge for the acquired
    /// record (ACCEPT, or the type the application chose), or the acknowledgements the
    /// standalone acknowledger was handed.
    pub(crate) fn send_txn_share_ack<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        self.send_group_share_ack(state, 0, o);
    }

    /// TxnShareAcknowledge of the transaction's `i`-th share group (0 but in
    /// `ctp-two-groups`), under that group's request key.
    pub(crate) fn send_group_share_ack<A: Host>(
        &self,
        state: &mut ProducerState,
        i: u8,
        o: &mut Out<A>,
    ) {
        let ack = self.staged_type(state);
        let (Some(src), Some(sh)) = (self.role.share_source(), state.role.share()) else {
            return;
        };
        let held = self.held_record(sh, i);
        if i > 0 && held.is_none() {
            return;
        }
        let group = held.map_or(src.group, |(g, _)| g);
        let fetched = held.map(|(_, r)| r);
        let handed: Vec<HandedAck> = match fetched {
            Some(record) => vec![HandedAck {
                offset: record.offset,
                ack,
                delivery: DeliveryTag {
                    member: src.member,
                    delivery_count: record.delivery_count,
                },
            }],
            None => self.member_group(&sh.acks, sh.staged_members),
        };
        if handed.is_empty() {
            return;
        }
        let id = state.manager.identity();
        let tag = state.manager.txn.as_ref().expect("in a transaction").tag;
        let member = self.acking_member(src, &handed);
        let req = TxnShareAcknowledgeRequest {
            txn: self.txn,
            producer: id,
            group,
            member,
            members: self.other_members(member, &handed),
            acks: handed.iter().map(HandedAck::to_wire).collect(),
            tag,
            deliveries: self.acked_deliveries(fetched, &handed),
            notify: false,
            leader_epoch: None,
            state_epoch: None,
        };
        // The design decides who stages: the share-partition leader or the coordinator.
        let dst = if self.design.stage_at_leader {
            current_leader(src, sh.moved, src.leader, self.staging_partition(sh, i))
        } else {
            src.share_coordinator
        };
        self.send_request(
            state,
            Producer::staging_key(i),
            dst,
            Msg::TxnShareAcknowledge(req),
            o,
        );
    }

    /// What the leader's owner check needs, if the design sends it: the acquisitions
    /// acknowledged, as the ShareFetch response gave them (`AcquiredRecords.DeliveryCount`):
    /// the record `fetched`, or the deliveries the reader `handed` the standalone
    /// acknowledger with its acks.
    fn acked_deliveries(
        &self,
        fetched: Option<AcquiredRecord>,
        handed: &[HandedAck],
    ) -> Vec<AcquiredRecord> {
        match (self.sends_deliveries(), fetched) {
            (false, _) => Vec::new(),
            (true, Some(record)) => vec![record],
            (true, None) => handed
                .iter()
                .map(|a| AcquiredRecord {
                    offset: a.offset,
                    delivery_count: a.delivery.delivery_count,
                })
                .collect(),
        }
    }

    /// The acknowledgements the standalone acknowledger's next TxnShareAcknowledge carries,
    /// `answered` members' requests of this transaction having been answered. A design
    /// whose TxnShareAcknowledge names one member (the draft's `MemberId`, which the
    /// leader's `member-epoch` owner check reads) sends one request per member, in the
    /// order the members first appear among `acks`, as `sendShareAcksToTransaction(acks,
    /// groupMetadata)` takes one member's `ShareGroupMetadata` per call (KIP-1289 3.1). The
    /// seed's, with no member (4.2), and `proposed`'s, whose acquisitions name their
    /// member per acknowledgement (`stage_owner_check=acquisition`), send them all at once.
    pub(crate) fn member_group(&self, acks: &[HandedAck], answered: u8) -> Vec<HandedAck> {
        let format = self.design.wire_format();
        if !format.txn_share_ack_member || format.txn_share_ack_deliveries {
            // One request carries them all.
            return if answered == 0 {
                acks.to_vec()
            } else {
                Vec::new()
            };
        }
        let mut members: Vec<MemberId> = Vec::new();
        for a in acks {
            if !members.contains(&a.delivery.member) {
                members.push(a.delivery.member);
            }
        }
        let Some(member) = members.get(usize::from(answered)) else {
            return Vec::new();
        };
        acks.iter()
            .filter(|a| a.delivery.member == *member)
            .copied()
            .collect()
    }

    /// A TxnShareAcknowledge of the standalone acknowledger was answered without error:
    /// the next member's request goes out if one is left (see [`Producer::member_group`]),
    /// under the same request key, so EndTxn still waits for it. Returns whether one went.
    pub(crate) fn stage_next_member<A: Host>(
        &self,
        state: &mut ProducerState,
        o: &mut Out<A>,
    ) -> bool {
        let Some(sh) = state.role.share().filter(|sh| sh.fetched.is_none()) else {
            return false;
        };
        if self
            .member_group(&sh.acks, sh.staged_members.saturating_add(1))
            .is_empty()
        {
            return false;
        }
        if let Some(sh) = state.role.share_mut() {
            sh.staged_members += 1;
        }
        // The answered request is replaced under its key, and its timer set again.
        self.send_txn_share_ack(state, o);
        true
    }

    /// The member a TxnShareAcknowledge names. The seed's standalone acknowledger is no
    /// member and `commitAcknowledgements(acks, groupId)` takes no member, so it names
    /// none; a design whose leader checks the owner hands it the member's
    /// `ShareGroupMetadata` with the acks (as `sendShareAcksToTransaction` takes it), so it
    /// names the member the reader handed the acks for.
    ///
    /// With `strict_wire_format`, a design whose format has no `MemberId` (the seed's
    /// KIP-1289 section 4.2 schema) names none either (docs/wire.md).
    fn acking_member(&self, src: ShareSource, handed: &[HandedAck]) -> MemberId {
        if self.design.strict_wire_format && !self.design.wire_format().txn_share_ack_member {
            return NOT_A_MEMBER;
        }
        match handed.first() {
            Some(a)
                if src.member == NOT_A_MEMBER
                    && self.design.stage_owner_check
                        != crate::design::spl_knobs::StageOwnerCheck::None =>
            {
                a.delivery.member
            }
            _ => src.member,
        }
    }

    /// The acknowledgements of `handed` that are another member's than `member`, with their
    /// member: only where the request names its acquisitions (`deliveries`), whose owner
    /// check reads each acknowledgement's member.
    fn other_members(&self, member: MemberId, handed: &[HandedAck]) -> Vec<AckMember> {
        if !self.sends_deliveries() {
            return Vec::new();
        }
        handed
            .iter()
            .filter(|a| a.delivery.member != member)
            .map(|a| AckMember {
                offset: a.offset,
                member: a.delivery.member,
            })
            .collect()
    }

    /// Whether a TxnShareAcknowledge names the acquisitions it acknowledges: wherever the
    /// leader stages it, and with `strict_wire_format` only where the leader's owner check
    /// reads them (`stage_owner_check=acquisition`, docs/wire.md).
    fn sends_deliveries(&self) -> bool {
        self.design.stage_at_leader
            && (!self.design.strict_wire_format
                || self.design.wire_format().txn_share_ack_deliveries)
    }

    /// The outstanding TxnShareAcknowledge a response answers, by its key: the one with
    /// the response's producer and group (the response's echo, which stands for the
    /// correlation id).
    pub(crate) fn awaits_txn_share_ack(
        &self,
        state: &ProducerState,
        r: &TxnShareAcknowledgeResponse,
    ) -> Option<RequestKey> {
        (0..self.share_groups()).map(Producer::staging_key).find(|key| {
            matches!(
                state.manager.requests.get(key).map(|q| &q.msg),
                Some(Msg::TxnShareAcknowledge(q)) if q.producer == r.producer && q.group == r.group
            )
        })
    }
}

/// The session epoch of the client's share session with the leader of `partition`.
fn session_epoch(sh: &mut ShareClientState, partition: u8) -> &mut Counter {
    match partition.checked_sub(1) {
        Some(i) => {
            let i = usize::from(i);
            if sh.more_session_epochs.len() <= i {
                sh.more_session_epochs.resize(i + 1, 0);
            }
            &mut sh.more_session_epochs[i]
        }
        None => &mut sh.session_epoch,
    }
}

/// The leader of share partition `partition` as the client's metadata has it: the moved-in
/// leader once `moved` (scenario `spl-move`), else [`leader_of`].
fn current_leader(src: ShareSource, moved: bool, first: Id, partition: u8) -> Id {
    match src.moved_leader {
        Some(leader) if moved && partition == 0 => leader,
        _ => leader_of(first, partition),
    }
}

impl Producer {
    /// NOT_LEADER_OR_FOLLOWER from a share-partition leader: the client refreshes its
    /// metadata (`ShareConsumeRequestManager` and the producer's `Sender` request a
    /// metadata update on it), which names the new leader where the leadership moved; an
    /// outstanding TxnShareAcknowledge is retried there, as the `Sender` re-routes a retry.
    pub(crate) fn leader_moved(&self, state: &mut ProducerState) {
        let Some(leader) = self.role.share_source().and_then(|s| s.moved_leader) else {
            return;
        };
        if let Some(sh) = state.role.share_mut() {
            sh.moved = true;
        }
        if let Some(q) = state
            .manager
            .requests
            .get_mut(&RequestKey::TxnShareAcknowledge)
        {
            if self.design.stage_at_leader {
                q.dst = leader;
            }
        }
    }
}

/// The leader of share partition `partition`: the topology numbers the share-partition
/// leaders in a row from the first one's id.
fn leader_of(first: Id, partition: u8) -> Id {
    Id::from(usize::from(first) + usize::from(partition))
}

impl Producer {
    /// Whether this KIP-1289 client holds the delivery `record`: it holds the record from
    /// the poll that acquired it until its transaction ends, unless it stalled past the
    /// lock (a `stalls` choice). A client that failed for good acknowledges nothing.
    pub fn acquisition(&self, state: &ProducerState, record: AcquiredRecord) -> Holding {
        let holds = state
            .role
            .share()
            .is_some_and(|sh| sh.fetched == Some(record) && !sh.stalled);
        if state.manager.tm == TxnManagerState::FatalError {
            Holding::Dropped
        } else if holds {
            Holding::Holds
        } else {
            self.holds_second(state, record)
        }
    }
}
