//! Designs: named sets of protocol choices. Every knob is recorded in reports and traces.

pub mod kip1289;
pub mod kip939;
pub mod scope;
pub mod session_knobs;
pub mod settings;
pub mod sink_knobs;
pub mod spl_knobs;

use crate::design::session_knobs::{EpochHandoff, ResumeMode};
use crate::design::spl_knobs::{LeaderResolution, StageOwnerCheck};
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
    /// KIP-1289: how a marker at `__share_group_state` finds the pending acknowledgements
    /// it resolves. Traces leave it out at the seed's value.
    #[serde(default, skip_serializing_if = "MarkerMatch::is_seed")]
    pub marker_match: MarkerMatch,
    /// KIP-1289: at load the share coordinator replays transactional share records into
    /// its pending store and resolves them only by replayed markers (true); with false it
    /// replays them as `ShareCoordinatorShard.replay()` does today, ignoring the producer
    /// id, so a staged acknowledgement becomes committed state at load (S7).
    #[serde(default, skip_serializing_if = "is_false")]
    pub sc_replay_pending: bool,
    /// KIP-1289: TxnShareAcknowledge is verified with the transaction coordinator before it
    /// is staged (KIP-890 part 1, `maybeStartTransactionVerification` in
    /// `scheduleTransactionalWriteOperation`); with false it is staged unverified.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub stage_verification: bool,
    /// KIP-939: the brokers' and the clients' `transaction.two.phase.commit.enable`. A
    /// client that asks for 2PC (`Enable2Pc`) gets a transaction the coordinator never
    /// aborts on the transaction timeout; with false such a request fails with
    /// TRANSACTIONAL_ID_AUTHORIZATION_FAILED, as Kafka's default does, and clients do not
    /// ask. Kafka's default: false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub two_phase_commit: bool,
    /// KIP-1309 (a draft): the transaction coordinator aborts an ongoing transaction whose
    /// owner stopped sending TxnHeartbeat, independently of the transaction timeout.
    /// Kafka has no such thing: false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub txn_heartbeat: bool,
    /// KIP-1309 on a KIP-1310 session: who sends the heartbeats while the application is
    /// busy in a long `task.put()`. Seed: the session's own network client.
    #[serde(default, skip_serializing_if = "is_default")]
    pub heartbeat_owner: crate::clients::session_heartbeat::HeartbeatOwner,
    /// KIP-1289's standalone acknowledger in Flink: how a checkpoint commits its
    /// acknowledgements. The seed's `notify`: one transaction at `notifyCheckpointComplete`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub acknowledger_commit: crate::design::kip939::AcknowledgerCommit,
    /// KIP-1310: `commitTransaction()` on a `TransactionSession` waits until every produce
    /// of the producer on the session and every share acknowledgement of the transaction
    /// was answered, as `TransactionManager.nextRequest` holds EndTxn today. Seed: false
    /// ("the producer's Sender thread does NOT send transaction RPCs", so nothing holds
    /// the session's EndTxn back; docs/kafka-cases.md S15).
    #[serde(default, skip_serializing_if = "is_false")]
    pub session_commit_flush: bool,
    /// KIP-1310: how the producer on a session learns the epoch the session got at EndTxn
    /// (docs/kafka-cases.md S16). Seed: asynchronously.
    #[serde(default, skip_serializing_if = "is_default")]
    pub epoch_handoff: EpochHandoff,
    /// KIP-1302 on a session: which batches the Connect sink task's commit thread commits
    /// while its poll thread goes on. Seed: the session's whole open transaction.
    #[serde(default, skip_serializing_if = "is_default")]
    pub sink_commit_scope: crate::design::sink_knobs::SinkCommitScope,
    /// KIP-1310: what `TransactionSession.resume(txnId, producerId, epoch)` does
    /// (docs/kafka-cases.md S17). Seed: installs the identity only.
    #[serde(default, skip_serializing_if = "is_default")]
    pub resume: ResumeMode,
    /// KIP-1310: the producer on a session refuses `send()` unless the session is
    /// IN_TRANSACTION, as `TransactionManager.maybeAddPartition` refuses it today (a
    /// prepared transaction takes no more writes). Seed: false (the producer "only sends
    /// Produce" with the session's identity and reads nothing else of it).
    #[serde(default, skip_serializing_if = "is_false")]
    pub session_send_check: bool,
    /// KIP-1310 4.5: the 2PC coordinator application resumes the Kafka leg (fencing the
    /// writer, with `resume=fence`) before it decides, and decides abort if the prepared
    /// transaction is already gone. Seed: false (the seed's 4.5 decides, then resumes).
    #[serde(default, skip_serializing_if = "is_false")]
    pub decide_after_resume: bool,
    /// KIP-1310 4.5 with KIP-939's recovery, for a coordinator application that crashes
    /// and restarts: with no committable and no decision in its log it aborts what the
    /// writer's transactional id left open (InitProducerId(keepPreparedTxn=true), then
    /// `completeTransaction` with no matching state), and with a decision it resumes
    /// again when the resumed session was fenced before the decision landed. Seed: false
    /// (the seed's 4.5 has no recovery step, so a hand-off lost in the crash leaves the
    /// prepared 2PC transaction open for ever).
    #[serde(default, skip_serializing_if = "is_false")]
    pub committer_recovery: bool,
}

/// How a COMMIT or ABORT marker at the share coordinator finds the pending acknowledgements
/// it resolves.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum MarkerMatch {
    /// The seed's `applyPendingAcknowledgements(producerId, producerEpoch)` taken
    /// literally: the entry staged with exactly the marker's producer id and epoch. Under
    /// TV2 the marker carries the bumped epoch, so it finds nothing (S8).
    #[default]
    ExactEpoch,
    /// `GroupCoordinator`'s pattern: every entry of the marker's producer id, whatever its
    /// epoch; a marker older than the newest staging is fenced. A retried TV2 marker of one
    /// transaction resolves the next transaction's acknowledgements (S6).
    ProducerId,
    /// The producer id, and the marker's epoch is the staged epoch (TV0/1) or above it
    /// (TV2, which bumps the epoch at EndTxn); a marker older than what is pending is
    /// fenced, a repeated one is a no-op.
    TxnEpoch,
}

impl MarkerMatch {
    /// Every value, in the order `sharetxn list` shows them.
    pub const ALL: [MarkerMatch; 3] = [
        MarkerMatch::ExactEpoch,
        MarkerMatch::ProducerId,
        MarkerMatch::TxnEpoch,
    ];

    /// The kebab-case name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            MarkerMatch::ExactEpoch => "exact-epoch",
            MarkerMatch::ProducerId => "producer-id",
            MarkerMatch::TxnEpoch => "txn-epoch",
        }
    }

    /// Whether this is the seed's value (left out of traces).
    pub fn is_seed(&self) -> bool {
        *self == MarkerMatch::ExactEpoch
    }
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
            marker_match: MarkerMatch::ExactEpoch,
            sc_replay_pending: false,
            stage_verification: true,
            two_phase_commit: false,
            txn_heartbeat: false,
            heartbeat_owner: crate::clients::session_heartbeat::HeartbeatOwner::Session,
            acknowledger_commit: crate::design::kip939::AcknowledgerCommit::Notify,
            session_commit_flush: false,
            epoch_handoff: EpochHandoff::Async,
            sink_commit_scope: crate::design::sink_knobs::SinkCommitScope::Session,
            resume: ResumeMode::Install,
            session_send_check: false,
            decide_after_resume: false,
            committer_recovery: false,
        }
    }

    /// KIP-1289 as the seed text writes it. The client stages ACCEPT acknowledgements at
    /// the share coordinator with TxnShareAcknowledge after AddShareAcksToTxn added
    /// `__share_group_state` to the transaction; the share coordinator keeps them pending
    /// under the producer id and epoch and applies (COMMIT) or discards (ABORT) them at the
    /// marker. Transaction version 2 with verification, Kafka 4's defaults.
    ///
    /// The share coordinator, read literally (one knob per choice, so each can be moved):
    /// - `marker_match=exact-epoch`: the seed's only code is
    ///   `completeTransaction(producerId, producerEpoch, result)` calling
    ///   `applyPendingAcknowledgements(producerId, producerEpoch)` /
    ///   `discardPendingAcknowledgements(producerId, producerEpoch)`, and it says the acks
    ///   are written "with the producer's producerId and producerEpoch". Looking them up by
    ///   that pair is the literal reading; its "mirrors GroupCoordinator.completeTransaction"
    ///   names the method being mirrored, not `pendingTransactionalOffsets`' pid-only key.
    /// - `sc_replay_pending=false`: the seed reuses `replayEndTransactionMarker` for
    ///   recovery and adds `completeTransaction` for live markers; it changes nothing in
    ///   `ShareCoordinatorShard.replay(offset, producerId, producerEpoch, record)`, which
    ///   today ignores the producer id. A reader builds the pending store in the new live
    ///   path, and at load the staged records are replayed as committed state.
    /// - `stage_verification=true`: the seed writes the acks with
    ///   `CoordinatorRuntime.scheduleTransactionalWriteOperation()`, which starts KIP-890
    ///   verification (`maybeStartTransactionVerification`) before the write.
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
        share.push_str(&crate::design::kip1289::describe_spl(self));
        // The KIP-1289 knobs show when they differ from the design's own default.
        let own = Design::by_name(&self.name).ok();
        let base = own.as_ref().unwrap_or(self);
        if self.marker_match != base.marker_match {
            share.push_str(&format!(", marker_match={}", self.marker_match.name()));
        }
        if self.sc_replay_pending != base.sc_replay_pending {
            share.push_str(&format!(", sc_replay_pending={}", self.sc_replay_pending));
        }
        if self.stage_verification != base.stage_verification {
            share.push_str(&format!(", stage_verification={}", self.stage_verification));
        }
        share.push_str(&crate::design::kip939::describe_2pc(self, base));
        share.push_str(&crate::clients::transaction_session::describe_knobs(
            self, base,
        ));
        if self.sink_commit_scope != base.sink_commit_scope {
            share.push_str(&format!(
                ", sink_commit_scope={}",
                self.sink_commit_scope.name()
            ));
        }
        format!(
            "{} (tv={}, verification={}, flush_before_end_txn={}{share})",
            self.name, self.tv.0, self.verification, self.flush_before_end_txn
        )
    }
}
