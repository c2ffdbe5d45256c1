//! `SharePartitionTest` (core/src/test/java/kafka/server/share, apache/kafka `1eb7644349cb`):
//! the record-state table, acquisition, acknowledgement, release, the acquisition lock and
//! the delivery count limit at the share-partition leader. The model's ShareFetch hands out
//! one record at a time (`max_records=1` in share-basic), and every acknowledgement is
//! answered after its WriteShareGroupState returns, so each test completes that write.

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
use sharetxn_model::share::share_partition::{InFlightRecord, SharePartitionState};
use sharetxn_model::world::node::NodeState;
use sharetxn_model::{Scenario, System};
use stateright::actor::{Command, Id};

/// share-basic with `group.share.delivery.count.limit` at `delivery_limit`.
fn with_delivery_limit(delivery_limit: u8) -> System {
    system(
        Design::consumer_offsets(),
        Scenario::share_basic(),
        &[&format!("delivery_limit={delivery_limit}")],
    )
}

/// The leader, the share coordinator and the two members.
fn ids(sys: &System) -> (Id, Id, Id, Id) {
    let t = &sys.topology;
    let (sp, sc) = (
        t.share_partition.expect("leader"),
        t.share_coordinator.expect("sc"),
    );
    (sp, sc, t.consumers[0], t.consumers[1])
}

fn spl(state: &NodeState) -> &SharePartitionState {
    match state {
        NodeState::SharePartition(s) => s,
        _ => panic!("not the share-partition leader"),
    }
}

fn record(state: &NodeState, offset: Offset) -> &InFlightRecord {
    &spl(state).records[&offset]
}

/// A leader loaded from `persisted` (`maybeInitialize` on a ReadShareGroupState answer).
fn loaded(sys: &System, persisted: ShareState) -> NodeState {
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
    });
    deliver(sys, sp, &state, sc, answer).0
}

/// A ShareFetch of member `m` (consumer `m`) at session epoch `epoch`: the state after and
/// the records it acquired.
fn fetch(sys: &System, state: &NodeState, m: u8, epoch: u32) -> (NodeState, Vec<AcquiredRecord>) {
    let (sp, ..) = ids(sys);
    let consumer = sys.topology.consumers[usize::from(m)];
    let request = Msg::ShareFetch(ShareFetchRequest {
        member: MemberId(m),
        session_epoch: epoch,
        max_records: 1,
        acks: Vec::new(),
    });
    let (after, cmds) = deliver(sys, sp, state, consumer, request);
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

/// A ShareAcknowledge of member `m` for `offset` (made for delivery `count`), and the write
/// it causes answered NONE: the state after and the answer's error.
fn acknowledge(
    sys: &System,
    state: &NodeState,
    m: u8,
    epoch: u32,
    (offset, count, ack): (Offset, u8, AckType),
) -> (NodeState, ErrorCode) {
    let (sp, sc, ..) = ids(sys);
    let consumer = sys.topology.consumers[usize::from(m)];
    let request = Msg::ShareAcknowledge(ShareAcknowledgeRequest {
        member: MemberId(m),
        session_epoch: epoch,
        acks: vec![Acknowledgement {
            offset,
            ack,
            tag: Ghost::new(DeliveryTag {
                member: MemberId(m),
                delivery_count: count,
            }),
        }],
    });
    let (mut state, mut cmds) = deliver(sys, sp, state, consumer, request);
    let write = cmds.iter().find_map(|c| match c {
        Command::Send(dst, Msg::WriteShareGroupState(w)) if *dst == sc => Some(w.clone()),
        _ => None,
    });
    if let Some(w) = write {
        let done = Msg::WriteShareGroupStateResponse(WriteShareGroupStateResponse {
            leader_epoch: w.leader_epoch,
            write: w.write,
            error: ErrorCode::None,
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
    (state, error)
}

/// The acquisition lock of `offset` expires, and the write it causes is answered NONE.
fn lock_expires(sys: &System, state: &NodeState, offset: Offset) -> NodeState {
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
