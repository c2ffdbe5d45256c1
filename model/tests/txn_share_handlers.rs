//! KIP-1289 handler tests: AddShareAcksToTxn at the transaction coordinator and
//! TxnShareAcknowledge plus its markers at the share coordinator, one message in, the
//! state and the answer out; and a restart replaying pending acks and markers.

use sharetxn_model::design::Design;
use sharetxn_model::error::ErrorCode;
use sharetxn_model::ids::*;
use sharetxn_model::msg::*;
use sharetxn_model::node::{NodeState, NodeStorage};
use sharetxn_model::record_state::{AckType, RecordState};
use sharetxn_model::share_coordinator_txn::TxnAckStatus;
use sharetxn_model::share_msg::*;
use sharetxn_model::txn_share_msg::*;
use sharetxn_model::{Scenario, System};
use stateright::actor::{Actor, Command, Id, Out};
use std::borrow::Cow;

type Cmd = Command<Msg, Timer, ClientChoice, NodeStorage>;

fn system() -> System {
    System::new(Design::seed(), Scenario::ctp())
}

fn deliver(sys: &System, id: Id, state: &NodeState, src: Id, msg: Msg) -> (NodeState, Vec<Cmd>) {
    let mut cow = Cow::Borrowed(state);
    let mut out = Out::new();
    sys.actors[usize::from(id)].on_msg(id, &mut cow, src, msg, &mut out);
    (cow.into_owned(), out.into_iter().collect())
}

fn start(sys: &System, id: Id, storage: Option<NodeStorage>) -> NodeState {
    let mut out = Out::new();
    sys.actors[usize::from(id)].on_start(id, &storage, &mut out)
}

fn sent(cmds: &[Cmd]) -> Vec<Msg> {
    cmds.iter()
        .filter_map(|c| match c {
            Command::Send(_, m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

fn saved(cmds: &[Cmd]) -> Option<NodeStorage> {
    cmds.iter().rev().find_map(|c| match c {
        Command::Save(s) => Some(s.clone()),
        _ => None,
    })
}

fn pe(epoch: u8) -> ProducerIdAndEpoch {
    ProducerIdAndEpoch {
        pid: ProducerId(0),
        epoch: ProducerEpoch(epoch),
    }
}

const TAG: TxnTag = TxnTag {
    client: 0,
    incarnation: 0,
    attempt: 0,
};

fn stage(epoch: u8) -> Msg {
    Msg::TxnShareAcknowledge(TxnShareAcknowledgeRequest {
        txn: TransactionalId(0),
        producer: pe(epoch),
        member: MemberId(0),
        acks: vec![Acknowledgement {
            offset: 0,
            ack: AckType::Accept,
            tag: DeliveryTag {
                member: MemberId(0),
                delivery_count: 1,
            },
        }],
        tag: TAG,
    })
}

fn marker(epoch: u8, commit: bool) -> Msg {
    Msg::WriteTxnMarkers(WriteTxnMarkersRequest {
        producer: pe(epoch),
        commit,
        coordinator_epoch: CoordinatorEpoch(0),
        partition: TopicPartition::ShareGroupState,
        tv: 2,
    })
}

fn sc_state(state: &NodeState) -> &sharetxn_model::share_coordinator::ShareCoordinatorState {
    match state {
        NodeState::ShareCoordinator(s) => s,
        _ => panic!("not the share coordinator"),
    }
}

#[test]
fn add_share_acks_to_txn_adds_share_group_state() {
    let sys = system();
    let tc = sys.topology.txn_coordinator;
    let p0 = sys.topology.producers[0];
    let state = start(&sys, tc, None);
    let init = Msg::InitProducerId(InitProducerIdRequest {
        txn: TransactionalId(0),
    });
    let (state, _) = deliver(&sys, tc, &state, p0, init);
    let req = Msg::AddShareAcksToTxn(AddShareAcksToTxnRequest {
        txn: TransactionalId(0),
        producer: pe(0),
    });
    let (state, cmds) = deliver(&sys, tc, &state, p0, req);
    assert_eq!(
        sent(&cmds),
        vec![Msg::AddShareAcksToTxnResponse(AddShareAcksToTxnResponse {
            txn: TransactionalId(0),
            producer: pe(0),
            error: ErrorCode::None,
        })]
    );
    let NodeState::TxnCoordinator(s) = &state else {
        panic!("not the transaction coordinator")
    };
    let meta = &s.txns[&TransactionalId(0)];
    assert!(meta.partitions.contains(&TopicPartition::ShareGroupState));
    // A stale epoch is fenced, as for AddOffsetsToTxn.
    let (_, cmds) = deliver(
        &sys,
        tc,
        &state,
        p0,
        Msg::AddShareAcksToTxn(AddShareAcksToTxnRequest {
            txn: TransactionalId(0),
            producer: ProducerIdAndEpoch {
                pid: ProducerId(9),
                epoch: ProducerEpoch(0),
            },
        }),
    );
    assert!(matches!(
        sent(&cmds)[..],
        [Msg::AddShareAcksToTxnResponse(AddShareAcksToTxnResponse { error, .. })] if error != ErrorCode::None
    ));
}

#[test]
fn txn_share_acknowledge_stays_pending_until_commit_marker() {
    let sys = system();
    let sc = sys.topology.share_coordinator.unwrap();
    let p0 = sys.topology.producers[0];
    let tc = sys.topology.txn_coordinator;
    let state = start(&sys, sc, None);
    let (state, cmds) = deliver(&sys, sc, &state, p0, stage(0));
    assert_eq!(
        sent(&cmds),
        vec![Msg::TxnShareAcknowledgeResponse(
            TxnShareAcknowledgeResponse {
                producer: pe(0),
                error: ErrorCode::None,
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
        sent(&cmds)[..],
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
    assert_eq!(
        sc_state(&state).state.state_of(0),
        Some((RecordState::Acknowledged, 1))
    );
}

#[test]
fn abort_marker_discards_and_restart_replays() {
    let sys = system();
    let sc = sys.topology.share_coordinator.unwrap();
    let p0 = sys.topology.producers[0];
    let tc = sys.topology.txn_coordinator;
    let state = start(&sys, sc, None);
    let (staged, cmds) = deliver(&sys, sc, &state, p0, stage(0));
    // A restart with the acks staged replays them as pending.
    let reloaded = start(&sys, sc, saved(&cmds));
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
    let reloaded = start(&sys, sc, saved(&cmds));
    assert_eq!(sc_state(&reloaded), sc_state(&state));
}

#[test]
fn stale_staging_and_markers_are_fenced() {
    let sys = system();
    let sc = sys.topology.share_coordinator.unwrap();
    let p0 = sys.topology.producers[0];
    let tc = sys.topology.txn_coordinator;
    let state = start(&sys, sc, None);
    let (state, _) = deliver(&sys, sc, &state, p0, stage(2));
    let (_, cmds) = deliver(&sys, sc, &state, p0, stage(1));
    assert!(matches!(
        sent(&cmds)[..],
        [Msg::TxnShareAcknowledgeResponse(
            TxnShareAcknowledgeResponse {
                error: ErrorCode::InvalidProducerEpoch,
                ..
            }
        )]
    ));
    let (after, cmds) = deliver(&sys, sc, &state, tc, marker(1, true));
    assert!(matches!(
        sent(&cmds)[..],
        [Msg::WriteTxnMarkersResponse(WriteTxnMarkersResponse {
            error: ErrorCode::InvalidProducerEpoch,
            ..
        })]
    ));
    assert_eq!(after, state);
}
