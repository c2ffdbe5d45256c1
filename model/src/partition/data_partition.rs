//! A data partition leader (`output-N`): transactional appends with producer-state checks,
//! KIP-890 verification of a producer's first write in a transaction (part 1: verify only;
//! part 2, TV2: the leader adds the partition implicitly), and COMMIT/ABORT markers.
//! The log is durable (the model's appends are acks=all); verification state is not.

use crate::design::Design;
use crate::partition::leader::{LeaderState, LeaderStorage};
use crate::partition::parked_write::{
    leader_wait, verifications_from, void_guard, VerifiedWrite, Verifier,
};
use crate::partition::partition_log::{AppendCheck, Payload};
use crate::protocol::error::ErrorCode;
use crate::protocol::ids::*;
use crate::protocol::msg::*;
use crate::protocol::output::Saves;
use crate::protocol::wait::Wait;
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
    pub fn on_start<A: Saves<LeaderStorage>>(
        &self,
        storage: Option<&LeaderStorage>,
        o: &mut Out<A>,
    ) -> DataPartitionState {
        let (state, storage) = LeaderState::load(&storage.cloned());
        o.save(storage.into());
        state
    }

    /// Handles Produce, verification answers and markers.
    pub fn on_msg<A: Saves<LeaderStorage>>(
        &self,
        state: &mut DataPartitionState,
        src: Id,
        msg: Msg,
        o: &mut Out<A>,
    ) {
        match msg {
            Msg::Produce(req) => self.produce(state, src, req, false, o),
            Msg::AddPartitionsToTxnResponse(resp) => {
                if let Some(parked) = self.verifier().resume(&mut state.verifying, &resp, o) {
                    self.produce(state, parked.src, parked.request, true, o);
                }
            }
            Msg::WriteTxnMarkers(req) => {
                let error = state.log.write_marker(&req);
                if error == ErrorCode::None {
                    o.save(state.storage().into());
                    // The marker ends whatever was open: a verification in progress for
                    // this producer no longer guards a valid append (the ABA race).
                    void_guard(&mut state.verifying, req.producer.pid);
                }
                o.send(src, req.response(error));
            }
            _ => {}
        }
    }

    /// The inter-broker request timeout of the verification of `pid` ran out.
    pub fn on_timeout<A: Saves<LeaderStorage>>(
        &self,
        state: &mut DataPartitionState,
        timer: Timer,
        o: &mut Out<A>,
    ) {
        if let Timer::VerificationTimeout(at) = timer {
            self.verifier().time_out(&mut state.verifying, at, o);
        }
    }

    fn verifier(&self) -> Verifier {
        Verifier {
            txn_coordinator: self.txn_coordinator,
            tv: self.design.tv,
            partition: TopicPartition::Output(self.index),
            join_voided: false,
            // One partition, so one key.
            key: 0,
        }
    }

    fn produce<A: Saves<LeaderStorage>>(
        &self,
        state: &mut DataPartitionState,
        src: Id,
        req: ProduceRequest,
        verified: bool,
        o: &mut Out<A>,
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
                o.save(state.storage().into());
                reply(o, src, &req, ErrorCode::None);
            }
            AppendCheck::Duplicate => reply(o, src, &req, ErrorCode::None),
            AppendCheck::Reject(e) => reply(o, src, &req, e),
            AppendCheck::NeedsVerification => {
                let guard = state.guard();
                self.verifier()
                    .park(&mut state.verifying, guard, src, req, o);
            }
        }
    }
}

fn reply<A: Saves<LeaderStorage>>(o: &mut Out<A>, dst: Id, req: &ProduceRequest, error: ErrorCode) {
    o.send(dst, req.response(error));
}

/// What the leader's timers wait for (see [`crate::protocol::wait`]).
impl DataPartition {
    /// What `timer` waits for: only verifications arm timers here.
    pub fn wait(&self, state: &DataPartitionState, timer: &Timer) -> Wait {
        leader_wait(&state.verifying, timer, self.txn_coordinator)
    }

    /// The verifications in progress for writes from `client`.
    pub fn verifications_from(&self, state: &DataPartitionState, client: Id) -> Vec<Wait> {
        verifications_from(&state.verifying, client, self.txn_coordinator)
    }
}
