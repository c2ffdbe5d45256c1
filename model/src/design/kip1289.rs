//! KIP-1289's designs at the share-partition leader: `draft` (the public draft PR's
//! approach) and `proposed` (this project's protocol).

use crate::design::spl_knobs::{LeaderResolution, StageOwnerCheck};
use crate::design::Design;

impl Design {
    /// The public draft (apache/kafka#22357, the revision of its `SharePartitionTxnState`,
    /// `SharePartitionTxnStateTest` and `ShareGroupTransactionIntegrationTest`):
    /// TxnShareAcknowledge is handled on the share-partition leader, which validates the
    /// member id and epoch at stage time only, moves the record to TX_PENDING (out of lock
    /// expiry and acquisition) and persists the pending acknowledgement with the producer id
    /// and epoch through the share coordinator (the draft's `PersisterStateBatch` carries
    /// `stagedProducerId` and `stagedProducerEpoch`). The leader learns the outcome from its
    /// own re-read, `SharePartitionTxnState.refresh()` (`leader_resolution=refresh-guarded`,
    /// docs/conformance.md DR-1 to DR-3): no read while a staging is unanswered, only the
    /// records pending when the read was sent and still staged by the same producer id and
    /// epoch, a persisted TX_PENDING resolves nothing, AVAILABLE is an abort. At the share
    /// coordinator a COMMIT or ABORT marker resolves the acknowledgements its producer id
    /// staged in its own transaction (`marker_match=txn-epoch`): the draft's own test runs
    /// under TV2, whose marker carries the epoch bumped at EndTxn, and expects the abort to
    /// make its input available again and every commit to hold, so the draft cannot match
    /// the staged epoch exactly as the seed's `applyPendingAcknowledgements(producerId,
    /// producerEpoch)` reads; a marker older than the staging is fenced by the partition's
    /// own TV2 epoch check (`ProducerStateManager`, KIP-890).
    ///
    /// The draft persists a staging as a TX_PENDING batch with its producer id and epoch
    /// (its `PersisterStateBatch`, which `ReadShareGroupState` answers with, as its
    /// `SharePartitionTxnStateTest` reads): a new leader's load finds the record TX_PENDING
    /// again, owned by that transaction (`rebuild_pending`), and a share coordinator load
    /// keeps the staging pending until its marker (`sc_replay_pending`).
    ///
    /// Where the draft is silent, the choices made here: the refresh may run at any moment
    /// after the staging is durable, and again while a read leaves records TX_PENDING (the
    /// draft's caller of `refresh()` is not in its tests); an abort releases the record
    /// without refunding its delivery count, and the leader persists that release as a lock
    /// expiry does; a failed staging write rolls the record back to ACQUIRED. Everything
    /// else is the seed's. Before this revision the model's `draft` had
    /// `leader_resolution=refresh`, `marker_match=exact-epoch`, `rebuild_pending=false` and
    /// `sc_replay_pending=false`; docs/findings.md lists what each showed (with
    /// `rebuild_pending=false` the draft fails its own `testCommitAfterSourceLeaderShutdown`).
    pub fn draft() -> Design {
        Design {
            name: "draft".into(),
            stage_at_leader: true,
            stage_owner_check: StageOwnerCheck::MemberEpoch,
            leader_resolution: LeaderResolution::RefreshGuarded,
            marker_match: crate::design::MarkerMatch::TxnEpoch,
            rebuild_pending: true,
            sc_replay_pending: true,
            ..Design::seed()
        }
    }

    /// This project's protocol. Each choice over `seed` is one knob, and reverting it alone
    /// gives the counterexample pinned in `properties/tests/suite/proposed.rs`:
    /// - `stage_at_leader`: the leader holds the record TX_PENDING, so its lock cannot
    ///   expire and it cannot be redelivered while the acknowledgement is pending (else
    ///   `no_duplicate_processing`);
    /// - `stage_owner_check=acquisition`: a late staging of an earlier acquisition of the
    ///   same member is rejected (else `ack_owner`);
    /// - `leader_resolution=notify`: the share coordinator tells the leader COMMIT or ABORT
    ///   when the marker resolved the acks, and the leader never infers an outcome (else
    ///   `cache_agrees` with no resolution, `no_duplicate_processing` with `refresh`);
    /// - `outcome_per_transaction`: the share coordinator resends each transaction's
    ///   outcome until the leader answers for its offsets (else `at_least_once` and
    ///   `cache_agrees` with one loss and two transactions of one producer: the second
    ///   outcome replaced the first, whose TxnShareAcksResolved was lost, and the first
    ///   transaction's record stays TX_PENDING at the leader for good);
    /// - `stage_leader_epoch`: the share coordinator fences a staging forwarded by a
    ///   share-partition leader older than the one that has read the state since (else
    ///   `no_duplicate_processing` with two leader restarts: the old leader's staging
    ///   lands after the new leader loaded the record AVAILABLE, the record is delivered
    ///   again, and the abort of the old staging reopens it after the new one committed);
    /// - `rebuild_pending`: a new leader rebuilds TX_PENDING from the share coordinator's
    ///   pending acks (else `no_duplicate_processing` after a leader failover).
    ///
    /// - `marker_match=txn-epoch`: a marker resolves the acks of its own transaction, by
    ///   producer id and the epoch that transaction staged with (else `marker_match` and
    ///   `no_orphan_acks`: the TV2 marker's bumped epoch misses the staged one);
    /// - `sc_replay_pending`: a share coordinator load keeps staged acks pending until their
    ///   marker (else `pending_isolation` and `no_lost_record` after a coordinator restart);
    /// - `sc_prune_lso`: the share coordinator's prune keeps every staging still pending or
    ///   whose outcome is unanswered (else `txn_atomicity` and `cache_agrees` with
    ///   `sc_prunes=1`: a snapshot prunes the pending staging, the coordinator restarts
    ///   before the COMMIT marker, and the marker finds nothing; docs/kafka-cases.md S11);
    /// - `sc_state_epoch_fence`: the share coordinator applies no acknowledgement staged
    ///   under an older state epoch at COMMIT, and fences a leader's staging of an older
    ///   state epoch (else `stale_acks_fenced` with `resets=1`: an admin's offset reset
    ///   reinitialises the state while a transaction holds staged acknowledgements, and its
    ///   COMMIT merges them into the new state; docs/kafka-cases.md S20);
    /// - `exclude_txn_records`: the client's share consumer leaves the records it handed
    ///   to a transaction out of its implicit ACCEPT and its `close()` (else
    ///   `staged_ack_exclusive` on `ctp-acks`, simulator seed 1 of 50,000: a staging the
    ///   coordinator's verification timed out on is rolled back, the transaction times out
    ///   and aborts, and the next poll ACCEPTs the still ACQUIRED record, which no
    ///   committed transaction processed; docs/kafka-cases.md S14);
    /// - `stage_verification` (the seed's own value, kept): a staging is verified with the
    ///   transaction coordinator (else `no_orphan_acks` under TV1, a late staging).
    /// - `acknowledger_commit=two-phase` with `two_phase_commit`: the Flink acknowledger
    ///   stages and prepares a checkpoint's acks in `snapshotState` (KIP-939) and commits
    ///   them at `notifyCheckpointComplete`, a restart completing the prepared transaction
    ///   against the restored checkpoint (else `no_duplicate_processing`: a checkpoint
    ///   completes, its commit fails, the records come back; or, without 2PC, the
    ///   transaction timeout aborts a prepared transaction the checkpoint counts on).
    ///
    /// On a `TransactionSession` (KIP-1310, scenario `session`):
    /// - `session_commit_flush`: the session's commit waits until every produce and share
    ///   acknowledgement of the transaction was answered (else `flush_before_commit` and
    ///   `txn_atomicity`: a produce still in flight is fenced by the bumped epoch after the
    ///   commit, docs/kafka-cases.md S15);
    /// - `epoch_handoff=atomic`: the producer takes the session's new epoch in one step with
    ///   no batch in flight (else `txn_atomicity`: a batch of the next transaction built
    ///   with the old epoch joins the previous transaction, docs/kafka-cases.md S16).
    ///
    /// On a Connect sink task (KIP-1302, scenario `connect-share-sink`):
    /// - `sink_commit_scope=staged`: the commit thread's commit covers only the batches
    ///   whose acknowledgements it staged; a batch polled during the commit waits for the
    ///   next transaction (else `txn_atomicity`: that batch, sent with the committing
    ///   transaction's epoch, joins it and commits while its acknowledgement goes into the
    ///   next transaction, which can abort).
    ///
    /// On a resumed session (scenario `session-resume`, docs/kafka-cases.md S17):
    /// - `resume=fence`: `resume` fences the incarnation that prepared the transaction with
    ///   InitProducerId(keepPreparedTxn=true) before completing it (else `single_writer` and
    ///   `external_agreement`: the unfenced zombie's `abortTransaction()` wins the race);
    /// - `decide_after_resume`: the coordinator application resumes (fences) the Kafka leg
    ///   before it decides, and decides abort when the prepared transaction is gone (else
    ///   `external_agreement`: the zombie aborts between the decision and the fence);
    /// - `session_send_check`: the producer on a session refuses `send()` outside
    ///   IN_TRANSACTION (else `single_writer`: a zombie's Produce with the prepared pair
    ///   joins the open transaction at a partition that has not seen the bumped epoch);
    /// - `recovery_retry`: a session of the coordinator application that went fatal
    ///   before the Kafka leg was done is replaced by a fresh one (else `txn_completes` and
    ///   `no_hanging_transaction` with `--set crashable=committer --set timeouts=1`: the
    ///   presumed abort's InitProducerId times out and nothing runs the recovery again);
    /// - `vote_timeout`: the coordinator application presumes abort when the writer's
    ///   committable does not come in time (else the same two: with `--set drops=1` the
    ///   hand-off is lost and the writer is gone; with `--set crashable=committer` the
    ///   hand-off died with the crash; on the setting above, a timed-out recovery's late
    ///   InitProducerId keeps the writer's unprepared transaction and fences the writer
    ///   before its hand-off). It subsumes `committer_recovery` and `writer_failover`,
    ///   earlier fixes for the last two, which stay off;
    /// - `writer_keep_prepared`: the writer initialises with `keepPreparedTxn=true` (else
    ///   `external_agreement` with `--set request_retries=1 --set timeouts=1`: a late retry
    ///   of the writer's InitProducerId aborts the transaction the application committed).
    pub fn proposed() -> Design {
        Design {
            name: "proposed".into(),
            stage_at_leader: true,
            stage_owner_check: StageOwnerCheck::Acquisition,
            leader_resolution: LeaderResolution::Notify,
            outcome_per_transaction: true,
            stage_leader_epoch: true,
            rebuild_pending: true,
            marker_match: crate::design::MarkerMatch::TxnEpoch,
            sc_replay_pending: true,
            sc_prune_lso: true,
            sc_state_epoch_fence: true,
            exclude_txn_records: true,
            stage_verification: true,
            two_phase_commit: true,
            acknowledger_commit: crate::design::kip939::AcknowledgerCommit::TwoPhase,
            session_commit_flush: true,
            epoch_handoff: crate::design::session_knobs::EpochHandoff::Atomic,
            sink_commit_scope: crate::design::sink_knobs::SinkCommitScope::Staged,
            resume: crate::design::session_knobs::ResumeMode::Fence,
            session_send_check: true,
            decide_after_resume: true,
            recovery_retry: true,
            vote_timeout: true,
            writer_keep_prepared: true,
            ..Design::seed()
        }
    }
}
