//! KIP-1289 at the share-partition leader: TX_PENDING's transitions, one message in, the
//! state and the answer out (staging, its durable answer or rollback, the COMMIT or ABORT
//! outcome, `refresh()`'s inference, the owner check, and a rebuilt leader).

use crate::common;
use common::staging;

use common::{deliver, fire, pe, sent, spl_state, start, system};
use sharetxn_model::design::spl_knobs::{LeaderResolution, StageOwnerCheck};
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::protocol::record_state::RecordState;
use sharetxn_model::protocol::share_msg::*;
use sharetxn_model::protocol::share_state::{ShareState, StateBatch};
use sharetxn_model::protocol::txn_share_msg::*;
use sharetxn_model::share::share_coordinator_txn::PendingAcks;
use sharetxn_model::world::node::NodeState;
use sharetxn_model::{Scenario, System};
use stateright::actor::{Command, Id};

const TAG: Ghost<TxnTag> = Ghost::new(TxnTag {
    client: 0,
    incarnation: 0,
    attempt: 0,
});

/// The leader loaded (with `pending` rebuilt from the coordinator) and P0 holding offset
/// 0 at delivery 1.
fn acquired(sys: &System, pending: Vec<PendingAcks>) -> NodeState {
    let (sp, sc, p0) = ids(sys);
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
            pending,
            refresh: false,
        }),
    );
    let fetch = Msg::ShareFetch(ShareFetchRequest {
        member: MemberId(0),
        session_epoch: 0,
        max_records: 1,
        acks: Vec::new(),
    });
    deliver(sys, sp, &state, p0, fetch).0
}

fn ids(sys: &System) -> (Id, Id, Id) {
    (
        sys.topology.share_partition.unwrap(),
        sys.topology.share_coordinator.unwrap(),
        sys.topology.producers[0],
    )
}

fn stage(delivery_count: u8) -> TxnShareAcknowledgeRequest {
    TxnShareAcknowledgeRequest {
        acks: vec![staging::ack(0, delivery_count)],
        tag: TAG,
        deliveries: vec![AcquiredRecord {
            offset: 0,
            delivery_count,
        }],
        ..staging::accept(0)
    }
}

fn record(state: &NodeState) -> (RecordState, u8) {
    let s = spl_state(state);
    let r = &s.records[&0];
    (r.state, r.delivery_count)
}

fn staged_at_leader(sys: &System) -> NodeState {
    let (sp, sc, p0) = ids(sys);
    let state = acquired(sys, Vec::new());
    let (state, cmds) = deliver(sys, sp, &state, p0, Msg::TxnShareAcknowledge(stage(1)));
    assert_eq!(record(&state), (RecordState::TxPending, 1));
    // The staging goes to the coordinator with the leader's own delivery count (what the
    // coordinator writes); the client waits for it to be durable.
    let out = sent(&cmds);
    let leaders_count = [AcquiredRecord {
        offset: 0,
        delivery_count: 1,
    }];
    assert!(matches!(&out[..], [(dst, Msg::TxnShareAcknowledge(f))]
        if *dst == sc && f.producer == pe(0) && f.deliveries == leaders_count));
    // TX_PENDING is out of lock expiry.
    assert!(cmds
        .iter()
        .any(|c| matches!(c, Command::CancelTimer(Timer::AcquisitionLock(0)))));
    let (state, cmds) = deliver(
        sys,
        sp,
        &state,
        sc,
        Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
            group: Default::default(),
            producer: pe(0),
            error: ErrorCode::None,
            leader_epoch: None,
        }),
    );
    assert_eq!(
        sent(&cmds),
        vec![(
            p0,
            Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
                group: Default::default(),
                producer: pe(0),
                error: ErrorCode::None,
                leader_epoch: None,
            })
        )]
    );
    state
}

fn resolved(commit: bool) -> Msg {
    Msg::TxnShareAcksResolved(TxnShareAcksResolvedRequest {
        producer: pe(0),
        commit,
        offsets: vec![0],
        leader_epoch: None,
    })
}

#[test]
fn notify_commit_acknowledges_and_abort_releases() {
    let sys = system(Design::proposed(), Scenario::ctp(), &[]);
    let (sp, sc, _) = ids(&sys);
    let state = staged_at_leader(&sys);
    let (committed, cmds) = deliver(&sys, sp, &state, sc, resolved(true));
    assert_eq!(
        record_or_gone(&committed),
        None,
        "ACKNOWLEDGED moves the start offset"
    );
    assert!(
        matches!(&sent(&cmds)[..], [(dst, Msg::TxnShareAcksResolvedResponse(_))] if *dst == sc)
    );
    let (aborted, cmds) = deliver(&sys, sp, &state, sc, resolved(false));
    assert_eq!(record(&aborted), (RecordState::Available, 1), "no refund");
    // The release is persisted, as a lock expiry's is.
    assert!(sent(&cmds).iter().any(|(_, m)| matches!(m,
        Msg::WriteShareGroupState(w) if w.batches == vec![StateBatch { offset: 0, state: RecordState::Available, delivery_count: 1 }])));
    // An outcome for another producer epoch leaves the record alone, and is answered.
    let other = Msg::TxnShareAcksResolved(TxnShareAcksResolvedRequest {
        producer: pe(3),
        commit: false,
        offsets: vec![0],
        leader_epoch: None,
    });
    let (same, cmds) = deliver(&sys, sp, &state, sc, other);
    assert_eq!(record(&same), (RecordState::TxPending, 1));
    assert_eq!(sent(&cmds).len(), 1);
}

fn record_or_gone(state: &NodeState) -> Option<RecordState> {
    let s = spl_state(state);
    s.records.get(&0).map(|r| r.state)
}

#[test]
fn a_failed_staging_rolls_back_to_acquired() {
    let sys = system(Design::proposed(), Scenario::ctp(), &[]);
    let (sp, sc, p0) = ids(&sys);
    let state = acquired(&sys, Vec::new());
    let (state, _) = deliver(&sys, sp, &state, p0, Msg::TxnShareAcknowledge(stage(1)));
    let (state, cmds) = deliver(
        &sys,
        sp,
        &state,
        sc,
        Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
            group: Default::default(),
            producer: pe(0),
            error: ErrorCode::InvalidProducerEpoch,
            leader_epoch: None,
        }),
    );
    assert_eq!(record(&state), (RecordState::Acquired, 1));
    assert!(cmds
        .iter()
        .any(|c| matches!(c, Command::SetTimer(Timer::AcquisitionLock(0), _))));
    assert!(
        matches!(&sent(&cmds)[..], [(dst, Msg::TxnShareAcknowledgeResponse(r))]
        if *dst == p0 && r.error == ErrorCode::InvalidProducerEpoch)
    );
}

#[test]
fn a_timed_out_verification_sends_the_staging_again() {
    let sys = system(Design::proposed(), Scenario::ctp(), &[]);
    let (sp, sc, p0) = ids(&sys);
    let state = acquired(&sys, Vec::new());
    let (staging, cmds) = deliver(&sys, sp, &state, p0, Msg::TxnShareAcknowledge(stage(1)));
    let [(_, forward)] = &sent(&cmds)[..] else {
        panic!("one staging: {cmds:?}")
    };
    // The coordinator's inter-broker request timeout: NETWORK_EXCEPTION, retriable.
    let (after, cmds) = deliver(
        &sys,
        sp,
        &staging,
        sc,
        Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
            group: Default::default(),
            producer: pe(0),
            error: ErrorCode::NetworkException,
            leader_epoch: None,
        }),
    );
    // Exactly the same staging again, to the coordinator; the client still waits, the
    // record stays TX_PENDING out of lock expiry, and the resend timer stays armed.
    assert_eq!(cmds.len(), 1, "{cmds:?}");
    assert_eq!(sent(&cmds), vec![(sc, forward.clone())]);
    assert_eq!(after, staging);
}

#[test]
fn the_acquisition_check_rejects_an_earlier_delivery_the_member_check_does_not() {
    let (sys, mut member) = (
        system(Design::proposed(), Scenario::ctp(), &[]),
        Design::proposed(),
    );
    member.stage_owner_check = StageOwnerCheck::MemberEpoch;
    let member_sys = system(member, Scenario::ctp(), &[]);
    let (sp, _, p0) = ids(&sys);
    // P0 holds delivery 1; a staging made for delivery 2 (or a late one for 0) is foreign.
    let state = acquired(&sys, Vec::new());
    let (kept, cmds) = deliver(&sys, sp, &state, p0, Msg::TxnShareAcknowledge(stage(2)));
    assert_eq!(record(&kept), (RecordState::Acquired, 1));
    assert!(
        matches!(&sent(&cmds)[..], [(_, Msg::TxnShareAcknowledgeResponse(r))]
        if r.error == ErrorCode::InvalidRecordState)
    );
    let state = acquired(&member_sys, Vec::new());
    let (staged, _) = deliver(
        &member_sys,
        sp,
        &state,
        p0,
        Msg::TxnShareAcknowledge(stage(2)),
    );
    assert_eq!(record(&staged), (RecordState::TxPending, 1));
}

#[test]
fn refresh_takes_a_missing_commit_for_an_abort() {
    // The draft's earlier leader resolution; the `draft` design now guards its refresh.
    let sys = system(
        Design::draft(),
        Scenario::ctp(),
        &["leader_resolution=refresh"],
    );
    assert_eq!(sys.design.leader_resolution, LeaderResolution::Refresh);
    let (sp, sc, _) = ids(&sys);
    let state = staged_at_leader(&sys);
    let (state, cmds) = fire(&sys, sp, &state, Timer::TxnRefresh);
    assert!(matches!(&sent(&cmds)[..], [(dst, Msg::ReadShareGroupState(_))] if *dst == sc));
    // The marker has not reached the coordinator yet: nothing persisted for offset 0.
    let (state, _) = deliver(
        &sys,
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
    assert_eq!(record(&state), (RecordState::Available, 1));
}

#[test]
fn a_new_leader_rebuilds_tx_pending_from_the_coordinator() {
    let pending = vec![PendingAcks {
        producer: pe(0),
        tag: TAG,
        batches: vec![StateBatch {
            offset: 0,
            state: RecordState::Acknowledged,
            delivery_count: 1,
        }],
        notify: None,
        state_epoch: 0,
        partition: 0,
    }];
    let sys = system(Design::proposed(), Scenario::ctp(), &[]);
    let state = acquired(&sys, pending.clone());
    // Not acquirable: the fetch found nothing and waits.
    assert_eq!(record(&state), (RecordState::TxPending, 1));
    let mut draft = Design::draft();
    draft.rebuild_pending = false;
    let sys = system(draft, Scenario::ctp(), &[]);
    let state = acquired(&sys, pending);
    assert_eq!(
        record(&state),
        (RecordState::Acquired, 1),
        "loaded AVAILABLE, then acquired"
    );
}
