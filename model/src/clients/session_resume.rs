//! KIP-1310's `TransactionSession` lifecycle beyond the loop of [`crate::clients::transaction_session`]:
//! `prepareTransaction()`, `completeTransaction(PreparedTxnState)`, `close()` and
//! `TransactionSession.resume(txnId, producerId, epoch)`, on the KIP-939 code of the
//! `TransactionManager` ([`crate::clients::producer_2pc`]), one implementation.
//!
//! `resume` is what the seed leaves open ([`ResumeMode`]): install the identity locally
//! ("creates a TransactionSession in IN_TRANSACTION state with the given identity", "no
//! new wire protocol"), or fence the old incarnation first with
//! InitProducerId(keepPreparedTxn=true), which the seed says resume "may call under the
//! covers" (docs/kafka-cases.md S17).

use crate::clients::producer::{Producer, ProducerState};
use crate::clients::transaction_manager::{CurrentTxn, TransactionManager};
use crate::coordinator::txn_state::TxnManagerState;
use crate::design::session_knobs::ResumeMode;
use crate::protocol::external_msg::Committable;
use crate::protocol::ids::{Connection, PartitionIndex};
use crate::protocol::msg::{OutputRecord, ProducerIdAndEpoch};
use crate::protocol::output::Host;
use crate::protocol::width::Epoch;
use stateright::actor::Out;

impl Producer {
    /// `new TransactionSession(configs).initialize()` for a writer that will prepare:
    /// InitProducerId with `Enable2Pc` as the design grants it, and `keepPreparedTxn` as
    /// `writer_keep_prepared` says.
    pub(crate) fn initialize_2pc_session<A: Host>(
        &self,
        incarnation: Epoch,
        o: &mut Out<A>,
    ) -> ProducerState {
        let connection = Connection::default();
        self.init_transactions_2pc(
            incarnation,
            self.design.two_phase_commit,
            self.design.writer_keep_prepared,
            connection,
            o,
        )
    }

    /// `TransactionSession.resume(txnId, producerId, epoch)` for the transaction the writer
    /// prepared (`committable`), on a session of its own (`connection`). With `resume=install` the session starts IN_TRANSACTION
    /// with that identity and sends nothing; with `resume=fence` it sends
    /// InitProducerId(keepPreparedTxn=true) and is PREPARED_TRANSACTION once answered
    /// ([`Producer::resume_prepared`]).
    pub(crate) fn resume_session<A: Host>(
        &self,
        incarnation: Epoch,
        committable: &Committable,
        connection: Connection,
        o: &mut Out<A>,
    ) -> ProducerState {
        match self.design.resume {
            ResumeMode::Fence => self.init_transactions_2pc(
                incarnation,
                self.design.two_phase_commit,
                true,
                connection,
                o,
            ),
            ResumeMode::Install => self.installed(incarnation, committable, connection),
        }
    }

    /// The session `resume=install` creates: IN_TRANSACTION with the committable's
    /// identity, which the producer on it has from the start.
    fn installed(
        &self,
        incarnation: Epoch,
        committable: &Committable,
        connection: Connection,
    ) -> ProducerState {
        let mut role = self.role.initial_state();
        if let Some(session) = role.session_mut() {
            session.view = Some(committable.producer);
        }
        ProducerState {
            manager: TransactionManager {
                tm: TxnManagerState::InTransaction,
                identity: Some(committable.producer),
                attempts: 1,
                txn: Some(CurrentTxn {
                    tag: committable.tag,
                    input: 0,
                    failed: false,
                    decision: None,
                    writes_issued: true,
                    prepare: false,
                }),
                prepared: Some(committable.producer),
                connection,
                ..TransactionManager::new(incarnation)
            },
            next_input: 0,
            role,
        }
    }

    /// Whether the resumed session holds the transaction and may complete it: installed,
    /// or PREPARED_TRANSACTION after InitProducerId(keepPreparedTxn=true) was answered.
    pub(crate) fn holds_resumed(state: &ProducerState) -> bool {
        state.manager.coordinator.is_none()
            && state
                .manager
                .txn
                .as_ref()
                .is_some_and(|t| t.decision.is_none())
            && matches!(
                state.manager.tm,
                TxnManagerState::InTransaction | TxnManagerState::PreparedTransaction
            )
    }

    /// The coordinator application's decision on a session that holds the transaction:
    /// `commitTransaction()` / `abortTransaction()` on an installed session (IN_TRANSACTION),
    /// `completeTransaction(preparedTxnState)` on a prepared one. A commit passes the
    /// `PreparedTxnState` the application stored (`commit`, the writer's committable), and
    /// `KafkaProducer.completeTransaction` commits only if it equals the kept transaction's
    /// (`TransactionManager.preparedTransactionState()`), else aborts; an abort passes none.
    pub(crate) fn complete_resumed<A: Host>(
        &self,
        state: &mut ProducerState,
        commit: Option<ProducerIdAndEpoch>,
        o: &mut Out<A>,
    ) {
        match state.manager.tm {
            TxnManagerState::PreparedTransaction => self.complete_transaction(state, commit, o),
            TxnManagerState::InTransaction => {
                if let Some(txn) = state.manager.txn.as_mut() {
                    txn.decision = Some(commit.is_some());
                }
                self.maybe_end(state, o);
            }
            _ => {}
        }
    }

    /// `close()`: the `Sender`'s shutdown aborts a transaction that is still open
    /// ("Aborting incomplete transaction due to shutdown"), once its writes are answered.
    /// `hasOngoingTransaction()` is IN_TRANSACTION, completing or ABORTABLE_ERROR: a
    /// prepared transaction is left for whoever completes it.
    pub(crate) fn close_session<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        let open = matches!(
            state.manager.tm,
            TxnManagerState::InTransaction | TxnManagerState::AbortableError
        );
        if open {
            self.abort_session(state, o);
        }
        // A closed producer begins no transaction again (`KafkaProducer.close()`): the
        // application's loop makes no further attempt, whatever its bound.
        state.manager.attempts = self.txns;
    }

    /// `abortTransaction()` on a session that holds a transaction, prepared or not (Kafka
    /// allows PREPARED_TRANSACTION to ABORTING_TRANSACTION): EndTxn ABORT once its writes
    /// are answered.
    pub(crate) fn abort_session<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        if let Some(txn) = state.manager.txn.as_mut() {
            if txn.decision.is_none() {
                txn.decision = Some(false);
            }
        }
        self.maybe_end(state, o);
    }

    /// `producer.send(record)` on a session, outside the loop: one more record of the
    /// transaction to the first output partition, with the session's identity. With
    /// `session_send_check` the producer refuses it unless the session is IN_TRANSACTION
    /// (Kafka's `maybeAddPartition` throws "Cannot call send in state ..."); false when
    /// nothing was sent.
    pub(crate) fn send_on_session<A: Host>(
        &self,
        state: &mut ProducerState,
        o: &mut Out<A>,
    ) -> bool {
        if self.design.session_send_check && state.manager.tm != TxnManagerState::InTransaction {
            return false;
        }
        let (Some(txn), Some(leader)) = (state.manager.txn.as_ref(), self.partitions.first())
        else {
            return false;
        };
        if state.manager.identity.is_none() {
            return false;
        }
        let partition = PartitionIndex(0);
        let record = OutputRecord {
            input: txn.input,
            tag: txn.tag,
        };
        self.send_produce(state, partition, *leader, record, o);
        true
    }
}
