//! `TransactionMetadataTest` (core/src/test/scala/unit/kafka/coordinator/transaction,
//! apache/kafka `1eb7644349cb`): how `TransactionMetadata` moves its producer id, epochs,
//! state and partitions. Kafka's test calls the `prepare*` methods directly; the model has
//! no separate metadata object, so each case sends the coordinator the request that makes
//! that transition (InitProducerId, AddPartitionsToTxn, EndTxn, a marker's answer) and
//! reads the metadata it holds after.

use super::fixture::*;
use sharetxn_model::coordinator::txn_state::TransactionState::*;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ids::{PartitionIndex, ProducerEpoch, TopicPartition};

/// `testInitializeEpoch`: a new transactional id gets epoch 0 and no last epoch.
#[test]
fn a_new_transactional_id_starts_at_epoch_zero_without_a_last_epoch() {
    let sys = txn_basic_at(0);
    let (after, _) = init_producer_id(&sys, &coordinator(&sys, None));
    let meta = txn(&after);
    assert_eq!(identity(meta), pid_epoch(0, 0));
    assert_eq!(meta.last_epoch, None);
}

/// `testNormalEpochBump`: InitProducerId on an Empty transaction bumps the epoch and keeps
/// the producer id.
#[test]
fn init_pid_bumps_the_epoch_and_keeps_the_producer_id() {
    let sys = txn_basic_at(0);
    let state = coordinator(&sys, Some(metadata(10, 73, None, Empty, &[])));
    let (after, _) = init_producer_id(&sys, &state);
    assert_eq!(identity(txn(&after)), pid_epoch(10, 74));
    assert_eq!(txn(&after).state, Empty);
}

/// `testNormalEpochBump`, its last epoch: Kafka's `prepareIncrementProducerEpoch` without an
/// expected epoch leaves `lastProducerEpoch` at NO_PRODUCER_EPOCH, and so does the model
/// (`init_pid_clears_last_epoch`, the default; `docs/conformance.md`, TM-1).
#[test]
fn init_pid_leaves_no_last_epoch() {
    let sys = txn_basic_at(0);
    let state = coordinator(&sys, Some(metadata(10, 73, None, Empty, &[])));
    let (after, _) = init_producer_id(&sys, &state);
    assert_eq!(txn(&after).last_epoch, None);
}

/// `testTolerateTimeShiftDuringAddPartitions` (its timestamps are not modelled): the first
/// add moves Empty to Ongoing with that partition, a second one adds to the set; the
/// producer id and both epochs stay.
#[test]
fn adding_partitions_grows_the_set_and_keeps_the_epochs() {
    let sys = txn_basic_at(0);
    let state = coordinator(&sys, Some(metadata(10, 1, None, Empty, &[])));
    let (state, _) = to_coordinator(
        &sys,
        &state,
        add_partitions(pid_epoch(10, 1), vec![topic1()]),
    );
    assert_eq!(txn(&state).state, Ongoing);
    let topic2 = TopicPartition::Output(PartitionIndex(1));
    let (after, _) = to_coordinator(&sys, &state, add_partitions(pid_epoch(10, 1), vec![topic2]));
    let meta = txn(&after);
    assert_eq!(meta.partitions, [topic1(), topic2].into_iter().collect());
    assert_eq!((identity(meta), meta.last_epoch), (pid_epoch(10, 1), None));
}

/// `testTolerateTimeShiftDuringPrepareCommit` and `testTolerateTimeShiftDuringPrepareAbort`
/// (TV0): the prepare state keeps the producer id, the epoch and the last epoch.
#[test]
fn tv0_prepare_keeps_the_epochs() {
    for (commit, prepared) in [(true, PrepareCommit), (false, PrepareAbort)] {
        let sys = txn_basic_at(0);
        let state = coordinator(&sys, Some(metadata(10, 1, None, Ongoing, &[topic1()])));
        let (after, _) = to_coordinator(&sys, &state, end_txn(pid_epoch(10, 1), commit));
        let meta = txn(&after);
        assert_eq!(meta.state, prepared);
        assert_eq!((identity(meta), meta.last_epoch), (pid_epoch(10, 1), None));
    }
}

/// `testTolerateTimeShiftDuringCompleteCommit` and `testTolerateTimeShiftDuringCompleteAbort`
/// (TV 0 and 2): the last marker's answer completes the transaction, clears its partitions
/// and keeps the producer id and epoch. Under TV0 the last epoch stays NO_PRODUCER_EPOCH;
/// under TV2 Kafka sets it to the current epoch, which the model does not (TM-1).
#[test]
fn completion_clears_the_partitions_and_keeps_the_epoch() {
    for tv in [0, 2] {
        for (commit, complete) in [(true, CompleteCommit), (false, CompleteAbort)] {
            let sys = txn_basic_at(tv);
            let state = coordinator(&sys, Some(metadata(10, 1, None, Ongoing, &[topic1()])));
            let (state, _) = to_coordinator(&sys, &state, end_txn(pid_epoch(10, 1), commit));
            let epoch = txn(&state).epoch;
            let (after, _) = marker_answered(&sys, &state, ErrorCode::None);
            let meta = txn(&after);
            assert_eq!(meta.state, complete, "tv={tv}");
            assert!(meta.partitions.is_empty());
            assert_eq!((meta.pid.0, meta.epoch), (10, epoch));
            if tv == 0 {
                assert_eq!(meta.last_epoch, None);
            }
        }
    }
}

/// `testEpochBumpOnEndTxn`: a TV2 EndTxn bumps the epoch (the last epoch is the one it bumped
/// from) and completion keeps the bumped epoch.
#[test]
fn tv2_end_txn_bumps_the_epoch_and_completion_keeps_it() {
    let sys = txn_basic_at(2);
    let state = coordinator(&sys, Some(metadata(10, 10, None, Ongoing, &[topic1()])));
    let (state, _) = to_coordinator(&sys, &state, end_txn(pid_epoch(10, 10), true));
    assert_eq!(identity(txn(&state)), pid_epoch(10, 11));
    assert_eq!(txn(&state).last_epoch, Some(ProducerEpoch(10)));
    let (after, _) = marker_answered(&sys, &state, ErrorCode::None);
    assert_eq!(txn(&after).state, CompleteCommit);
    assert_eq!(identity(txn(&after)), pid_epoch(10, 11));
}
