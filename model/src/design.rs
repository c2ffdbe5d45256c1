//! Designs: named sets of protocol choices. Every knob is recorded in reports and traces.

use crate::spl_knobs::{LeaderResolution, StageOwnerCheck};
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
    /// KAFKA-19476 brought back: an acknowledgement does not cancel the acquisition lock
    /// timer and its expiry does not check the record's state, so a timer firing after the
    /// acquisition was acknowledged makes the record AVAILABLE again. Fixed in Kafka: false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub lock_timer_race: bool,
    /// The share-partition leader checks that an acknowledgement comes from the member
    /// holding the acquisition (`SharePartition` checks `memberId`). With false, a late
    /// acknowledgement lands on a newer acquisition. Kafka: true.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub ack_member_check: bool,
    /// KIP-1289: TxnShareAcknowledge goes to the share-partition leader, which moves the
    /// record to TX_PENDING (out of lock expiry and acquisition) and persists the pending
    /// acknowledgement through the share coordinator. Seed: false (straight to the SC).
    #[serde(default, skip_serializing_if = "is_false")]
    pub stage_at_leader: bool,
    /// KIP-1289: what the leader validates at staging. Seed: none.
    #[serde(default, skip_serializing_if = "is_default")]
    pub stage_owner_check: StageOwnerCheck,
    /// KIP-1289: how the leader learns the outcome of staged acknowledgements. Seed: none.
    #[serde(default, skip_serializing_if = "is_default")]
    pub leader_resolution: LeaderResolution,
    /// KIP-1289: a new leader rebuilds TX_PENDING records from the pending acknowledgements
    /// the share coordinator holds, instead of loading them AVAILABLE. Seed: false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub rebuild_pending: bool,
}

// Serde defaults: knobs at Kafka's value are left out of traces, so traces written before
// the share-group knobs existed read and write back byte for byte.
fn is_false(b: &bool) -> bool {
    !*b
}
fn is_true(b: &bool) -> bool {
    *b
}
fn yes() -> bool {
    true
}
fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// The designs the harness knows, by name.
pub const DESIGN_NAMES: &[&str] = &["consumer-offsets", "seed", "draft", "proposed"];

impl Design {
    /// Today's Kafka consume-transform-produce with a consumer group: offsets are committed
    /// with `TxnOffsetCommit` to `__consumer_offsets`. The baseline that must be safe.
    pub fn consumer_offsets() -> Design {
        Design {
            name: "consumer-offsets".into(),
            tv: TransactionVersion(2),
            verification: true,
            flush_before_end_txn: true,
            lock_timer_race: false,
            ack_member_check: true,
            stage_at_leader: false,
            stage_owner_check: StageOwnerCheck::None,
            leader_resolution: LeaderResolution::None,
            rebuild_pending: false,
        }
    }

    /// KIP-1289 as the seed text writes it. The client stages ACCEPT acknowledgements at
    /// the share coordinator with TxnShareAcknowledge after AddShareAcksToTxn added
    /// `__share_group_state` to the transaction; the share coordinator keeps them pending
    /// under the producer id and epoch and applies (COMMIT) or discards (ABORT) them at the
    /// marker, mirroring `GroupCoordinator.completeTransaction` (pending entries found by
    /// producer id). Transaction version 2 with verification, Kafka 4's defaults.
    ///
    /// Where the seed is silent, a reader's choices: the share-partition leader is told
    /// nothing when acks commit (the seed names no RPC or callback to it), so it learns
    /// only at its next ReadShareGroupState (a leader restart) and keeps the record
    /// ACQUIRED until the acquisition lock expires, then redelivers it; the seed sets no
    /// lock extension while acks are pending; the client adds `__share_group_state`
    /// itself under every transaction version (no implicit add is defined for it).
    pub fn seed() -> Design {
        Design {
            name: "seed".into(),
            ..Design::consumer_offsets()
        }
    }

    /// Looks a design up by name.
    pub fn by_name(name: &str) -> Result<Design, String> {
        match name {
            "consumer-offsets" => Ok(Design::consumer_offsets()),
            "seed" => Ok(Design::seed()),
            "draft" => Ok(Design::draft()),
            "proposed" => Ok(Design::proposed()),
            _ => Err(format!(
                "unknown design '{name}' (known: {})",
                DESIGN_NAMES.join(", ")
            )),
        }
    }

    /// One-line summary of the knobs, for humans.
    pub fn describe(&self) -> String {
        // The share-group knobs show only when moved from Kafka's values, so descriptions
        // (and the rendered traces pinned on them) of transaction runs stay as they were.
        let mut share = String::new();
        if self.lock_timer_race {
            share.push_str(", lock_timer_race=true");
        }
        if !self.ack_member_check {
            share.push_str(", ack_member_check=false");
        }
        share.push_str(&crate::design_kip1289::describe_spl(self));
        format!(
            "{} (tv={}, verification={}, flush_before_end_txn={}{share})",
            self.name, self.tv.0, self.verification, self.flush_before_end_txn
        )
    }
}
