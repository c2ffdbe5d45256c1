//! KIP-1309's `TxnHeartbeat`: the owner of an ongoing transaction tells the transaction
//! coordinator it is alive, so that the coordinator can abort a transaction whose owner
//! died long before the transaction timeout would. KIP-1309 is a draft whose schema is not
//! public; the fields here are the least the text needs (the transactional id and the
//! fencing token of the owner).

use crate::protocol::error::ErrorCode;
use crate::protocol::ids::TransactionalId;
use crate::protocol::msg::ProducerIdAndEpoch;
use serde::{Deserialize, Serialize};

/// TxnHeartbeat request.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TxnHeartbeatRequest {
    /// The transactional id.
    pub txn: TransactionalId,
    /// The owner's producer id and epoch.
    pub producer: ProducerIdAndEpoch,
}

/// TxnHeartbeat response.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TxnHeartbeatResponse {
    /// The transactional id.
    pub txn: TransactionalId,
    /// The producer id and epoch of the request.
    pub producer: ProducerIdAndEpoch,
    /// The error, `None` on success.
    pub error: ErrorCode,
}
