//! A data partition leader (`output-N`): transactional appends with producer-state checks,
//! KIP-890 verification of a producer's first write in a transaction (part 1: verify only;
//! part 2, TV2: the leader adds the partition implicitly), and COMMIT/ABORT markers.
//! The log is durable (the model's appends are acks=all); verification state is not.

use crate::design::Design;
use crate::error::ErrorCode;
use crate::ids::*;
use crate::leader::{LeaderState, LeaderStorage};
use crate::msg::*;
use crate::node::{Node, NodeStorage};
use crate::partition_log::{AppendCheck, Payload};
use stateright::actor::{Id, Out};

/// A data partition's state.
pub type DataPartitionState = LeaderState<ProduceRequest>;

/// A data partition leader's configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DataPartition {
    /// Which partition it leads.
    pub index: PartitionIndex,
    /// The transaction coordinator (for verification).
    pub txn_coordinator: Id,
    /// The design (transaction version, verification).
    pub design: Design,
}

impl DataPartition {
    /// Loads the partition from its log.
    pub fn on_start(
        &self,
        storage: Option<&LeaderStorage>,
        o: &mut Out<Node>,
    ) -> DataPartitionState {
        let (state, storage) = LeaderState::load(&storage.cloned());
        o.save(NodeStorage::Leader(storage));
        state
    }

    /// Handles Produce, verification answers and markers.
    pub fn on_msg(&self, state: &mut DataPartitionState, src: Id, msg: Msg, o: &mut Out<Node>) {
        match msg {
            Msg::Produce(req) => self.produce(state, src, req, false, o),
            Msg::AddPartitionsToTxnResponse(resp) => {
                let guard = match resp.mode {
                    AddPartitionsMode::VerifyOnly { guard }
                    | AddPartitionsMode::BrokerAdd { guard } => guard,
                    AddPartitionsMode::Client => return,
                };
                let Some(parked) = state.unpark(resp.producer, guard) else {
                    return;
                };
                if resp.error == ErrorCode::None && !parked.valid {
                    // `VerificationGuard` mismatch at append: "Record was not part of an
                    // ongoing transaction".
                    reply(o, parked.src, &parked.request, ErrorCode::InvalidTxnState);
                } else if resp.error == ErrorCode::None {
                    self.produce(state, parked.src, parked.request, true, o);
                } else {
                    reply(
                        o,
                        parked.src,
                        &parked.request,
                        verification_error(resp.error),
                    );
                }
            }
            Msg::WriteTxnMarkers(req) => {
                let error = state.log.write_marker(&req);
                if error == ErrorCode::None {
                    o.save(NodeStorage::Leader(state.storage()));
                    // The marker ends whatever was open: a verification in progress for
                    // this producer no longer guards a valid append (the ABA race).
                    state.void_guard(req.producer.pid);
                }
                o.send(src, req.response(error));
            }
            _ => {}
        }
    }

    fn produce(
        &self,
        state: &mut DataPartitionState,
        src: Id,
        req: ProduceRequest,
        verified: bool,
        o: &mut Out<Node>,
    ) {
        let check = state.log.check_append(
            req.producer,
            Some(req.seq),
            self.design.tv,
            self.design.verification || self.design.tv.bumps_epoch_per_txn(),
            verified,
        );
        match check {
            AppendCheck::Append => {
                state
                    .log
                    .append(req.producer, Some(req.seq), Payload::Output(req.record));
                o.save(NodeStorage::Leader(state.storage()));
                reply(o, src, &req, ErrorCode::None);
            }
            AppendCheck::Duplicate => reply(o, src, &req, ErrorCode::None),
            AppendCheck::Reject(e) => reply(o, src, &req, e),
            AppendCheck::NeedsVerification => {
                if state
                    .verifying
                    .get(&req.producer.pid)
                    .is_some_and(|p| p.request == req && p.valid)
                {
                    // A retry of the write being verified: it joins that verification.
                    // (Kafka answers the abandoned copy NETWORK_EXCEPTION, which the client
                    // ignores: it no longer waits on that correlation id.)
                    return;
                }
                let (guard, displaced) = state.park(req.producer, src, req.clone());
                if let Some(old) = displaced {
                    reply(o, old.src, &old.request, ErrorCode::NetworkException);
                }
                o.send(
                    self.txn_coordinator,
                    AddPartitionsToTxnRequest::verification(
                        self.design.tv,
                        req.txn,
                        req.producer,
                        TopicPartition::Output(self.index),
                        guard,
                    ),
                );
            }
        }
    }
}

/// What a client sees when verification fails (`AddPartitionsToTxnManager`).
pub(crate) fn verification_error(e: ErrorCode) -> ErrorCode {
    match e {
        ErrorCode::InvalidProducerIdMapping => ErrorCode::InvalidTxnState,
        ErrorCode::ProducerFenced => ErrorCode::InvalidProducerEpoch,
        other => other,
    }
}

fn reply(o: &mut Out<Node>, dst: Id, req: &ProduceRequest, error: ErrorCode) {
    o.send(
        dst,
        Msg::ProduceResponse(ProduceResponse {
            partition: req.partition,
            producer: req.producer,
            seq: req.seq,
            error,
        }),
    );
}
