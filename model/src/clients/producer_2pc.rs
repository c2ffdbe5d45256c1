//! The client `TransactionManager`'s KIP-939 operations: `prepareTransaction()`,
//! `initTransactions(keepPreparedTxn=true)` finding a prepared transaction, and
//! `completeTransaction(PreparedTxnState)`.

use crate::clients::producer::{Producer, ProducerState};
use crate::clients::transaction_manager::CurrentTxn;
use crate::coordinator::txn_state::TxnManagerState;
use crate::protocol::ghost::Ghost;
use crate::protocol::ids::{Connection, TxnTag};
use crate::protocol::msg::{InitProducerIdRequest, ProducerIdAndEpoch};
use crate::protocol::output::Host;
use stateright::actor::Out;

impl Producer {
    /// `initTransactions(keepPreparedTxn)` for a client with 2PC enabled or not, on
    /// `connection`.
    pub(crate) fn init_transactions_2pc<A: Host>(
        &self,
        incarnation: crate::protocol::width::Epoch,
        enable_2pc: bool,
        keep_prepared_txn: bool,
        connection: Connection,
        o: &mut Out<A>,
    ) -> ProducerState {
        let init = InitProducerIdRequest {
            txn: self.txn,
            enable_2pc,
            keep_prepared_txn,
            expected: None,
            connection,
        };
        self.start_with(incarnation, init, o)
    }

    /// `prepareTransaction()`: flush every write of the transaction in progress, then move
    /// to PREPARED_TRANSACTION holding the `PreparedTxnState` (the current pair). A client
    /// step only: no request goes to the coordinator. Ignored outside IN_TRANSACTION (the
    /// Java call would throw).
    pub(crate) fn prepare_transaction<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        if state.manager.tm != TxnManagerState::InTransaction {
            return;
        }
        if let Some(txn) = state.manager.txn.as_mut() {
            txn.prepare = true;
        }
        self.maybe_end(state, o);
    }

    /// InitProducerId answered with an ongoing transaction that `KeepPreparedTxn` kept:
    /// the client is in PREPARED_TRANSACTION for it, with the new pair as its identity and
    /// the kept pair as its `PreparedTxnState`, until `completeTransaction`.
    pub(crate) fn resume_prepared(&self, state: &mut ProducerState, ongoing: ProducerIdAndEpoch) {
        let tag = Ghost::new(TxnTag {
            client: self.txn.0,
            incarnation: state.manager.incarnation,
            attempt: state.manager.attempts,
        });
        state.manager.attempts += 1;
        state.manager.txn = Some(CurrentTxn {
            tag,
            input: 0,
            failed: false,
            decision: None,
            writes_issued: true,
            prepare: true,
        });
        state.manager.prepared = Some(ongoing);
        state.manager.set_tm(TxnManagerState::PreparedTransaction);
    }

    /// `completeTransaction(preparedTxnState)`: commit the prepared transaction iff
    /// `expected` is the pair it holds, else abort it (the caller's record says this
    /// transaction was not the one it prepared). Ignored unless PREPARED_TRANSACTION: with
    /// no prepared transaction there is nothing to complete.
    pub(crate) fn complete_transaction<A: Host>(
        &self,
        state: &mut ProducerState,
        expected: Option<ProducerIdAndEpoch>,
        o: &mut Out<A>,
    ) {
        if state.manager.tm != TxnManagerState::PreparedTransaction {
            return;
        }
        let commit = expected.is_some() && expected == state.manager.prepared;
        if let Some(txn) = state.manager.txn.as_mut() {
            txn.decision = Some(commit);
        }
        self.maybe_end(state, o);
    }
}
