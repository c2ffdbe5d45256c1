//! The TxnShareAcknowledge the share-coordinator and leader tests start from: each varies
//! the fields it is about with struct update syntax.

use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::{MemberId, TransactionalId, TxnTag};
use sharetxn_model::protocol::record_state::AckType;
use sharetxn_model::protocol::share_msg::{Acknowledgement, DeliveryTag};
use sharetxn_model::protocol::txn_share_msg::TxnShareAcknowledgeRequest;
use sharetxn_model::protocol::width::Offset;

use super::pe;

/// Member 0's ACCEPT of `offset` at delivery `delivery_count`.
pub fn ack(offset: Offset, delivery_count: u8) -> Acknowledgement {
    Acknowledgement {
        offset,
        ack: AckType::Accept,
        tag: Ghost::new(DeliveryTag {
            member: MemberId(0),
            delivery_count,
        }),
    }
}

/// The first attempt of transactional client 0's first incarnation.
pub fn first_attempt() -> Ghost<TxnTag> {
    Ghost::new(TxnTag {
        client: 0,
        incarnation: 0,
        attempt: 0,
    })
}

/// Producer 0's transaction at epoch 0 staging member 0's ACCEPT of `offset` at its first
/// delivery, for group 0, listing no delivery, asking for no notice and carrying no epoch.
pub fn accept(offset: Offset) -> TxnShareAcknowledgeRequest {
    TxnShareAcknowledgeRequest {
        group: Default::default(),
        members: Vec::new(),
        txn: TransactionalId(0),
        producer: pe(0),
        member: MemberId(0),
        acks: vec![ack(offset, 1)],
        tag: first_attempt(),
        deliveries: Vec::new(),
        notify: false,
        leader_epoch: None,
        state_epoch: None,
    }
}
