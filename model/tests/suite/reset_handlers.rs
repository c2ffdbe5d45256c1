//! Scenario `ctp-reset` (docs/kafka-cases.md S20): an admin resets the share group's start
//! offset while a transaction holds staged acknowledgements. One message in, the exact
//! commands out: the group coordinator's reset sends InitializeShareGroupState at the next
//! state epoch, the share coordinator initialises the state or fences an older epoch,
//! `sc_state_epoch_fence` refuses at COMMIT the acknowledgements staged before the reset
//! and fences a leader's staging of an older state epoch, and a share-partition leader
//! answered FENCED_STATE_EPOCH drops its cache and reads the state again.

use crate::common;
use common::staging;

use common::{choose, deliver, empty_state_read, pe, sc_state, sent, start, system};
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::keyed::Keyed;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::protocol::record_state::RecordState;
use sharetxn_model::protocol::share_msg::*;
use sharetxn_model::protocol::txn_share_msg::*;
use sharetxn_model::share::share_coordinator::ShareRecord;
use sharetxn_model::world::node::NodeState;
use sharetxn_model::{Scenario, System};
use stateright::actor::{Command, Id};

/// Knobs under which a staging is written at once and a TV2 marker finds it.
const FIXED: &[&str] = &[
    "stage_verification=false",
    "marker_match=txn-epoch",
    "sc_replay_pending=true",
];

fn reset_system(design: Design, fence: bool) -> System {
    let knob = format!("sc_state_epoch_fence={fence}");
    let mut settings = FIXED.to_vec();
    settings.push(&knob);
    system(design, Scenario::ctp_reset(), &settings)
}

fn initialize(state_epoch: u16, start_offset: u64) -> Msg {
    Msg::InitializeShareGroupState(InitializeShareGroupStateRequest {
        state_epoch,
        start_offset: start_offset.try_into().expect("a small offset"),
        partition: 0,
    })
}

fn initialized(state_epoch: u16, error: ErrorCode) -> Msg {
    Msg::InitializeShareGroupStateResponse(InitializeShareGroupStateResponse { state_epoch, error })
}

/// A leader's staging of offset 0 in producer 0's transaction at epoch 0, made for the
/// state at `state_epoch` (`None`: a staging that carries none).
fn staging(state_epoch: Option<u16>) -> TxnShareAcknowledgeRequest {
    TxnShareAcknowledgeRequest {
        deliveries: vec![AcquiredRecord {
            offset: 0,
            delivery_count: 1,
        }],
        state_epoch,
        ..staging::accept(0)
    }
}

fn commit_marker() -> Msg {
    Msg::WriteTxnMarkers(WriteTxnMarkersRequest {
        producer: pe(1),
        commit: true,
        coordinator_epoch: CoordinatorEpoch(0),
        partition: TopicPartition::ShareGroupState,
        tv: 2,
    })
}

/// `(GC, SC, SP0, P0, TC)`.
fn ids(sys: &System) -> (Id, Id, Id, Id, Id) {
    let t = &sys.topology;
    (
        t.group_coordinator,
        t.share_coordinator.unwrap(),
        t.share_partition.unwrap(),
        t.producers[0],
        t.txn_coordinator,
    )
}

#[test]
fn the_group_coordinator_offers_one_reset_and_initialises_at_the_next_state_epoch() {
    let sys = reset_system(Design::proposed(), true);
    let (gc, sc, _, _, _) = ids(&sys);
    let (state, cmds) = start(&sys, gc, None);
    let offered = cmds.iter().any(|c| {
        matches!(c, Command::ChooseRandom(_, options)
            if options.contains(&ClientChoice::ShareGroupReset(ResetTo::Latest)))
    });
    assert!(offered, "the reset is offered from the start");
    let (after, cmds) = choose(
        &sys,
        gc,
        &state,
        ClientChoice::ShareGroupReset(ResetTo::Latest),
    );
    assert_eq!(sent(&cmds), vec![(sc, initialize(1, 1))]);
    // The state epoch is durable, and no second reset is offered.
    assert!(cmds.iter().any(|c| matches!(c, Command::Save(_))));
    assert!(cmds
        .iter()
        .any(|c| matches!(c, Command::ChooseRandom(_, options) if options.is_empty())));
    let (_, cmds) = choose(
        &sys,
        gc,
        &after,
        ClientChoice::ShareGroupReset(ResetTo::Earliest),
    );
    assert!(sent(&cmds).is_empty(), "one reset only");
}

#[test]
fn the_share_coordinator_initialises_the_state_at_the_new_epoch() {
    let sys = reset_system(Design::proposed(), true);
    let (gc, sc, _, _, _) = ids(&sys);
    let (state, _) = start(&sys, sc, None);
    let (after, cmds) = deliver(&sys, sc, &state, gc, initialize(1, 1));
    assert_eq!(sent(&cmds), vec![(gc, initialized(1, ErrorCode::None))]);
    let s = sc_state(&after);
    assert_eq!((s.state.state_epoch, s.state.start_offset), (1, 1));
    assert!(s.state.batches.is_empty());
    assert!(matches!(
        s.log.last(),
        Some(ShareRecord::Initialize {
            state_epoch: 1,
            start_offset: 1,
            ..
        })
    ));
}

#[test]
fn an_older_state_epoch_is_fenced() {
    let sys = reset_system(Design::proposed(), true);
    let (gc, sc, _, _, _) = ids(&sys);
    let (state, _) = start(&sys, sc, None);
    let (state, _) = deliver(&sys, sc, &state, gc, initialize(1, 0));
    let (after, cmds) = deliver(&sys, sc, &state, gc, initialize(0, 1));
    assert_eq!(
        sent(&cmds),
        vec![(gc, initialized(0, ErrorCode::FencedStateEpoch))]
    );
    assert_eq!(sc_state(&after), sc_state(&state), "nothing written");
}

/// The share coordinator with offset 0 staged at state epoch 0, then reset to offset 0 at
/// state epoch 1.
fn staged_then_reset(sys: &System) -> NodeState {
    let (gc, sc, sp0, _, _) = ids(sys);
    let (state, _) = start(sys, sc, None);
    let (state, _) = deliver(
        sys,
        sc,
        &state,
        sp0,
        Msg::TxnShareAcknowledge(staging(Some(0))),
    );
    assert_eq!(
        sc_state(&state).pending[&Keyed::first(pe(0))].state_epoch,
        0
    );
    deliver(sys, sc, &state, gc, initialize(1, 0)).0
}

#[test]
fn stale_staged_acks_are_refused_at_commit() {
    let sys = reset_system(Design::proposed(), true);
    let (_, sc, _, _, tc) = ids(&sys);
    let state = staged_then_reset(&sys);
    let (after, _) = deliver(&sys, sc, &state, tc, commit_marker());
    let s = sc_state(&after);
    assert!(s.pending.is_empty(), "resolved by the marker");
    assert_eq!(s.state.state_of(0), None, "not applied to the reset state");
    let r = s.resolved.open().last().expect("a resolution");
    assert!(r.commit && r.fenced && r.state_epoch == 1);
}

#[test]
fn without_the_fence_stale_acks_are_applied_to_the_reset_state() {
    let sys = reset_system(Design::proposed(), false);
    let (_, sc, _, _, tc) = ids(&sys);
    let state = staged_then_reset(&sys);
    let (after, _) = deliver(&sys, sc, &state, tc, commit_marker());
    let s = sc_state(&after);
    assert_eq!(s.state.state_of(0), Some((RecordState::Acknowledged, 1)));
    let r = s.resolved.open().last().expect("a resolution");
    assert!(r.commit && !r.fenced && r.acks.state_epoch == 0 && r.state_epoch == 1);
}

#[test]
fn a_staging_of_an_older_state_epoch_is_fenced() {
    let sys = reset_system(Design::proposed(), true);
    let (gc, sc, sp0, _, _) = ids(&sys);
    let (state, _) = start(&sys, sc, None);
    let (state, _) = deliver(&sys, sc, &state, gc, initialize(1, 0));
    let (after, cmds) = deliver(
        &sys,
        sc,
        &state,
        sp0,
        Msg::TxnShareAcknowledge(staging(Some(0))),
    );
    assert_eq!(
        sent(&cmds),
        vec![(
            sp0,
            Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
                producer: pe(0),
                group: GroupId(0),
                error: ErrorCode::FencedStateEpoch,
                leader_epoch: None,
            })
        )]
    );
    assert!(sc_state(&after).pending.is_empty());
}

#[test]
fn a_leader_answered_fenced_state_epoch_reads_the_state_again() {
    let sys = reset_system(Design::proposed(), true);
    let (_, sc, sp0, p0, _) = ids(&sys);
    let (state, _) = start(&sys, sp0, None);
    let (state, _) = deliver(&sys, sp0, &state, sc, empty_state_read(1));
    let fetch = Msg::ShareFetch(ShareFetchRequest {
        member: MemberId(0),
        session_epoch: 0,
        max_records: 1,
        acks: Vec::new(),
    });
    let (state, _) = deliver(&sys, sp0, &state, p0, fetch);
    let (state, cmds) = deliver(
        &sys,
        sp0,
        &state,
        p0,
        Msg::TxnShareAcknowledge(staging(None)),
    );
    // The staging carries the leader's state epoch under the fence.
    assert!(sent(&cmds).iter().any(|(dst, m)| *dst == sc
        && matches!(m, Msg::TxnShareAcknowledge(r) if r.state_epoch == Some(0))));
    let fenced = Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
        producer: pe(0),
        group: GroupId(0),
        error: ErrorCode::FencedStateEpoch,
        leader_epoch: Some(1),
    });
    let (after, cmds) = deliver(&sys, sp0, &state, sc, fenced);
    let read = Msg::ReadShareGroupState(ReadShareGroupStateRequest {
        leader_epoch: 1,
        pending: true,
        partition: 0,
        refresh: false,
    });
    let not_leader = Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
        producer: pe(0),
        group: GroupId(0),
        error: ErrorCode::NotLeaderOrFollower,
        leader_epoch: None,
    });
    assert_eq!(sent(&cmds), vec![(p0, not_leader), (sc, read)]);
    let spl = after.share_partition().unwrap();
    assert!(!spl.loaded && !spl.fenced && spl.records.is_empty());
}
