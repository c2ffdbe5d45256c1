//! Identifiers as small newtypes with short `Debug` forms, so traces and snapshots stay readable.

use crate::protocol::width::Epoch;
use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! small_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        small_id!($(#[$doc])* $name, $prefix, u8);
    };
    ($(#[$doc:meta])* $name:ident, $prefix:literal, $width:ty) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub struct $name(pub $width);
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(self, f)
            }
        }
    };
}

small_id!(
    /// A `transactional.id`. The model has one per transactional client.
    TransactionalId, "txn"
);
small_id!(
    /// A producer id allocated by the transaction coordinator.
    ProducerId, "pid"
);
small_id!(
    /// A producer epoch (Kafka's is an int16): bumped by InitProducerId, fencing and, under
    /// TV2, every transaction, so hundreds of transactions need more than 8 bits.
    ProducerEpoch, "e", Epoch
);
small_id!(
    /// The leader epoch of `__transaction_state`: bumped by every coordinator load.
    CoordinatorEpoch, "ce", Epoch
);
small_id!(
    /// A share-group member id (Kafka's is a UUID; here the consumer's index).
    MemberId, "m"
);
small_id!(
    /// A share group's id (Kafka's is a string; here the group's index). The share
    /// coordinator's state is keyed by group, topic and partition as Kafka's
    /// `SharePartitionKey` (1eb7644, `server-common/.../share/SharePartitionKey.java`).
    GroupId, "g"
);
small_id!(
    /// An output data partition index (`output-N`).
    PartitionIndex, "out-"
);

impl GroupId {
    /// Whether this is the first group, the only one of every scenario with one share
    /// group: the wire and the traces leave it out then, so they read as before groups.
    pub fn is_first(&self) -> bool {
        self.0 == 0
    }
}

impl MemberId {
    /// No member (Kafka's empty `MemberId`): what a TxnShareAcknowledge names when its
    /// sender is no member of the group or its design's wire format has no member
    /// (docs/wire.md).
    pub const NONE: MemberId = MemberId(u8::MAX);
}

impl ProducerEpoch {
    /// The largest epoch Kafka's int16 holds (`Short.MAX_VALUE`).
    pub const MAX: ProducerEpoch = ProducerEpoch(i16::MAX as Epoch);

    /// The next epoch (InitProducerId, fencing, and TV2's per-transaction bump).
    ///
    /// Kafka's coordinator rotates to a new producer id with epoch 0 when the epoch is
    /// exhausted. The model does not rotate: no run the checker or the simulator allows
    /// comes near (the simulator's workloads stay below a thousand transactions per
    /// producer). Rather than wrap silently past Kafka's range, the model stops loudly.
    pub fn bump(self) -> Self {
        assert!(
            self < ProducerEpoch::MAX,
            "producer epoch exhausted at {self:?}: Kafka would rotate the producer id, which the model does not"
        );
        ProducerEpoch(self.0 + 1)
    }
}

/// A partition that can take part in a transaction: a data partition or a coordinator's
/// internal partition. The transaction coordinator tracks these in `topicPartitions`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum TopicPartition {
    /// `output-N`, written by Produce.
    Output(PartitionIndex),
    /// The `__consumer_offsets` partition of the consume-transform-produce group.
    ConsumerOffsets,
    /// The `__share_group_state` partition of the share group (KIP-1289 participant).
    ShareGroupState,
}

impl fmt::Debug for TopicPartition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TopicPartition::Output(p) => write!(f, "{p:?}"),
            TopicPartition::ConsumerOffsets => write!(f, "__consumer_offsets"),
            TopicPartition::ShareGroupState => write!(f, "__share_group_state"),
        }
    }
}

/// Ghost identity of one client transaction attempt: which incarnation of the client began
/// it, and its sequence number within that incarnation. It travels with writes so that
/// properties can tell which attempt a record belongs to. It rides wrapped in a
/// [`Ghost`](crate::protocol::ghost::Ghost), which no handler can open.
///
/// `client` is the transactional id's index, so that two clients' attempts never share a
/// tag. It is left out of traces and of the short form while it is 0 (the one client of
/// the single-client scenarios), so their traces and digests read as before: `i0a1` is
/// client 0's, `txn1.i0a1` client 1's.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TxnTag {
    /// Which client (its transactional id's index).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub client: u8,
    /// Which start of the client process (0 for the first).
    pub incarnation: Epoch,
    /// Which transaction of that incarnation (0 for the first).
    pub attempt: u8,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

impl fmt::Debug for TxnTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.client != 0 {
            write!(f, "txn{}.", self.client)?;
        }
        write!(f, "i{}a{}", self.incarnation, self.attempt)
    }
}

impl fmt::Display for TxnTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// The client connection a transaction-coordinator request went out on, which the
/// coordinator's answer comes back on. Not a wire field: Kafka's `NetworkClient` correlates
/// an answer with its request by the connection it arrives on and the request header's
/// correlation id (`InFlightRequests`, `NetworkClient.handleCompletedReceives`, Kafka
/// 1eb7644), and a connection that was closed (a request timeout disconnects it, a closed
/// producer or a restarted process closes all of its own) delivers nothing more. The model
/// names the connection in the request and the coordinator echoes it, so a client takes
/// only answers to its own connection's requests (docs/wire.md). Every client that opens one
/// `TransactionManager` per process has the default connection; the 2PC coordinator
/// application opens one per session.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Connection {
    /// Which start of the client process opened it.
    pub incarnation: Epoch,
    /// Which of that process's `TransactionManager`s (sessions) it belongs to.
    pub session: u8,
}

impl Connection {
    /// Whether this is the default connection (left out of traces).
    pub fn is_default(&self) -> bool {
        *self == Connection::default()
    }
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "conn{}.{}", self.incarnation, self.session)
    }
}
