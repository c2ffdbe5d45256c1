//! Share-group handler tests: one message in, the exact commands out.

use crate::common;

use common::{deliver, spl_state, start, system, Cmd};
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::MemberId;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::protocol::record_state::{AckType, RecordState};
use sharetxn_model::protocol::share_msg::*;
use sharetxn_model::protocol::share_state::{ShareState, StateBatch};
use sharetxn_model::world::node::{NodeState, NodeStorage};
use sharetxn_model::{Action, Scenario, System};
use stateright::actor::{Command, Id};

/// `Command` has no `PartialEq`: compare what it prints.
fn assert_commands(actual: &[Cmd], expected: &[Cmd]) {
    assert_eq!(format!("{actual:?}"), format!("{expected:?}"));
}

fn ids(sys: &System) -> (Id, Id, Id, Id) {
    let t = &sys.topology;
    (
        t.share_partition.unwrap(),
        t.share_coordinator.unwrap(),
        t.consumers[0],
        t.consumers[1],
    )
}

/// A share-partition leader that has loaded an empty share state.
fn loaded_spl(sys: &System) -> NodeState {
    let (sp, sc, _, _) = ids(sys);
    let (state, _) = start(sys, sp, None);
    let (state, _) = deliver(
        sys,
        sp,
        &state,
        sc,
        Msg::ReadShareGroupStateResponse(ReadShareGroupStateResponse {
            leader_epoch: 1,
            error: ErrorCode::None,
            state: Some(ShareState {
                leader_epoch: 1,
                ..ShareState::default()
            }),
            pending: Vec::new(),
            refresh: false,
        }),
    );
    state
}

fn fetch(member: u8, session_epoch: u32, acks: Vec<Acknowledgement>) -> Msg {
    Msg::ShareFetch(ShareFetchRequest {
        member: MemberId(member),
        session_epoch,
        max_records: 1,
        acks,
    })
}

fn accept(offset: u16, member: u8, delivery_count: u8) -> Acknowledgement {
    Acknowledgement {
        offset,
        ack: AckType::Accept,
        tag: Ghost::new(DeliveryTag {
            member: MemberId(member),
            delivery_count,
        }),
    }
}

fn fetch_response(member: u8, epoch: u32, ack_error: ErrorCode, acquired: Vec<(u16, u8)>) -> Msg {
    Msg::ShareFetchResponse(ShareFetchResponse {
        member: MemberId(member),
        session_epoch: epoch,
        error: ErrorCode::None,
        ack_error,
        acquired: acquired
            .into_iter()
            .map(|(offset, delivery_count)| AcquiredRecord {
                offset,
                delivery_count,
            })
            .collect(),
    })
}

fn lock(offset: u16) -> Cmd {
    Command::SetTimer(
        Timer::AcquisitionLock(offset),
        std::time::Duration::ZERO..std::time::Duration::ZERO,
    )
}

fn persister(write: u32) -> Cmd {
    Command::SetTimer(
        Timer::PersisterTimeout(write),
        std::time::Duration::ZERO..std::time::Duration::ZERO,
    )
}

#[test]
fn spl_start_bumps_its_leader_epoch_and_reads_the_share_state() {
    let sys = system(Design::consumer_offsets(), Scenario::share_basic(), &[]);
    let (sp, sc, _, _) = ids(&sys);
    let storage = NodeStorage::SharePartition { leader_epoch: 1 };
    let (_, commands) = start(&sys, sp, Some(storage));
    assert_commands(
        &commands,
        &[
            Command::Save(NodeStorage::SharePartition { leader_epoch: 2 }),
            Command::Send(
                sc,
                Msg::ReadShareGroupState(ReadShareGroupStateRequest {
                    leader_epoch: 2,
                    pending: false,
                    partition: 0,
                    refresh: false,
                }),
            ),
            Command::SetTimer(
                Timer::ReadStateTimeout,
                std::time::Duration::ZERO..std::time::Duration::ZERO,
            ),
        ],
    );
}

#[test]
fn share_fetch_acquires_the_first_available_record_and_arms_its_lock() {
    let sys = system(Design::consumer_offsets(), Scenario::share_basic(), &[]);
    let (sp, _, c0, _) = ids(&sys);
    let (after, commands) = deliver(&sys, sp, &loaded_spl(&sys), c0, fetch(0, 0, vec![]));
    assert_commands(
        &commands,
        &[
            lock(0),
            Command::Send(c0, fetch_response(0, 0, ErrorCode::None, vec![(0, 1)])),
        ],
    );
    let s = spl_state(&after);
    assert_eq!(s.records[&0].state, RecordState::Acquired);
    assert_eq!(s.records[&0].member, Some(MemberId(0)));
    assert_eq!(s.sessions[&MemberId(0)], 1);
}

#[test]
fn an_accept_is_answered_only_after_its_write_returns() {
    let sys = system(Design::consumer_offsets(), Scenario::share_basic(), &[]);
    let (sp, sc, c0, _) = ids(&sys);
    let (s1, _) = deliver(&sys, sp, &loaded_spl(&sys), c0, fetch(0, 0, vec![]));
    let (s2, commands) = deliver(&sys, sp, &s1, c0, fetch(0, 1, vec![accept(0, 0, 1)]));
    let write = WriteShareGroupStateRequest {
        leader_epoch: 1,
        partition: 0,
        state_epoch: 0,
        write: 0,
        start_offset: 0,
        batches: vec![StateBatch {
            offset: 0,
            state: RecordState::Acknowledged,
            delivery_count: 1,
        }],
    };
    assert_commands(
        &commands,
        &[
            Command::Send(sc, Msg::WriteShareGroupState(write)),
            persister(0),
        ],
    );
    let (s3, commands) = deliver(
        &sys,
        sp,
        &s2,
        sc,
        Msg::WriteShareGroupStateResponse(WriteShareGroupStateResponse {
            leader_epoch: 1,
            write: 0,
            error: ErrorCode::None,
        }),
    );
    assert_commands(
        &commands,
        &[
            Command::CancelTimer(Timer::PersisterTimeout(0)),
            Command::CancelTimer(Timer::AcquisitionLock(0)),
            lock(1),
            Command::Send(c0, fetch_response(0, 1, ErrorCode::None, vec![(1, 1)])),
        ],
    );
    let s = spl_state(&s3);
    assert_eq!(
        s.start_offset, 1,
        "the SPSO moved over the acknowledged record"
    );
}

#[test]
fn a_repeated_session_epoch_is_rejected() {
    let sys = system(Design::consumer_offsets(), Scenario::share_basic(), &[]);
    let (sp, _, c0, _) = ids(&sys);
    let (s1, _) = deliver(&sys, sp, &loaded_spl(&sys), c0, fetch(0, 0, vec![]));
    let (_, commands) = deliver(&sys, sp, &s1, c0, fetch(0, 2, vec![]));
    assert_commands(
        &commands,
        &[Command::Send(
            c0,
            Msg::ShareFetchResponse(ShareFetchResponse {
                member: MemberId(0),
                session_epoch: 2,
                error: ErrorCode::InvalidShareSessionEpoch,
                ack_error: ErrorCode::None,
                acquired: vec![],
            }),
        )],
    );
}

#[test]
fn an_acknowledgement_from_another_member_is_invalid_record_state() {
    let sys = system(Design::consumer_offsets(), Scenario::share_basic(), &[]);
    let (sp, _, c0, c1) = ids(&sys);
    let (s1, _) = deliver(&sys, sp, &loaded_spl(&sys), c0, fetch(0, 0, vec![]));
    let (s2, _) = deliver(&sys, sp, &s1, c1, fetch(1, 0, vec![]));
    let (_, commands) = deliver(
        &sys,
        sp,
        &s2,
        c1,
        Msg::ShareAcknowledge(ShareAcknowledgeRequest {
            member: MemberId(1),
            session_epoch: 1,
            acks: vec![accept(0, 1, 1)],
        }),
    );
    assert_commands(
        &commands,
        &[Command::Send(
            c1,
            Msg::ShareAcknowledgeResponse(ShareAcknowledgeResponse {
                member: MemberId(1),
                session_epoch: 1,
                error: ErrorCode::InvalidRecordState,
            }),
        )],
    );
}

#[test]
fn share_coordinator_fences_an_older_leaders_write() {
    let sys = system(Design::consumer_offsets(), Scenario::share_basic(), &[]);
    let (sp, sc, _, _) = ids(&sys);
    let (state, _) = start(&sys, sc, None);
    let (state, _) = deliver(
        &sys,
        sc,
        &state,
        sp,
        Msg::ReadShareGroupState(ReadShareGroupStateRequest {
            leader_epoch: 2,
            pending: false,
            partition: 0,
            refresh: false,
        }),
    );
    let (_, commands) = deliver(
        &sys,
        sc,
        &state,
        sp,
        Msg::WriteShareGroupState(WriteShareGroupStateRequest {
            leader_epoch: 1,
            partition: 0,
            state_epoch: 0,
            write: 3,
            start_offset: 0,
            batches: vec![],
        }),
    );
    assert_commands(
        &commands,
        &[Command::Send(
            sp,
            Msg::WriteShareGroupStateResponse(WriteShareGroupStateResponse {
                leader_epoch: 1,
                write: 3,
                error: ErrorCode::FencedLeaderEpoch,
            }),
        )],
    );
}

#[test]
fn consumer_opens_a_session_with_its_first_share_fetch() {
    let sys = system(Design::consumer_offsets(), Scenario::share_basic(), &[]);
    let (sp, _, c0, _) = ids(&sys);
    let (_, commands) = start(&sys, c0, None);
    assert_commands(
        &commands,
        &[
            Command::Send(sp, fetch(0, 0, vec![])),
            Command::SetTimer(
                Timer::RequestTimeout(RequestKey::Share),
                std::time::Duration::ZERO..std::time::Duration::ZERO,
            ),
        ],
    );
}

/// Kafka applies a replaced share session's late acknowledgement: a new session starts at
/// epoch 1 on the broker (`ShareSessionCache.maybeCreateSession`, 1eb7644), so the old
/// session's ShareFetch at epoch 1 passes `SharePartitionManager.newContext`, and
/// `SharePartition.acknowledge` checks only the member and the ACQUIRED state. The member's
/// acknowledgement of delivery 1 lands on its delivery 2 (which `ack_owner` judges only for
/// a transactional acknowledgement), and the leader answers the fetch once its write
/// returns.
#[test]
fn a_replaced_sessions_late_fetch_at_epoch_1_is_applied_to_the_new_delivery() {
    let sys = system(Design::consumer_offsets(), Scenario::share_basic(), &[]);
    let (sp, sc, c0, _) = ids(&sys);
    let (s1, _) = deliver(&sys, sp, &loaded_spl(&sys), c0, fetch(0, 0, vec![]));
    let (s2, _) = common::fire(&sys, sp, &s1, Timer::AcquisitionLock(0));
    // The member's request timed out: it opens a new session, which acquires delivery 2.
    let (s3, _) = deliver(&sys, sp, &s2, c0, fetch(0, 0, vec![]));
    let NodeState::SharePartition(held) = &s3 else {
        unreachable!()
    };
    assert_eq!(held.records[&0].delivery_count, 2);
    // The lock expiry wrote the released record as write 0.
    let (_, commands) = deliver(&sys, sp, &s3, c0, fetch(0, 1, vec![accept(0, 0, 1)]));
    let write = WriteShareGroupStateRequest {
        leader_epoch: 1,
        partition: 0,
        state_epoch: 0,
        write: 1,
        start_offset: 0,
        batches: vec![StateBatch {
            offset: 0,
            state: RecordState::Acknowledged,
            delivery_count: 2,
        }],
    };
    assert_commands(
        &commands,
        &[
            Command::Send(sc, Msg::WriteShareGroupState(write)),
            persister(1),
        ],
    );
}

/// The persister's write timeout (`PersisterStateManager.WriteStateHandler`, 1eb7644: a
/// write not answered in its request timeout is sent again) waits for the write the leader
/// still has outstanding: while that WriteShareGroupState is on its way a firing would be
/// early (the fault budget's `timeouts`), and once it is lost the timeout is due.
#[test]
fn the_persister_timeout_is_due_only_once_its_write_is_lost() {
    let sys = System::new(Design::proposed(), Scenario::share_basic());
    let spl = sys.topology.share_partition.unwrap();
    let mut state = sys.init_state();
    let mut write = None;
    for _ in 0..200 {
        write = state
            .network
            .deliverable()
            .into_iter()
            .find(|e| e.src == spl && matches!(e.msg, Msg::WriteShareGroupState(_)));
        if write.is_some() {
            break;
        }
        let mut actions = Vec::new();
        sys.enabled_progress(&state, &mut actions);
        let next = actions
            .iter()
            .find(|a| matches!(a, Action::Deliver(_)))
            .or_else(|| actions.first())
            .expect("progress")
            .clone();
        state = sys.step(&state, &next);
    }
    let write = write.expect("the leader writes its state within 200 steps");
    let Msg::WriteShareGroupState(w) = &write.msg else {
        unreachable!()
    };
    let timer = Timer::PersisterTimeout(w.write);
    assert!(state.timers[usize::from(spl)].contains(&timer));
    assert!(
        !sys.timer_is_due(&state, spl, &timer),
        "the write is on its way: firing now would be early"
    );
    let lost = sys.step(&state, &Action::Drop(write));
    assert!(sys.timer_is_due(&lost, spl, &timer), "lost: due");
}
