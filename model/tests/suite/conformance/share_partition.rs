//! `SharePartitionTest` (core/src/test/java/kafka/server/share, apache/kafka `1eb7644349cb`):
//! the record-state table, acquisition, acknowledgement, release, the acquisition lock and
//! the delivery count limit at the share-partition leader. The model's ShareFetch hands out
//! one record at a time (`max_records=1` in share-basic), and every acknowledgement is
//! answered after its WriteShareGroupState returns, so each test completes that write.

pub(crate) use crate::common::spl_state as spl;
use crate::common::{deliver, fire, start, system};
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::MemberId;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::protocol::record_state::{AckType, RecordState::*};
use sharetxn_model::protocol::share_msg::*;
use sharetxn_model::protocol::share_state::{ShareState, StateBatch};
use sharetxn_model::protocol::width::Offset;
use sharetxn_model::share::share_partition::InFlightRecord;
use sharetxn_model::world::node::NodeState;
use sharetxn_model::{Scenario, System};
use stateright::actor::{Command, Id};

/// share-basic with `group.share.delivery.count.limit` at `delivery_limit`.
pub(crate) fn with_delivery_limit(delivery_limit: u8) -> System {
    system(
        Design::consumer_offsets(),
        Scenario::share_basic(),
        &[&format!("delivery_limit={delivery_limit}")],
    )
}

/// The leader, the share coordinator and the two members.
pub(crate) fn ids(sys: &System) -> (Id, Id, Id, Id) {
    let t = &sys.topology;
    let (sp, sc) = (
        t.share_partition.expect("leader"),
        t.share_coordinator.expect("sc"),
    );
    (sp, sc, t.consumers[0], t.consumers[1])
}

pub(crate) fn record(state: &NodeState, offset: Offset) -> &InFlightRecord {
    &spl(state).records[&offset]
}

/// A leader loaded from `persisted` (`maybeInitialize` on a ReadShareGroupState answer).
pub(crate) fn loaded(sys: &System, persisted: ShareState) -> NodeState {
    let (sp, sc, _, _) = ids(sys);
    let (state, _) = start(sys, sp, None);
    let answer = Msg::ReadShareGroupStateResponse(ReadShareGroupStateResponse {
        leader_epoch: 1,
        error: ErrorCode::None,
        state: Some(ShareState {
            leader_epoch: 1,
            ..persisted
        }),
        pending: Vec::new(),
        refresh: false,
    });
    deliver(sys, sp, &state, sc, answer).0
}

/// A ShareFetch of member `m` (consumer `m`) at session epoch `epoch`: the state after and
/// the records it acquired.
pub(crate) fn fetch(
    sys: &System,
    state: &NodeState,
    m: u8,
    epoch: u32,
) -> (NodeState, Vec<AcquiredRecord>) {
    fetch_up_to(sys, state, m, epoch, 1)
}

/// [`fetch`] of up to `max_records` records.
pub(crate) fn fetch_up_to(
    sys: &System,
    state: &NodeState,
    m: u8,
    epoch: u32,
    max_records: u8,
) -> (NodeState, Vec<AcquiredRecord>) {
    let (after, cmds) = fetch_request(sys, state, m, epoch, max_records);
    let consumer = sys.topology.consumers[usize::from(m)];
    let acquired = cmds
        .iter()
        .find_map(|c| match c {
            Command::Send(dst, Msg::ShareFetchResponse(r)) if *dst == consumer => {
                Some(r.acquired.clone())
            }
            _ => None,
        })
        .unwrap_or_default();
    (after, acquired)
}

/// Delivers member `m`'s ShareFetch of up to `max_records`: the state after and the commands.
pub(crate) fn fetch_request(
    sys: &System,
    state: &NodeState,
    m: u8,
    epoch: u32,
    max_records: u8,
) -> (NodeState, Vec<crate::common::Cmd>) {
    let (sp, ..) = ids(sys);
    let consumer = sys.topology.consumers[usize::from(m)];
    let request = Msg::ShareFetch(ShareFetchRequest {
        member: MemberId(m),
        session_epoch: epoch,
        max_records,
        acks: Vec::new(),
    });
    deliver(sys, sp, state, consumer, request)
}

/// A ShareAcknowledge of member `m` for `offset` (made for delivery `count`), and the write
/// it causes answered NONE: the state after and the answer's error.
pub(crate) fn acknowledge(
    sys: &System,
    state: &NodeState,
    m: u8,
    epoch: u32,
    ack: (Offset, u8, AckType),
) -> (NodeState, ErrorCode) {
    let acked = acknowledge_all(sys, state, m, epoch, &[ack], ErrorCode::None);
    (acked.state, acked.error)
}

/// What one ShareAcknowledge did: the state after, its answer's error, and the writes it
/// sent the share coordinator.
pub(crate) struct Acked {
    /// The leader's state after.
    pub state: NodeState,
    /// The error the acknowledgement was answered with.
    pub error: ErrorCode,
    /// The writes the acknowledgement sent.
    pub writes: Vec<WriteShareGroupStateRequest>,
    /// The commands of the last step (the write's answer, or the request when nothing was
    /// written).
    pub cmds: Vec<crate::common::Cmd>,
}

/// A ShareAcknowledge of member `m` with `acks` (offset, delivery, type); the write it
/// causes is answered `write_error`.
pub(crate) fn acknowledge_all(
    sys: &System,
    state: &NodeState,
    m: u8,
    epoch: u32,
    acks: &[(Offset, u8, AckType)],
    write_error: ErrorCode,
) -> Acked {
    let (sp, sc, ..) = ids(sys);
    let consumer = sys.topology.consumers[usize::from(m)];
    let request = Msg::ShareAcknowledge(ShareAcknowledgeRequest {
        member: MemberId(m),
        session_epoch: epoch,
        acks: acks
            .iter()
            .map(|&(offset, count, ack)| Acknowledgement {
                offset,
                ack,
                tag: Ghost::new(DeliveryTag {
                    member: MemberId(m),
                    delivery_count: count,
                }),
            })
            .collect(),
    });
    let (mut state, mut cmds) = deliver(sys, sp, state, consumer, request);
    let writes: Vec<WriteShareGroupStateRequest> = cmds
        .iter()
        .filter_map(|c| match c {
            Command::Send(dst, Msg::WriteShareGroupState(w)) if *dst == sc => Some(w.clone()),
            _ => None,
        })
        .collect();
    if let Some(w) = writes.first() {
        let done = Msg::WriteShareGroupStateResponse(WriteShareGroupStateResponse {
            leader_epoch: w.leader_epoch,
            write: w.write,
            error: write_error,
        });
        (state, cmds) = deliver(sys, sp, &state, sc, done);
    }
    let error = cmds
        .iter()
        .find_map(|c| match c {
            Command::Send(dst, Msg::ShareAcknowledgeResponse(r)) if *dst == consumer => {
                Some(r.error)
            }
            _ => None,
        })
        .expect("an answer to the acknowledgement");
    Acked {
        state,
        error,
        writes,
        cmds,
    }
}

/// The acquisition lock of `offset` expires, and the write it causes is answered NONE.
pub(crate) fn lock_expires(sys: &System, state: &NodeState, offset: Offset) -> NodeState {
    let (sp, sc, ..) = ids(sys);
    let (state, cmds) = fire(sys, sp, state, Timer::AcquisitionLock(offset));
    let write = cmds.into_iter().find_map(|c| match c {
        Command::Send(dst, Msg::WriteShareGroupState(w)) if dst == sc => Some(w),
        _ => None,
    });
    match write {
        Some(w) => {
            let done = Msg::WriteShareGroupStateResponse(WriteShareGroupStateResponse {
                leader_epoch: w.leader_epoch,
                write: w.write,
                error: ErrorCode::None,
            });
            deliver(sys, sp, &state, sc, done).0
        }
        None => state,
    }
}

/// `testRecordStateValidateTransition`: AVAILABLE -> ACQUIRED; ACQUIRED -> AVAILABLE,
/// ACKNOWLEDGED or ARCHIVED; nothing out of ACKNOWLEDGED or ARCHIVED; no state to itself.
#[test]
fn record_state_validate_transition() {
    let all = [Available, Acquired, Acknowledged, Archived];
    let legal = [
        (Available, Acquired),
        (Acquired, Available),
        (Acquired, Acknowledged),
        (Acquired, Archived),
    ];
    for from in all {
        for to in all {
            assert_eq!(
                to.can_follow(from),
                legal.contains(&(from, to)),
                "{from:?} -> {to:?}"
            );
        }
    }
}

/// `testRecordStateForId`: AVAILABLE 0, ACQUIRED 1, ACKNOWLEDGED 2, ARCHIVED 4.
#[test]
fn record_state_for_id() {
    let ids: Vec<u8> = [Available, Acquired, Acknowledged, Archived]
        .iter()
        .map(|s| s.id())
        .collect();
    assert_eq!(ids, vec![0, 1, 2, 4]);
}

/// `testMaybeInitialize`: the leader takes the start offset and the persisted records
/// (AVAILABLE with their delivery counts, terminal ones as they are) from its read.
#[test]
fn maybe_initialize_takes_the_persisted_state() {
    let sys = with_delivery_limit(5);
    let mut persisted = ShareState::default();
    let batch = |offset, state, delivery_count| StateBatch {
        offset,
        state,
        delivery_count,
    };
    persisted.merge(
        0,
        &[
            batch(0, Available, 2),
            batch(1, Acknowledged, 1),
            batch(2, Archived, 5),
        ],
    );
    let state = loaded(&sys, persisted);
    assert!(spl(&state).loaded);
    assert_eq!(spl(&state).start_offset, 0);
    assert_eq!(
        (record(&state, 0).state, record(&state, 0).delivery_count),
        (Available, 2)
    );
    let (state, acquired) = fetch(&sys, &state, 0, 0);
    assert_eq!(
        acquired,
        vec![AcquiredRecord {
            offset: 0,
            delivery_count: 3
        }],
        "the next delivery counts on from the persisted one"
    );
    assert_eq!(record(&state, 0).state, Acquired);
}

/// `testAcquireSingleRecord`: ACQUIRED by the member, delivery count 1, lock armed.
#[test]
fn acquire_single_record() {
    let sys = with_delivery_limit(5);
    let (state, acquired) = fetch(&sys, &loaded(&sys, ShareState::default()), 0, 0);
    assert_eq!(
        acquired,
        vec![AcquiredRecord {
            offset: 0,
            delivery_count: 1
        }]
    );
    let r = record(&state, 0);
    assert_eq!(
        (r.state, r.delivery_count, r.member),
        (Acquired, 1, Some(MemberId(0)))
    );
}

/// `testAcknowledgeSingleRecordBatch` and `testMaybeUpdateCachedStateWhenAcknowledgementTypeAccept`:
/// ACCEPT makes the record ACKNOWLEDGED and the start offset moves past it.
#[test]
fn acknowledge_single_record_accept() {
    let sys = with_delivery_limit(5);
    let (state, _) = fetch(&sys, &loaded(&sys, ShareState::default()), 0, 0);
    let (state, error) = acknowledge(&sys, &state, 0, 1, (0, 1, AckType::Accept));
    assert_eq!(error, ErrorCode::None);
    assert_eq!(spl(&state).start_offset, 1);
}

/// `testMaybeUpdateCachedStateWhenAcknowledgementTypeReject`: REJECT archives the record.
#[test]
fn acknowledge_reject_archives() {
    let sys = with_delivery_limit(5);
    let (state, _) = fetch(&sys, &loaded(&sys, ShareState::default()), 0, 0);
    let (state, error) = acknowledge(&sys, &state, 0, 1, (0, 1, AckType::Reject));
    assert_eq!(error, ErrorCode::None);
    assert_eq!(
        spl(&state).start_offset,
        1,
        "an archived record is terminal too"
    );
}

/// `testMaybeUpdateCachedStateWhenAcknowledgementTypeRelease` and `testAcquireReleasedRecord`:
/// RELEASE makes the record AVAILABLE with its delivery count kept; the next acquisition is
/// delivery 2.
#[test]
fn released_record_is_acquired_again_with_the_next_delivery_count() {
    let sys = with_delivery_limit(5);
    let (state, _) = fetch(&sys, &loaded(&sys, ShareState::default()), 0, 0);
    let (state, error) = acknowledge(&sys, &state, 0, 1, (0, 1, AckType::Release));
    assert_eq!(error, ErrorCode::None);
    let r = record(&state, 0);
    assert_eq!((r.state, r.delivery_count, r.member), (Available, 1, None));
    let (state, acquired) = fetch(&sys, &state, 1, 0);
    assert_eq!(acquired[0].delivery_count, 2);
    assert_eq!(record(&state, 0).member, Some(MemberId(1)));
}

/// `testMaxDeliveryCountLimitExceededForRecordBatch`: a release at the delivery count limit
/// archives the record.
#[test]
fn release_at_the_delivery_limit_archives() {
    let sys = with_delivery_limit(2);
    let (state, _) = fetch(&sys, &loaded(&sys, ShareState::default()), 0, 0);
    let (state, _) = acknowledge(&sys, &state, 0, 1, (0, 1, AckType::Release));
    let (state, _) = fetch(&sys, &state, 0, 2);
    let (state, error) = acknowledge(&sys, &state, 0, 3, (0, 2, AckType::Release));
    assert_eq!(error, ErrorCode::None);
    assert_eq!(spl(&state).start_offset, 1, "archived at delivery 2 of 2");
}

/// `testAcknowledgeWithAnotherMember`: INVALID_RECORD_STATE, and the record stays the
/// acquiring member's.
#[test]
fn acknowledge_with_another_member_is_invalid_record_state() {
    let sys = with_delivery_limit(5);
    let (state, _) = fetch(&sys, &loaded(&sys, ShareState::default()), 0, 0);
    let (state, _) = fetch(&sys, &state, 1, 0);
    let (state, error) = acknowledge(&sys, &state, 1, 1, (0, 1, AckType::Accept));
    assert_eq!(error, ErrorCode::InvalidRecordState);
    let r = record(&state, 0);
    assert_eq!((r.state, r.member), (Acquired, Some(MemberId(0))));
}

/// `testAcknowledgeWhenOffsetNotAcquired`: an acknowledgement of an AVAILABLE record is
/// INVALID_RECORD_STATE.
#[test]
fn acknowledge_when_offset_not_acquired_is_invalid_record_state() {
    let sys = with_delivery_limit(5);
    let (state, _) = fetch(&sys, &loaded(&sys, ShareState::default()), 0, 0);
    let (state, _) = acknowledge(&sys, &state, 0, 1, (0, 1, AckType::Release));
    let (_, error) = acknowledge(&sys, &state, 0, 2, (0, 1, AckType::Accept));
    assert_eq!(error, ErrorCode::InvalidRecordState);
}

/// `testAcquisitionLockForAcquiringSingleRecord` (the lock's expiry releases the record)
/// and `testAcknowledgeAfterAcquisitionLockTimeout` (a later ACCEPT is INVALID_RECORD_STATE).
#[test]
fn acknowledge_after_the_acquisition_lock_timed_out_is_invalid_record_state() {
    let sys = with_delivery_limit(5);
    let (state, _) = fetch(&sys, &loaded(&sys, ShareState::default()), 0, 0);
    let state = lock_expires(&sys, &state, 0);
    let r = record(&state, 0);
    assert_eq!((r.state, r.delivery_count, r.member), (Available, 1, None));
    let (_, error) = acknowledge(&sys, &state, 0, 1, (0, 1, AckType::Accept));
    assert_eq!(error, ErrorCode::InvalidRecordState);
}

/// `testAcquisitionLockTimeoutCauseMaxDeliveryCountExceed`: a lock expiring at the delivery
/// count limit archives the record.
#[test]
fn lock_timeout_at_the_delivery_limit_archives() {
    let sys = with_delivery_limit(2);
    let (state, _) = fetch(&sys, &loaded(&sys, ShareState::default()), 0, 0);
    let state = lock_expires(&sys, &state, 0);
    let (state, acquired) = fetch(&sys, &state, 0, 1);
    assert_eq!(acquired[0].delivery_count, 2);
    let state = lock_expires(&sys, &state, 0);
    assert_eq!(spl(&state).start_offset, 1, "archived at delivery 2 of 2");
}

/// share-basic with `records` records and delivery limit 5.
fn with_records(records: u8) -> System {
    system(
        Design::consumer_offsets(),
        Scenario::share_basic(),
        &["delivery_limit=5", &format!("records={records}")],
    )
}

/// `testMaybeInitializeWithEmptyStateBatches`: a read with no batches leaves every record
/// AVAILABLE with no deliveries, from start offset 0.
#[test]
fn maybe_initialize_without_batches_makes_every_record_available() {
    let sys = with_records(2);
    let state = loaded(&sys, ShareState::default());
    assert_eq!(spl(&state).start_offset, 0);
    for offset in 0..2 {
        let r = record(&state, offset);
        assert_eq!((r.state, r.delivery_count, r.member), (Available, 0, None));
    }
}

/// `testMaybeInitializeSharePartitionAgain`: a second read answer once loaded changes
/// nothing.
#[test]
fn a_second_read_answer_after_the_load_changes_nothing() {
    let sys = with_records(2);
    let (sp, sc, ..) = ids(&sys);
    let (state, _) = fetch(&sys, &loaded(&sys, ShareState::default()), 0, 0);
    let mut persisted = ShareState {
        leader_epoch: 1,
        ..ShareState::default()
    };
    persisted.merge(1, &[]);
    let again = Msg::ReadShareGroupStateResponse(ReadShareGroupStateResponse {
        leader_epoch: 1,
        error: ErrorCode::None,
        state: Some(persisted),
        pending: Vec::new(),
        refresh: false,
    });
    let (after, cmds) = deliver(&sys, sp, &state, sc, again);
    assert!(cmds.is_empty(), "{cmds:?}");
    assert_eq!(after, state);
}

/// `testMaybeInitializeWithErrorPartitionResponse`: a read answered with an error loads
/// nothing; requests keep waiting for the load (Kafka fails them and initialises again on
/// the next; the model holds them) and the read is sent again when its timer fires.
#[test]
fn a_read_answered_with_an_error_loads_nothing_and_is_sent_again() {
    let sys = with_records(2);
    let (sp, sc, c0, _) = ids(&sys);
    let (state, _) = start(&sys, sp, None);
    let failed = Msg::ReadShareGroupStateResponse(ReadShareGroupStateResponse {
        leader_epoch: 1,
        error: ErrorCode::NotCoordinator,
        state: None,
        pending: Vec::new(),
        refresh: false,
    });
    let (state, _) = deliver(&sys, sp, &state, sc, failed);
    assert!(!spl(&state).loaded);
    let (state, cmds) = fetch_request(&sys, &state, 0, 0, 1);
    assert!(
        crate::common::sent_to(&cmds, c0).is_empty(),
        "the fetch waits for the load"
    );
    let (_, cmds) = fire(&sys, sp, &state, Timer::ReadStateTimeout);
    assert!(crate::common::sent_to(&cmds, sc)
        .iter()
        .any(|m| matches!(m, Msg::ReadShareGroupState(_))));
}

/// `testMaybeInitializeWhenReadStateRpcReturnsZeroAvailableRecords`: every record is below
/// the persisted start offset, so none is in flight and a fetch acquires nothing.
#[test]
fn maybe_initialize_past_every_record_has_nothing_to_acquire() {
    let sys = with_records(2);
    let mut persisted = ShareState::default();
    persisted.merge(2, &[]);
    let state = loaded(&sys, persisted);
    assert_eq!(spl(&state).start_offset, 2);
    assert!(spl(&state).records.is_empty());
    let (state, acquired) = fetch(&sys, &state, 0, 0);
    assert!(acquired.is_empty());
    assert_eq!(spl(&state).parked.len(), 1, "the fetch waits (long poll)");
}

/// `testAcquireMultipleRecords`: one fetch acquires every available record, each at
/// delivery 1, for the member.
#[test]
fn acquire_multiple_records() {
    let sys = with_records(2);
    let (state, acquired) = fetch_up_to(&sys, &loaded(&sys, ShareState::default()), 0, 0, 5);
    let offsets: Vec<(Offset, u8)> = acquired
        .iter()
        .map(|a| (a.offset, a.delivery_count))
        .collect();
    assert_eq!(offsets, vec![(0, 1), (1, 1)]);
    for offset in 0..2 {
        assert_eq!(record(&state, offset).member, Some(MemberId(0)));
    }
}

/// `testAcquireWithMaxFetchRecords`: a fetch acquires at most its maximum; the next one
/// takes the next record.
#[test]
fn acquire_with_max_fetch_records() {
    let sys = with_records(2);
    let (state, first) = fetch_up_to(&sys, &loaded(&sys, ShareState::default()), 0, 0, 1);
    assert_eq!(first.iter().map(|a| a.offset).collect::<Vec<_>>(), vec![0]);
    assert_eq!(record(&state, 1).state, Available);
    let (_, second) = fetch_up_to(&sys, &state, 1, 0, 1);
    assert_eq!(second.iter().map(|a| a.offset).collect::<Vec<_>>(), vec![1]);
}

/// `testAcquireSameBatchAgain` and `testAcquireWithEmptyFetchRecords`: with every record
/// acquired, a fetch acquires nothing (and waits).
#[test]
fn acquire_the_same_records_again_gets_nothing() {
    let sys = with_records(2);
    let (state, _) = fetch_up_to(&sys, &loaded(&sys, ShareState::default()), 0, 0, 5);
    let (state, again) = fetch_up_to(&sys, &state, 0, 1, 5);
    assert!(again.is_empty());
    assert_eq!(spl(&state).parked.len(), 1);
}

/// `testAcknowledgeMultipleRecordBatch` and
/// `testMaybeUpdateCachedStateWhenAllRecordsInCachedStateAreAcknowledged`: one request
/// accepts both records; the start offset moves to the end and nothing is in flight.
#[test]
fn acknowledging_every_record_moves_the_start_offset_to_the_end() {
    let sys = with_records(2);
    let (state, _) = fetch_up_to(&sys, &loaded(&sys, ShareState::default()), 0, 0, 5);
    let acks = [(0, 1, AckType::Accept), (1, 1, AckType::Accept)];
    let acked = acknowledge_all(&sys, &state, 0, 1, &acks, ErrorCode::None);
    assert_eq!(acked.error, ErrorCode::None);
    assert_eq!(spl(&acked.state).start_offset, 2);
    assert!(spl(&acked.state).records.is_empty());
}

/// `testNumberOfWriteCallsOnUpdates`: one acknowledgement request is one
/// WriteShareGroupState, whatever number of records it acknowledges.
#[test]
fn one_acknowledgement_request_is_one_write() {
    let sys = with_records(2);
    let (state, _) = fetch_up_to(&sys, &loaded(&sys, ShareState::default()), 0, 0, 5);
    let acks = [(0, 1, AckType::Accept), (1, 1, AckType::Release)];
    let acked = acknowledge_all(&sys, &state, 0, 1, &acks, ErrorCode::None);
    assert_eq!(acked.writes.len(), 1);
    assert_eq!(acked.writes[0].batches.len(), 2);
}

/// `testMaybeUpdateCachedStateWhenAcknowledgementsInBetween` and
/// `testMaybeUpdateCachedStateWhenAcknowledgementsFromBeginningForBatchSubset`: accepting a
/// later record leaves the start offset; accepting the first then moves it past both.
#[test]
fn the_start_offset_moves_only_over_acknowledged_records_from_the_start() {
    let sys = with_records(2);
    let (state, _) = fetch_up_to(&sys, &loaded(&sys, ShareState::default()), 0, 0, 5);
    let later = acknowledge_all(
        &sys,
        &state,
        0,
        1,
        &[(1, 1, AckType::Accept)],
        ErrorCode::None,
    );
    assert_eq!(spl(&later.state).start_offset, 0);
    assert_eq!(record(&later.state, 0).state, Acquired);
    let first = acknowledge_all(
        &sys,
        &later.state,
        0,
        2,
        &[(0, 1, AckType::Accept)],
        ErrorCode::None,
    );
    assert_eq!(spl(&first.state).start_offset, 2);
}

/// `testAcknowledgeRollbackWithFullBatchError`: one invalid acknowledgement fails the whole
/// request with INVALID_RECORD_STATE; the valid one is not applied and nothing is written.
#[test]
fn one_invalid_acknowledgement_fails_the_whole_request() {
    let sys = with_records(2);
    let (state, _) = fetch_up_to(&sys, &loaded(&sys, ShareState::default()), 0, 0, 1);
    let acks = [(0, 1, AckType::Accept), (1, 1, AckType::Accept)];
    let acked = acknowledge_all(&sys, &state, 0, 1, &acks, ErrorCode::None);
    assert_eq!(acked.error, ErrorCode::InvalidRecordState);
    assert!(acked.writes.is_empty());
    assert_eq!(record(&acked.state, 0).state, Acquired);
}

/// `testAcknowledgeOutOfRangeCachedData`: an acknowledgement of an offset the leader does
/// not hold in flight is INVALID_RECORD_STATE.
#[test]
fn acknowledging_an_offset_out_of_range_is_invalid_record_state() {
    let sys = with_records(2);
    let (state, _) = fetch_up_to(&sys, &loaded(&sys, ShareState::default()), 0, 0, 5);
    let acked = acknowledge_all(
        &sys,
        &state,
        0,
        1,
        &[(7, 1, AckType::Accept)],
        ErrorCode::None,
    );
    assert_eq!(acked.error, ErrorCode::InvalidRecordState);
}

/// `testAcquisitionLockOnAcknowledgingSingleRecordBatch`: once the acknowledgement's write
/// completes, the record's acquisition lock is cancelled.
#[test]
fn an_acknowledged_record_has_its_lock_cancelled() {
    let sys = with_delivery_limit(5);
    let (state, _) = fetch(&sys, &loaded(&sys, ShareState::default()), 0, 0);
    let acked = acknowledge_all(
        &sys,
        &state,
        0,
        1,
        &[(0, 1, AckType::Accept)],
        ErrorCode::None,
    );
    assert!(acked
        .cmds
        .iter()
        .any(|c| matches!(c, Command::CancelTimer(Timer::AcquisitionLock(0)))));
}

/// `testAcknowledgeOffsetWithWriteShareGroupStateFailure` and
/// `testAcknowledgeBatchWithWriteShareGroupStateFailure`: a failed write rolls the
/// acknowledgement back (the record is ACQUIRED by the member again) and the request is
/// answered with an error (Kafka's is the persister's; the model's leader answers every
/// persister error NOT_LEADER_OR_FOLLOWER).
#[test]
fn a_failed_write_rolls_the_acknowledgement_back() {
    let sys = with_delivery_limit(5);
    let (state, _) = fetch(&sys, &loaded(&sys, ShareState::default()), 0, 0);
    let acked = acknowledge_all(
        &sys,
        &state,
        0,
        1,
        &[(0, 1, AckType::Accept)],
        ErrorCode::FencedStateEpoch,
    );
    assert_ne!(acked.error, ErrorCode::None);
    let r = record(&acked.state, 0);
    assert_eq!(
        (r.state, r.member, r.ongoing),
        (Acquired, Some(MemberId(0)), None)
    );
}

/// `testAcquisitionLockOnOffsetWithWriteShareGroupStateFailure` and
/// `testAcquisitionLockOnBatchWithWriteShareGroupStateFailure`: a lock expiry releases the
/// record at once, and the release stands when its write fails.
#[test]
fn a_lock_expiry_stands_when_its_write_fails() {
    let sys = with_delivery_limit(5);
    let (sp, sc, ..) = ids(&sys);
    let (state, _) = fetch(&sys, &loaded(&sys, ShareState::default()), 0, 0);
    let (state, cmds) = fire(&sys, sp, &state, Timer::AcquisitionLock(0));
    let write = cmds
        .iter()
        .find_map(|c| match c {
            Command::Send(dst, Msg::WriteShareGroupState(w)) if *dst == sc => Some(w.clone()),
            _ => None,
        })
        .expect("the release is written");
    let failed = Msg::WriteShareGroupStateResponse(WriteShareGroupStateResponse {
        leader_epoch: write.leader_epoch,
        write: write.write,
        error: ErrorCode::FencedStateEpoch,
    });
    let (state, _) = deliver(&sys, sp, &state, sc, failed);
    let r = record(&state, 0);
    assert_eq!((r.state, r.member), (Available, None));
}
