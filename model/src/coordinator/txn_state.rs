//! The two transition tables of Kafka transactions: the coordinator's `TransactionState`
//! (`TransactionState.java`, `VALID_PREVIOUS_STATES`) and the client's
//! `TransactionManager.State`. Properties check every step against them.

use serde::{Deserialize, Serialize};

/// The coordinator-side state of a transactional id, as persisted in `__transaction_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[allow(missing_docs)] // Kafka's names
pub enum TransactionState {
    Empty,
    Ongoing,
    PrepareCommit,
    PrepareAbort,
    CompleteCommit,
    CompleteAbort,
    Dead,
    PrepareEpochFence,
}

impl TransactionState {
    /// The states from which Kafka allows a transition into `self`.
    pub fn valid_previous_states(self) -> &'static [TransactionState] {
        use TransactionState::*;
        match self {
            Empty => &[Empty, CompleteCommit, CompleteAbort],
            Ongoing => &[Ongoing, Empty, CompleteCommit, CompleteAbort],
            PrepareCommit => &[Ongoing],
            PrepareAbort => &[
                Ongoing,
                PrepareEpochFence,
                Empty,
                CompleteCommit,
                CompleteAbort,
            ],
            CompleteCommit => &[PrepareCommit],
            CompleteAbort => &[PrepareAbort],
            Dead => &[Empty, CompleteAbort, CompleteCommit],
            PrepareEpochFence => &[Ongoing],
        }
    }

    /// Whether `from -> self` is in the table. Staying in the same state is legal only where
    /// the table lists it (a repeated AddPartitionsToTxn keeps `Ongoing`).
    pub fn can_follow(self, from: TransactionState) -> bool {
        self.valid_previous_states().contains(&from)
    }

    /// A transaction is in flight at the coordinator: partitions may hold its records.
    pub fn is_in_flight(self) -> bool {
        matches!(
            self,
            TransactionState::Ongoing
                | TransactionState::PrepareCommit
                | TransactionState::PrepareAbort
                | TransactionState::PrepareEpochFence
        )
    }

    /// `PrepareCommit` or `PrepareAbort`: the outcome is decided, markers are being written.
    pub fn is_prepare(self) -> bool {
        matches!(
            self,
            TransactionState::PrepareCommit | TransactionState::PrepareAbort
        )
    }
}

/// The client `TransactionManager` states (`TransactionManager.State`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[allow(missing_docs)] // Kafka's names
pub enum TxnManagerState {
    Uninitialized,
    Initializing,
    Ready,
    InTransaction,
    PreparedTransaction,
    CommittingTransaction,
    AbortingTransaction,
    AbortableError,
    FatalError,
}

impl TxnManagerState {
    /// The states from which the client allows a transition into `self`.
    pub fn valid_previous_states(self) -> &'static [TxnManagerState] {
        use TxnManagerState::*;
        match self {
            Uninitialized => &[Ready, AbortableError],
            Initializing => &[Uninitialized, CommittingTransaction, AbortingTransaction],
            Ready => &[Initializing, CommittingTransaction, AbortingTransaction],
            InTransaction => &[Ready],
            PreparedTransaction => &[InTransaction, Initializing],
            CommittingTransaction => &[InTransaction, PreparedTransaction],
            AbortingTransaction => &[InTransaction, PreparedTransaction, AbortableError],
            AbortableError => &[
                InTransaction,
                CommittingTransaction,
                AbortableError,
                Initializing,
            ],
            // FATAL_ERROR is reachable from anywhere.
            FatalError => &[
                Uninitialized,
                Initializing,
                Ready,
                InTransaction,
                PreparedTransaction,
                CommittingTransaction,
                AbortingTransaction,
                AbortableError,
                FatalError,
            ],
        }
    }

    /// Whether `from -> self` is in the client's table (staying put is always legal for the
    /// client: most handlers leave the state unchanged).
    pub fn can_follow(self, from: TxnManagerState) -> bool {
        self == from || self.valid_previous_states().contains(&from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinator_table_matches_kafka() {
        use TransactionState::*;
        assert!(PrepareCommit.can_follow(Ongoing));
        assert!(!PrepareCommit.can_follow(Empty));
        assert!(!CompleteCommit.can_follow(PrepareAbort));
        assert!(
            PrepareAbort.can_follow(CompleteCommit),
            "TV2 abort from COMPLETE_*"
        );
        assert!(Ongoing.can_follow(Ongoing));
        assert!(!Empty.can_follow(Ongoing));
    }

    #[test]
    fn client_table_matches_kafka() {
        use TxnManagerState::*;
        assert!(CommittingTransaction.can_follow(InTransaction));
        assert!(!CommittingTransaction.can_follow(Ready));
        assert!(FatalError.can_follow(Ready));
        assert!(!InTransaction.can_follow(CommittingTransaction));
    }
}
