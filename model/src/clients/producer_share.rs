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
use crate::clients::share_acknowledger::HandedAck;
use crate::coordinator::txn_state::TxnManagerState;
use crate::protocol::error::ErrorCode;
use crate::protocol::ids::MemberId;
use crate::protocol::msg::*;
use crate::protocol::record_state::AckType;
use crate::protocol::share_msg::*;
use crate::protocol::txn_share_msg::*;
use crate::protocol::wait::Holding;
use crate::protocol::width::Counter;
use crate::world::node::Node;
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
    /// The share coordinator (leader of `__share_group_state`).
    pub share_coordinator: Id,
    /// The member id the client joined the share group with, which TxnShareAcknowledge
    /// carries. The standalone acknowledger is no member: it carries [`NOT_A_MEMBER`].
    pub member: MemberId,
    /// How often the client may stall past the acquisition lock of the record it holds
    /// (the scenario's `stalls`): the application is slow or paused while its transaction
    /// is open, so the lock expiring is no fault (docs/kafka-cases.md S1's GC pause).
    pub stalls: u8,
}

/// The member id TxnShareAcknowledge carries when its sender is not a share-group member:
/// `commitAcknowledgements(acks, groupId)` takes a group id and no member (KIP-1289 3.2),
/// so the standalone acknowledger's requests name no member of the group.
pub const NOT_A_MEMBER: MemberId = MemberId(u8::MAX);

/// The share-consumer half of the client's state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShareClientState {
    /// The share session epoch the next ShareFetch carries.
    pub session_epoch: Counter,
    /// The record acquired for the current transaction.
    pub fetched: Option<AcquiredRecord>,
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
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The choice key of a client's stall.
pub(crate) const STALL: &str = "stall";

impl Producer {
    /// `consumer.poll()`: one ShareFetch for one record.
    pub(crate) fn poll(&self, state: &mut ProducerState, o: &mut Out<Node>) {
        let Some((src, share_partition)) = self
            .role
            .share_source()
            .and_then(|s| s.share_partition.map(|p| (s, p)))
        else {
            return;
        };
        let Some(sh) = state.role.share_mut() else {
            return;
        };
        let req = ShareFetchRequest {
            member: src.member,
            session_epoch: sh.session_epoch,
            max_records: 1,
            acks: Vec::new(),
        };
        sh.session_epoch = sh.session_epoch.saturating_add(1);
        self.send_request(
            state,
            RequestKey::Share,
            share_partition,
            Msg::ShareFetch(req),
            o,
        );
    }

    /// The poll's answer: a record begins a transaction; a session error reopens the
    /// session (epoch 0) and polls again.
    pub(crate) fn on_share_fetch_response(
        &self,
        state: &mut ProducerState,
        r: ShareFetchResponse,
        o: &mut Out<Node>,
    ) {
        let matches = matches!(
            state.manager.requests.get(&RequestKey::Share).map(|q| &q.msg),
            Some(Msg::ShareFetch(q)) if q.session_epoch == r.session_epoch
        );
        if !matches {
            return;
        }
        state.manager.requests.remove(&RequestKey::Share);
        o.cancel_timer(Timer::RequestTimeout(RequestKey::Share));
        if r.error != ErrorCode::None {
            if let Some(sh) = state.role.share_mut() {
                sh.session_epoch = 0;
            }
            self.poll(state, o);
            return;
        }
        match r.acquired.first().copied() {
            Some(record) => self.polled(state, record, o),
            None => self.polls_ended(state),
        }
    }

    /// The record `record` a poll acquired begins the client's next transaction.
    pub(crate) fn begin_polled(
        &self,
        state: &mut ProducerState,
        record: AcquiredRecord,
        o: &mut Out<Node>,
    ) {
        if let Some(sh) = state.role.share_mut() {
            sh.fetched = Some(record);
            if sh.stalls_left > 0 {
                o.choose_random(STALL, vec![ClientChoice::Stall]);
            }
        }
        self.begin_txn(state, record.offset, o);
    }

    /// The application stalls past the lock of the record it holds: the lock's expiry is
    /// due, and the client carries on with its transaction afterwards.
    pub(crate) fn on_stall(&self, state: &mut ProducerState, o: &mut Out<Node>) {
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

    /// `sendShareAcksToTransaction`, first half: AddShareAcksToTxn.
    pub(crate) fn send_add_share_acks(&self, state: &mut ProducerState, o: &mut Out<Node>) {
        let id = state.manager.identity();
        self.send_coordinator(
            state,
            Msg::AddShareAcksToTxn(AddShareAcksToTxnRequest {
                txn: self.txn,
                producer: id,
            }),
            o,
        );
    }

    /// `sendShareAcksToTransaction`, second half: TxnShareAcknowledge (ACCEPT) for the
    /// acquired record, or the acknowledgements the standalone acknowledger was handed.
    pub(crate) fn send_txn_share_ack(&self, state: &mut ProducerState, o: &mut Out<Node>) {
        let (Some(src), Some(sh)) = (self.role.share_source(), state.role.share()) else {
            return;
        };
        let handed: Vec<HandedAck> = match sh.fetched {
            Some(record) => vec![HandedAck {
                offset: record.offset,
                ack: AckType::Accept,
                delivery: DeliveryTag {
                    member: src.member,
                    delivery_count: record.delivery_count,
                },
            }],
            None => sh.acks.clone(),
        };
        if handed.is_empty() {
            return;
        }
        let id = state.manager.identity();
        let tag = state.manager.txn.as_ref().expect("in a transaction").tag;
        let req = TxnShareAcknowledgeRequest {
            txn: self.txn,
            producer: id,
            member: self.acking_member(src, &handed),
            acks: handed.iter().map(HandedAck::to_wire).collect(),
            tag,
            // What the leader's owner check needs: the acquisition acknowledged, as the
            // ShareFetch response gave it (`AcquiredRecords.DeliveryCount`): the record
            // fetched, or the deliveries the reader handed the standalone acknowledger
            // with its acks.
            deliveries: match (self.design.stage_at_leader, sh.fetched) {
                (false, _) => Vec::new(),
                (true, Some(record)) => vec![record],
                (true, None) => handed
                    .iter()
                    .map(|a| AcquiredRecord {
                        offset: a.offset,
                        delivery_count: a.delivery.delivery_count,
                    })
                    .collect(),
            },
            notify: false,
        };
        // The design decides who stages: the share-partition leader or the coordinator.
        let dst = if self.design.stage_at_leader {
            src.leader
        } else {
            src.share_coordinator
        };
        self.send_request(
            state,
            RequestKey::TxnShareAcknowledge,
            dst,
            Msg::TxnShareAcknowledge(req),
            o,
        );
    }

    /// The member a TxnShareAcknowledge names. The seed's standalone acknowledger is no
    /// member and `commitAcknowledgements(acks, groupId)` takes no member, so it names
    /// none; a design whose leader checks the owner hands it the member's
    /// `ShareGroupMetadata` with the acks (as `sendShareAcksToTransaction` takes it), so it
    /// names the member the reader handed the acks for.
    fn acking_member(&self, src: ShareSource, handed: &[HandedAck]) -> MemberId {
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

    /// Whether a TxnShareAcknowledgeResponse answers the outstanding request.
    pub(crate) fn awaits_txn_share_ack(
        &self,
        state: &ProducerState,
        r: &TxnShareAcknowledgeResponse,
    ) -> bool {
        matches!(
            state.manager.requests.get(&RequestKey::TxnShareAcknowledge).map(|q| &q.msg),
            Some(Msg::TxnShareAcknowledge(q)) if q.producer == r.producer
        )
    }
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
            Holding::No
        }
    }
}
