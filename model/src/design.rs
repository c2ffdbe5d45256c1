//! Designs: named sets of protocol choices. Every knob is recorded in reports and traces.

use serde::{Deserialize, Serialize};

/// `transaction.version`: TV0 is the original protocol, TV1 adds flexible log records,
/// TV2 (KIP-890 part 2) bumps the producer epoch on every EndTxn and adds partitions
/// implicitly from the partition leader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TransactionVersion(pub u8);

impl TransactionVersion {
    /// Whether the epoch is bumped per transaction (TV2).
    pub fn bumps_epoch_per_txn(self) -> bool {
        self.0 >= 2
    }
}

/// A protocol design: which transaction-protocol features are on. The defaults are
/// today's Kafka (TV2, KIP-890 verification on, the client flushes before EndTxn).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Design {
    /// The design's name, as `sharetxn list` shows it.
    pub name: String,
    /// `transaction.version` (0, 1 or 2).
    pub tv: TransactionVersion,
    /// `transaction.partition.verification.enable` (KIP-890 part 1).
    pub verification: bool,
    /// The client rule that EndTxn waits until every produce and offset commit of the
    /// transaction was answered (`TransactionManager.nextRequest`).
    pub flush_before_end_txn: bool,
}

/// The designs the harness knows, by name.
pub const DESIGN_NAMES: &[&str] = &["consumer-offsets"];

impl Design {
    /// Today's Kafka consume-transform-produce with a consumer group: offsets are committed
    /// with `TxnOffsetCommit` to `__consumer_offsets`. The baseline that must be safe.
    pub fn consumer_offsets() -> Design {
        Design {
            name: "consumer-offsets".into(),
            tv: TransactionVersion(2),
            verification: true,
            flush_before_end_txn: true,
        }
    }

    /// Looks a design up by name.
    pub fn by_name(name: &str) -> Result<Design, String> {
        match name {
            "consumer-offsets" => Ok(Design::consumer_offsets()),
            _ => Err(format!(
                "unknown design '{name}' (known: {})",
                DESIGN_NAMES.join(", ")
            )),
        }
    }

    /// One-line summary of the knobs, for humans.
    pub fn describe(&self) -> String {
        format!(
            "{} (tv={}, verification={}, flush_before_end_txn={})",
            self.name, self.tv.0, self.verification, self.flush_before_end_txn
        )
    }
}
