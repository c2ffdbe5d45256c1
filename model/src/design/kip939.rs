//! The KIP-939 (two-phase commit) and KIP-1309 (transaction heartbeat) knobs, and how the
//! Flink acknowledger commits a checkpoint's acknowledgements.

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
