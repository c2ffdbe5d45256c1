//! Share-group record states and acknowledgement types (KIP-932): Kafka's `RecordState`
//! with the transition table of `InFlightState.validateTransition`, and
//! `AcknowledgeType`. `legal_transitions` judges every record move against this table.
//!
//! ARCHIVING (KIP-1191, dead-letter queues) and the wire-only GAP type are not modelled:
//! the model has no DLQ and no control or compacted records in the input log.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The state of one offset of a share partition (`RecordState.java`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum RecordState {
    /// Deliverable.
    Available,
    /// Locked to one member until it acknowledges or its acquisition lock expires.
    Acquired,
    /// Terminal: accepted by a consumer.
    Acknowledged,
    /// Terminal: rejected, or the delivery count limit was reached.
    Archived,
    /// KIP-1289 (draft PR apache/kafka#22357, `RecordState.TX_PENDING`): an acknowledgement
    /// is staged inside a transaction; the record is out of lock expiry and acquisition
    /// until the transaction's outcome reaches the share-partition leader.
    TxPending,
}

impl fmt::Debug for RecordState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RecordState::Available => "AVAILABLE",
            RecordState::Acquired => "ACQUIRED",
            RecordState::Acknowledged => "ACKNOWLEDGED",
            RecordState::Archived => "ARCHIVED",
            RecordState::TxPending => "TX_PENDING",
        })
    }
}

impl RecordState {
    /// Kafka's state id, which the share coordinator's merge compares (AVAILABLE 0 <
    /// ACQUIRED 1 < ACKNOWLEDGED 2 < ARCHIVED 4; ARCHIVING, 3, is not modelled; the draft's
    /// TX_PENDING is 5, and is never persisted as a record state).
    pub fn id(self) -> u8 {
        match self {
            RecordState::Available => 0,
            RecordState::Acquired => 1,
            RecordState::Acknowledged => 2,
            RecordState::Archived => 4,
            RecordState::TxPending => 5,
        }
    }

    /// ACKNOWLEDGED or ARCHIVED: nothing leaves these states.
    pub fn is_terminal(self) -> bool {
        matches!(self, RecordState::Acknowledged | RecordState::Archived)
    }

    /// `validateTransition`: AVAILABLE -> ACQUIRED; ACQUIRED -> AVAILABLE, ACKNOWLEDGED or
    /// ARCHIVED; nothing else, and staying in the same state is illegal too.
    ///
    /// KIP-1289's TX_PENDING: ACQUIRED -> TX_PENDING (an acknowledgement staged in a
    /// transaction); TX_PENDING -> ACKNOWLEDGED or ARCHIVED (the transaction committed),
    /// AVAILABLE or ARCHIVED (it aborted; ARCHIVED at the delivery limit), or ACQUIRED (the
    /// staging write failed and is rolled back, as `rollbackState` does for a plain ack).
    pub fn can_follow(self, from: RecordState) -> bool {
        use RecordState::*;
        matches!(
            (from, self),
            (Available, Acquired)
                | (Acquired, Available | Acknowledged | Archived | TxPending)
                | (TxPending, Available | Acknowledged | Archived | Acquired)
        )
    }
}

/// `AcknowledgeType` (ACCEPT 1, RELEASE 2, REJECT 3, RENEW 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum AckType {
    /// Processed: the record becomes ACKNOWLEDGED.
    Accept,
    /// Give back for redelivery: AVAILABLE, or ARCHIVED at the delivery count limit.
    Release,
    /// Unprocessable: ARCHIVED.
    Reject,
    /// KIP-1222: keep the acquisition, restart its lock; nothing is persisted.
    Renew,
}

impl AckType {
    /// All types, in Kafka's order.
    pub const ALL: [AckType; 4] = [
        AckType::Accept,
        AckType::Release,
        AckType::Reject,
        AckType::Renew,
    ];

    /// The lowercase name used in settings.
    pub fn name(self) -> &'static str {
        match self {
            AckType::Accept => "accept",
            AckType::Release => "release",
            AckType::Reject => "reject",
            AckType::Renew => "renew",
        }
    }

    /// The state an ACQUIRED record with `delivery_count` moves to under this ack, or
    /// `None` for RENEW (it stays ACQUIRED). A release at the limit archives the record.
    pub fn target(self, delivery_count: u8, delivery_limit: u8) -> Option<RecordState> {
        match self {
            AckType::Accept => Some(RecordState::Acknowledged),
            AckType::Release => Some(released(delivery_count, delivery_limit)),
            AckType::Reject => Some(RecordState::Archived),
            AckType::Renew => None,
        }
    }
}

/// Where an acquisition that ends without an ack goes (release, lock expiry, a rebuilt
/// leader's AVAILABLE record): AVAILABLE, or ARCHIVED once the delivery count reached
/// the limit (`SharePartition.maxDeliveryCount`).
pub fn released(delivery_count: u8, delivery_limit: u8) -> RecordState {
    if delivery_count >= delivery_limit {
        RecordState::Archived
    } else {
        RecordState::Available
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use RecordState::*;

    #[test]
    fn table_matches_validate_transition() {
        assert!(Acquired.can_follow(Available));
        assert!(Available.can_follow(Acquired));
        assert!(Acknowledged.can_follow(Acquired));
        assert!(Archived.can_follow(Acquired));
        assert!(!Available.can_follow(Acknowledged), "KAFKA-19476");
        assert!(!Acknowledged.can_follow(Available));
        assert!(!Acquired.can_follow(Acquired));
        assert!(!Archived.can_follow(Archived));
    }

    #[test]
    fn tx_pending_leaves_only_by_an_outcome_or_a_rollback() {
        assert!(TxPending.can_follow(Acquired));
        assert!(
            !TxPending.can_follow(Available),
            "only an acquisition is staged"
        );
        assert!(!TxPending.can_follow(Acknowledged));
        assert!(Acknowledged.can_follow(TxPending));
        assert!(Available.can_follow(TxPending));
        assert!(Archived.can_follow(TxPending));
        assert!(Acquired.can_follow(TxPending));
        assert!(!TxPending.can_follow(TxPending));
        assert!(!TxPending.is_terminal());
    }

    #[test]
    fn release_archives_at_the_limit() {
        assert_eq!(AckType::Release.target(1, 2), Some(Available));
        assert_eq!(AckType::Release.target(2, 2), Some(Archived));
        assert_eq!(AckType::Accept.target(2, 2), Some(Acknowledged));
        assert_eq!(AckType::Renew.target(1, 2), None);
        assert!(Archived.id() > Acknowledged.id() && Acknowledged.id() > Available.id());
    }
}
