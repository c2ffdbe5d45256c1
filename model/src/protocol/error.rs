//! Kafka's error codes, by their names in `Errors.java`, restricted to those the model uses.

use serde::{Deserialize, Serialize};

/// An error code carried in a response. `None` is success, as in Kafka.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[allow(missing_docs)] // the names are Kafka's; Kafka's `Errors.java` documents each
pub enum ErrorCode {
    None,
    NotLeaderOrFollower,
    RequestTimedOut,
    NetworkException,
    CoordinatorLoadInProgress,
    NotCoordinator,
    OutOfOrderSequenceNumber,
    DuplicateSequenceNumber,
    InvalidProducerEpoch,
    InvalidTxnState,
    InvalidProducerIdMapping,
    ConcurrentTransactions,
    TransactionCoordinatorFenced,
    ProducerFenced,
    TransactionAbortable,
    UnstableOffsetCommit,
    InvalidShareSessionEpoch,
    ShareSessionNotFound,
    InvalidRecordState,
    FencedLeaderEpoch,
    FencedStateEpoch,
    TransactionalIdAuthorizationFailed,
    UnsupportedVersion,
    UnknownTopicOrPartition,
}

impl ErrorCode {
    /// Whether this error fences the sender's epoch (the "zombie" errors).
    pub fn is_fencing(self) -> bool {
        matches!(
            self,
            ErrorCode::ProducerFenced | ErrorCode::InvalidProducerEpoch
        )
    }

    /// Whether the Java client retries the same request after this error.
    pub fn is_retriable(self) -> bool {
        matches!(
            self,
            ErrorCode::NotLeaderOrFollower
                | ErrorCode::RequestTimedOut
                | ErrorCode::NetworkException
                | ErrorCode::CoordinatorLoadInProgress
                | ErrorCode::NotCoordinator
                | ErrorCode::ConcurrentTransactions
                | ErrorCode::UnstableOffsetCommit
        )
    }
}
