//! KIP-1289's choices at the share-partition leader (SPL): whether transactional
//! acknowledgements are staged there, what it validates when they are, how it learns the
//! transaction's outcome, and what a new leader rebuilds. Each is one `Design` knob; the
//! seed's values are the defaults, left out of traces.

use serde::{Deserialize, Serialize};

/// What the share-partition leader validates when a TxnShareAcknowledge stages an
/// acknowledgement (only with `stage_at_leader`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum StageOwnerCheck {
    /// Only that the record is ACQUIRED (the seed names no member in its request).
    #[default]
    None,
    /// The draft: the member id and member epoch, at stage time. The model has one member
    /// epoch per member id (it has no group heartbeat), so this is the member check.
    MemberEpoch,
    /// The member and the acquisition: the delivery count of the acquisition the
    /// acknowledgement was made for must be the record's current one (docs/kafka-cases.md S3).
    Acquisition,
}

impl StageOwnerCheck {
    /// Every value, in `--set` order.
    pub const ALL: [StageOwnerCheck; 3] = [
        StageOwnerCheck::None,
        StageOwnerCheck::MemberEpoch,
        StageOwnerCheck::Acquisition,
    ];

    /// The `--set` spelling.
    pub fn name(self) -> &'static str {
        match self {
            StageOwnerCheck::None => "none",
            StageOwnerCheck::MemberEpoch => "member-epoch",
            StageOwnerCheck::Acquisition => "acquisition",
        }
    }
}

/// How the share-partition leader learns the outcome of acknowledgements it staged.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum LeaderResolution {
    /// Only at its next ReadShareGroupState, i.e. a leader restart (the seed says nothing).
    #[default]
    None,
    /// The draft's `SharePartitionTxnState.refresh()`: once the staging is durable, re-read
    /// the persisted state and map ACKNOWLEDGED/ARCHIVED to commit, AVAILABLE to abort. It
    /// infers an abort from the absence of a commit (docs/kafka-cases.md S10).
    Refresh,
    /// The share coordinator tells the leader when a marker resolved the acks it staged,
    /// COMMIT or ABORT explicitly, and resends until the leader answers.
    Notify,
    /// The draft's `SharePartitionTxnState` as of its public revision (apache/kafka#22357,
    /// its `SharePartitionTxnStateTest`; docs/conformance.md DR-1 to DR-3): `refresh`
    /// guarded. No read while a staging is unanswered (`stagingWrites`); the read asks for
    /// the pending acknowledgements too, and an offset still pending there (persisted
    /// TX_PENDING) or not persisted at all resolves nothing, only AVAILABLE is an abort;
    /// only the records pending and durable when the read was sent, still staged by the
    /// same producer id and epoch, are resolved (`pendingRecords()`); a failed read ends
    /// the refresh and a later one reads again.
    RefreshGuarded,
}

impl LeaderResolution {
    /// Every value, in `--set` order.
    pub const ALL: [LeaderResolution; 4] = [
        LeaderResolution::None,
        LeaderResolution::Refresh,
        LeaderResolution::Notify,
        LeaderResolution::RefreshGuarded,
    ];

    /// The `--set` spelling.
    pub fn name(self) -> &'static str {
        match self {
            LeaderResolution::None => "none",
            LeaderResolution::Refresh => "refresh",
            LeaderResolution::Notify => "notify",
            LeaderResolution::RefreshGuarded => "refresh-guarded",
        }
    }

    /// Whether a refresh's read is told apart from a load's (`refresh-guarded`: the
    /// persister answers each read's own future; `refresh` takes any answer while its read
    /// is in flight).
    pub fn flags_refresh_reads(self) -> bool {
        self == LeaderResolution::RefreshGuarded
    }

    /// Whether the leader re-reads the persisted state (`refresh` or `refresh-guarded`).
    pub fn refreshes(self) -> bool {
        matches!(
            self,
            LeaderResolution::Refresh | LeaderResolution::RefreshGuarded
        )
    }
}

/// Parses a `--set` value against `all`, with a one-line error naming the choices.
pub fn parse_choice<T: Copy>(
    key: &str,
    value: &str,
    all: &[T],
    name: impl Fn(T) -> &'static str,
) -> Result<T, String> {
    all.iter()
        .copied()
        .find(|v| name(*v) == value)
        .ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(|v| name(*v)).collect();
            format!("--set {key}={value}: expected one of {}", names.join(", "))
        })
}
