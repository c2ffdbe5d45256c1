//! `TransactionStateManagerTest` (core/src/test/scala/unit/kafka/coordinator/transaction,
//! apache/kafka `1eb7644349cb`): loading `__transaction_state`, writing a transition to
//! it, and which transactions the timeout scan may abort. The model's coordinator loads its
//! whole log in its start handler (`loadTransactionsForTxnTopicPartition` and the
//! coordinator's `onElection` in one step), and its log is already compacted: the latest
//! `TransactionLogValue` per transactional id.

use super::fixture::*;
use crate::common::{saved, start};
use sharetxn_model::coordinator::txn_coordinator::{TransactionMetadata, TxnLog};
use sharetxn_model::coordinator::txn_state::TransactionState::{self, *};
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::world::node::{NodeState, NodeStorage};
use sharetxn_model::System;
use stateright::actor::Command;
use std::collections::BTreeMap;

/// A coordinator loaded from a log holding `txns` at coordinator epoch `epoch`.
fn loaded(sys: &System, epoch: u8, txns: &[(u8, TransactionMetadata)]) -> (NodeState, Vec<Cmd>) {
    let log = TxnLog {
        coordinator_epoch: CoordinatorEpoch(epoch.into()),
        next_pid: ProducerId(20),
        txns: txns
            .iter()
            .map(|(id, meta)| (TransactionalId(*id), meta.clone()))
            .collect::<BTreeMap<_, _>>(),
    };
    start(
        sys,
        sys.topology.txn_coordinator,
        Some(NodeStorage::TxnCoordinator(log)),
    )
}

/// `testLoadAndRemoveTransactionsForPartition`, the load half: each transactional id's
/// metadata is the latest one its log holds (the removal half emigrates the partition,
/// which the model's one `__transaction_state` partition never does).
#[test]
fn a_load_holds_the_latest_metadata_of_each_transactional_id() {
    let sys = txn_basic_at(2);
    let committing = metadata(
        1,
        1,
        Some(0),
        PrepareCommit,
        &[topic1(), TopicPartition::ConsumerOffsets],
    );
    let idle = metadata(2, 3, Some(2), Empty, &[]);
    let (state, _) = loaded(&sys, 0, &[(0, committing.clone()), (1, idle.clone())]);
    let txns = &tc_state(&state).txns;
    assert_eq!(txns[&TransactionalId(0)], committing);
    assert_eq!(txns[&TransactionalId(1)], idle);
}

/// `shouldWriteTxnMarkersForTransactionInPreparedCommitState` and
/// `shouldWriteTxnMarkersForTransactionInPreparedAbortState`: a loaded PREPARE_* transaction
/// has its markers written again, COMMIT or ABORT as prepared, to every partition it holds.
#[test]
fn a_loaded_prepared_transaction_has_its_markers_written() {
    for (prepared, commit) in [(PrepareCommit, true), (PrepareAbort, false)] {
        let sys = txn_basic_at(2);
        let (_, cmds) = loaded(
            &sys,
            0,
            &[(0, metadata(1, 1, Some(0), prepared, &[topic1()]))],
        );
        let markers = sent_to(&cmds, sys.topology.partitions[0]);
        assert!(
            matches!(&markers[..], [Msg::WriteTxnMarkers(m)]
                if m.commit == commit && m.producer == pid_epoch(1, 1) && m.partition == topic1()),
            "{prepared:?}: {markers:?}"
        );
    }
}

/// `shouldOnlyConsiderTransactionsInTheOngoingStateToAbort`: of a log with a transaction in
/// every state, only the ONGOING one has its timeout armed (the test's second ongoing
/// transaction, with a longer timeout, is about durations, which the model leaves to the
/// checker: any armed timer may fire).
#[test]
fn only_a_loaded_ongoing_transaction_can_time_out() {
    let sys = txn_basic_at(0);
    let states: [TransactionState; 6] = [
        Ongoing,
        PrepareCommit,
        PrepareAbort,
        CompleteCommit,
        CompleteAbort,
        Empty,
    ];
    let txns: Vec<(u8, TransactionMetadata)> = states
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let partitions = if s.is_in_flight() {
                vec![topic1()]
            } else {
                vec![]
            };
            (i as u8, metadata(i as u8, 0, None, *s, &partitions))
        })
        .collect();
    let (_, cmds) = loaded(&sys, 0, &txns);
    let timed: Vec<TransactionalId> = cmds
        .iter()
        .filter_map(|c| match c {
            Command::SetTimer(Timer::TxnTimeout(id), _) => Some(*id),
            _ => None,
        })
        .collect();
    assert_eq!(timed, vec![TransactionalId(0)]);
}

/// `testSuccessfulReimmigration`: every load of the partition takes the next coordinator
/// epoch, even when the previous leader never emigrated it.
#[test]
fn every_load_takes_the_next_coordinator_epoch() {
    let sys = txn_basic_at(2);
    let prepared = metadata(1, 1, Some(0), PrepareCommit, &[topic1()]);
    let (first, cmds) = loaded(&sys, 0, &[(0, prepared)]);
    assert_eq!(tc_state(&first).coordinator_epoch, CoordinatorEpoch(1));
    let Some(NodeStorage::TxnCoordinator(log)) = saved(&cmds).pop() else {
        panic!("the load writes its coordinator epoch")
    };
    let (second, _) = start(
        &sys,
        sys.topology.txn_coordinator,
        Some(NodeStorage::TxnCoordinator(log)),
    );
    assert_eq!(tc_state(&second).coordinator_epoch, CoordinatorEpoch(2));
    assert_eq!(txn(&second).state, PrepareCommit);
}

/// `testCompleteTransitionWhenAppendSucceeded`: AddPartitionsToTxn writes the new metadata
/// (ONGOING with the partitions) to the log, and the metadata held after is what was written.
#[test]
fn a_transition_is_written_and_held_together() {
    let sys = txn_basic_at(0);
    let state = coordinator(&sys, Some(metadata(1, 0, None, Empty, &[])));
    let (after, cmds) = to_coordinator(
        &sys,
        &state,
        add_partitions(pid_epoch(1, 0), vec![topic1()]),
    );
    let Some(NodeStorage::TxnCoordinator(log)) = saved(&cmds).pop() else {
        panic!("the transition is written")
    };
    assert_eq!(log.txns[&TXN], *txn(&after));
    assert_eq!(txn(&after).state, Ongoing);
}
