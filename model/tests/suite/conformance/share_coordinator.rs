//! `ShareCoordinatorShardTest` (share-coordinator/src/test/java/org/apache/kafka/coordinator/
//! share, apache/kafka `1eb7644349cb`): WriteShareGroupState and ReadShareGroupState at the
//! share coordinator, leader-epoch fencing, and the replay of its log. One share partition,
//! so the group, topic and partition keys of Kafka's requests are left out; Kafka's offset
//! ranges become the model's per-offset batches.

use crate::common::{deliver, sc_state as sc, start, system};
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::msg::Msg;
use sharetxn_model::protocol::record_state::RecordState::{self, *};
use sharetxn_model::protocol::share_msg::*;
use sharetxn_model::protocol::share_state::{ShareState, StateBatch};
use sharetxn_model::protocol::width::{Epoch, Offset};
use sharetxn_model::share::share_coordinator::ShareRecord;
use sharetxn_model::world::node::{NodeState, NodeStorage};
use sharetxn_model::{Scenario, System};
use stateright::actor::{Command, Id};

/// The share coordinator and the share-partition leader that writes to it.
fn ids(sys: &System) -> (Id, Id) {
    (
        sys.topology
            .share_coordinator
            .expect("share-basic has a share coordinator"),
        sys.topology
            .share_partition
            .expect("share-basic has a share partition"),
    )
}

/// A share coordinator started from `log` (none: a new one, which writes its first snapshot).
fn started(sys: &System, log: Option<Vec<ShareRecord>>) -> NodeState {
    let (sc, _) = ids(sys);
    start(sys, sc, log.map(NodeStorage::ShareCoordinator)).0
}

fn batch(offset: Offset, state: RecordState, delivery_count: u8) -> StateBatch {
    StateBatch {
        offset,
        state,
        delivery_count,
    }
}

/// The batches of Kafka's `StateBatch(firstOffset, lastOffset, ...)`, offset by offset.
fn range(first: Offset, last: Offset, state: RecordState, count: u8) -> Vec<StateBatch> {
    (first..=last).map(|o| batch(o, state, count)).collect()
}

fn write(leader_epoch: Epoch, start_offset: Offset, batches: Vec<StateBatch>) -> Msg {
    Msg::WriteShareGroupState(WriteShareGroupStateRequest {
        leader_epoch,
        partition: 0,
        state_epoch: 0,
        write: 0,
        start_offset,
        batches,
    })
}

fn read(leader_epoch: Epoch) -> Msg {
    Msg::ReadShareGroupState(ReadShareGroupStateRequest {
        leader_epoch,
        pending: false,
        partition: 0,
        refresh: false,
    })
}

/// Sends `msg` from the leader: the state after, the error of the answer, and whether the
/// coordinator wrote its log.
fn send(sys: &System, state: &NodeState, msg: Msg) -> (NodeState, ErrorCode, bool) {
    let (sc_id, leader) = ids(sys);
    let (after, cmds) = deliver(sys, sc_id, state, leader, msg);
    let error = cmds
        .iter()
        .find_map(|c| match c {
            Command::Send(dst, m) if *dst == leader => m.response_error(),
            _ => None,
        })
        .expect("an answer to the leader");
    let wrote = cmds.iter().any(|c| matches!(c, Command::Save(_)));
    (after, error, wrote)
}

/// `testWriteStateSuccess`: the write is answered NONE, its batches are the persisted state
/// and its leader epoch is the coordinator's.
#[test]
fn write_state_success() {
    let sys = system(Design::consumer_offsets(), Scenario::share_basic(), &[]);
    let batches = range(0, 3, Available, 1);
    let (after, error, wrote) = send(&sys, &started(&sys, None), write(0, 0, batches.clone()));
    assert_eq!((error, wrote), (ErrorCode::None, true));
    for b in &batches {
        assert_eq!(sc(&after).state.state_of(b.offset), Some((Available, 1)));
    }
    assert_eq!(sc(&after).state.leader_epoch, 0);
}

/// `testSubsequentWriteStateSnapshotEpochUpdatesSuccessfully`: a second write for other
/// offsets adds to the state; the first write's batches stay.
#[test]
fn subsequent_write_state_adds_to_the_state() {
    let sys = system(Design::consumer_offsets(), Scenario::share_basic(), &[]);
    let (state, ..) = send(
        &sys,
        &started(&sys, None),
        write(0, 0, range(0, 3, Available, 1)),
    );
    let (after, error, wrote) = send(&sys, &state, write(0, 0, range(4, 6, Available, 1)));
    assert_eq!((error, wrote), (ErrorCode::None, true));
    for offset in 0..=6 {
        assert_eq!(sc(&after).state.state_of(offset), Some((Available, 1)));
    }
}

/// `testWriteStateFencedLeaderEpochError`: after a write at leader epoch 5, one at 3 is
/// FENCED_LEADER_EPOCH, writes nothing, and the leader epoch stays 5.
#[test]
fn write_state_with_an_older_leader_epoch_is_fenced() {
    let sys = system(Design::consumer_offsets(), Scenario::share_basic(), &[]);
    let (state, error, _) = send(
        &sys,
        &started(&sys, None),
        write(5, 0, range(0, 3, Available, 1)),
    );
    assert_eq!(error, ErrorCode::None);
    assert_eq!(sc(&state).state.leader_epoch, 5);
    let (after, error, wrote) = send(&sys, &state, write(3, 0, range(4, 6, Available, 1)));
    assert_eq!((error, wrote), (ErrorCode::FencedLeaderEpoch, false));
    assert_eq!(sc(&after).state, sc(&state).state);
}

/// `testReadStateSuccess`: a read returns the persisted state and records the reader's
/// leader epoch. (At `1eb7644` the shard keeps the new leader epoch in memory; the model
/// writes it to the log, as a later `readStateAndMaybeUpdateLeaderEpoch` does, so it
/// survives a coordinator restart.)
#[test]
fn read_state_success() {
    let sys = system(Design::consumer_offsets(), Scenario::share_basic(), &[]);
    let (state, ..) = send(
        &sys,
        &started(&sys, None),
        write(0, 0, range(0, 3, Available, 1)),
    );
    let (sc_id, leader) = ids(&sys);
    let (after, cmds) = deliver(&sys, sc_id, &state, leader, read(1));
    let answer = cmds.iter().find_map(|c| match c {
        Command::Send(dst, Msg::ReadShareGroupStateResponse(r)) if *dst == leader => Some(r),
        _ => None,
    });
    let answer = answer.expect("a ReadShareGroupState answer");
    assert_eq!(answer.error, ErrorCode::None);
    let returned = answer.state.as_ref().expect("the state");
    assert_eq!(returned.batches, sc(&state).state.batches);
    assert_eq!(sc(&after).state.leader_epoch, 1);
}

/// `testReadStateFencedLeaderEpochError`: after a write at leader epoch 5, a read at 3 is
/// FENCED_LEADER_EPOCH and the leader epoch stays 5.
#[test]
fn read_state_with_an_older_leader_epoch_is_fenced() {
    let sys = system(Design::consumer_offsets(), Scenario::share_basic(), &[]);
    let (state, ..) = send(
        &sys,
        &started(&sys, None),
        write(5, 0, range(0, 3, Available, 1)),
    );
    let (after, error, wrote) = send(&sys, &state, read(3));
    assert_eq!((error, wrote), (ErrorCode::FencedLeaderEpoch, false));
    assert_eq!(sc(&after).state.leader_epoch, 5);
}

/// `testNonSequentialBatchUpdates`: batches 1 to 3 acquired; the leader acks batch 1, moves
/// the start offset past it and then writes batch 3 only. Batch 2 must not be lost, and the
/// offsets below the new start offset are gone.
#[test]
fn non_sequential_batch_updates_keep_the_batch_in_between() {
    let sys = system(Design::consumer_offsets(), Scenario::share_basic(), &[]);
    let mut batches = range(10, 11, Acquired, 1);
    batches.extend(range(12, 13, Acquired, 2));
    batches.extend(range(14, 15, Acquired, 0));
    let (state, ..) = send(&sys, &started(&sys, None), write(0, 10, batches));
    let (state, ..) = send(&sys, &state, write(0, 10, range(10, 11, Acknowledged, 1)));
    let (after, error, _) = send(&sys, &state, write(0, 12, range(14, 15, Acknowledged, 0)));
    assert_eq!(error, ErrorCode::None);
    let s = &sc(&after).state;
    assert_eq!(s.start_offset, 12);
    assert_eq!(s.state_of(10), None);
    assert_eq!(s.state_of(12), Some((Acquired, 2)));
    assert_eq!(s.state_of(13), Some((Acquired, 2)));
    assert_eq!(s.state_of(14), Some((Acknowledged, 0)));
}

/// `testReplayWithShareSnapshot`: replaying a snapshot fills the state and the leader epoch;
/// a later snapshot replaces both.
#[test]
fn replay_with_share_snapshot() {
    let sys = system(Design::consumer_offsets(), Scenario::share_basic(), &[]);
    let snapshot = |leader_epoch: Epoch, batches: Vec<StateBatch>| {
        let mut state = ShareState {
            leader_epoch,
            ..ShareState::default()
        };
        state.merge(0, &batches);
        ShareRecord::Snapshot(state)
    };
    let first = snapshot(1, range(0, 3, Available, 1));
    let loaded = started(&sys, Some(vec![first.clone()]));
    assert_eq!(sc(&loaded).state.leader_epoch, 1);
    assert_eq!(sc(&loaded).state.state_of(0), Some((Available, 1)));
    let second = snapshot(2, range(4, 5, Available, 1));
    let reloaded = started(&sys, Some(vec![first, second]));
    assert_eq!(sc(&reloaded).state.leader_epoch, 2);
    assert_eq!(
        sc(&reloaded).state.state_of(0),
        None,
        "a snapshot is the whole state"
    );
    assert_eq!(sc(&reloaded).state.state_of(4), Some((Available, 1)));
}
