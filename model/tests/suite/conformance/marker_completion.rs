//! `TransactionMarkerRequestCompletionHandlerTest` (core/src/test/scala/unit/kafka/
//! coordinator/transaction, apache/kafka `1eb7644349cb`): what the coordinator does with
//! each answer to a WriteTxnMarkers. Kafka's test holds a TV2 transaction in PrepareCommit
//! with one partition; the model gets there with the EndTxn that prepares it, so the
//! marker is really in flight, then delivers the partition leader's answer.

use super::fixture::*;
use crate::common::fire;
use sharetxn_model::coordinator::txn_state::TransactionState::*;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::world::node::NodeState;
use sharetxn_model::System;
use stateright::actor::Command;

/// A TV2 transaction in PrepareCommit with its marker to `topic1()` in flight.
fn committing() -> (System, NodeState) {
    let sys = txn_basic_at(2);
    let state = coordinator(&sys, Some(metadata(1, 0, None, Ongoing, &[topic1()])));
    let (state, cmds) = to_coordinator(&sys, &state, end_txn(pid_epoch(1, 0), true));
    assert!(
        !sent_to(&cmds, sys.topology.partitions[0]).is_empty(),
        "the marker is sent"
    );
    (sys, state)
}

fn marker_sent(sys: &System, cmds: &[Cmd]) -> bool {
    sent_to(cmds, sys.topology.partitions[0])
        .iter()
        .any(|m| matches!(m, Msg::WriteTxnMarkers(w) if w.commit && w.partition == topic1()))
}

/// `shouldCompleteDelayedOperationWhenNoErrors`: the last partition's NONE completes the
/// transaction (CompleteCommit, no partitions, nothing left to resend).
#[test]
fn a_marker_answered_none_completes_the_transaction() {
    let (sys, state) = committing();
    let (after, cmds) = marker_answered(&sys, &state, ErrorCode::None);
    assert_eq!(txn(&after).state, CompleteCommit);
    assert!(txn(&after).partitions.is_empty());
    assert!(tc_state(&after).markers.is_empty());
    assert!(cmds
        .iter()
        .any(|c| matches!(c, Command::CancelTimer(Timer::MarkerRetry(_)))));
}

/// `shouldReEnqueuePartitionsWhenBrokerDisconnected`: an answer that never comes (the model's
/// lost message) has the marker sent again to the same partition, from the resend timer.
#[test]
fn an_unanswered_marker_is_sent_again() {
    let (sys, state) = committing();
    let (after, cmds) = fire(
        &sys,
        sys.topology.txn_coordinator,
        &state,
        Timer::MarkerRetry(TXN),
    );
    assert!(marker_sent(&sys, &cmds), "{cmds:?}");
    assert_eq!(txn(&after).state, PrepareCommit);
}

/// `shouldRetryPartitionWhenNotLeaderOrFollowerError`: a retriable error keeps the partition
/// waiting and sends its marker again.
#[test]
fn a_marker_answered_not_leader_is_sent_again() {
    let (sys, state) = committing();
    let (after, cmds) = marker_answered(&sys, &state, ErrorCode::NotLeaderOrFollower);
    assert!(marker_sent(&sys, &cmds), "{cmds:?}");
    assert_eq!(txn(&after).state, PrepareCommit);
    assert!(tc_state(&after).markers[&TXN]
        .partitions
        .contains(&topic1()));
}

/// `shouldCompleteDelayedOperationWhenInvalidProducerEpoch` and
/// `shouldCompleteDelayedOperationWhenCoordinatorEpochFenced`: the transaction's markers are
/// dropped (`removeMarkersForTxn`), nothing is resent, and it stays PrepareCommit until a
/// later load writes them again.
#[test]
fn a_fenced_marker_stops_the_transactions_markers() {
    for error in [
        ErrorCode::InvalidProducerEpoch,
        ErrorCode::TransactionCoordinatorFenced,
    ] {
        let (sys, state) = committing();
        let (after, cmds) = marker_answered(&sys, &state, error);
        assert!(!marker_sent(&sys, &cmds), "{error:?}");
        assert!(tc_state(&after).markers.is_empty(), "{error:?}");
        assert_eq!(txn(&after).state, PrepareCommit, "{error:?}");
    }
}

/// `shouldCompleteDelayedOperationWhenCoordinatorEpochChanged`: once the coordinator epoch
/// has moved on (Kafka's test mocks the cache at the next epoch), an answer to a marker of
/// the earlier epoch is not this leader's and changes nothing.
#[test]
fn a_marker_answer_of_an_earlier_coordinator_epoch_is_ignored() {
    let (sys, mut state) = committing();
    let pending = tc_state(&state).markers[&TXN].clone();
    let sent_at = tc_state(&state).coordinator_epoch;
    crate::common::tc_state_mut(&mut state).coordinator_epoch.0 += 1;
    let reply = Msg::WriteTxnMarkersResponse(WriteTxnMarkersResponse {
        producer: pending.producer,
        commit: true,
        coordinator_epoch: sent_at,
        partition: topic1(),
        error: ErrorCode::None,
    });
    let (tc, d0) = (sys.topology.txn_coordinator, sys.topology.partitions[0]);
    let (after, cmds) = crate::common::deliver(&sys, tc, &state, d0, reply);
    assert!(cmds.is_empty(), "{cmds:?}");
    assert_eq!(after, state);
}
