//! The KIP-939 (two-phase commit) and KIP-1309 (transaction heartbeat) knobs, and how the
//! Flink acknowledger commits a checkpoint's acknowledgements.

use crate::design::Design;
use serde::{Deserialize, Serialize};

/// How the Flink source reader's `TransactionalShareAcknowledger` commits the
/// acknowledgements a checkpoint covers.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum AcknowledgerCommit {
    /// The seed's loop: `notifyCheckpointComplete` calls `commitAcknowledgements`, one
    /// whole transaction after the checkpoint already completed. A commit that then fails
    /// leaves a completed checkpoint whose records come back.
    #[default]
    Notify,
    /// Flink's `KafkaSink` pattern with KIP-939: `snapshotState` stages the checkpoint's
    /// acknowledgements in a 2PC transaction and prepares it, the checkpoint stores the
    /// `PreparedTxnState`, `notifyCheckpointComplete` commits it, and a restarted reader
    /// runs `initTransactions(keepPreparedTxn=true)` and `completeTransaction` with the
    /// state of the last completed checkpoint.
    TwoPhase,
}

impl AcknowledgerCommit {
    /// Every value, in the order `sharetxn list` shows them.
    pub const ALL: [AcknowledgerCommit; 2] =
        [AcknowledgerCommit::Notify, AcknowledgerCommit::TwoPhase];

    /// The kebab-case name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            AcknowledgerCommit::Notify => "notify",
            AcknowledgerCommit::TwoPhase => "two-phase",
        }
    }
}

/// The KIP-939 / KIP-1309 knobs that differ from `base` (the design's own defaults), as
/// `, key=value` pieces, so descriptions of designs that do not move them stay as they were.
pub fn describe_2pc(d: &Design, base: &Design) -> String {
    let mut out = String::new();
    if d.two_phase_commit != base.two_phase_commit {
        out.push_str(&format!(", two_phase_commit={}", d.two_phase_commit));
    }
    if d.txn_heartbeat != base.txn_heartbeat {
        out.push_str(&format!(", txn_heartbeat={}", d.txn_heartbeat));
    }
    if d.acknowledger_commit != base.acknowledger_commit {
        out.push_str(&format!(
            ", acknowledger_commit={}",
            d.acknowledger_commit.name()
        ));
    }
    out
}
