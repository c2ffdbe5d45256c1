//! The messages of the seed's section 4.5 outside Kafka: the writer handing its
//! `PreparedTxnState` to the coordinator application (Flink's `KafkaCommittable`: the
//! transactional id, producer id and epoch), and the application's two-phase commit with
//! the external participant (a database's prepare, commit and abort).

use crate::protocol::ghost::Ghost;
use crate::protocol::ids::{TransactionalId, TxnTag};
use crate::protocol::msg::ProducerIdAndEpoch;
use serde::{Deserialize, Serialize};

/// What the writer hands the committer once its transaction is prepared.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Committable {
    /// The transactional id.
    pub txn: TransactionalId,
    /// The `PreparedTxnState`: the pair the transaction was prepared with.
    pub producer: ProducerIdAndEpoch,
    /// Ghost: the writer's attempt, so the resumed transaction keeps its tag.
    pub tag: Ghost<TxnTag>,
}

/// The writer failed before it handed its `PreparedTxnState` over (fenced, or a request
/// timed out): Flink's task failure, which the job manager answers with a failover of the
/// job to its last checkpoint (`writer_failover`). Not a Kafka RPC.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct WriterFailed {
    /// The writer's transactional id.
    pub txn: TransactionalId,
}

/// A step of the external participant's two-phase commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ExternalOp {
    /// `database.prepareTransaction(dbTxnId)`: vote, durably.
    Prepare,
    /// `database.commitTransaction(dbTxnId)`.
    Commit,
    /// `database.rollback(dbTxnId)`.
    Abort,
}

impl ExternalOp {
    /// The decision this operation carries, if it is one.
    pub fn decision(self) -> Option<bool> {
        match self {
            ExternalOp::Prepare => None,
            ExternalOp::Commit => Some(true),
            ExternalOp::Abort => Some(false),
        }
    }
}

/// The coordinator application's request to the external participant.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ExternalRequest {
    /// What to do.
    pub op: ExternalOp,
}

/// The external participant's answer: the operation is durable.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ExternalResponse {
    /// What was done.
    pub op: ExternalOp,
    /// For a decision: the one the participant holds (its first, if it was told twice).
    pub decided: Option<bool>,
}
