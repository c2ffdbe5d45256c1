//! Handler tests of the share coordinator's cases of docs/kafka-cases.md that need Kafka's
//! own routing and log rules: a marker for `__share_group_state` as `KafkaApis` routes it
//! today (S9), and a marker from a deposed transaction coordinator (S6 (c)).

use crate::common;

use common::{deliver, messages, pe, start, system};
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::protocol::record_state::{AckType, RecordState};
use sharetxn_model::protocol::share_msg::*;
use sharetxn_model::protocol::txn_share_msg::*;
use sharetxn_model::share::share_coordinator::{ShareCoordinatorState, ShareRecord};
use sharetxn_model::share::share_coordinator_txn::TxnAckStatus;
use sharetxn_model::world::node::{NodeState, NodeStorage};
use sharetxn_model::{Scenario, System};
use stateright::actor::Id;

/// Knobs under which a staging is written at once and a TV2 marker finds it.
const FIXED: &[&str] = &[
    "stage_verification=false",
    "marker_match=txn-epoch",
    "sc_replay_pending=true",
];

fn tag(attempt: u8) -> Ghost<TxnTag> {
    Ghost::new(TxnTag {
        client: 0,
        incarnation: 0,
        attempt,
    })
}

/// The client's staging of offset `offset` in its transaction `attempt`, at `epoch`.
fn stage(epoch: u16, offset: u64, attempt: u8) -> Msg {
    Msg::TxnShareAcknowledge(TxnShareAcknowledgeRequest {
        group: Default::default(),
        members: Vec::new(),
        txn: TransactionalId(0),
        producer: pe(epoch),
        member: MemberId(0),
        acks: vec![Acknowledgement {
            offset: offset.try_into().expect("a small offset"),
            ack: AckType::Accept,
            tag: Ghost::new(DeliveryTag {
                member: MemberId(0),
                delivery_count: 1,
            }),
        }],
        tag: tag(attempt),
        deliveries: Vec::new(),
        notify: false,
        leader_epoch: None,
        state_epoch: None,
    })
}

fn marker(epoch: u16, commit: bool, coordinator_epoch: u16) -> Msg {
    marker_tv(epoch, commit, coordinator_epoch, 2)
}

/// A marker of transaction version `tv` (1: the epoch is the transaction's own, not bumped).
fn marker_tv(epoch: u16, commit: bool, coordinator_epoch: u16, tv: u8) -> Msg {
    Msg::WriteTxnMarkers(WriteTxnMarkersRequest {
        producer: pe(epoch),
        commit,
        coordinator_epoch: CoordinatorEpoch(coordinator_epoch),
        partition: TopicPartition::ShareGroupState,
        tv,
    })
}

/// The share coordinator of `ctp` under `seed` with `knob` on, after the first
/// transaction's staging (epoch 0, offset 0, attempt 0): the system, the share
/// coordinator, the producer that stages, the transaction coordinator that sends the
/// markers, and the share coordinator's state.
fn staged(knob: &str) -> (System, Id, Id, Id, NodeState) {
    let mut settings = FIXED.to_vec();
    settings.push(knob);
    let sys = system(Design::seed(), Scenario::ctp(), &settings);
    let id = sys.topology.share_coordinator.unwrap();
    let (p0, tc) = (sys.topology.producers[0], sys.topology.txn_coordinator);
    let state = start(&sys, id, None).0;
    let (state, _) = deliver(&sys, id, &state, p0, stage(0, 0, 0));
    (sys, id, p0, tc, state)
}

fn sc(state: &NodeState) -> &ShareCoordinatorState {
    match state {
        NodeState::ShareCoordinator(s) => s,
        _ => panic!("not the share coordinator"),
    }
}

fn answer(msgs: &[Msg]) -> ErrorCode {
    match msgs {
        [Msg::WriteTxnMarkersResponse(r)] => r.error,
        other => panic!("not one marker answer: {other:?}"),
    }
}

/// S9, Kafka's routing (`sc_live_markers=false`): `KafkaApis.handleWriteTxnMarkersRequest`
/// (1eb7644) appends the COMMIT marker to `__share_group_state` and answers NONE, but the
/// live shard never replays it: the staged acknowledgement stays pending and the share
/// state does not change. Only a load (`replayEndTransactionMarker`) applies it.
#[test]
fn a_marker_routed_as_kafka_routes_it_today_resolves_only_at_the_next_load() {
    let (sys, id, _, tc, state) = staged("sc_live_markers=false");
    let (state, cmds) = deliver(&sys, id, &state, tc, marker(1, true, 0));
    assert_eq!(answer(&messages(&cmds)), ErrorCode::None);
    assert!(matches!(
        sc(&state).log.last(),
        Some(ShareRecord::TxnMarker { commit: true, .. })
    ));
    assert_eq!(
        sc(&state).txn_ack_status(tag(0)),
        Some(TxnAckStatus::Pending)
    );
    assert_eq!(sc(&state).state.state_of(0), None);
    // The log's producer state took the marker: a retry writes nothing, an older epoch is
    // fenced, as at a data partition under TV2.
    let (again, cmds) = deliver(&sys, id, &state, tc, marker(1, true, 0));
    assert_eq!(answer(&messages(&cmds)), ErrorCode::None);
    assert_eq!(sc(&again).log, sc(&state).log);
    let (_, cmds) = deliver(&sys, id, &state, tc, marker(0, true, 0));
    assert_eq!(answer(&messages(&cmds)), ErrorCode::InvalidProducerEpoch);
    // A load replays the marker and commits the acknowledgement.
    let reloaded = start(&sys, id, storage(&state)).0;
    assert_eq!(
        sc(&reloaded).txn_ack_status(tag(0)),
        Some(TxnAckStatus::Committed)
    );
    assert_eq!(
        sc(&reloaded).state.state_of(0),
        Some((RecordState::Acknowledged, 0))
    );
}

/// What a restart of the coordinator in `state` loads: its log, as every append saves it.
fn storage(state: &NodeState) -> Option<NodeStorage> {
    Some(NodeStorage::ShareCoordinator(sc(state).log.clone()))
}

/// The same marker with every design's value (`sc_live_markers=true`) resolves the staged
/// acknowledgement at once, which the designs' text asks for.
#[test]
fn a_live_marker_resolves_at_once() {
    let sys = system(Design::seed(), Scenario::ctp(), FIXED);
    let id = sys.topology.share_coordinator.unwrap();
    let (p0, tc) = (sys.topology.producers[0], sys.topology.txn_coordinator);
    let state = start(&sys, id, None).0;
    let (state, _) = deliver(&sys, id, &state, p0, stage(0, 0, 0));
    let (state, _) = deliver(&sys, id, &state, tc, marker(1, true, 0));
    assert_eq!(
        sc(&state).txn_ack_status(tag(0)),
        Some(TxnAckStatus::Committed)
    );
}

/// S6 (c): with `sc_coordinator_epoch` (the default), a marker carrying a coordinator epoch older than
/// the last marker the log wrote for the producer id is TRANSACTION_COORDINATOR_FENCED and
/// changes nothing, as `ProducerAppendInfo.appendEndTxnMarker` (1eb7644) fences it at every
/// partition; the epoch survives a load. Without the knob only the producer epoch decides,
/// and the deposed coordinator's ABORT discards the next transaction's acknowledgement.
#[test]
fn a_deposed_coordinators_marker_is_fenced_by_coordinator_epoch() {
    let (sys, id, p0, tc, state) = staged("sc_coordinator_epoch=true");
    // The new coordinator (epoch 1) completes the first transaction.
    let (state, cmds) = deliver(&sys, id, &state, tc, marker(1, true, 1));
    assert_eq!(answer(&messages(&cmds)), ErrorCode::None);
    let (state, _) = deliver(&sys, id, &state, p0, stage(1, 1, 1));
    // The deposed coordinator (epoch 0) sends an ABORT with the current producer epoch.
    let (after, cmds) = deliver(&sys, id, &state, tc, marker(2, false, 0));
    assert_eq!(
        answer(&messages(&cmds)),
        ErrorCode::TransactionCoordinatorFenced
    );
    assert_eq!(after, state);
    assert_eq!(
        sc(&after).txn_ack_status(tag(1)),
        Some(TxnAckStatus::Pending)
    );
    let reloaded = start(&sys, id, storage(&state)).0;
    let (_, cmds) = deliver(&sys, id, &reloaded, tc, marker(2, false, 0));
    assert_eq!(
        answer(&messages(&cmds)),
        ErrorCode::TransactionCoordinatorFenced
    );
    // The model's earlier rule: the same ABORT is taken.
    let earlier: Vec<&str> = FIXED
        .iter()
        .copied()
        .chain(["sc_coordinator_epoch=false"])
        .collect();
    let sys = system(Design::seed(), Scenario::ctp(), &earlier);
    let state = start(&sys, id, None).0;
    let (state, _) = deliver(&sys, id, &state, p0, stage(0, 0, 0));
    let (state, _) = deliver(&sys, id, &state, tc, marker(1, true, 1));
    let (state, _) = deliver(&sys, id, &state, p0, stage(1, 1, 1));
    let (after, cmds) = deliver(&sys, id, &state, tc, marker(2, false, 0));
    assert_eq!(answer(&messages(&cmds)), ErrorCode::None);
    assert_eq!(
        sc(&after).txn_ack_status(tag(1)),
        Some(TxnAckStatus::Aborted)
    );
}

/// S6 (c), the live coordinator's side: a marker whose coordinator epoch is the one the log
/// last wrote for the producer id is taken. `ProducerAppendInfo.checkCoordinatorEpoch`
/// (1eb7644) fences only a strictly older one (`updatedEntry.coordinatorEpoch() >
/// endTxnMarker.coordinatorEpoch()`), so the coordinator that completed the first
/// transaction completes the next one too.
#[test]
fn a_marker_of_the_coordinator_epoch_the_log_holds_is_taken() {
    let (sys, id, p0, tc, state) = staged("sc_coordinator_epoch=true");
    let (state, cmds) = deliver(&sys, id, &state, tc, marker(1, true, 1));
    assert_eq!(answer(&messages(&cmds)), ErrorCode::None);
    let (state, _) = deliver(&sys, id, &state, p0, stage(1, 1, 1));
    let (after, cmds) = deliver(&sys, id, &state, tc, marker(2, true, 1));
    assert_eq!(answer(&messages(&cmds)), ErrorCode::None);
    assert_eq!(
        sc(&after).txn_ack_status(tag(1)),
        Some(TxnAckStatus::Committed)
    );
    assert_eq!(sc(&after).log.len(), sc(&state).log.len() + 1);
}

/// S9 with a transaction-version-1 marker (`sc_live_markers=false`): before TV2 the
/// marker carries the transaction's own epoch, so the log takes a marker of the epoch it
/// holds and fences only an older one (`ProducerAppendInfo.checkProducerEpoch`,
/// `producerEpoch < updatedEntry.producerEpoch()`, from `appendEndTxnMarker`, 1eb7644).
#[test]
fn a_tv1_marker_routed_as_kafka_routes_it_is_fenced_only_below_the_logs_epoch() {
    let (sys, id, p0, tc, state) = staged("sc_live_markers=false");
    let (state, cmds) = deliver(&sys, id, &state, tc, marker_tv(0, true, 0, 1));
    assert_eq!(answer(&messages(&cmds)), ErrorCode::None);
    assert!(matches!(
        sc(&state).log.last(),
        Some(ShareRecord::TxnMarker { commit: true, .. })
    ));
    // A fencing abort bumped the epoch to 1 and the next staging carries it: a marker of
    // epoch 0 is now a zombie's.
    let (state, _) = deliver(&sys, id, &state, p0, stage(1, 1, 1));
    let (after, cmds) = deliver(&sys, id, &state, tc, marker_tv(0, false, 0, 1));
    assert_eq!(answer(&messages(&cmds)), ErrorCode::InvalidProducerEpoch);
    assert_eq!(sc(&after).log, sc(&state).log);
}

/// S9 under TV2 (`sc_live_markers=false`): a marker of the epoch of a staging still open
/// in the log is not a retry (a retry finds nothing open) but a marker that did not bump
/// the epoch, and the log rejects it (INVALID_PRODUCER_EPOCH) without writing it, as
/// `PartitionLog::write_marker` does for a data partition (the strict TV2 check of
/// `ProducerAppendInfo.appendEndTxnMarker`, KAFKA-19999, newer than 1eb7644).
#[test]
fn a_tv2_marker_of_an_open_stagings_epoch_is_rejected_not_taken_as_a_retry() {
    let (sys, id, p0, tc, state) = staged("sc_live_markers=false");
    let (state, cmds) = deliver(&sys, id, &state, tc, marker(1, true, 0));
    assert_eq!(answer(&messages(&cmds)), ErrorCode::None);
    // The next transaction stages at the bumped epoch 1, and stays open in the log.
    let (state, _) = deliver(&sys, id, &state, p0, stage(1, 1, 1));
    let (after, cmds) = deliver(&sys, id, &state, tc, marker(1, false, 0));
    assert_eq!(answer(&messages(&cmds)), ErrorCode::InvalidProducerEpoch);
    assert_eq!(sc(&after).log, sc(&state).log);
}
