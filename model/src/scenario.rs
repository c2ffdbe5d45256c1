//! Scenarios: a workload and its bounds. The fault budget is part of the scenario, so a
//! bound means what it says: totals for the whole run.

use crate::record_state::AckType;
use serde::{Deserialize, Serialize};

/// A kind of actor, as scenarios name them (for the crash set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// The transaction coordinator (`__transaction_state` leader).
    TxnCoordinator,
    /// The group coordinator holding `__consumer_offsets`.
    GroupCoordinator,
    /// A data partition leader.
    DataPartition,
    /// A transactional producer (a client: volatile).
    Producer,
    /// The share-partition leader (the input partition's leader and its share state).
    SharePartition,
    /// The share coordinator (`__share_group_state` leader).
    ShareCoordinator,
    /// A share consumer (a client: volatile).
    ShareConsumer,
}

impl Role {
    /// All roles, in a fixed order.
    pub const ALL: [Role; 7] = [
        Role::TxnCoordinator,
        Role::GroupCoordinator,
        Role::DataPartition,
        Role::Producer,
        Role::SharePartition,
        Role::ShareCoordinator,
        Role::ShareConsumer,
    ];

    /// The kebab-case name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Role::TxnCoordinator => "txn-coordinator",
            Role::GroupCoordinator => "group-coordinator",
            Role::DataPartition => "data-partition",
            Role::Producer => "producer",
            Role::SharePartition => "share-partition",
            Role::ShareCoordinator => "share-coordinator",
            Role::ShareConsumer => "share-consumer",
        }
    }
}

/// Totals for the whole run: how many messages may be lost or duplicated, and how many
/// crashes may happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct FaultBudget {
    /// Messages lost (requests or responses; the sender sees a timeout).
    pub drops: u8,
    /// Messages duplicated (a retried request whose first copy is still in flight).
    pub duplicates: u8,
    /// Crashes (each followed, when the model chooses, by a restart from durable state).
    pub crashes: u8,
    /// Early timeouts: a timer that fires while what it waits for is still in progress
    /// (a request or its answer is in flight, a client is alive and working). A timeout
    /// after a loss or a crash is not early and costs nothing: it is how Kafka recovers.
    pub timeouts: u8,
}

/// A workload and its bounds.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Scenario {
    /// The scenario's name, as `sharetxn list` shows it.
    pub name: String,
    /// Input records to consume, transform and produce (one per transaction).
    pub inputs: u8,
    /// Transactions each producer incarnation begins at most.
    pub txns: u8,
    /// Output partitions each transaction writes one record to.
    pub partitions: u8,
    /// The fault budget.
    pub budget: FaultBudget,
    /// Which roles may crash.
    pub crashable: Vec<Role>,
    /// How often a client resends a request after its request timeout before it gives up
    /// (`delivery.timeout.ms` / `max.block.ms` in the Java client bound the same thing).
    pub request_retries: u8,
    /// How often the transaction coordinator resends a marker after a timeout.
    pub marker_retries: u8,
    /// Transactional producers (1 in the transaction scenarios, 0 in share-only ones).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub producers: u8,
    /// Records in the share partition's input log (0: no share group, no share actors).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub records: u8,
    /// Share consumers (members of the share group).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub consumers: u8,
    /// `group.share.delivery.count.limit` (Kafka: default 5, at least 2).
    #[serde(default = "five", skip_serializing_if = "is_five")]
    pub delivery_limit: u8,
    /// `share.acknowledgement.mode`.
    #[serde(default, skip_serializing_if = "AckMode::is_implicit")]
    pub ack_mode: AckMode,
    /// The types an explicit-mode consumer may choose per record.
    #[serde(
        default = "default_ack_types",
        skip_serializing_if = "is_default_ack_types"
    )]
    pub ack_types: Vec<AckType>,
    /// How often a consumer may stall past the acquisition lock of its records.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stalls: u8,
    /// ShareFetch `MaxRecords`.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub max_records: u8,
}

/// `share.acknowledgement.mode`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum AckMode {
    /// Kafka's default: the next poll accepts every record the previous one delivered.
    #[default]
    Implicit,
    /// The application acknowledges each record with a type of its choice.
    Explicit,
}

impl AckMode {
    /// Whether this is the implicit mode.
    pub fn is_implicit(&self) -> bool {
        *self == AckMode::Implicit
    }

    /// The lowercase name used in settings.
    pub fn name(self) -> &'static str {
        match self {
            AckMode::Implicit => "implicit",
            AckMode::Explicit => "explicit",
        }
    }
}

// Serde defaults: a field the transaction scenarios do not use is left out of their traces,
// so traces written before share groups existed read and write back byte for byte.
fn one() -> u8 {
    1
}
fn five() -> u8 {
    5
}
fn is_zero(n: &u8) -> bool {
    *n == 0
}
fn is_one(n: &u8) -> bool {
    *n == 1
}
fn is_five(n: &u8) -> bool {
    *n == 5
}
/// The ack types an explicit consumer chooses from unless told otherwise.
pub fn default_ack_types() -> Vec<AckType> {
    vec![AckType::Accept, AckType::Release, AckType::Reject]
}
fn is_default_ack_types(types: &Vec<AckType>) -> bool {
    *types == default_ack_types()
}

/// The scenarios the harness knows, by name.
pub const SCENARIO_NAMES: &[&str] = &["txn-basic", "share-basic", "ctp"];

impl Scenario {
    /// One transactional producer, output partitions, the offset store, two transactions
    /// in sequence, each committed or aborted by client choice, with a coordinator
    /// failover in the budget.
    pub fn txn_basic() -> Scenario {
        Scenario {
            name: "txn-basic".into(),
            inputs: 2,
            txns: 2,
            // One output partition plus `__consumer_offsets` already makes two participants
            // in every transaction. The larger defaults the design called for (two output
            // partitions, a loss, a duplicate and a crash together) do not fit this
            // machine's memory yet; they remain reachable with `--set`.
            partitions: 1,
            budget: FaultBudget {
                drops: 0,
                duplicates: 0,
                crashes: 1,
                timeouts: 0,
            },
            crashable: vec![Role::TxnCoordinator],
            request_retries: 1,
            marker_retries: 1,
            producers: 1,
            records: 0,
            consumers: 0,
            delivery_limit: 5,
            ack_mode: AckMode::Implicit,
            ack_types: default_ack_types(),
            stalls: 0,
            max_records: 1,
        }
    }

    /// Share groups without transactions (KIP-932 as it is): one share partition with two
    /// records, two share consumers acknowledging explicitly (accept or release), each of
    /// which may stall once past its lock, the share-partition leader and the share
    /// coordinator able to crash, one crash in the budget.
    ///
    /// A lost and a duplicated message were meant to be in the budget too; with the crash
    /// and the stall they do not fit an exhaustive check in minutes (a crash alone gives
    /// 3.3 million states, a loss alone 1.4 million, a duplicate alone 1.3 million), so
    /// they stay reachable with `--set drops=1` / `--set duplicates=1`.
    pub fn share_basic() -> Scenario {
        Scenario {
            name: "share-basic".into(),
            inputs: 1,
            txns: 1,
            partitions: 1,
            budget: FaultBudget {
                drops: 0,
                duplicates: 0,
                crashes: 1,
                timeouts: 0,
            },
            crashable: vec![Role::SharePartition, Role::ShareCoordinator],
            request_retries: 1,
            marker_retries: 1,
            producers: 0,
            records: 2,
            consumers: 2,
            delivery_limit: 2,
            ack_mode: AckMode::Explicit,
            ack_types: vec![AckType::Accept, AckType::Release],
            stalls: 1,
            max_records: 1,
        }
    }

    /// KIP-1289's consume-transform-produce loop: one share partition with one record,
    /// its share coordinator, one client that consumes it and produces to one output
    /// partition in a transaction that also carries its acknowledgement, committing or
    /// aborting by choice, two transactions. The acquisition lock can expire while the
    /// client holds the record. One crash of the share coordinator (a failover of
    /// `__share_group_state` with acknowledgements staged) is in the budget.
    ///
    /// What fits an exhaustive check in about two minutes on one core: the share
    /// coordinator alone may crash, a client gives up on a request after its first timeout
    /// (`request_retries=0`) and the coordinator resends a marker once. With one more
    /// crashable role, or an early timeout besides the crash, the check passes 1.5 million
    /// states in minutes without ending; `--set timeouts=1 --set crashes=0` (the earlier
    /// default, 221,277 states) and `--set crashable=...` reach them separately.
    pub fn ctp() -> Scenario {
        Scenario {
            name: "ctp".into(),
            inputs: 1,
            txns: 2,
            partitions: 1,
            budget: FaultBudget {
                drops: 0,
                duplicates: 0,
                crashes: 1,
                timeouts: 0,
            },
            crashable: vec![Role::ShareCoordinator],
            request_retries: 0,
            marker_retries: 1,
            producers: 1,
            records: 1,
            consumers: 0,
            delivery_limit: 5,
            ack_mode: AckMode::Implicit,
            ack_types: vec![AckType::Accept],
            stalls: 0,
            max_records: 1,
        }
    }

    /// Whether the scenario has a share group (share actors exist only then).
    pub fn has_share_group(&self) -> bool {
        self.records > 0
    }

    /// Whether share acknowledgements are committed in transactions (KIP-1289): a share
    /// group and a transactional client. Then an acknowledgement must settle the very
    /// delivery it was made for, not only one held by the same member.
    pub fn acks_in_transactions(&self) -> bool {
        self.has_share_group() && self.producers > 0
    }

    /// Looks a scenario up by name.
    pub fn by_name(name: &str) -> Result<Scenario, String> {
        match name {
            "txn-basic" => Ok(Scenario::txn_basic()),
            "share-basic" => Ok(Scenario::share_basic()),
            "ctp" => Ok(Scenario::ctp()),
            _ => Err(format!(
                "unknown scenario '{name}' (known: {})",
                SCENARIO_NAMES.join(", ")
            )),
        }
    }

    /// Whether the scenario lets `role` crash.
    pub fn can_crash(&self, role: Role) -> bool {
        self.crashable.contains(&role)
    }
}
