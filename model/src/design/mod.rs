//! Designs: named sets of protocol choices. Every knob is one entry of the
//! `design_knobs!` list below (a field of [`Design`] and a row of [`KNOBS`], see
//! [`knobs`]), and is recorded in reports and traces.

pub mod kip1289;
pub mod kip939;
pub mod knobs;
pub mod session_knobs;
pub mod sink_knobs;
pub mod spl_knobs;

use crate::design::kip939::AcknowledgerCommit;
use crate::design::knobs::{design_knobs, Shown};
use crate::design::session_knobs::HeartbeatOwner;
use crate::design::session_knobs::{EpochHandoff, ResumeMode};
use crate::design::sink_knobs::SinkCommitScope;
use crate::design::spl_knobs::{LeaderResolution, StageOwnerCheck};
pub use crate::protocol::msg::TransactionVersion;
use serde::{Deserialize, Serialize};

design_knobs! {
    /// A protocol design: which transaction-protocol features are on. The defaults are
    /// today's Kafka (TV2, KIP-890 verification on, the client flushes before EndTxn).
    #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
    pub struct Design {
        /// The design's name, as `sharetxn list` shows it.
        pub name: String,
        /// `transaction.version` (0, 1 or 2).
        tv: TransactionVersion = TransactionVersion(2),
            shown Always,
            help "transaction.version, 0..=2",
            reverted [];
        /// `transaction.partition.verification.enable` (KIP-890 part 1).
        verification: bool = true,
            shown Always,
            help "KIP-890 partition verification, true|false",
            reverted [];
        /// The client rule that EndTxn waits until every produce and offset commit of the
        /// transaction was answered (`TransactionManager.nextRequest`).
        flush_before_end_txn: bool = true,
            shown Always,
            help "EndTxn waits for every write, true|false",
            reverted [];
        /// KAFKA-19476 brought back: an acknowledgement does not cancel the acquisition lock
        /// timer and its expiry does not check the record's state, so a timer firing after the
        /// acquisition was acknowledged makes the record AVAILABLE again. Fixed in Kafka: false.
        #[serde(default, skip_serializing_if = "is_false")]
        lock_timer_race: bool = false,
            shown Moved,
            help "KAFKA-19476, a lock timer firing after the ack makes the record AVAILABLE again, true|false",
            reverted [];
        /// The share-partition leader checks that an acknowledgement comes from the member
        /// holding the acquisition (`SharePartition` checks `memberId`). With false, a late
        /// acknowledgement lands on a newer acquisition. Kafka: true.
        #[serde(default = "yes", skip_serializing_if = "is_true")]
        ack_member_check: bool = true,
            shown Moved,
            help "the share-partition leader checks the acking member holds the acquisition, true|false",
            reverted [];
        /// KIP-1289: TxnShareAcknowledge goes to the share-partition leader, which moves the
        /// record to TX_PENDING (out of lock expiry and acquisition) and persists the pending
        /// acknowledgement through the share coordinator. Seed: false (straight to the SC).
        #[serde(default, skip_serializing_if = "is_false")]
        stage_at_leader: bool = false,
            shown Moved,
            help "KIP-1289 TxnShareAcknowledge is staged at the share-partition leader (TX_PENDING), true|false",
            reverted ["no_duplicate_processing"];
        /// KIP-1289: what the leader validates at staging. Seed: none.
        #[serde(default, skip_serializing_if = "is_default")]
        stage_owner_check: StageOwnerCheck = StageOwnerCheck::None,
            shown Moved,
            help "what the leader validates at staging, none|member-epoch|acquisition",
            reverted ["ack_owner"];
        /// KIP-1289: how the leader learns the outcome of staged acknowledgements. Seed: none.
        #[serde(default, skip_serializing_if = "is_default")]
        leader_resolution: LeaderResolution = LeaderResolution::None,
            shown Moved,
            help "how the leader learns a staged ack's outcome, none|refresh|notify|refresh-guarded",
            reverted ["cache_agrees", "no_duplicate_processing"];
        /// KIP-1289 `notify`: the share coordinator keeps each transaction's outcome (the
        /// producer id and epoch its acknowledgements were staged with, and COMMIT or ABORT)
        /// until the leader answers for those offsets. With false it keeps one outcome per
        /// producer id, so the producer's next transaction replaces an outcome whose
        /// TxnShareAcksResolved was lost, and those records stay TX_PENDING at the leader
        /// for good. Seed: false (it has no `notify`).
        #[serde(default, skip_serializing_if = "is_false")]
        outcome_per_transaction: bool = false,
            shown Moved,
            help "KIP-1289 notify, the share coordinator keeps each transaction's outcome until the leader answers it (false: one per producer id), true|false",
            reverted ["at_least_once", "cache_agrees"];
        /// KIP-1289 `stage_at_leader`: the leader's forwarded TxnShareAcknowledge carries its
        /// leader epoch, and the share coordinator rejects a staging from an older leader
        /// epoch than the one it has seen (FENCED_LEADER_EPOCH, as for WriteShareGroupState),
        /// also when the staging's verification completes. With false, a staging forwarded
        /// by a leader that then crashed lands after the new leader read the state, and the
        /// record is delivered again while the old staging is pending. Seed: false.
        #[serde(default, skip_serializing_if = "is_false")]
        stage_leader_epoch: bool = false,
            shown Moved,
            help "KIP-1289, the share coordinator fences a staging forwarded by an older share-partition leader epoch, true|false",
            reverted ["no_duplicate_processing"];
        /// KIP-1289: a new leader rebuilds TX_PENDING records from the pending acknowledgements
        /// the share coordinator holds, instead of loading them AVAILABLE. Seed: false.
        #[serde(default, skip_serializing_if = "is_false")]
        rebuild_pending: bool = false,
            shown Moved,
            help "a new leader rebuilds TX_PENDING from the share coordinator's pending acks, true|false",
            reverted ["no_duplicate_processing"];
        /// KIP-1289: how a marker at `__share_group_state` finds the pending acknowledgements
        /// it resolves. Traces leave it out at the seed's value.
        #[serde(default, skip_serializing_if = "MarkerMatch::is_seed")]
        marker_match: MarkerMatch = MarkerMatch::ExactEpoch,
            shown Moved,
            help "KIP-1289, how a marker at the share coordinator finds pending acks, exact-epoch|producer-id|txn-epoch",
            reverted ["marker_match", "no_orphan_acks"];
        /// KIP-1289: at load the share coordinator replays transactional share records into
        /// its pending store and resolves them only by replayed markers (true); with false it
        /// replays them as `ShareCoordinatorShard.replay()` does today, ignoring the producer
        /// id, so a staged acknowledgement becomes committed state at load (S7).
        #[serde(default, skip_serializing_if = "is_false")]
        sc_replay_pending: bool = false,
            shown Moved,
            help "KIP-1289, the share coordinator replays staged acks as pending at load (false: as committed state), true|false",
            reverted ["pending_isolation", "no_lost_record"];
        /// KIP-1289: a WriteTxnMarkers for `__share_group_state` reaches the live share
        /// coordinator, which resolves the pending acknowledgements as it writes the marker
        /// (the KIP's "extends it to also handle live transaction completion"). With false
        /// it is routed as `KafkaApis.handleWriteTxnMarkersRequest` routes it at 1eb7644 and
        /// in 4.1: only `__consumer_offsets` markers go to a coordinator, so the marker is
        /// appended to the log with the log's own producer-state checks and
        /// `ShareCoordinatorShard.replayEndTransactionMarker` resolves it only at the next
        /// load (docs/kafka-cases.md S9). Every design: true.
        #[serde(default = "yes", skip_serializing_if = "is_true")]
        sc_live_markers: bool = true,
            shown Moved,
            help "KIP-1289, a marker for __share_group_state resolves staged acks at the live share coordinator (false: appended only, resolved at the next load, as KafkaApis routes it today), true|false",
            reverted [];
        /// The `__share_group_state` log fences a marker whose coordinator epoch is older
        /// than the one it last wrote for the producer id (TRANSACTION_COORDINATOR_FENCED), as
        /// `ProducerAppendInfo.appendEndTxnMarker` does for every partition at 1eb7644 and
        /// in 4.1, so a deposed transaction coordinator's marker resolves nothing
        /// (docs/kafka-cases.md S6). With false (the model's earlier rule; a trace that
        /// leaves the knob out was recorded under it) only the producer epoch fences it.
        #[serde(default, skip_serializing_if = "is_false")]
        sc_coordinator_epoch: bool = true,
            shown Moved,
            help "the share coordinator fences a marker from an older transaction coordinator epoch, as Kafka's log does (false: only the producer epoch fences it, docs/kafka-cases.md S6), true|false",
            reverted [];
        /// KIP-1289: the share coordinator's prune (`deleteRecords` up to
        /// `lastRedundantOffset`, scenario `sc_prunes`) stops at the first staging still
        /// pending or whose outcome is still unanswered, as the log cleaner never cleans
        /// `__consumer_offsets` past its first unstable offset. With false (Kafka 4.x's
        /// `ShareCoordinatorService` record pruning, which 1eb7644 predates: the offset is
        /// the oldest key's latest snapshot, bounded by the high watermark) a prune deletes a pending staging and
        /// the next load has nothing for its marker to resolve (docs/kafka-cases.md S11).
        #[serde(default, skip_serializing_if = "is_false")]
        sc_prune_lso: bool = false,
            shown Moved,
            help "KIP-1289, the share coordinator's prune keeps every staging still pending or unanswered (false: deleteRecords up to the newest snapshot, docs/kafka-cases.md S11), true|false",
            reverted ["txn_atomicity", "cache_agrees"];
        /// KIP-1289 with share-group offset resets (scenario field `resets`,
        /// docs/kafka-cases.md S20): the share coordinator applies at COMMIT no
        /// acknowledgement staged under an older state epoch than the share state's (an
        /// admin's reset reinitialised the state since), and a staging share-partition leader
        /// sends its state epoch, which the coordinator fences with FENCED_STATE_EPOCH as it
        /// fences WriteShareGroupState's. With false (the seed's text, which gives staged
        /// acknowledgements no state epoch) a COMMIT after a reset merges acknowledgements
        /// made for the state before it into the reinitialised one.
        #[serde(default, skip_serializing_if = "is_false")]
        sc_state_epoch_fence: bool = false,
            shown Moved,
            help "KIP-1289, the share coordinator applies no acks staged under an older state epoch than the state's at COMMIT, and fences a staging of an older state epoch (docs/kafka-cases.md S20), true|false",
            reverted [];
        /// KIP-1289: a second TxnShareAcknowledge of one transaction (one producer id and
        /// epoch) at the share coordinator adds its acknowledgements to those staged before,
        /// offset by offset. With false (the model's reading of the seed's "mirrors
        /// TxnOffsetCommit": `OffsetMetadataManager.replay` puts a pending offset per producer
        /// id and partition, the last write replacing the one before, 1eb7644) it replaces
        /// them, so a transaction carrying two members' acknowledgements of one share
        /// partition, one request per member, commits only the last member's
        /// (docs/kafka-cases.md S22, scenario `flink-shuffle`).
        #[serde(default, skip_serializing_if = "is_false")]
        sc_merge_pending: bool = false,
            shown Moved,
            help "KIP-1289, a transaction's later staging at the share coordinator adds to its earlier ones offset by offset (false: replaces them, as a pending offset commit per partition; docs/kafka-cases.md S22), true|false",
            reverted [];
        /// KIP-1289's client: its share consumer takes the records it hands to a transaction
        /// out of its batch, so neither the next poll's implicit ACCEPT nor `close()`
        /// acknowledges them outside the transaction; after an abort the leader's release or
        /// the lock's expiry gives them back. With false (the KIP's loop on a plain
        /// `KafkaShareConsumer`, `ShareConsumerImpl.poll` at 1eb7644) a transaction whose
        /// staging rolled back aborts with the record still ACQUIRED, and the next poll
        /// ACCEPTs it: settled, never processed (docs/kafka-cases.md S14, scenario
        /// `ctp-acks`).
        #[serde(default, skip_serializing_if = "is_false")]
        exclude_txn_records: bool = false,
            shown Moved,
            help "KIP-1289's client leaves the records it handed to a transaction out of its implicit ACCEPT and close() (docs/kafka-cases.md S14), true|false",
            reverted ["staged_ack_exclusive"];
        /// KIP-1289: TxnShareAcknowledge is verified with the transaction coordinator before it
        /// is staged (KIP-890 part 1, `maybeStartTransactionVerification` in
        /// `scheduleTransactionalWriteOperation`); with false it is staged unverified.
        #[serde(default = "yes", skip_serializing_if = "is_true")]
        stage_verification: bool = true,
            shown Moved,
            help "KIP-1289, TxnShareAcknowledge is verified with the transaction coordinator before it is staged, true|false",
            reverted ["no_orphan_acks"];
        /// KIP-939: the brokers' and the clients' `transaction.two.phase.commit.enable`. A
        /// client that asks for 2PC (`Enable2Pc`) gets a transaction the coordinator never
        /// aborts on the transaction timeout; with false such a request fails with
        /// TRANSACTIONAL_ID_AUTHORIZATION_FAILED, as Kafka's default does, and clients do not
        /// ask. Kafka's default: false.
        #[serde(default, skip_serializing_if = "is_false")]
        two_phase_commit: bool = false,
            shown Moved,
            help "KIP-939, transaction.two.phase.commit.enable on brokers and clients (a 2PC transaction never times out), true|false",
            reverted ["no_duplicate_processing"];
        /// KIP-1309 (a draft): the transaction coordinator aborts an ongoing transaction whose
        /// owner stopped sending TxnHeartbeat, independently of the transaction timeout.
        /// Kafka has no such thing: false.
        #[serde(default, skip_serializing_if = "is_false")]
        txn_heartbeat: bool = false,
            shown Moved,
            help "KIP-1309, the transaction coordinator aborts a transaction whose owner stopped heartbeating, true|false",
            reverted [];
        /// KIP-1309 on a KIP-1310 session: who sends the heartbeats while the application is
        /// busy in a long `task.put()`. Seed: the session's own network client.
        #[serde(default, skip_serializing_if = "is_default")]
        heartbeat_owner: HeartbeatOwner = HeartbeatOwner::Session,
            shown Moved,
            help "KIP-1309 on a KIP-1310 session, who heartbeats while the application is in a long task.put(), session|producer",
            reverted [];
        /// KIP-1289's standalone acknowledger in Flink: how a checkpoint commits its
        /// acknowledgements. The seed's `notify`: one transaction at `notifyCheckpointComplete`.
        #[serde(default, skip_serializing_if = "is_default")]
        acknowledger_commit: AcknowledgerCommit = AcknowledgerCommit::Notify,
            shown Moved,
            help "how the Flink acknowledger commits a checkpoint's acks, notify|two-phase",
            reverted ["no_duplicate_processing"];
        /// KIP-1310: `commitTransaction()` on a `TransactionSession` waits until every produce
        /// of the producer on the session and every share acknowledgement of the transaction
        /// was answered, as `TransactionManager.nextRequest` holds EndTxn today. Seed: false
        /// ("the producer's Sender thread does NOT send transaction RPCs", so nothing holds
        /// the session's EndTxn back; docs/kafka-cases.md S15).
        #[serde(default, skip_serializing_if = "is_false")]
        session_commit_flush: bool = false,
            shown Moved,
            help "KIP-1310, the session's commit waits for every produce and share ack of the transaction, true|false",
            reverted ["flush_before_commit", "txn_atomicity"];
        /// KIP-1310: how the producer on a session learns the epoch the session got at EndTxn
        /// (docs/kafka-cases.md S16). Seed: asynchronously.
        #[serde(default, skip_serializing_if = "is_default")]
        epoch_handoff: EpochHandoff = EpochHandoff::Async,
            shown Moved,
            help "KIP-1310, how the producer on a session learns the epoch after EndTxn, async|atomic",
            reverted ["txn_atomicity"];
        /// KIP-1302 on a session: which batches the Connect sink task's commit thread commits
        /// while its poll thread goes on. Seed: the session's whole open transaction.
        #[serde(default, skip_serializing_if = "is_default")]
        sink_commit_scope: SinkCommitScope = SinkCommitScope::Session,
            shown Moved,
            help "KIP-1302, what a Connect sink task's commit covers while its poll thread goes on, session|staged",
            reverted ["txn_atomicity"];
        /// KIP-1310: what `TransactionSession.resume(txnId, producerId, epoch)` does
        /// (docs/kafka-cases.md S17). Seed: installs the identity only.
        #[serde(default, skip_serializing_if = "is_default")]
        resume: ResumeMode = ResumeMode::Install,
            shown Moved,
            help "KIP-1310, what TransactionSession.resume does, install|fence",
            reverted ["single_writer", "external_agreement"];
        /// KIP-1310: the producer on a session refuses `send()` unless the session is
        /// IN_TRANSACTION, as `TransactionManager.maybeAddPartition` refuses it today (a
        /// prepared transaction takes no more writes). Seed: false (the producer "only sends
        /// Produce" with the session's identity and reads nothing else of it).
        #[serde(default, skip_serializing_if = "is_false")]
        session_send_check: bool = false,
            shown Moved,
            help "KIP-1310, the producer on a session refuses send() outside IN_TRANSACTION, true|false",
            reverted ["single_writer"];
        /// KIP-1310 4.5: the 2PC coordinator application resumes the Kafka leg (fencing the
        /// writer, with `resume=fence`) before it decides, and decides abort if the prepared
        /// transaction is already gone. Seed: false (the seed's 4.5 decides, then resumes).
        #[serde(default, skip_serializing_if = "is_false")]
        decide_after_resume: bool = false,
            shown Moved,
            help "KIP-1310 4.5, the 2PC coordinator resumes the Kafka leg before it decides, true|false",
            reverted ["external_agreement"];
        /// KIP-1310 4.5 with KIP-939's recovery, for a coordinator application that crashes
        /// and restarts: with no committable and no decision in its log it aborts what the
        /// writer's transactional id left open (InitProducerId(keepPreparedTxn=true), then
        /// `completeTransaction` with no matching state), and with a decision it resumes
        /// again when the resumed session was fenced before the decision landed. The seed's
        /// 4.5 has no recovery step, so a hand-off lost in the crash leaves the prepared 2PC
        /// transaction open for ever. Off in every design: `vote_timeout` fixes that too (the
        /// restarted application waits for a vote that does not come, then presumes abort),
        /// and `recovery_retry` resumes every session gone fatal, fenced or timed out.
        #[serde(default, skip_serializing_if = "is_false")]
        committer_recovery: bool = false,
            shown Moved,
            help "KIP-1310 4.5 with KIP-939 recovery, a restarted 2PC coordinator aborts what the writer left open without a logged hand-off and resumes again after a fence, true|false",
            reverted [];
        /// KIP-939's recovery retried, as an application does when
        /// `KafkaProducer.initTransactions` or `completeTransaction` throws (a
        /// `TimeoutException`; a producer gone fatal is closed and a new one created): a
        /// session of the coordinator application that went fatal before the Kafka leg was
        /// done (the presumed abort's, or a resumed one in either phase) is replaced by a
        /// fresh one on a new connection that starts again. Seed: false (one attempt, so a
        /// timed-out InitProducerId or EndTxn leaves the prepared 2PC transaction open for
        /// ever).
        #[serde(default, skip_serializing_if = "is_false")]
        recovery_retry: bool = false,
            shown Moved,
            help "KIP-939 recovery retried, a 2PC coordinator whose session went fatal before the Kafka leg was done starts again with a fresh session, true|false",
            reverted ["txn_completes", "no_hanging_transaction"];
        /// Flink's failover for the writer of KIP-1310 4.5: a writer that fails before its
        /// hand-off (fenced, or a request timed out) fails the job, and the coordinator
        /// application, restored with nothing logged, runs the presumed abort again. Needed
        /// with `recovery_retry`: a timed-out recovery's InitProducerId(keepPreparedTxn=true)
        /// can reach the coordinator after the writer began, and KIP-939's coordinator keeps
        /// any ONGOING transaction (it has no PREPARED state), so it keeps the writer's
        /// unprepared one and fences the writer, and nothing else completes it. Off in every
        /// design: `vote_timeout` fixes that counterexample too (the fenced writer never
        /// hands over, so the vote does not come), and a lost hand-off as well, which a
        /// writer that thinks it handed over cannot report.
        #[serde(default, skip_serializing_if = "is_false")]
        writer_failover: bool = false,
            shown Moved,
            help "KIP-1310 4.5 with Flink's failover, a writer that fails before its hand-off makes the 2PC coordinator run the presumed abort again, true|false",
            reverted [];
        /// The 2PC coordinator application of KIP-1310 4.5 waits for the writer's vote (its
        /// committable) for a bounded time, and presumes abort when it does not come: a
        /// lost hand-off otherwise leaves the writer's prepared transaction, exempt from the
        /// transaction timeout, open for ever once the writer is gone. Flink's checkpoint
        /// timeout does this: the checkpoint that carries the committable fails, the job
        /// fails over, and the restored committer, with nothing logged, aborts what the
        /// transactional id left open. Seed: false (the seed's 4.5 waits for the hand-off).
        #[serde(default, skip_serializing_if = "is_false")]
        vote_timeout: bool = false,
            shown Moved,
            help "KIP-1310 4.5's 2PC coordinator presumes abort when the writer's committable does not come in time, true|false",
            reverted ["txn_completes", "no_hanging_transaction"];
        /// The writer of KIP-1310 4.5 initialises its session with
        /// `initTransactions(keepPreparedTxn=true)`, leaving whatever it finds open to the
        /// coordinator application (whose presumed abort ends what nobody handed over).
        /// With `keepPreparedTxn=false` a retry of the writer's own InitProducerId (the
        /// `Sender` resends it after a request timeout, and the first carries no producer id
        /// or epoch for `TransactionCoordinator.handleInitProducerId` to fence it by) can land
        /// after the writer prepared and the application decided to commit, and aborts the
        /// prepared transaction. Seed: false (`initialize()` as KIP-939's first start).
        #[serde(default, skip_serializing_if = "is_false")]
        writer_keep_prepared: bool = false,
            shown Moved,
            help "KIP-1310 4.5's writer initialises with keepPreparedTxn=true, so a late retry of its InitProducerId cannot abort the prepared transaction, true|false",
            reverted ["external_agreement"];
        /// Kafka's `TransactionCoordinator.handleEndTransaction` under TV2 (4.0): an EndTxn
        /// with the current epoch while the previous transaction is still PrepareCommit or
        /// PrepareAbort is no retry but the next transaction's EndTxn, and is answered
        /// PRODUCER_FENCED, fatal for the producer. With false (the model's earlier
        /// simplification; a trace that leaves the knob out was recorded under it) it is
        /// held until the previous transaction completes and then handled
        /// (docs/conformance.md TC-3).
        #[serde(default, skip_serializing_if = "is_false")]
        prepared_end_txn_fenced: bool = true,
            shown Moved,
            help "TV2, an EndTxn with the current epoch while the previous transaction is PrepareCommit or PrepareAbort is answered PRODUCER_FENCED as Kafka does (false: held until it completes, docs/conformance.md TC-3), true|false",
            reverted [];
        /// Kafka's `TransactionMetadata.prepareIncrementProducerEpoch` with no expected epoch
        /// (an InitProducerId from a new incarnation): the bumped metadata keeps no last
        /// epoch, so under TV2 the previous incarnation's EndTxn is PRODUCER_FENCED. With
        /// false (the model's earlier simplification; a trace that leaves the knob out was
        /// recorded under it) the old epoch stays the last epoch and that EndTxn is answered
        /// INVALID_TXN_STATE, also fatal (docs/fidelity.md D6).
        #[serde(default, skip_serializing_if = "is_false")]
        init_pid_clears_last_epoch: bool = true,
            shown Moved,
            help "InitProducerId leaves no last epoch, so a previous incarnation's TV2 EndTxn is PRODUCER_FENCED as Kafka answers (false: INVALID_TXN_STATE, docs/fidelity.md D6), true|false",
            reverted [];
        /// Kafka's `ShareCoordinatorShard.merge` (1eb7644 and 4.x): a WriteShareGroupState's
        /// start offset replaces the stored one even when it is lower, so an older write
        /// arriving after a newer one moves the share-partition start offset back. With false
        /// (the model's reading, kept so the pinned counts stand) the stored start offset
        /// never moves back (docs/fidelity.md F1).
        #[serde(default, skip_serializing_if = "is_false")]
        sc_start_offset_from_write: bool = false,
            shown Moved,
            help "a WriteShareGroupState's start offset replaces the share coordinator's even when lower, as Kafka's ShareCoordinatorShard.merge does (false: it never moves back, docs/fidelity.md F1), true|false",
            reverted [];
        /// Kafka's `isValidEpoch` in `handleEndTransaction` under TV2 (4.0): in Ongoing or
        /// Empty only the current epoch is valid, so a late copy of the EndTxn that bumped
        /// the epoch (the epoch one below) is answered PRODUCER_FENCED. With false (the
        /// model's earlier rule; a trace that leaves the knob out was recorded under it) it
        /// is taken for a retry and answered INVALID_TXN_STATE, also fatal for the producer
        /// (docs/conformance.md TC-1).
        #[serde(default, skip_serializing_if = "is_false")]
        ongoing_end_txn_fenced: bool = true,
            shown Moved,
            help "TV2, a late EndTxn with the epoch before the current one while the transaction is Ongoing or Empty is answered PRODUCER_FENCED as Kafka does (false: taken for a retry, INVALID_TXN_STATE, docs/conformance.md TC-1), true|false",
            reverted [];
        /// Senders fill only the fields the design's wire format carries
        /// (`Design::wire_format`, docs/wire.md): the seed's TxnShareAcknowledge names no
        /// member (KIP-1289 section 4.2 has no MemberId), the draft's client sends no
        /// delivery counts (apache/kafka#22357's schema has none), and a leader's staging
        /// at the share coordinator names no member. No handler reads these fields under
        /// those designs, so every verdict stands. False is the model's earlier senders,
        /// which fill them (a trace that leaves the knob out was recorded so).
        #[serde(default, skip_serializing_if = "is_false")]
        strict_wire_format: bool = true,
            shown Moved,
            help "senders leave out the fields the design's wire format lacks (docs/wire.md; false: the earlier senders fill them, unread), true|false",
            reverted [];
    }
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
    /// fenced, a repeated one is a no-op. The `draft` and `proposed` designs: the draft
    /// keeps each staging's producer id and epoch with its TX_PENDING batch
    /// (`PersisterStateBatch.stagedProducerId`/`stagedProducerEpoch`), and its own TV2
    /// integration test needs the bumped marker to resolve them.
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
        Design::kafka("consumer-offsets")
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

    /// One-line summary of the knobs, for humans: the name, then the headline knobs and
    /// every other knob at a value other than the seed design's, in [`KNOBS`] order.
    pub fn describe(&self) -> String {
        let seed = Design::seed();
        let shown: Vec<String> = KNOBS
            .iter()
            .filter(|k| k.shown == Shown::Always || (k.value)(self) != (k.value)(&seed))
            .map(|k| format!("{}={}", k.name, (k.value)(self)))
            .collect();
        format!("{} ({})", self.name, shown.join(", "))
    }
}
