//! The KIP-1289 draft's `SharePartitionTxnStateTest` (core/src/test/java/kafka/server/share,
//! the draft PR apache/kafka#22357's test source): how the share-partition leader learns
//! the outcome of the acknowledgements it staged, by `refresh()` (re-read the persisted
//! state once the staging is durable). The model's `draft` design has that leader
//! resolution (`leader_resolution=refresh-guarded`); each case here drives its real
//! handlers: the staging from the client, the share coordinator's answers, the refresh timer
//! and the read.
//!
//! The draft's test calls `SharePartitionTxnState` directly with mocked batches; the model's
//! records are single offsets acquired by a ShareFetch, so each case first acquires them.
//! Each case runs under `leader_resolution=refresh-guarded` (the draft's class as of its
//! public revision); those where `refresh` answers otherwise (`docs/conformance.md`, DR-1
//! to DR-3) run under `refresh` too and pin its different answer.

use crate::common::{deliver, fire, sent, spl_state as spl, start, system};
use sharetxn_model::design::spl_knobs::LeaderResolution;
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::protocol::record_state::{AckType, RecordState::*};
use sharetxn_model::protocol::share_msg::*;
use sharetxn_model::protocol::share_state::{ShareState, StateBatch};
use sharetxn_model::protocol::txn_share_msg::*;
use sharetxn_model::protocol::width::Offset;
use sharetxn_model::share::share_partition::InFlightRecord;
use sharetxn_model::world::node::NodeState;
use sharetxn_model::{Scenario, System};
use stateright::actor::Id;

/// The first transaction's producer (the draft test's producer id 10) and another one's
/// (its producer id 20).
const TXN_A: ProducerIdAndEpoch = ProducerIdAndEpoch {
    pid: ProducerId(0),
    epoch: ProducerEpoch(1),
};
const TXN_B: ProducerIdAndEpoch = ProducerIdAndEpoch {
    pid: ProducerId(1),
    epoch: ProducerEpoch(2),
};

/// The `draft` design with its earlier leader resolution, `leader_resolution=refresh`, on
/// ctp with `records` records in the share partition.
fn draft(records: u8) -> System {
    let sys = system(
        Design::draft(),
        Scenario::ctp(),
        &[&format!("records={records}"), "leader_resolution=refresh"],
    );
    assert_eq!(sys.design.leader_resolution, LeaderResolution::Refresh);
    sys
}

/// The `draft` design (`leader_resolution=refresh-guarded`) on ctp.
fn guarded(records: u8) -> System {
    let sys = system(
        Design::draft(),
        Scenario::ctp(),
        &[&format!("records={records}")],
    );
    assert_eq!(
        sys.design.leader_resolution,
        LeaderResolution::RefreshGuarded
    );
    sys
}

/// Both resolutions, for the cases where they agree with the draft alike.
fn both(records: u8) -> [System; 2] {
    [draft(records), guarded(records)]
}

/// The leader, the share coordinator and the client (member 0).
fn ids(sys: &System) -> (Id, Id, Id) {
    let t = &sys.topology;
    (
        t.share_partition.expect("leader"),
        t.share_coordinator.expect("sc"),
        t.producers[0],
    )
}

fn record(state: &NodeState, offset: Offset) -> Option<&InFlightRecord> {
    spl(state).records.get(&offset)
}

fn state_of(
    state: &NodeState,
    offset: Offset,
) -> Option<sharetxn_model::protocol::record_state::RecordState> {
    record(state, offset).map(|r| r.state)
}

/// A loaded leader whose records are all ACQUIRED by member 0 at delivery 1 (the draft
/// test's `acquired(first, last)`).
fn acquired(sys: &System) -> NodeState {
    let (sp, sc, p0) = ids(sys);
    let (state, _) = start(sys, sp, None);
    let (state, _) = deliver(sys, sp, &state, sc, read_answer(ShareState::default()));
    let fetch = Msg::ShareFetch(ShareFetchRequest {
        member: MemberId(0),
        session_epoch: 0,
        max_records: 8,
        acks: Vec::new(),
    });
    let state = deliver(sys, sp, &state, p0, fetch).0;
    assert!(spl(&state).records.values().all(|r| r.state == Acquired));
    state
}

/// The share coordinator's answer to a read at leader epoch 1 with `persisted`.
fn read_answer(persisted: ShareState) -> Msg {
    Msg::ReadShareGroupStateResponse(ReadShareGroupStateResponse {
        leader_epoch: 1,
        error: ErrorCode::None,
        state: Some(ShareState {
            leader_epoch: 1,
            ..persisted
        }),
        pending: Vec::new(),
        refresh: false,
    })
}

/// The share coordinator's answer to a refresh's read: `persisted`, and for
/// `refresh-guarded` (which asks for them) the acknowledgements still pending, each
/// producer's offsets (the model's form of the draft's persisted TX_PENDING batches).
fn refreshed(
    sys: &System,
    persisted: ShareState,
    pending: &[(ProducerIdAndEpoch, &[Offset])],
) -> Msg {
    let guarded = sys.design.leader_resolution.flags_refresh_reads();
    let pending = pending
        .iter()
        .map(|&(producer, offsets)| PendingAcks {
            producer,
            tag: Ghost::new(TxnTag {
                client: 0,
                incarnation: 0,
                attempt: producer.pid.0,
            }),
            batches: offsets
                .iter()
                .map(|&offset| StateBatch {
                    offset,
                    state: Acknowledged,
                    delivery_count: 1,
                })
                .collect(),
            notify: None,
            state_epoch: 0,
            partition: 0,
        })
        .collect();
    Msg::ReadShareGroupStateResponse(ReadShareGroupStateResponse {
        leader_epoch: 1,
        error: ErrorCode::None,
        state: Some(ShareState {
            leader_epoch: 1,
            ..persisted
        }),
        pending: if guarded { pending } else { Vec::new() },
        refresh: guarded,
    })
}

/// A refresh's read failed (NOT_COORDINATOR, as in the draft's test; FENCED_LEADER_EPOCH
/// would tell the leader that another broker leads now, and fence it).
fn read_failed(sys: &System) -> Msg {
    Msg::ReadShareGroupStateResponse(ReadShareGroupStateResponse {
        leader_epoch: 1,
        error: ErrorCode::NotCoordinator,
        state: None,
        pending: Vec::new(),
        refresh: sys.design.leader_resolution.flags_refresh_reads(),
    })
}

/// Persisted state with start offset `start` and `batches` (offset, state), delivery 1.
fn persisted(
    start: Offset,
    batches: &[(Offset, sharetxn_model::protocol::record_state::RecordState)],
) -> ShareState {
    let mut s = ShareState::default();
    let batches: Vec<StateBatch> = batches
        .iter()
        .map(|&(offset, state)| StateBatch {
            offset,
            state,
            delivery_count: 1,
        })
        .collect();
    s.merge(start, &batches);
    s
}

/// Member 0's TxnShareAcknowledge of `offsets` (delivery 1) under `producer`
/// (`stageBatchTxnAcknowledge`), as the leader receives it.
fn stage(
    sys: &System,
    state: &NodeState,
    producer: ProducerIdAndEpoch,
    offsets: &[Offset],
    ack: AckType,
) -> NodeState {
    let (sp, _, p0) = ids(sys);
    let request = TxnShareAcknowledgeRequest {
        group: Default::default(),
        members: Vec::new(),
        txn: TransactionalId(0),
        producer,
        member: MemberId(0),
        acks: offsets
            .iter()
            .map(|&offset| Acknowledgement {
                offset,
                ack,
                tag: Ghost::new(DeliveryTag {
                    member: MemberId(0),
                    delivery_count: 1,
                }),
            })
            .collect(),
        tag: Ghost::new(TxnTag {
            client: 0,
            incarnation: 0,
            attempt: producer.pid.0,
        }),
        deliveries: offsets
            .iter()
            .map(|&offset| AcquiredRecord {
                offset,
                delivery_count: 1,
            })
            .collect(),
        notify: false,
        leader_epoch: None,
        state_epoch: None,
    };
    let (after, _) = deliver(sys, sp, state, p0, Msg::TxnShareAcknowledge(request));
    for offset in offsets {
        assert_eq!(state_of(&after, *offset), Some(TxPending));
    }
    after
}

/// The share coordinator answers `producer`'s staging with `error` (NONE: durable).
fn staging_answered(
    sys: &System,
    state: &NodeState,
    producer: ProducerIdAndEpoch,
    error: ErrorCode,
) -> NodeState {
    let (sp, sc, _) = ids(sys);
    let answer = Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
        group: Default::default(),
        producer,
        error,
        leader_epoch: None,
    });
    deliver(sys, sp, state, sc, answer).0
}

/// A staging of `offsets` by `producer`, made durable.
fn staged(
    sys: &System,
    state: &NodeState,
    producer: ProducerIdAndEpoch,
    offsets: &[Offset],
    ack: AckType,
) -> NodeState {
    let state = stage(sys, state, producer, offsets, ack);
    staging_answered(sys, &state, producer, ErrorCode::None)
}

/// The refresh timer fires: the state after and the reads it sent.
fn refresh(sys: &System, state: &NodeState) -> (NodeState, usize) {
    let (sp, sc, _) = ids(sys);
    let (after, cmds) = fire(sys, sp, state, Timer::TxnRefresh);
    let reads = sent(&cmds)
        .iter()
        .filter(|(dst, m)| *dst == sc && matches!(m, Msg::ReadShareGroupState(_)))
        .count();
    (after, reads)
}

/// The read's answer reaches the leader.
fn read_returns(sys: &System, state: &NodeState, msg: Msg) -> (NodeState, Vec<crate::common::Cmd>) {
    let (sp, sc, _) = ids(sys);
    deliver(sys, sp, state, sc, msg)
}

/// `testCommitPreservesOtherAcquisitionsAndTransactions`, the commit: a persisted
/// ACKNOWLEDGED commits the record staged for it, and a record acquired but not staged
/// stays ACQUIRED by its member.
#[test]
fn a_refreshed_commit_leaves_other_acquisitions_alone() {
    for sys in both(2) {
        let state = staged(&sys, &acquired(&sys), TXN_A, &[0], AckType::Accept);
        let (state, reads) = refresh(&sys, &state);
        assert_eq!(reads, 1);
        let answer = refreshed(&sys, persisted(0, &[(0, Acknowledged)]), &[]);
        let (state, _) = read_returns(&sys, &state, answer);
        assert_eq!(
            state_of(&state, 0),
            None,
            "ACKNOWLEDGED: the start offset moved past it"
        );
        let other = record(&state, 1).expect("offset 1");
        assert_eq!((other.state, other.member), (Acquired, Some(MemberId(0))));
    }
}

/// Another transaction's durable staging (TXN_B on offset 2) and transaction A's commit
/// of offset 0, refreshed: the state after the read's answer.
fn refresh_with_another_transaction(sys: &System) -> NodeState {
    let state = staged(sys, &acquired(sys), TXN_A, &[0], AckType::Accept);
    let state = staged(sys, &state, TXN_B, &[2], AckType::Accept);
    let (state, _) = refresh(sys, &state);
    let answer = refreshed(sys, persisted(0, &[(0, Acknowledged)]), &[(TXN_B, &[2])]);
    read_returns(sys, &state, answer).0
}

/// `testCommitPreservesOtherAcquisitionsAndTransactions`, the other transaction (DR-1): its
/// staging, durable and still pending at the share coordinator (the draft's persisted
/// TX_PENDING batch), stays TX_PENDING.
#[test]
fn a_refresh_leaves_another_transactions_durable_staging_pending() {
    let sys = guarded(3);
    let state = refresh_with_another_transaction(&sys);
    assert_eq!(state_of(&state, 0), None, "transaction A committed");
    assert_eq!(state_of(&state, 2), Some(TxPending));
}

/// DR-1 under `refresh`: its read does not ask for the pending acknowledgements and takes
/// every record not persisted terminal for aborted, so it releases the other
/// transaction's record (docs/kafka-cases.md S10).
#[test]
fn under_refresh_another_transactions_durable_staging_is_released() {
    let sys = draft(3);
    let state = refresh_with_another_transaction(&sys);
    assert_eq!(state_of(&state, 2), Some(Available));
}

/// `testSynchronousStageFailureReleasesRefreshGuard`: a failed staging rolls the record back
/// to ACQUIRED, and a later durable staging of it is refreshed with one read.
#[test]
fn a_failed_staging_rolls_back_and_a_later_one_is_refreshed() {
    for sys in both(1) {
        let state = stage(&sys, &acquired(&sys), TXN_A, &[0], AckType::Accept);
        let state = staging_answered(&sys, &state, TXN_A, ErrorCode::InvalidProducerEpoch);
        assert_eq!(state_of(&state, 0), Some(Acquired));
        let state = staged(&sys, &state, TXN_B, &[0], AckType::Accept);
        let (state, reads) = refresh(&sys, &state);
        assert_eq!(reads, 1);
        let answer = refreshed(&sys, persisted(0, &[(0, Acknowledged)]), &[]);
        let (state, _) = read_returns(&sys, &state, answer);
        assert_eq!(state_of(&state, 0), None, "committed");
    }
}

/// `testResolvedDispositionDoesNotFollowLaterStateMutations`: an abort found by the refresh
/// persists the release it decided (AVAILABLE at delivery 1), even once the record is
/// acquired again before that write returns.
#[test]
fn an_abort_persists_the_release_it_decided() {
    for sys in both(1) {
        let (sp, _, p0) = ids(&sys);
        let state = staged(&sys, &acquired(&sys), TXN_A, &[0], AckType::Accept);
        let (state, _) = refresh(&sys, &state);
        let answer = refreshed(&sys, persisted(0, &[(0, Available)]), &[]);
        let (state, _) = read_returns(&sys, &state, answer);
        let fetch = Msg::ShareFetch(ShareFetchRequest {
            member: MemberId(0),
            session_epoch: 1,
            max_records: 1,
            acks: Vec::new(),
        });
        let (state, _) = deliver(&sys, sp, &state, p0, fetch);
        assert_eq!(state_of(&state, 0), Some(Acquired));
        let release = StateBatch {
            offset: 0,
            state: Available,
            delivery_count: 1,
        };
        assert!(spl(&state)
            .writes
            .values()
            .any(|w| w.request.batches == vec![release]));
    }
}

/// `testAbortAllowsRedelivery`: a persisted AVAILABLE is an abort: the record is AVAILABLE
/// with no staged producer, and is delivered again.
#[test]
fn an_abort_found_by_refresh_allows_redelivery() {
    for sys in both(1) {
        let (sp, _, p0) = ids(&sys);
        let state = staged(&sys, &acquired(&sys), TXN_A, &[0], AckType::Accept);
        let (state, _) = refresh(&sys, &state);
        let answer = refreshed(&sys, persisted(0, &[(0, Available)]), &[]);
        let (state, _) = read_returns(&sys, &state, answer);
        let r = record(&state, 0).expect("offset 0");
        assert_eq!((r.state, r.staged.is_none()), (Available, true));
        let fetch = Msg::ShareFetch(ShareFetchRequest {
            member: MemberId(0),
            session_epoch: 1,
            max_records: 1,
            acks: Vec::new(),
        });
        let (state, _) = deliver(&sys, sp, &state, p0, fetch);
        let r = record(&state, 0).expect("offset 0");
        assert_eq!((r.state, r.delivery_count), (Acquired, 2));
    }
}

/// `testRefreshDoesNotReadUnpersistedStaging`: while the staging is unanswered the refresh
/// reads nothing; once it is durable the refresh reads and a persisted ACKNOWLEDGED commits.
#[test]
fn a_refresh_does_not_read_while_the_staging_is_unanswered() {
    for sys in both(1) {
        let state = stage(&sys, &acquired(&sys), TXN_A, &[0], AckType::Accept);
        let (state, reads) = refresh(&sys, &state);
        assert_eq!(reads, 0);
        let state = staging_answered(&sys, &state, TXN_A, ErrorCode::None);
        let (state, reads) = refresh(&sys, &state);
        assert_eq!(reads, 1);
        let answer = refreshed(&sys, persisted(0, &[(0, Acknowledged)]), &[]);
        let (state, _) = read_returns(&sys, &state, answer);
        assert_eq!(state_of(&state, 0), None, "committed");
    }
}

/// The draft's `refresh()` guard in full (`stagingWrites != 0`: no read at all), with a
/// durable staging beside an unanswered one: `refresh-guarded` reads nothing; `refresh`
/// reads, and leaves only the unanswered one alone.
#[test]
fn a_refresh_does_not_read_while_another_staging_is_unanswered() {
    for (sys, expected) in both(2).into_iter().zip([1, 0]) {
        let state = staged(&sys, &acquired(&sys), TXN_A, &[0], AckType::Accept);
        let state = stage(&sys, &state, TXN_B, &[1], AckType::Accept);
        let (_, reads) = refresh(&sys, &state);
        assert_eq!(reads, expected, "{:?}", sys.design.leader_resolution);
    }
}

/// `testDelayedReadCannotResolveNewTransaction`, in the form the model reaches: a staging
/// still unanswered when a read returns is left alone by it. (The draft test restages the
/// same record under a new epoch while the read is out; in the model a durable TX_PENDING
/// record leaves that state only by its outcome, so the same record cannot be restaged.)
#[test]
fn a_read_leaves_a_staging_that_is_not_durable_alone() {
    for sys in both(2) {
        let state = staged(&sys, &acquired(&sys), TXN_A, &[0], AckType::Accept);
        let (state, _) = refresh(&sys, &state);
        let state = stage(&sys, &state, TXN_B, &[1], AckType::Accept);
        let answer = refreshed(&sys, persisted(0, &[(0, Available)]), &[]);
        let (state, _) = read_returns(&sys, &state, answer);
        assert_eq!(
            state_of(&state, 0),
            Some(Available),
            "transaction A aborted"
        );
        let r = record(&state, 1).expect("offset 1");
        assert_eq!(r.state, TxPending);
        assert_eq!(r.staged.as_ref().map(|s| s.producer), Some(TXN_B));
    }
}

/// A staging made durable (TXN_B on offset 1) while a read sent for transaction A's is out,
/// the read answered as the share coordinator saw it before that staging: the state after.
fn delayed_read(sys: &System) -> NodeState {
    let state = staged(sys, &acquired(sys), TXN_A, &[0], AckType::Accept);
    let (state, _) = refresh(sys, &state);
    let state = staged(sys, &state, TXN_B, &[1], AckType::Accept);
    let answer = refreshed(sys, persisted(0, &[(0, Available)]), &[]);
    read_returns(sys, &state, answer).0
}

/// `testDelayedReadCannotResolveNewTransaction`, durable (DR-2): a staging made durable
/// after the read was sent is not in the draft's snapshot of pending records
/// (`pendingRecords()`), so that read cannot resolve it.
#[test]
fn a_delayed_read_cannot_resolve_a_newer_durable_staging() {
    let sys = guarded(2);
    let state = delayed_read(&sys);
    assert_eq!(
        state_of(&state, 0),
        Some(Available),
        "transaction A aborted"
    );
    assert_eq!(state_of(&state, 1), Some(TxPending));
}

/// DR-2 under `refresh`: it takes its pending records when the answer arrives, and releases
/// the newer staging on a read that predates it.
#[test]
fn under_refresh_a_delayed_read_releases_a_newer_durable_staging() {
    let sys = draft(2);
    let state = delayed_read(&sys);
    assert_eq!(state_of(&state, 1), Some(Available));
}

/// `testConcurrentRefreshSharesReadAndFailedReadCanRetry`, the shared read: a refresh while
/// one read is out sends no second one, and a failed read leaves the record TX_PENDING.
#[test]
fn concurrent_refreshes_share_one_read() {
    for sys in both(1) {
        let state = staged(&sys, &acquired(&sys), TXN_A, &[0], AckType::Accept);
        let (state, first) = refresh(&sys, &state);
        let (state, second) = refresh(&sys, &state);
        assert_eq!((first, second), (1, 0));
        let (state, _) = read_returns(&sys, &state, read_failed(&sys));
        assert_eq!(state_of(&state, 0), Some(TxPending));
    }
}

/// A durable staging whose refresh's read failed; the reads a later refresh sends.
fn refresh_after_a_failed_read(sys: &System) -> usize {
    let state = staged(sys, &acquired(sys), TXN_A, &[0], AckType::Accept);
    let (state, _) = refresh(sys, &state);
    let (state, _) = read_returns(sys, &state, read_failed(sys));
    refresh(sys, &state).1
}

/// `testConcurrentRefreshSharesReadAndFailedReadCanRetry`, the retry (DR-3): after a failed
/// read a later refresh reads again.
#[test]
fn a_failed_read_can_be_retried() {
    assert_eq!(refresh_after_a_failed_read(&guarded(1)), 1);
}

/// DR-3 under `refresh`: the leader keeps its read marked in flight after an answer without
/// state, so it never reads again until it restarts.
#[test]
fn under_refresh_a_failed_read_is_never_retried() {
    assert_eq!(refresh_after_a_failed_read(&draft(1)), 0);
}

/// `testFencedPartitionDoesNotApplyRead`: an answer for an earlier leader epoch (the leader
/// was fenced: it is no longer this incarnation's) is not applied; the record stays
/// TX_PENDING.
#[test]
fn a_fenced_leader_does_not_apply_the_read() {
    for sys in both(1) {
        let state = staged(&sys, &acquired(&sys), TXN_A, &[0], AckType::Accept);
        let (state, _) = refresh(&sys, &state);
        let stale = Msg::ReadShareGroupStateResponse(ReadShareGroupStateResponse {
            leader_epoch: 0,
            error: ErrorCode::None,
            state: Some(persisted(0, &[(0, Acknowledged)])),
            pending: Vec::new(),
            refresh: sys.design.leader_resolution.flags_refresh_reads(),
        });
        let (state, _) = read_returns(&sys, &state, stale);
        assert_eq!(state_of(&state, 0), Some(TxPending));
    }
}

/// `refresh-guarded`: a late answer to a load's resent read (the load's
/// `ReadStateTimeout`), which predates the staging, is not taken for the refresh's answer.
#[test]
fn a_late_answer_to_the_loads_read_is_not_the_refreshs() {
    let sys = guarded(1);
    let state = staged(&sys, &acquired(&sys), TXN_A, &[0], AckType::Accept);
    let (state, _) = refresh(&sys, &state);
    let (state, _) = read_returns(&sys, &state, read_answer(ShareState::default()));
    assert_eq!(state_of(&state, 0), Some(TxPending));
}

/// The record staged REJECT below the persisted start offset (offset 0), another
/// transaction's on offset 1 still pending at the share coordinator, offset 2 acquired:
/// the state after the read's answer.
fn refresh_with_a_pruned_batch(sys: &System) -> NodeState {
    let state = staged(sys, &acquired(sys), TXN_A, &[0], AckType::Reject);
    let state = staged(sys, &state, TXN_B, &[1], AckType::Accept);
    let (state, _) = refresh(sys, &state);
    let answer = refreshed(sys, persisted(1, &[]), &[(TXN_B, &[1])]);
    read_returns(sys, &state, answer).0
}

/// `testPerOffsetStateAndPrunedTerminalBatch`: a record below the persisted start offset is
/// resolved as its staged acknowledgement's commit (REJECT: ARCHIVED), the TX_PENDING one
/// stays TX_PENDING (DR-1), and an acquired record stays ACQUIRED.
#[test]
fn a_record_below_the_persisted_start_offset_is_committed() {
    let sys = guarded(3);
    let state = refresh_with_a_pruned_batch(&sys);
    assert_eq!(
        state_of(&state, 0),
        None,
        "ARCHIVED: the start offset moved past it"
    );
    assert!(spl(&state).start_offset >= 1);
    assert_eq!(state_of(&state, 1), Some(TxPending));
    assert_eq!(state_of(&state, 2), Some(Acquired));
}

/// `testPerOffsetStateAndPrunedTerminalBatch` under `refresh`: the pruned and the acquired
/// record agree; the TX_PENDING one is released (DR-1).
#[test]
fn under_refresh_a_pruned_batch_releases_the_pending_offset() {
    let sys = draft(3);
    let state = refresh_with_a_pruned_batch(&sys);
    assert_eq!(state_of(&state, 0), None, "ARCHIVED");
    assert_eq!(state_of(&state, 1), Some(Available));
    assert_eq!(state_of(&state, 2), Some(Acquired));
}

/// The refresh's read as the leader sends it (leader epoch 1).
fn refresh_read(sys: &System) -> Msg {
    let guarded = sys.design.leader_resolution.flags_refresh_reads();
    Msg::ReadShareGroupState(ReadShareGroupStateRequest {
        leader_epoch: 1,
        pending: guarded,
        partition: 0,
        refresh: guarded,
    })
}

/// A durable staging of offset 0 and its refresh's read in flight, on `draft` with
/// `read_retries` resends of a read (`unguarded`: under `leader_resolution=refresh`).
fn refresh_in_flight(read_retries: u8, unguarded: bool) -> (System, NodeState) {
    let retries = format!("read_retries={read_retries}");
    let mut settings = vec!["records=1", retries.as_str()];
    if unguarded {
        settings.push("leader_resolution=refresh");
    }
    let sys = system(Design::draft(), Scenario::ctp(), &settings);
    let state = staged(&sys, &acquired(&sys), TXN_A, &[0], AckType::Accept);
    let (state, reads) = refresh(&sys, &state);
    assert_eq!(reads, 1);
    (sys, state)
}

/// `PersisterStateManager.ReadStateHandler`: a refresh's read unanswered at its request
/// timeout (REQUEST_TIMED_OUT, retriable) is sent again, with a new timeout, while it has
/// attempts left.
#[test]
fn an_unanswered_refresh_read_is_sent_again() {
    use stateright::actor::Command;
    let (sys, state) = refresh_in_flight(1, false);
    let (sp, sc, _) = ids(&sys);
    let (after, cmds) = fire(&sys, sp, &state, Timer::ReadStateTimeout);
    let read = refresh_read(&sys);
    assert!(matches!(
        cmds.as_slice(),
        [Command::Send(dst, m), Command::SetTimer(Timer::ReadStateTimeout, _)]
            if *dst == sc && *m == read
    ));
    assert!(spl(&after).refreshing);
    assert_eq!(spl(&after).refresh_retries, 0);
}

/// Its attempts spent, the read fails (`ReadStateHandler` completes its future with the
/// error): under `refresh-guarded` `completeRefresh` clears the refresh and a later one
/// reads again, so a lost read no longer leaves the record TX_PENDING for good.
#[test]
fn a_refresh_read_out_of_attempts_fails_and_a_later_refresh_reads_again() {
    use stateright::actor::Command;
    let (sys, state) = refresh_in_flight(0, false);
    let (sp, _, _) = ids(&sys);
    let (after, cmds) = fire(&sys, sp, &state, Timer::ReadStateTimeout);
    assert!(matches!(
        cmds.as_slice(),
        [Command::SetTimer(Timer::TxnRefresh, _)]
    ));
    assert!(!spl(&after).refreshing && spl(&after).refresh_pending.is_empty());
    assert_eq!(state_of(&after, 0), Some(TxPending));
    assert_eq!(refresh(&sys, &after).1, 1);
}

/// DR-3 under `refresh`: a read out of attempts fails like an answer without state, and
/// the read stays marked in flight.
#[test]
fn under_refresh_a_read_out_of_attempts_is_never_retried() {
    let (sys, state) = refresh_in_flight(0, true);
    let (sp, _, _) = ids(&sys);
    let (after, cmds) = fire(&sys, sp, &state, Timer::ReadStateTimeout);
    assert!(cmds.is_empty());
    assert!(spl(&after).refreshing);
    assert_eq!(refresh(&sys, &after).1, 0);
}

/// The refresh's answer ends its request timeout.
#[test]
fn the_refresh_answer_cancels_its_timeout() {
    use stateright::actor::Command;
    let (sys, state) = refresh_in_flight(1, false);
    let answer = refreshed(&sys, persisted(0, &[(0, Acknowledged)]), &[]);
    let (after, cmds) = read_returns(&sys, &state, answer);
    assert!(cmds
        .iter()
        .any(|c| matches!(c, Command::CancelTimer(Timer::ReadStateTimeout))));
    assert!(!spl(&after).refreshing);
    // Committed: ACKNOWLEDGED, and the start offset moved over it.
    assert_eq!((state_of(&after, 0), spl(&after).start_offset), (None, 1));
}
