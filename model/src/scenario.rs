//! Scenarios: a workload and its bounds. The fault budget is part of the scenario, so a
//! bound means what it says: totals for the whole run.

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
}

impl Role {
    /// All roles, in a fixed order.
    pub const ALL: [Role; 4] = [
        Role::TxnCoordinator,
        Role::GroupCoordinator,
        Role::DataPartition,
        Role::Producer,
    ];

    /// The kebab-case name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Role::TxnCoordinator => "txn-coordinator",
            Role::GroupCoordinator => "group-coordinator",
            Role::DataPartition => "data-partition",
            Role::Producer => "producer",
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
}

/// The scenarios the harness knows, by name.
pub const SCENARIO_NAMES: &[&str] = &["txn-basic"];

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
        }
    }

    /// Looks a scenario up by name.
    pub fn by_name(name: &str) -> Result<Scenario, String> {
        match name {
            "txn-basic" => Ok(Scenario::txn_basic()),
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
