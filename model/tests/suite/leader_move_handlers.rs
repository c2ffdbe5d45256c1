//! Scenario `spl-move`: the share partition's leadership moves to another broker (`SP0b`,
//! leader epoch 2) while the old leader (`SP0`, epoch 1) stays up. One message in, the
//! exact answer out: the share coordinator fences the old leader's late staging, write and
//! outcome answer by leader epoch, addresses outcomes to the new leader, and a fenced old
//! leader answers NOT_LEADER_OR_FOLLOWER, after which the client goes to the new leader.

use crate::common;
use common::staging;

use common::{deliver, fire, pe, sent, start, system};
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::keyed::Keyed;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::protocol::share_msg::*;
use sharetxn_model::protocol::share_state::ShareState;
use sharetxn_model::protocol::txn_share_msg::*;
use sharetxn_model::share::share_coordinator_notify::Resolution;
use sharetxn_model::world::node::NodeState;
use sharetxn_model::{Scenario, System};
use stateright::actor::Id;

/// `(SP0, SP0b, SC, P0)`.
fn ids(sys: &System) -> (Id, Id, Id, Id) {
    let t = &sys.topology;
    (
        t.share_partition.unwrap(),
        t.moved_share_partition.unwrap(),
        t.share_coordinator.unwrap(),
        t.producers[0],
    )
}

fn proposed() -> System {
    system(Design::proposed(), Scenario::spl_move(), &[])
}

fn read(leader_epoch: u16) -> Msg {
    Msg::ReadShareGroupState(ReadShareGroupStateRequest {
        leader_epoch,
        pending: true,
        partition: 0,
        refresh: false,
    })
}

/// The share coordinator's answer to producer 0's staging.
fn stage_answer(error: ErrorCode, leader_epoch: Option<u16>) -> Msg {
    Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
        group: Default::default(),
        producer: pe(0),
        error,
        leader_epoch,
    })
}

/// The share coordinator after the new leader's read stored leader epoch 2.
fn coordinator_after_move(sys: &System) -> NodeState {
    let (_, sp0b, sc, _) = ids(sys);
    let (state, _) = start(sys, sc, None);
    deliver(sys, sc, &state, sp0b, read(2)).0
}

fn staging(leader_epoch: Option<u16>) -> TxnShareAcknowledgeRequest {
    TxnShareAcknowledgeRequest {
        deliveries: vec![AcquiredRecord {
            offset: 0,
            delivery_count: 1,
        }],
        notify: true,
        leader_epoch,
        ..staging::accept(0)
    }
}

#[test]
fn the_old_leaders_late_staging_is_fenced() {
    let sys = proposed();
    let (sp0, _, sc, _) = ids(&sys);
    let state = coordinator_after_move(&sys);
    let (_, cmds) = deliver(
        &sys,
        sc,
        &state,
        sp0,
        Msg::TxnShareAcknowledge(staging(Some(1))),
    );
    assert_eq!(
        sent(&cmds),
        vec![(sp0, stage_answer(ErrorCode::FencedLeaderEpoch, Some(1)))]
    );
}

#[test]
fn the_old_leaders_late_write_is_fenced() {
    let sys = proposed();
    let (sp0, _, sc, _) = ids(&sys);
    let state = coordinator_after_move(&sys);
    let write = Msg::WriteShareGroupState(WriteShareGroupStateRequest {
        leader_epoch: 1,
        state_epoch: 0,
        write: 0,
        start_offset: 0,
        batches: Vec::new(),
        partition: 0,
    });
    let (_, cmds) = deliver(&sys, sc, &state, sp0, write);
    assert_eq!(
        sent(&cmds),
        vec![(
            sp0,
            Msg::WriteShareGroupStateResponse(WriteShareGroupStateResponse {
                leader_epoch: 1,
                write: 0,
                error: ErrorCode::FencedLeaderEpoch,
            })
        )]
    );
}

/// The coordinator after the move with one COMMIT outcome queued for `SP0`, which staged it.
fn outcome_queued(sys: &System) -> NodeState {
    let (sp0, _, _, _) = ids(sys);
    let mut state = coordinator_after_move(sys);
    let NodeState::ShareCoordinator(s) = &mut state else {
        panic!("not the share coordinator")
    };
    let request = TxnShareAcksResolvedRequest {
        producer: pe(0),
        commit: true,
        offsets: vec![0],
        leader_epoch: None,
    };
    s.outbox.insert(
        Keyed::first((ProducerId(0), Some((ProducerEpoch(0), true)))),
        Resolution {
            leader: sp0,
            request,
        },
    );
    state
}

fn answer(leader_epoch: u16) -> Msg {
    Msg::TxnShareAcksResolvedResponse(TxnShareAcksResolvedResponse {
        producer: pe(0),
        answered: Some((true, vec![0])),
        leader_epoch: Some(leader_epoch),
    })
}

#[test]
fn the_old_leaders_late_answer_retires_nothing() {
    let sys = proposed();
    let (sp0, sp0b, sc, _) = ids(&sys);
    let state = outcome_queued(&sys);
    let outbox = |s: &NodeState| s.share_coordinator().unwrap().outbox.len();
    let (after, _) = deliver(&sys, sc, &state, sp0, answer(1));
    assert_eq!(outbox(&after), 1, "fenced by leader epoch: still queued");
    let (after, _) = deliver(&sys, sc, &state, sp0b, answer(2));
    assert_eq!(outbox(&after), 0, "the new leader's answer retires it");
}

#[test]
fn outcomes_go_to_the_new_leader_with_its_epoch() {
    let sys = proposed();
    let (_, sp0b, sc, _) = ids(&sys);
    let state = outcome_queued(&sys);
    let (_, cmds) = fire(&sys, sc, &state, Timer::ResolvedRetry);
    assert_eq!(
        sent(&cmds),
        vec![(
            sp0b,
            Msg::TxnShareAcksResolved(TxnShareAcksResolvedRequest {
                producer: pe(0),
                commit: true,
                offsets: vec![0],
                leader_epoch: Some(2),
            })
        )]
    );
}

/// `SP0` loaded at epoch 1, P0's fetch answered with offset 0 and its staging forwarded.
fn old_leader_staging(sys: &System) -> NodeState {
    let (sp0, _, sc, p0) = ids(sys);
    loaded_staging(sys, sp0, sc, p0)
}

/// Leader `sp0` loaded at epoch 1 from `sc`, `p0`'s fetch answered with offset 0 and its
/// staging forwarded.
fn loaded_staging(sys: &System, sp0: Id, sc: Id, p0: Id) -> NodeState {
    let (state, _) = start(sys, sp0, None);
    let loaded = Msg::ReadShareGroupStateResponse(ReadShareGroupStateResponse {
        leader_epoch: 1,
        error: ErrorCode::None,
        state: Some(ShareState {
            leader_epoch: 1,
            ..ShareState::default()
        }),
        pending: Vec::new(),
        refresh: false,
    });
    let (state, _) = deliver(sys, sp0, &state, sc, loaded);
    let fetch = Msg::ShareFetch(ShareFetchRequest {
        member: MemberId(0),
        session_epoch: 0,
        max_records: 1,
        acks: Vec::new(),
    });
    let (state, _) = deliver(sys, sp0, &state, p0, fetch);
    let mut req = staging(None);
    req.notify = false;
    deliver(sys, sp0, &state, p0, Msg::TxnShareAcknowledge(req)).0
}

fn not_leader_to_client() -> Msg {
    stage_answer(ErrorCode::NotLeaderOrFollower, None)
}

#[test]
fn a_fenced_staging_fences_the_old_leader() {
    let sys = proposed();
    let (sp0, _, sc, p0) = ids(&sys);
    let state = old_leader_staging(&sys);
    let fenced = stage_answer(ErrorCode::FencedLeaderEpoch, Some(1));
    let (after, cmds) = deliver(&sys, sp0, &state, sc, fenced);
    assert_eq!(sent(&cmds), vec![(p0, not_leader_to_client())]);
    let spl = after.share_partition().unwrap();
    assert!(spl.fenced && spl.records.is_empty());
    // Every later request is NOT_LEADER_OR_FOLLOWER.
    let fetch = Msg::ShareFetch(ShareFetchRequest {
        member: MemberId(0),
        session_epoch: 1,
        max_records: 1,
        acks: Vec::new(),
    });
    let (_, cmds) = deliver(&sys, sp0, &after, p0, fetch);
    assert_eq!(
        sent(&cmds),
        vec![(
            p0,
            Msg::ShareFetchResponse(ShareFetchResponse {
                member: MemberId(0),
                session_epoch: 1,
                error: ErrorCode::NotLeaderOrFollower,
                ack_error: ErrorCode::NotLeaderOrFollower,
                acquired: Vec::new(),
            })
        )]
    );
}

#[test]
fn a_staging_answer_for_another_leader_epoch_is_not_this_leaders() {
    let sys = proposed();
    let (sp0, _, sc, _) = ids(&sys);
    let state = old_leader_staging(&sys);
    let other = stage_answer(ErrorCode::None, Some(2));
    let (after, cmds) = deliver(&sys, sp0, &state, sc, other);
    assert!(sent(&cmds).is_empty());
    assert_eq!(after, state);
}

#[test]
fn an_outcome_for_a_newer_leader_epoch_fences_the_old_leader_unanswered() {
    let sys = proposed();
    let (sp0, _, sc, p0) = ids(&sys);
    let state = old_leader_staging(&sys);
    let outcome = Msg::TxnShareAcksResolved(TxnShareAcksResolvedRequest {
        producer: pe(0),
        commit: true,
        offsets: vec![0],
        leader_epoch: Some(2),
    });
    let (after, cmds) = deliver(&sys, sp0, &state, sc, outcome);
    // No answer to the coordinator; the client waiting on the staging hears the move.
    assert_eq!(sent(&cmds), vec![(p0, not_leader_to_client())]);
    assert!(after.share_partition().unwrap().fenced);
}

#[test]
fn the_old_brokers_metadata_answers_a_parked_fetch() {
    let sys = proposed();
    let (sp0, _, _, p0) = ids(&sys);
    let (state, cmds) = start(&sys, sp0, None);
    assert!(cmds.iter().any(|c| matches!(
        c,
        stateright::actor::Command::SetTimer(Timer::LeaderMove, _)
    )));
    let fetch = ShareFetchRequest {
        member: MemberId(0),
        session_epoch: 0,
        max_records: 1,
        acks: Vec::new(),
    };
    // Queued for the load, then the broker learns it follows now.
    let (state, _) = deliver(&sys, sp0, &state, p0, Msg::ShareFetch(fetch));
    let (_, cmds) = fire(&sys, sp0, &state, Timer::LeaderMove);
    assert_eq!(
        sent(&cmds),
        vec![(
            p0,
            Msg::ShareFetchResponse(ShareFetchResponse {
                member: MemberId(0),
                session_epoch: 0,
                error: ErrorCode::NotLeaderOrFollower,
                ack_error: ErrorCode::NotLeaderOrFollower,
                acquired: Vec::new(),
            })
        )]
    );
}

#[test]
fn the_new_leader_reads_at_the_next_leader_epoch() {
    let sys = proposed();
    let (_, sp0b, sc, _) = ids(&sys);
    let (_, cmds) = start(&sys, sp0b, None);
    assert!(sent(&cmds).contains(&(sc, read(2))));
}

#[test]
fn not_leader_sends_the_client_to_the_new_leader() {
    let sys = proposed();
    let (sp0, sp0b, tc, p0) = {
        let (sp0, sp0b, _, p0) = ids(&sys);
        (sp0, sp0b, sys.topology.txn_coordinator, p0)
    };
    let (state, _) = start(&sys, p0, None);
    let init = Msg::InitProducerIdResponse(InitProducerIdResponse {
        txn: TransactionalId(0),
        error: ErrorCode::None,
        producer: Some(pe(0)),
        ongoing: None,
        connection: Default::default(),
    });
    let (state, cmds) = deliver(&sys, p0, &state, tc, init);
    assert!(sent(&cmds)
        .iter()
        .any(|(d, m)| *d == sp0 && matches!(m, Msg::ShareFetch(_))));
    let moved = Msg::ShareFetchResponse(ShareFetchResponse {
        member: MemberId(0),
        session_epoch: 0,
        error: ErrorCode::NotLeaderOrFollower,
        ack_error: ErrorCode::None,
        acquired: Vec::new(),
    });
    let (_, cmds) = deliver(&sys, p0, &state, sp0, moved);
    assert_eq!(
        sent(&cmds),
        vec![(
            sp0b,
            Msg::ShareFetch(ShareFetchRequest {
                member: MemberId(0),
                session_epoch: 0,
                max_records: 1,
                acks: Vec::new(),
            })
        )]
    );
}

/// `ctp`: one leader, no move. A handler cannot know whether its leadership will move, so
/// under `stage_leader_epoch` the leader epoch rides on the staging path there too.
fn ctp_with(settings: &[&str]) -> (System, Id, Id, Id) {
    let sys = system(Design::proposed(), Scenario::ctp(), settings);
    let t = &sys.topology;
    let (sp, sc, p0) = (
        t.share_partition.unwrap(),
        t.share_coordinator.unwrap(),
        t.producers[0],
    );
    assert!(t.moved_share_partition.is_none());
    (sys, sp, sc, p0)
}

fn ctp() -> (System, Id, Id, Id) {
    ctp_with(&[])
}

#[test]
fn without_a_move_the_staging_answer_echoes_the_leader_epoch() {
    // Staged at once, without the KIP-890 verification in between.
    let (sys, sp, sc, _) = ctp_with(&["stage_verification=false"]);
    let (state, _) = start(&sys, sc, None);
    let (state, _) = deliver(&sys, sc, &state, sp, read(1));
    let mut req = staging(Some(1));
    req.notify = false;
    let (_, cmds) = deliver(&sys, sc, &state, sp, Msg::TxnShareAcknowledge(req));
    assert_eq!(
        sent(&cmds),
        vec![(sp, stage_answer(ErrorCode::None, Some(1)))]
    );
}

#[test]
fn without_a_move_an_outcome_carries_the_stored_leader_epoch() {
    let (sys, sp, sc, _) = ctp();
    let (state, _) = start(&sys, sc, None);
    let (mut state, _) = deliver(&sys, sc, &state, sp, read(1));
    let NodeState::ShareCoordinator(s) = &mut state else {
        panic!("not the share coordinator")
    };
    let request = TxnShareAcksResolvedRequest {
        producer: pe(0),
        commit: true,
        offsets: vec![0],
        leader_epoch: None,
    };
    s.outbox.insert(
        Keyed::first((ProducerId(0), Some((ProducerEpoch(0), true)))),
        Resolution {
            leader: sp,
            request: request.clone(),
        },
    );
    let (_, cmds) = fire(&sys, sc, &state, Timer::ResolvedRetry);
    let sent_outcome = TxnShareAcksResolvedRequest {
        leader_epoch: Some(1),
        ..request
    };
    assert_eq!(
        sent(&cmds),
        vec![(sp, Msg::TxnShareAcksResolved(sent_outcome))]
    );
}

#[test]
fn without_a_move_the_leader_answers_an_outcome_with_its_epoch() {
    let (sys, sp, sc, p0) = ctp();
    let state = loaded_staging(&sys, sp, sc, p0);
    let outcome = Msg::TxnShareAcksResolved(TxnShareAcksResolvedRequest {
        producer: pe(0),
        commit: true,
        offsets: vec![0],
        leader_epoch: Some(1),
    });
    let (_, cmds) = deliver(&sys, sp, &state, sc, outcome);
    assert!(sent(&cmds).contains(&(sc, answer(1))));
}

#[test]
fn without_a_move_fenced_leader_epoch_fences_the_leader() {
    let (sys, sp, sc, p0) = ctp();
    let state = loaded_staging(&sys, sp, sc, p0);
    let fenced = stage_answer(ErrorCode::FencedLeaderEpoch, Some(1));
    let (after, cmds) = deliver(&sys, sp, &state, sc, fenced);
    assert_eq!(sent(&cmds), vec![(p0, not_leader_to_client())]);
    assert!(after.share_partition().unwrap().fenced);
    // So does an outcome for a newer leader epoch, unanswered.
    let newer = Msg::TxnShareAcksResolved(TxnShareAcksResolvedRequest {
        producer: pe(0),
        commit: true,
        offsets: vec![0],
        leader_epoch: Some(2),
    });
    let (after, cmds) = deliver(&sys, sp, &state, sc, newer);
    assert_eq!(sent(&cmds), vec![(p0, not_leader_to_client())]);
    assert!(after.share_partition().unwrap().fenced);
    // And a write answered FENCED_LEADER_EPOCH (`SharePartitionManager`).
    let write = Msg::WriteShareGroupStateResponse(WriteShareGroupStateResponse {
        leader_epoch: 1,
        write: 0,
        error: ErrorCode::FencedLeaderEpoch,
    });
    let (after, _) = deliver(&sys, sp, &state, sc, write);
    assert!(after.share_partition().unwrap().fenced);
}
