//! # sharetxn-properties: what must hold
//!
//! Every property is a function over the `System` state, in a file of its own under
//! [`props`], with a reachability twin so that a model too weak to reach the dangerous
//! states cannot pass. [`PROPERTIES`] is the table; [`check`] is the exhaustive checker
//! that evaluates it on every reachable state.
//!
//! Safety properties (`always`) are checked in every state. Liveness properties
//! (`eventually`) are checked in quiescent states: no message can be delivered and no
//! timer, choice or restart is pending, so nothing but a fault could still happen.
//! Quiescence is where every fair run of the bounded model ends unless it loops; a
//! livelock that never reaches quiescence is outside what this check sees.

pub mod check;
pub mod explorer;
pub mod props;
pub mod report;
pub mod view;
pub mod violation;

use serde::{Deserialize, Serialize};
use sharetxn_model::{System, SystemState};

pub use check::{check, CheckOptions, Strategy};
pub use report::{PropertyReport, Report, Status};
pub use violation::Violation;

/// When a property is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Safety: in every reachable state.
    Always,
    /// Liveness: in every quiescent reachable state.
    Eventually,
    /// A reachability twin: in some reachable state.
    Sometimes,
}

/// A row of the property table.
pub struct PropertyDef {
    /// The property's name.
    pub name: &'static str,
    /// Safety or liveness.
    pub kind: Kind,
    /// The KIP section or Kafka behaviour it guards.
    pub guards: &'static str,
    /// What holds, in one line.
    pub what: &'static str,
    /// Its reachability twin's name.
    pub twin: &'static str,
    /// What the twin reaches, in one line.
    pub twin_what: &'static str,
    /// The check: the violation message, if the state violates it.
    pub check: fn(&System, &SystemState) -> Option<String>,
    /// The twin: whether the state witnesses it.
    pub witness: fn(&System, &SystemState) -> bool,
}

use props::*;

/// The property table.
pub const PROPERTIES: &[PropertyDef] = &[
    PropertyDef {
        name: "txn_atomicity",
        kind: Kind::Always,
        guards: "KIP-98 atomicity; KIP-890 part 2",
        what: "a transaction's writes are all committed or none is; no write of a committed transaction is aborted or lost",
        twin: "commit_reached",
        twin_what: "a transaction commits on every output partition and the offset store",
        check: txn_atomicity::check,
        witness: txn_atomicity::witness,
    },
    PropertyDef {
        name: "no_aborted_read",
        kind: Kind::Always,
        guards: "KIP-98 read_committed (Jepsen G1a)",
        what: "a read_committed reader never sees a record of a transaction the client aborted",
        twin: "abort_reached",
        twin_what: "an aborted transaction leaves ABORT-marked records in a log",
        check: no_aborted_read::check,
        witness: no_aborted_read::witness,
    },
    PropertyDef {
        name: "producer_fencing",
        kind: Kind::Always,
        guards: "KIP-98 zombie fencing; KIP-360",
        what: "no partition accepts a write from an epoch older than one it has seen",
        twin: "zombie_fenced",
        twin_what: "a request with a fenced epoch is rejected",
        check: producer_fencing::check,
        witness: producer_fencing::witness,
    },
    PropertyDef {
        name: "legal_transitions",
        kind: Kind::Always,
        guards: "TransactionState / TransactionManager tables",
        what: "coordinator and client states only move along Kafka's transition tables; epochs never go back",
        twin: "coordinator_restart",
        twin_what: "the transaction coordinator fails over with a transaction in flight",
        check: legal_transitions::check,
        witness: legal_transitions::witness,
    },
    PropertyDef {
        name: "no_hanging_transaction",
        kind: Kind::Eventually,
        guards: "KIP-664; KIP-890 part 1",
        what: "at quiescence every partition's last stable offset reaches its high watermark",
        twin: "timeout_abort",
        twin_what: "the coordinator aborts a transaction that timed out",
        check: no_hanging_transaction::check,
        witness: no_hanging_transaction::witness,
    },
    PropertyDef {
        name: "txn_completes",
        kind: Kind::Eventually,
        guards: "KAFKA-16352; KAFKA-7519",
        what: "at quiescence no transaction is left in flight and no client waits forever",
        twin: "commit_after_fault",
        twin_what: "a transaction commits after a lost or duplicated message or a crash",
        check: txn_completes::check,
        witness: txn_completes::witness,
    },
];

/// Looks a property up by its name or its twin's name.
pub fn property(name: &str) -> Option<&'static PropertyDef> {
    PROPERTIES.iter().find(|p| p.name == name || p.twin == name)
}
