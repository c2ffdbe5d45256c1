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

use crate::error::ErrorCode;
use crate::ids::MemberId;
use crate::msg::*;
use crate::node::Node;
use crate::producer::{Producer, ProducerState};
use crate::record_state::AckType;
use crate::share_msg::*;
use crate::txn_share_msg::*;
use serde::{Deserialize, Serialize};
use stateright::actor::{Id, Out};

/// The share group the producer consumes from in KIP-1289 mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShareSource {
    /// The share-partition leader.
    pub share_partition: Id,
    /// The share coordinator (leader of `__share_group_state`).
    pub share_coordinator: Id,
}

/// The share-consumer half of the client's state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShareClientState {
    /// The share session epoch the next ShareFetch carries.
    pub session_epoch: u8,
    /// The record acquired for the current transaction.
    pub fetched: Option<AcquiredRecord>,
}

/// The member id the client joins the share group with.
pub const CTP_MEMBER: MemberId = MemberId(0);

impl Producer {
    /// `consumer.poll()`: one ShareFetch for one record.
    pub(crate) fn poll(&self, state: &mut ProducerState, o: &mut Out<Node>) {
        let Some(src) = self.share else { return };
        let sh = state.share.get_or_insert_with(ShareClientState::default);
        let req = ShareFetchRequest {
            member: CTP_MEMBER,
            session_epoch: sh.session_epoch,
            max_records: 1,
            acks: Vec::new(),
        };
        sh.session_epoch = sh.session_epoch.saturating_add(1);
        self.send_request(
            state,
            RequestKey::Share,
            src.share_partition,
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
            state.requests.get(&RequestKey::Share).map(|q| &q.msg),
            Some(Msg::ShareFetch(q)) if q.session_epoch == r.session_epoch
        );
        if !matches {
            return;
        }
        state.requests.remove(&RequestKey::Share);
        o.cancel_timer(Timer::RequestTimeout(RequestKey::Share));
        if r.error != ErrorCode::None {
            if let Some(sh) = state.share.as_mut() {
                sh.session_epoch = 0;
            }
            self.poll(state, o);
            return;
        }
        let Some(record) = r.acquired.first().copied() else {
            state.done = true;
            return;
        };
        if let Some(sh) = state.share.as_mut() {
            sh.fetched = Some(record);
        }
        self.begin_txn(state, record.offset, o);
    }

    /// `sendShareAcksToTransaction`, first half: AddShareAcksToTxn.
    pub(crate) fn send_add_share_acks(&self, state: &mut ProducerState, o: &mut Out<Node>) {
        let id = self.identity(state);
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
    /// acquired record.
    pub(crate) fn send_txn_share_ack(&self, state: &mut ProducerState, o: &mut Out<Node>) {
        let (Some(src), Some(record)) =
            (self.share, state.share.as_ref().and_then(|sh| sh.fetched))
        else {
            return;
        };
        let id = self.identity(state);
        let tag = state.txn.as_ref().expect("in a transaction").tag;
        let req = TxnShareAcknowledgeRequest {
            txn: self.txn,
            producer: id,
            member: CTP_MEMBER,
            acks: vec![Acknowledgement {
                offset: record.offset,
                ack: AckType::Accept,
                tag: DeliveryTag {
                    member: CTP_MEMBER,
                    delivery_count: record.delivery_count,
                },
            }],
            tag,
            // What the leader's owner check needs: the acquisition acknowledged.
            deliveries: if self.design.stage_at_leader {
                vec![record]
            } else {
                Vec::new()
            },
            notify: false,
        };
        // The design decides who stages: the share-partition leader or the coordinator.
        let dst = if self.design.stage_at_leader {
            src.share_partition
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

    /// Whether a TxnShareAcknowledgeResponse answers the outstanding request.
    pub(crate) fn awaits_txn_share_ack(
        &self,
        state: &ProducerState,
        r: &TxnShareAcknowledgeResponse,
    ) -> bool {
        matches!(
            state.requests.get(&RequestKey::TxnShareAcknowledge).map(|q| &q.msg),
            Some(Msg::TxnShareAcknowledge(q)) if q.producer == r.producer
        )
    }
}
