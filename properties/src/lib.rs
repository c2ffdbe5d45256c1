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

mod bfs;
pub mod check;
mod collapse;
mod dfs;
pub mod docs;
pub mod explorer;
mod frontier;
mod open_table;
pub mod props;
pub mod reduction;
pub mod reduction_graph;
pub mod reduction_proofs;
pub mod reduction_rule;
pub mod reduction_sizing;
pub mod reduction_visible;
pub mod reduction_written;
pub mod report;
mod seen;
pub mod swarm;
pub mod twin_scope;
pub mod view;
pub mod violation;
mod visited;

use serde::{Deserialize, Serialize};
use sharetxn_model::System;

pub use check::{check, CheckOptions, Strategy};
pub use report::{PropertyReport, Report, Status};
pub use view::View;
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
    /// The check: the violation message, if the state violates it. It reads the state
    /// through a [`View`] its caller shares with every property judging the same state.
    pub check: fn(&View) -> Option<String>,
    /// The twin: whether the state witnesses it.
    pub witness: fn(&View) -> bool,
    /// Whether the property (and its twin) applies to the system's scenario and design;
    /// `check` reports `not_applicable` for those that do not.
    pub applies: fn(&System) -> bool,
    /// Whether the scenario's bounds exclude the twin by construction, and why
    /// (`twin_scope`); `check` reports it `not_applicable` with the reason.
    pub twin_excluded: twin_scope::Excluded,
    /// Whether the twin, once witnessed, stays witnessed on every path from there: it
    /// reads only ghost facts that are set once and never cleared. A persistent-set
    /// reduction witnesses every such twin without keeping it visible
    /// (`docs/checker.md`, "Twins that stay witnessed").
    pub twin_stable: bool,
}

/// The transaction properties apply where there is a transactional client: a producer,
/// or the acknowledger inside a source reader.
pub fn has_transactions(sys: &System) -> bool {
    sys.topology.txn_clients().next().is_some()
}

/// The share-group properties apply where there is a share group.
pub fn has_share_group(sys: &System) -> bool {
    sys.topology.share_partition.is_some()
}

/// Whether the scenario runs KIP-1289's loop: a transactional client consuming from a
/// share group.
pub fn has_share_transactions(sys: &System) -> bool {
    has_transactions(sys) && has_share_group(sys)
}

/// `staged_ack_exclusive` applies where plain share consumers run beside KIP-1289's
/// transactional clients, or where those clients acknowledge plainly themselves
/// (`txn_plain_acks`; docs/kafka-cases.md S14).
pub fn has_mixed_consumers(sys: &System) -> bool {
    has_share_transactions(sys)
        && (!sys.topology.consumers.is_empty() || sys.scenario.txn_plain_acks)
}

/// The session properties apply where KIP-1289 clients run on a KIP-1310
/// `TransactionSession`.
pub fn has_sessions(sys: &System) -> bool {
    sys.scenario.session && has_share_transactions(sys)
}

/// `live_session_kept` applies where sessions run with KIP-1309 heartbeats.
pub fn has_session_heartbeats(sys: &System) -> bool {
    has_sessions(sys) && sys.design.txn_heartbeat
}

/// The resume properties apply where a committer resumes a writer's session (scenario
/// `session-resume`).
pub fn has_resume(sys: &System) -> bool {
    !sys.topology.committers.is_empty()
}

/// Whether a share partition's leadership can move to another broker (scenario
/// `spl-move`).
pub fn has_leader_move(sys: &System) -> bool {
    sys.topology.moved_share_partition.is_some()
}

/// `stale_acks_fenced` applies where an admin may reset the share group's start offset
/// (scenario field `resets`).
pub fn has_resets(sys: &System) -> bool {
    sys.scenario.resets > 0 && has_share_transactions(sys)
}

/// `legal_transitions` judges every table the scenario's actors have.
pub fn always(_sys: &System) -> bool {
    true
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
        applies: has_transactions,
        twin_excluded: twin_scope::never,
        twin_stable: false,
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
        applies: has_transactions,
        twin_excluded: twin_scope::never,
        twin_stable: false,
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
        applies: has_transactions,
        twin_excluded: twin_scope::stale_client,
        twin_stable: true,
    },
    PropertyDef {
        name: "legal_transitions",
        kind: Kind::Always,
        guards: "TransactionState / TransactionManager / share RecordState tables; KAFKA-19476",
        what: "coordinator, client and share record states only move along Kafka's transition tables; epochs never go back",
        twin: "coordinator_restart",
        twin_what: "the transaction coordinator fails over with a transaction in flight, or the share coordinator restarts with persisted share state",
        check: legal_transitions::check,
        witness: legal_transitions::witness,
        applies: always,
        twin_excluded: twin_scope::coordinator_restart,
        twin_stable: true,
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
        applies: has_transactions,
        twin_excluded: twin_scope::timeout_abort,
        twin_stable: true,
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
        applies: has_transactions,
        twin_excluded: twin_scope::commit_after_fault,
        twin_stable: true,
    },
    PropertyDef {
        name: "at_least_once",
        kind: Kind::Eventually,
        guards: "KIP-932 delivery semantics",
        what: "at quiescence every share record is ACKNOWLEDGED or ARCHIVED in the persisted share state: none is silently dropped or left behind",
        twin: "lock_redelivered",
        twin_what: "an acquisition lock expires and the record is delivered to the other consumer",
        check: at_least_once::check,
        witness: at_least_once::witness,
        applies: has_share_group,
        twin_excluded: twin_scope::lock_redelivered,
        twin_stable: true,
    },
    PropertyDef {
        name: "delivery_limit",
        kind: Kind::Always,
        guards: "KIP-932 group.share.delivery.count.limit",
        what: "no record is delivered more than delivery_limit times beyond the deliveries its leader could not know of (KIP-932: acquisitions are not persisted, so a failover forgets the deliveries since the last persisted count)",
        twin: "limit_archived",
        twin_what: "a record reaches the delivery count limit and is archived",
        check: delivery_limit::check,
        witness: delivery_limit::witness,
        applies: has_share_group,
        twin_excluded: twin_scope::limit_archived,
        twin_stable: true,
    },
    PropertyDef {
        name: "ack_owner",
        kind: Kind::Always,
        guards: "KIP-932 acquisition ownership (SharePartition memberId check)",
        what: "an acknowledgement is applied only to an acquisition of the member that made it (a late one after lock expiry and redelivery to another member never lands on the new acquisition); one committed in a transaction (KIP-1289), only to the very delivery it was made for; and a plain one whose every record its member holds ACQUIRED is applied, not rejected",
        twin: "late_ack_rejected",
        twin_what: "an acknowledgement is rejected with INVALID_RECORD_STATE",
        check: ack_owner::check,
        witness: ack_owner::witness,
        applies: has_share_group,
        twin_excluded: twin_scope::late_ack,
        twin_stable: true,
    },
    PropertyDef {
        name: "cache_agrees",
        kind: Kind::Always,
        guards: "KIP-932 share state persistence; PersisterStateBatchCombiner",
        what: "a persisted terminal state never goes back; at quiescence the share-partition leader's state and the share coordinator's agree",
        twin: "spl_rebuilt",
        twin_what: "the share-partition leader restarts and rebuilds from the share coordinator a state with a terminal record",
        check: cache_agrees::check,
        witness: cache_agrees::witness,
        applies: has_share_group,
        twin_excluded: twin_scope::spl_rebuilt,
        twin_stable: true,
    },
    PropertyDef {
        name: "no_duplicate_processing",
        kind: Kind::Always,
        guards: "KIP-1289 exactly-once consume-transform-produce over a share group",
        what: "at most one committed transaction carries outputs derived from an input record, and none does for a record a plain share consumer ACCEPTed; for a Flink source reader, at most one completed checkpoint covers it",
        twin: "share_ack_committed",
        twin_what: "a transaction's share acknowledgements are applied by a COMMIT marker at the share coordinator",
        check: no_duplicate_processing::check,
        witness: no_duplicate_processing::witness,
        applies: has_share_transactions,
        twin_excluded: twin_scope::never,
        twin_stable: false,
    },
    PropertyDef {
        name: "staged_ack_exclusive",
        kind: Kind::Always,
        guards: "KIP-1289 transactional acknowledgements beside plain share consumers (KIP-932) and the client's own implicit ACCEPT and close()",
        what: "a record whose acknowledgement a transaction staged is never made terminal by a plain ShareFetch or ShareAcknowledge while that acknowledgement is pending, nor acknowledged plainly at all by the member whose transaction staged it; after an abort the record is available again",
        twin: "plain_after_abort",
        twin_what: "a record staged in a transaction that aborted is later made terminal by a plain acknowledgement",
        check: staged_ack_exclusive::check,
        witness: staged_ack_exclusive::witness,
        applies: has_mixed_consumers,
        twin_excluded: twin_scope::plain_after_abort,
        twin_stable: true,
    },
    PropertyDef {
        name: "marker_match",
        kind: Kind::Always,
        guards: "KIP-1289 completeTransaction(producerId, producerEpoch); KIP-890 part 2 epochs",
        what: "a COMMIT/ABORT marker resolves exactly the acks its own transaction staged (same producer id, the right epoch): none of another transaction, none of its own left pending",
        twin: "share_ack_aborted",
        twin_what: "an ABORT marker discards staged share acknowledgements",
        check: marker_match::check,
        witness: marker_match::witness,
        applies: has_share_transactions,
        twin_excluded: twin_scope::never,
        twin_stable: true,
    },
    PropertyDef {
        name: "no_orphan_acks",
        kind: Kind::Eventually,
        guards: "KIP-1289 pending acks; KIP-890 part 1 (hanging transactions)",
        what: "at quiescence no staged share ack is pending for a transaction the coordinator has completed or no longer knows",
        twin: "resolved_after_restart",
        twin_what: "a marker resolves pending acks that the share coordinator reloaded from its log",
        check: no_orphan_acks::check,
        witness: no_orphan_acks::witness,
        applies: has_share_transactions,
        twin_excluded: twin_scope::share_coordinator_restart,
        twin_stable: true,
    },
    PropertyDef {
        name: "pending_isolation",
        kind: Kind::Always,
        guards: "KIP-1289 \"acks become visible only when the transaction commits\"; ShareCoordinatorShard.replay",
        what: "the share coordinator's committed state (and the leader's) never reflects an ack whose transaction has not committed",
        twin: "pending_across_restart",
        twin_what: "the share coordinator restarts while its log holds pending acks",
        check: pending_isolation::check,
        witness: pending_isolation::witness,
        applies: has_share_transactions,
        twin_excluded: twin_scope::share_coordinator_restart,
        twin_stable: true,
    },
    PropertyDef {
        name: "no_lost_record",
        kind: Kind::Always,
        guards: "KIP-1289 abort path: acks discarded, records re-delivered",
        what: "an ack of an aborted transaction never makes a record terminal (ACKNOWLEDGED or ARCHIVED at that delivery)",
        twin: "redelivered_after_abort",
        twin_what: "a record whose transactional ack was aborted is delivered again",
        check: no_lost_record::check,
        witness: no_lost_record::witness,
        applies: has_share_transactions,
        twin_excluded: twin_scope::redelivered_after_abort,
        twin_stable: true,
    },
    PropertyDef {
        name: "leader_fencing",
        kind: Kind::Always,
        guards: "KIP-932 share-partition leader epochs (ShareCoordinatorShard FENCED_LEADER_EPOCH); KIP-1289 staging path",
        what: "once a moved-in share-partition leader read the state, the share coordinator takes no staging, write or outcome answer of the leader it replaced",
        twin: "stale_leader_fenced",
        twin_what: "a replaced share-partition leader's late staging or write is fenced with FENCED_LEADER_EPOCH",
        check: leader_fencing::check,
        witness: leader_fencing::witness,
        applies: has_leader_move,
        twin_excluded: twin_scope::never,
        twin_stable: true,
    },
    PropertyDef {
        name: "flush_before_commit",
        kind: Kind::Always,
        guards: "KIP-1310 TransactionSession; TransactionManager.nextRequest (EndTxn after every batch)",
        what: "a session decides a commit only after every produce and share ack of that transaction was answered",
        twin: "flushed_commit",
        twin_what: "a session commits after its produce and its share ack were both answered",
        check: flush_before_commit::check,
        witness: flush_before_commit::witness,
        applies: has_sessions,
        twin_excluded: twin_scope::never,
        twin_stable: true,
    },
    PropertyDef {
        name: "single_writer",
        kind: Kind::Always,
        guards: "KIP-1310 TransactionSession.resume; KIP-939 keepPreparedTxn fencing",
        what: "after a resume is acknowledged, no broker accepts a write or offset commit that adds to the log, or an EndTxn, of the old incarnation with the resumed identity (a retry of what the log already holds adds nothing)",
        twin: "resumed_writer_fenced",
        twin_what: "a broker rejects a request of the old incarnation with the resumed identity",
        check: single_writer::check,
        witness: single_writer::witness,
        applies: has_resume,
        twin_excluded: twin_scope::never,
        twin_stable: true,
    },
    PropertyDef {
        name: "external_agreement",
        kind: Kind::Always,
        guards: "KIP-1310 4.5 custom 2PC coordinators; KIP-939 2PC",
        what: "the external participant and Kafka decide the same outcome for the transaction the writer handed over",
        twin: "external_commit",
        twin_what: "Kafka and the external participant both commit the transaction",
        check: external_agreement::check,
        witness: external_agreement::witness,
        applies: has_resume,
        twin_excluded: twin_scope::never,
        twin_stable: true,
    },
    PropertyDef {
        name: "live_session_kept",
        kind: Kind::Always,
        guards: "KIP-1309 TxnHeartbeat on a KIP-1310 session (the session owns the heartbeat)",
        what: "the transaction coordinator aborts a session's transaction for missing heartbeats only once the session crashed or failed, never while it is up in a long task.put(); a session whose heartbeat is answered PRODUCER_FENCED for its open transaction fails instead of going on",
        twin: "heartbeat_abort",
        twin_what: "the transaction coordinator aborts a transaction whose heartbeats stopped",
        check: live_session_kept::check,
        witness: live_session_kept::witness,
        applies: has_session_heartbeats,
        twin_excluded: twin_scope::heartbeat_abort,
        twin_stable: true,
    },
    PropertyDef {
        name: "stale_acks_fenced",
        kind: Kind::Always,
        guards: "KIP-932 state epochs (InitializeShareGroupState; ShareCoordinatorShard FENCED_STATE_EPOCH); KIP-1289 staged acknowledgements",
        what: "acknowledgements a transaction staged under an older state epoch are never applied to the share state an offset reset initialised at a newer one",
        twin: "stale_acks_resolved",
        twin_what: "acknowledgements staged before an offset reset are resolved by a marker after it",
        check: stale_acks_fenced::check,
        witness: stale_acks_fenced::witness,
        applies: has_resets,
        twin_excluded: twin_scope::never,
        twin_stable: false,
    },
];

/// Looks a property up by its name or its twin's name.
pub fn property(name: &str) -> Option<&'static PropertyDef> {
    PROPERTIES.iter().find(|p| p.name == name || p.twin == name)
}

/// The README's library example, compiled and run by `cargo test` as a doctest, so that
/// the README's code stays true.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
