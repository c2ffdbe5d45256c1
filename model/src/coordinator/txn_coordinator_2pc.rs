//! The transaction coordinator's KIP-939 and KIP-1309 paths: `KeepPreparedTxn`, the 2PC
//! exemption from the transaction timeout, and the TxnHeartbeat liveness timer.
//!
//! Kafka does not implement all of this. `Enable2Pc` is Kafka's (the transaction timeout
//! becomes `Int.MaxValue`, and a broker with `transaction.two.phase.commit.enable=false`
//! answers TRANSACTIONAL_ID_AUTHORIZATION_FAILED). `KeepPreparedTxn=true` is answered
//! UNSUPPORTED_VERSION by today's brokers (an implementation was reverted), so its
//! semantics here are KIP-939's text: InitProducerId bumps the epoch, which fences the
//! previous incarnation, keeps the ongoing transaction, and returns the pair that
//! transaction was begun with as `OngoingTxnProducerId/Epoch`; the new incarnation then
//! completes it with EndTxn carrying the bumped (its current) pair, as the Java client's
//! `completeTransaction` calls `commitTransaction`/`abortTransaction` with its current
//! `producerIdAndEpoch`. Both pairs are in the `__transaction_state` log, so a coordinator
//! failover reloads the kept transaction as ONGOING and a retried InitProducerId returns
//! the same ongoing pair.
//!
//! KIP-1309 is a draft with no public schema. Here: the owner of an ongoing transaction
//! sends TxnHeartbeat with its pair; the coordinator re-arms a liveness timer per
//! transactional id, independent of the transaction timeout; the timer expiring fences and
//! aborts the transaction as the timeout does. A 2PC transaction is exempt: once a client
//! prepared it, its outcome belongs to the external coordinator (a Flink checkpoint, a
//! database), and an abort decided by the Kafka coordinator alone breaks the atomicity 2PC
//! exists for. So the heartbeat cannot bound the stall of docs/kafka-cases.md S12 for a 2PC
//! transaction whose owner vanished; only the owner's recovery (InitProducerId with
//! `KeepPreparedTxn` and `completeTransaction`) or an operator ends it.

use crate::coordinator::txn_coordinator::{
    timeout, InitReply, TransactionMetadata, TxnCoordinator, TxnCoordinatorState, TxnLog,
};
use crate::coordinator::txn_state::TransactionState;
use crate::protocol::error::ErrorCode;
use crate::protocol::ids::TransactionalId;
use crate::protocol::msg::{InitProducerIdRequest, Timer};
use crate::protocol::output::Saves;
use crate::protocol::txn_heartbeat_msg::{TxnHeartbeatRequest, TxnHeartbeatResponse};
use stateright::actor::Out;

impl TxnCoordinator {
    /// KIP-939's `KeepPreparedTxn` on an ONGOING transaction: bump the epoch (fencing
    /// every holder of the old pair: its writes, verifications and EndTxn now fail with
    /// PRODUCER_FENCED), keep the transaction and its participants, and return the pair
    /// it was begun with. `None` when the request is not that case, and InitProducerId
    /// proceeds as before KIP-939 (so without an ongoing transaction, or with
    /// `KeepPreparedTxn=false`, the ongoing transaction is fenced and aborted).
    pub(crate) fn keep_prepared<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        req: &InitProducerIdRequest,
        o: &mut Out<A>,
    ) -> Option<InitReply> {
        if !req.keep_prepared_txn {
            return None;
        }
        let meta = state.txns.get_mut(&req.txn)?;
        if meta.state != TransactionState::Ongoing {
            return None;
        }
        let ongoing = *meta.kept.get_or_insert(meta.identity());
        // No expected epoch comes with a fresh incarnation's request, so Kafka's
        // `prepareIncrementProducerEpoch` leaves no last epoch: an EndTxn with the old
        // pair is fenced rather than taken for a retry of a bumped EndTxn.
        meta.last_epoch = None;
        meta.epoch = meta.epoch.bump();
        meta.two_phase = req.enable_2pc;
        Self::transition(&mut state.transitions, meta, TransactionState::Ongoing);
        let meta = meta.clone();
        if meta.two_phase {
            o.cancel_timer(Timer::TxnTimeout(req.txn));
        }
        self.arm_heartbeat(&meta, req.txn, o);
        self.save(state, o);
        Some((ErrorCode::None, Some(meta.identity()), Some(ongoing)))
    }

    /// The timers an ONGOING transaction runs: the transaction timeout unless it is 2PC,
    /// and, with KIP-1309, the heartbeat deadline.
    pub(crate) fn arm_ongoing_timers<A: Saves<TxnLog>>(
        &self,
        meta: &TransactionMetadata,
        txn: TransactionalId,
        o: &mut Out<A>,
    ) {
        if !meta.two_phase {
            o.set_timer(Timer::TxnTimeout(txn), timeout());
        }
        self.arm_heartbeat(meta, txn, o);
    }

    /// The timers of a transaction that is no longer ONGOING.
    pub(crate) fn cancel_ongoing_timers<A: Saves<TxnLog>>(
        &self,
        txn: TransactionalId,
        o: &mut Out<A>,
    ) {
        o.cancel_timer(Timer::TxnTimeout(txn));
        if self.design.txn_heartbeat {
            o.cancel_timer(Timer::TxnHeartbeatExpiry(txn));
        }
    }

    fn arm_heartbeat<A: Saves<TxnLog>>(
        &self,
        meta: &TransactionMetadata,
        txn: TransactionalId,
        o: &mut Out<A>,
    ) {
        if self.design.txn_heartbeat && !meta.two_phase {
            o.set_timer(Timer::TxnHeartbeatExpiry(txn), timeout());
        }
    }

    /// KIP-1309 TxnHeartbeat: the owner (its exact pair) of an ONGOING transaction is alive.
    /// Fencing errors as for AddPartitionsToTxn; a heartbeat outside a transaction keeps
    /// nothing alive and is answered without effect. Without the knob the coordinator does
    /// not know the RPC.
    pub(crate) fn txn_heartbeat<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        req: &TxnHeartbeatRequest,
        o: &mut Out<A>,
    ) -> TxnHeartbeatResponse {
        let error = if !self.design.txn_heartbeat {
            ErrorCode::UnsupportedVersion
        } else {
            match state.txns.get(&req.txn) {
                None => ErrorCode::InvalidProducerIdMapping,
                Some(meta) => match Self::check_producer(meta, req.producer) {
                    ErrorCode::None if meta.state == TransactionState::Ongoing => {
                        self.arm_heartbeat(meta, req.txn, o);
                        ErrorCode::None
                    }
                    e => e,
                },
            }
        };
        TxnHeartbeatResponse {
            txn: req.txn,
            producer: req.producer,
            error,
        }
    }

    /// The owner stopped heartbeating: fence and abort, as the transaction timeout does
    /// (a 2PC transaction never arms this timer).
    pub(crate) fn on_heartbeat_expiry<A: Saves<TxnLog>>(
        &self,
        state: &mut TxnCoordinatorState,
        txn: TransactionalId,
        o: &mut Out<A>,
    ) {
        let Some(meta) = state.txns.get(&txn) else {
            return;
        };
        if self.design.txn_heartbeat && meta.state == TransactionState::Ongoing && !meta.two_phase {
            self.fence_and_abort(state, txn, o);
        }
    }
}
