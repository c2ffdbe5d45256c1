//! The KIP-1289 client's acknowledgement paths beside ACCEPT in its transaction
//! (docs/kafka-cases.md S14, S21): the acknowledge type it stages, and what its share
//! consumer does with the records it handed to a transaction.
//!
//! * The acknowledge type (S21). KIP-1289's `ShareAcknowledgements.fromRecords(records,
//!   AcknowledgeType type)` takes any `AcknowledgeType`; Kafka's (1eb7644) has ACCEPT,
//!   RELEASE and REJECT (RENEW, KIP-1222, is not in it, so the client never stages it).
//!   The application chooses the type when its poll hands it the record (scenario
//!   `txn_ack_types`). RELEASE and REJECT say "the record was not consumed successfully"
//!   (`AcknowledgeType`'s javadoc), so their transaction writes no output derived from the
//!   record: it carries the acknowledgement alone. The KIP gives no meaning to a committed
//!   RELEASE or REJECT beyond "the acks become visible when the transaction commits", so
//!   every design applies a COMMIT as Kafka's non-transactional path does
//!   (`SharePartition.acknowledge`: RELEASE -> AVAILABLE, ARCHIVED at the delivery count
//!   limit; REJECT -> ARCHIVED) and an ABORT as its ACCEPT's (discarded).
//! * The plain paths (S14, scenario `txn_plain_acks`). The KIP's loop consumes with a plain
//!   `KafkaShareConsumer`, whose default mode is implicit: `ShareConsumerImpl.poll`
//!   (`acknowledgeBatchIfImplicitAcknowledgement`, 1eb7644) ACCEPTs the previous poll's
//!   records on the next ShareFetch, the records the client handed to its transaction
//!   included; and `close()` sends what is acknowledged and leaves, and the leader releases
//!   what the member still holds (`SharePartitionManager.releaseSession` ->
//!   `SharePartition.releaseAcquiredRecords`, 1eb7644), modelled as a ShareAcknowledge
//!   RELEASE of that batch. A leader that stages (`stage_at_leader`) holds those records
//!   TX_PENDING and answers a plain acknowledgement INVALID_RECORD_STATE, as its
//!   `acknowledge` does for any record not ACQUIRED; but a staging that is rolled back
//!   leaves the record ACQUIRED, so `proposed` also takes the records handed to a
//!   transaction out of the batch in the client (`exclude_txn_records`).

use crate::clients::producer::{Producer, ProducerState};
use crate::clients::producer_share::ShareSource;
use crate::protocol::ghost::Ghost;
use crate::protocol::msg::{ClientChoice, Msg};
use crate::protocol::output::Host;
use crate::protocol::record_state::AckType;
use crate::protocol::share_msg::{Acknowledgement, DeliveryTag, ShareAcknowledgeRequest};
use crate::protocol::width::Offset;
use stateright::actor::Out;

/// A set of acknowledge types (a scenario's `txn_ack_types`, small and `Copy` for the
/// client's configuration).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AckTypes(u8);

impl AckTypes {
    /// ACCEPT alone: what every scenario but `ctp-acks` stages.
    pub const ACCEPT: AckTypes = AckTypes(1);

    /// The set of `types`.
    pub fn of(types: &[AckType]) -> AckTypes {
        AckTypes(types.iter().fold(0, |bits, t| bits | bit(*t)))
    }

    /// The types in the set, in Kafka's order.
    pub fn list(self) -> Vec<AckType> {
        AckType::ALL
            .into_iter()
            .filter(|t| self.0 & bit(*t) != 0)
            .collect()
    }

    /// Whether the application chooses among several types.
    pub fn is_choice(self) -> bool {
        self.0.count_ones() > 1
    }
}

fn bit(t: AckType) -> u8 {
    match t {
        AckType::Accept => 1,
        AckType::Release => 2,
        AckType::Reject => 4,
        AckType::Renew => 8,
    }
}

/// The choice key of the acknowledge type the application stages.
pub(crate) const ACK_TYPE: &str = "ack-type";

impl Producer {
    /// The record a poll handed the application: with a choice of types it chooses first,
    /// and the transaction begins with the type chosen; otherwise it begins now (ACCEPT).
    /// Returns whether the transaction waits for the choice.
    pub(crate) fn offer_ack_types<A: Host>(
        &self,
        src: ShareSource,
        offset: Offset,
        o: &mut Out<A>,
    ) -> bool {
        if !src.ack_types.is_choice() {
            return false;
        }
        let options = src
            .ack_types
            .list()
            .into_iter()
            .map(|ack| ClientChoice::Ack { offset, ack })
            .collect();
        o.choose_random(ACK_TYPE, options);
        true
    }

    /// The application chose `ack` for the record it holds: its transaction begins.
    pub(crate) fn on_ack_type<A: Host>(
        &self,
        state: &mut ProducerState,
        offset: Offset,
        ack: AckType,
        o: &mut Out<A>,
    ) {
        let Some(sh) = state.role.share_mut() else {
            return;
        };
        if state.manager.txn.is_some() || sh.fetched.is_none_or(|r| r.offset != offset) {
            return;
        }
        sh.ack = Some(ack);
        o.choose_random(ACK_TYPE, Vec::new());
        self.begin_txn(state, offset, o);
    }

    /// The type the transaction stages for the record it holds (ACCEPT unless chosen).
    pub(crate) fn staged_type(&self, state: &ProducerState) -> AckType {
        state
            .role
            .share()
            .and_then(|sh| sh.ack)
            .unwrap_or(AckType::Accept)
    }

    /// Whether the transaction writes an output derived from its record: not when the
    /// application RELEASEs or REJECTs it (it did not process the record).
    pub(crate) fn writes_output(&self, state: &ProducerState) -> bool {
        !self.partitions.is_empty() && self.staged_type(state) == AckType::Accept
    }

    /// The transaction ended: with the plain paths, the record it was handed stays in the
    /// share consumer's batch, for the next poll or `close()`, unless the design takes the
    /// records handed to a transaction out of it (`exclude_txn_records`).
    pub(crate) fn keep_batch(&self, state: &mut ProducerState) {
        let plain = self.role.share_source().is_some_and(|s| s.plain_acks)
            && !self.design.exclude_txn_records;
        if let Some(sh) = state.role.share_mut().filter(|_| plain) {
            sh.batch = sh.fetched;
            sh.ack = None;
        }
    }

    /// The acknowledgements the next ShareFetch carries: in implicit mode, ACCEPT of the
    /// previous poll's batch (`acknowledgeBatchIfImplicitAcknowledgement`).
    pub(crate) fn implicit_acks(&self, state: &mut ProducerState) -> Vec<Acknowledgement> {
        let Some(src) = self.role.share_source() else {
            return Vec::new();
        };
        let Some(sh) = state.role.share_mut() else {
            return Vec::new();
        };
        sh.batch
            .take()
            .map(|r| plain_ack(src, r.offset, r.delivery_count, AckType::Accept))
            .into_iter()
            .collect()
    }

    /// `close()` at the end of the loop: the leader releases the batch the member still
    /// holds (one ShareAcknowledge RELEASE; the client does not wait for its answer).
    pub(crate) fn close_share<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        let (Some(src), Some(sh)) = (self.role.share_source(), state.role.share_mut()) else {
            return;
        };
        let (Some(record), Some(leader)) = (sh.batch.take(), src.share_partition) else {
            return;
        };
        let req = ShareAcknowledgeRequest {
            member: src.member,
            session_epoch: sh.session_epoch,
            acks: vec![plain_ack(
                src,
                record.offset,
                record.delivery_count,
                AckType::Release,
            )],
        };
        sh.session_epoch = sh.session_epoch.saturating_add(1);
        let dst = match src.moved_leader {
            Some(moved) if sh.moved => moved,
            _ => leader,
        };
        o.send(dst, Msg::ShareAcknowledge(req));
    }
}

/// A plain acknowledgement of the delivery `delivery_count` of `offset` by the client's
/// member.
fn plain_ack(
    src: ShareSource,
    offset: Offset,
    delivery_count: u8,
    ack: AckType,
) -> Acknowledgement {
    Acknowledgement {
        offset,
        ack,
        tag: Ghost::new(DeliveryTag {
            member: src.member,
            delivery_count,
        }),
    }
}
