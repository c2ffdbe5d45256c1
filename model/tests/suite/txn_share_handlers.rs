//! KIP-1289 handler tests: AddShareAcksToTxn at the transaction coordinator and
//! TxnShareAcknowledge plus its markers at the share coordinator, one message in, the
//! state and the answer out; and a restart replaying pending acks and markers.

use crate::common;

use common::{deliver, messages, pe, saved, sc_state, sc_state_mut, start, system, tc_state};
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::protocol::record_state::{AckType, RecordState};
use sharetxn_model::protocol::share_msg::*;
use sharetxn_model::protocol::txn_share_msg::*;
use sharetxn_model::share::share_coordinator_txn::TxnAckStatus;
use sharetxn_model::world::node::NodeState;
use sharetxn_model::Scenario;

/// Knobs under which a staging is written at once and a TV2 marker finds it.
const FIXED: &[&str] = &[
    "stage_verification=false",
    "marker_match=txn-epoch",
    "sc_replay_pending=true",
];

const TAG: Ghost<TxnTag> = Ghost::new(TxnTag {
    client: 0,
    incarnation: 0,
    attempt: 0,
});

fn stage(epoch: u8) -> Msg {
    Msg::TxnShareAcknowledge(TxnShareAcknowledgeRequest {
        group: Default::default(),
        members: Vec::new(),
        txn: TransactionalId(0),
        producer: pe(epoch.into()),
        member: MemberId(0),
        acks: vec![Acknowledgement {
            offset: 0,
            ack: AckType::Accept,
            tag: Ghost::new(DeliveryTag {
                member: MemberId(0),
                delivery_count: 1,
            }),
        }],
        tag: TAG,
        deliveries: Vec::new(),
        notify: false,
        leader_epoch: None,
        state_epoch: None,
    })
}

fn marker(epoch: u8, commit: bool) -> Msg {
    Msg::WriteTxnMarkers(WriteTxnMarkersRequest {
        producer: pe(epoch.into()),
        commit,
        coordinator_epoch: CoordinatorEpoch(0),
        partition: TopicPartition::ShareGroupState,
        tv: 2,
    })
}

#[test]
fn add_share_acks_to_txn_adds_share_group_state() {
    let sys = system(Design::seed(), Scenario::ctp(), &[]);
    let tc = sys.topology.txn_coordinator;
    let p0 = sys.topology.producers[0];
    let state = start(&sys, tc, None).0;
    let init = Msg::InitProducerId(InitProducerIdRequest::plain(TransactionalId(0)));
    let (state, _) = deliver(&sys, tc, &state, p0, init);
    let req = Msg::AddShareAcksToTxn(AddShareAcksToTxnRequest {
        group: Default::default(),
        txn: TransactionalId(0),
        producer: pe(0),
    });
    let (state, cmds) = deliver(&sys, tc, &state, p0, req);
    assert_eq!(
        messages(&cmds),
        vec![Msg::AddShareAcksToTxnResponse(AddShareAcksToTxnResponse {
            group: Default::default(),
            txn: TransactionalId(0),
            producer: pe(0),
            error: ErrorCode::None,
        })]
    );
    let s = tc_state(&state);
    let meta = &s.txns[&TransactionalId(0)];
    assert!(meta.partitions.contains(&TopicPartition::ShareGroupState));
    // A stale epoch is fenced, as for AddOffsetsToTxn.
    let (_, cmds) = deliver(
        &sys,
        tc,
        &state,
        p0,
        Msg::AddShareAcksToTxn(AddShareAcksToTxnRequest {
            group: Default::default(),
            txn: TransactionalId(0),
            producer: ProducerIdAndEpoch {
                pid: ProducerId(9),
                epoch: ProducerEpoch(0),
            },
        }),
    );
    assert!(matches!(
        messages(&cmds)[..],
        [Msg::AddShareAcksToTxnResponse(AddShareAcksToTxnResponse { error, .. })] if error != ErrorCode::None
    ));
}

#[test]
fn txn_share_acknowledge_stays_pending_until_commit_marker() {
    let sys = system(Design::seed(), Scenario::ctp(), FIXED);
    let sc = sys.topology.share_coordinator.unwrap();
    let p0 = sys.topology.producers[0];
    let tc = sys.topology.txn_coordinator;
    let state = start(&sys, sc, None).0;
    let (state, cmds) = deliver(&sys, sc, &state, p0, stage(0));
    assert_eq!(
        messages(&cmds),
        vec![Msg::TxnShareAcknowledgeResponse(
            TxnShareAcknowledgeResponse {
                group: Default::default(),
                producer: pe(0),
                error: ErrorCode::None,
                leader_epoch: None,
            }
        )]
    );
    assert_eq!(
        sc_state(&state).txn_ack_status(TAG),
        Some(TxnAckStatus::Pending)
    );
    assert_eq!(sc_state(&state).state.state_of(0), None);
    // The TV2 marker carries the bumped epoch.
    let (state, cmds) = deliver(&sys, sc, &state, tc, marker(1, true));
    assert!(matches!(
        messages(&cmds)[..],
        [Msg::WriteTxnMarkersResponse(WriteTxnMarkersResponse {
            error: ErrorCode::None,
            partition: TopicPartition::ShareGroupState,
            commit: true,
            ..
        })]
    ));
    assert_eq!(
        sc_state(&state).txn_ack_status(TAG),
        Some(TxnAckStatus::Committed)
    );
    // A client's TxnShareAcknowledge carries no delivery count and none is persisted yet
    // (acquisitions are not): the coordinator writes 0, not the delivery the client acked.
    assert_eq!(
        sc_state(&state).state.state_of(0),
        Some((RecordState::Acknowledged, 0))
    );
}

#[test]
fn abort_marker_discards_and_restart_replays() {
    let sys = system(Design::seed(), Scenario::ctp(), FIXED);
    let sc = sys.topology.share_coordinator.unwrap();
    let p0 = sys.topology.producers[0];
    let tc = sys.topology.txn_coordinator;
    let state = start(&sys, sc, None).0;
    let (staged, cmds) = deliver(&sys, sc, &state, p0, stage(0));
    // A restart with the acks staged replays them as pending.
    let reloaded = start(&sys, sc, saved(&cmds).pop()).0;
    assert_eq!(
        sc_state(&reloaded).txn_ack_status(TAG),
        Some(TxnAckStatus::Pending)
    );
    assert_eq!(sc_state(&reloaded), sc_state(&staged));
    let (state, cmds) = deliver(&sys, sc, &staged, tc, marker(1, false));
    assert_eq!(
        sc_state(&state).txn_ack_status(TAG),
        Some(TxnAckStatus::Aborted)
    );
    assert_eq!(sc_state(&state).state.state_of(0), None);
    let reloaded = start(&sys, sc, saved(&cmds).pop()).0;
    assert_eq!(sc_state(&reloaded), sc_state(&state));
}

#[test]
fn stale_staging_and_markers_are_fenced() {
    let sys = system(Design::seed(), Scenario::ctp(), FIXED);
    let sc = sys.topology.share_coordinator.unwrap();
    let p0 = sys.topology.producers[0];
    let tc = sys.topology.txn_coordinator;
    let state = start(&sys, sc, None).0;
    let (state, _) = deliver(&sys, sc, &state, p0, stage(2));
    let (_, cmds) = deliver(&sys, sc, &state, p0, stage(1));
    assert!(matches!(
        messages(&cmds)[..],
        [Msg::TxnShareAcknowledgeResponse(
            TxnShareAcknowledgeResponse {
                error: ErrorCode::InvalidProducerEpoch,
                ..
            }
        )]
    ));
    let (after, cmds) = deliver(&sys, sc, &state, tc, marker(1, true));
    assert!(matches!(
        messages(&cmds)[..],
        [Msg::WriteTxnMarkersResponse(WriteTxnMarkersResponse {
            error: ErrorCode::InvalidProducerEpoch,
            ..
        })]
    ));
    assert_eq!(after, state);
}

fn status_of(state: &NodeState) -> Option<TxnAckStatus> {
    sc_state(state).txn_ack_status(TAG)
}

#[test]
fn seed_verifies_a_staging_with_the_transaction_coordinator_first() {
    let sys = system(Design::seed(), Scenario::ctp(), &[]);
    let sc = sys.topology.share_coordinator.unwrap();
    let p0 = sys.topology.producers[0];
    let tc = sys.topology.txn_coordinator;
    let state = start(&sys, sc, None).0;
    let (parked, cmds) = deliver(&sys, sc, &state, p0, stage(0));
    let [Msg::AddPartitionsToTxn(verify)] = &messages(&cmds)[..] else {
        panic!("expected a verification, got {:?}", messages(&cmds))
    };
    assert_eq!(verify.partitions, vec![TopicPartition::ShareGroupState]);
    assert_eq!(status_of(&parked), None, "nothing staged before the answer");
    let answer = |error| {
        Msg::AddPartitionsToTxnResponse(AddPartitionsToTxnResponse {
            txn: verify.txn,
            producer: verify.producer,
            partitions: verify.partitions.clone(),
            mode: verify.mode,
            error,
        })
    };
    let (staged, cmds) = deliver(&sys, sc, &parked, tc, answer(ErrorCode::None));
    assert_eq!(status_of(&staged), Some(TxnAckStatus::Pending));
    assert!(matches!(
        messages(&cmds)[..],
        [Msg::TxnShareAcknowledgeResponse(
            TxnShareAcknowledgeResponse {
                error: ErrorCode::None,
                ..
            }
        )]
    ));
    // A transaction the coordinator no longer has open: the staging is refused.
    let (refused, cmds) = deliver(
        &sys,
        sc,
        &parked,
        tc,
        answer(ErrorCode::TransactionAbortable),
    );
    assert_eq!(status_of(&refused), None);
    assert!(matches!(
        messages(&cmds)[..],
        [Msg::TxnShareAcknowledgeResponse(
            TxnShareAcknowledgeResponse {
                error: ErrorCode::TransactionAbortable,
                ..
            }
        )]
    ));
}

#[test]
fn exact_epoch_commit_marker_finds_nothing_under_tv2() {
    let sys = system(
        Design::seed(),
        Scenario::ctp(),
        &["stage_verification=false"],
    );
    let sc = sys.topology.share_coordinator.unwrap();
    let p0 = sys.topology.producers[0];
    let tc = sys.topology.txn_coordinator;
    let state = start(&sys, sc, None).0;
    let (state, _) = deliver(&sys, sc, &state, p0, stage(0));
    let (state, cmds) = deliver(&sys, sc, &state, tc, marker(1, true));
    assert!(matches!(
        messages(&cmds)[..],
        [Msg::WriteTxnMarkersResponse(WriteTxnMarkersResponse {
            error: ErrorCode::None,
            ..
        })]
    ));
    assert_eq!(status_of(&state), Some(TxnAckStatus::Pending), "orphaned");
    assert_eq!(
        sc_state(&state).state.state_of(0),
        None,
        "the commit is lost"
    );
    // The marker is in the log: a late staging of the old epoch is fenced by it.
    let (_, cmds) = deliver(&sys, sc, &state, p0, stage(0));
    assert!(matches!(
        messages(&cmds)[..],
        [Msg::TxnShareAcknowledgeResponse(
            TxnShareAcknowledgeResponse {
                error: ErrorCode::InvalidProducerEpoch,
                ..
            }
        )]
    ));
}

#[test]
fn seed_load_replays_staged_acks_as_committed_state() {
    let sys = system(
        Design::seed(),
        Scenario::ctp(),
        &["stage_verification=false"],
    );
    let sc = sys.topology.share_coordinator.unwrap();
    let p0 = sys.topology.producers[0];
    let state = start(&sys, sc, None).0;
    let (_, cmds) = deliver(&sys, sc, &state, p0, stage(0));
    let reloaded = start(&sys, sc, saved(&cmds).pop()).0;
    assert_eq!(status_of(&reloaded), Some(TxnAckStatus::Committed));
    assert_eq!(
        sc_state(&reloaded).state.state_of(0),
        Some((RecordState::Acknowledged, 0))
    );
    assert!(reloaded.pending_acks().is_empty());
    assert_eq!(reloaded.applied_acks().len(), 1);
    assert!(!reloaded.applied_acks()[0].by_marker);
}

#[test]
fn a_repeated_tv2_marker_resolves_the_next_staging_by_producer_id_but_not_by_txn_epoch() {
    for (matching, resolved) in [("producer-id", true), ("txn-epoch", false)] {
        let set = format!("marker_match={matching}");
        let sys = system(
            Design::seed(),
            Scenario::ctp(),
            &["stage_verification=false", &set],
        );
        let sc = sys.topology.share_coordinator.unwrap();
        let p0 = sys.topology.producers[0];
        let tc = sys.topology.txn_coordinator;
        let state = start(&sys, sc, None).0;
        // The next transaction stages with the epoch the previous one's marker carried.
        let (state, _) = deliver(&sys, sc, &state, p0, stage(1));
        let (state, cmds) = deliver(&sys, sc, &state, tc, marker(1, true));
        let expected = if resolved {
            ErrorCode::None
        } else {
            ErrorCode::InvalidProducerEpoch
        };
        assert!(
            matches!(
                messages(&cmds)[..],
                [Msg::WriteTxnMarkersResponse(WriteTxnMarkersResponse { error, .. })] if error == expected
            ),
            "{matching}"
        );
        let want = if resolved {
            TxnAckStatus::Committed
        } else {
            TxnAckStatus::Pending
        };
        assert_eq!(status_of(&state), Some(want), "{matching}");
    }
}

/// A staging `stage(0)` that carries the delivery counts a staging leader puts on it.
fn stage_carrying(delivery_count: u8) -> Msg {
    let Msg::TxnShareAcknowledge(req) = stage(0) else {
        unreachable!("stage builds a TxnShareAcknowledge")
    };
    Msg::TxnShareAcknowledge(TxnShareAcknowledgeRequest {
        members: Vec::new(),
        deliveries: vec![AcquiredRecord {
            offset: 0,
            delivery_count,
        }],
        ..req
    })
}

/// The coordinator writes an acknowledgement with a delivery count it has: the one a staging
/// leader carried, else the one it persisted for the offset, never the client's ghost tag of
/// the delivery it acked (which says 1 in every staging here).
#[test]
fn a_committed_ack_keeps_the_delivery_count_the_coordinator_knows() {
    let sys = system(Design::seed(), Scenario::ctp(), FIXED);
    let sc = sys.topology.share_coordinator.unwrap();
    let p0 = sys.topology.producers[0];
    let tc = sys.topology.txn_coordinator;
    let state = start(&sys, sc, None).0;
    let (state, _) = deliver(&sys, sc, &state, p0, stage_carrying(3));
    let (state, _) = deliver(&sys, sc, &state, tc, marker(1, true));
    assert_eq!(
        sc_state(&state).state.state_of(0),
        Some((RecordState::Acknowledged, 3))
    );

    let mut state = start(&sys, sc, None).0;
    let s = sc_state_mut(&mut state);
    s.state.merge(
        0,
        &[sharetxn_model::protocol::share_state::StateBatch {
            offset: 0,
            state: RecordState::Available,
            delivery_count: 2,
        }],
    );
    let (state, _) = deliver(&sys, sc, &state, p0, stage(0));
    let (state, _) = deliver(&sys, sc, &state, tc, marker(1, true));
    assert_eq!(
        sc_state(&state).state.state_of(0),
        Some((RecordState::Acknowledged, 2))
    );
}
