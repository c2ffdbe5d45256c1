//! `ProducerStateManagerTest` (storage/src/test/java/org/apache/kafka/storage/internals/log,
//! apache/kafka `1eb7644349cb`): a partition's producer state as `PartitionLog` keeps it:
//! sequence and epoch checks of transactional appends (`ProducerAppendInfo`), markers, the
//! coordinator-epoch fence and the last stable offset. Kafka's tests append at chosen log
//! offsets; the model's log offsets are positions in its log, so the tests pad it with
//! another producer's committed batches where the offsets matter.

use sharetxn_model::design::TransactionVersion;
use sharetxn_model::partition::partition_log::{AppendCheck, PartitionLog, Payload};
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::msg::{OutputRecord, ProducerIdAndEpoch, WriteTxnMarkersRequest};

/// Kafka's tests append as a client with no KIP-890 verification entry.
const TV1: TransactionVersion = TransactionVersion(1);

fn pe(pid: u8, epoch: u8) -> ProducerIdAndEpoch {
    ProducerIdAndEpoch {
        pid: ProducerId(pid),
        epoch: ProducerEpoch(epoch.into()),
    }
}

fn payload() -> Payload {
    Payload::Output(OutputRecord {
        input: 0,
        tag: Ghost::new(TxnTag {
            client: 0,
            incarnation: 0,
            attempt: 0,
        }),
    })
}

/// `appendClientEntry`: checks a transactional batch and appends it when it passes; the
/// check's result.
fn append(log: &mut PartitionLog, producer: ProducerIdAndEpoch, seq: u32) -> AppendCheck {
    let check = log.check_append(producer, Some(seq), TV1, false, false);
    if check == AppendCheck::Append {
        log.append(producer, Some(seq), payload());
    }
    check
}

/// `appendEndTxnMarker` (TV0/TV1 marker rules, as Kafka's tests use them).
fn marker(
    log: &mut PartitionLog,
    producer: ProducerIdAndEpoch,
    commit: bool,
    coordinator_epoch: u8,
) -> ErrorCode {
    log.write_marker(&WriteTxnMarkersRequest {
        producer,
        commit,
        coordinator_epoch: CoordinatorEpoch(coordinator_epoch.into()),
        partition: TopicPartition::Output(PartitionIndex(0)),
        tv: 1,
    })
}

fn reject(error: ErrorCode) -> AppendCheck {
    AppendCheck::Reject(error)
}

/// `testBasicIdMapping`: sequences 0 and 1 append; 1 again is not appended (Kafka's
/// `ProducerStateManager` throws OutOfOrderSequence and `UnifiedLog` answers the retry from
/// its batch cache first; the model answers the duplicate as Kafka's log does); 5 is out of
/// order; a new epoch starts at 0; the old epoch is then fenced.
#[test]
fn basic_id_mapping() {
    let mut log = PartitionLog::default();
    assert_eq!(append(&mut log, pe(1, 0), 0), AppendCheck::Append);
    assert_eq!(append(&mut log, pe(1, 0), 1), AppendCheck::Append);
    assert_eq!(append(&mut log, pe(1, 0), 1), AppendCheck::Duplicate);
    assert_eq!(
        append(&mut log, pe(1, 0), 5),
        reject(ErrorCode::OutOfOrderSequenceNumber)
    );
    assert_eq!(append(&mut log, pe(1, 1), 0), AppendCheck::Append);
    assert_eq!(
        append(&mut log, pe(1, 0), 0),
        reject(ErrorCode::InvalidProducerEpoch)
    );
}

/// `testControlRecordBumpsProducerEpoch`: an ABORT marker with a bumped epoch moves the
/// producer to that epoch, closes its transaction and resets its sequence; sequence 0 at
/// the new epoch appends.
#[test]
fn control_record_bumps_the_producer_epoch() {
    let mut log = PartitionLog::default();
    append(&mut log, pe(1, 0), 0);
    assert_eq!(marker(&mut log, pe(1, 1), false, 0), ErrorCode::None);
    let entry = &log.producers[&ProducerId(1)];
    assert_eq!(entry.epoch, ProducerEpoch(1));
    assert_eq!(entry.ongoing_first_offset, None);
    assert_eq!(entry.last_seq, None);
    assert_eq!(append(&mut log, pe(1, 1), 0), AppendCheck::Append);
}

/// `testOutOfSequenceAfterControlRecordEpochBump`, the append with a newer epoch than the
/// marker's and the one from sequence 0 (the same-epoch half is the next test).
#[test]
fn after_a_marker_epoch_bump_sequences_restart_at_zero() {
    let mut log = PartitionLog::default();
    append(&mut log, pe(1, 0), 0);
    append(&mut log, pe(1, 0), 1);
    marker(&mut log, pe(1, 1), false, 0);
    assert_eq!(
        append(&mut log, pe(1, 2), 2),
        reject(ErrorCode::OutOfOrderSequenceNumber)
    );
    assert_eq!(append(&mut log, pe(1, 1), 0), AppendCheck::Append);
    assert_eq!(log.producers[&ProducerId(1)].last_seq, Some(0));
}

/// `testOutOfSequenceAfterControlRecordEpochBump`, first assertion: after the marker reset
/// the sequence, a batch at the marker's epoch must start at 0. Kafka's `checkSequence`
/// asks that of every transaction version; the model asked it only under TV2 and appended
/// sequence 2 under TV0/TV1 until this test (`docs/conformance.md`, PSM-1).
#[test]
fn after_a_marker_epoch_bump_the_same_epoch_must_start_at_zero() {
    let mut log = PartitionLog::default();
    append(&mut log, pe(1, 0), 0);
    append(&mut log, pe(1, 0), 1);
    marker(&mut log, pe(1, 1), false, 0);
    assert_eq!(
        append(&mut log, pe(1, 1), 2),
        reject(ErrorCode::OutOfOrderSequenceNumber)
    );
}

/// `testProducerStateAfterFencingAbortMarker`: a fencing ABORT marker closes the
/// transaction and keeps the producer (and its fenced epoch).
#[test]
fn producer_state_after_a_fencing_abort_marker() {
    let mut log = PartitionLog::default();
    append(&mut log, pe(1, 0), 0);
    marker(&mut log, pe(1, 1), false, 0);
    let entry = &log.producers[&ProducerId(1)];
    assert_eq!(
        (entry.ongoing_first_offset, entry.epoch),
        (None, ProducerEpoch(1))
    );
    assert_eq!(
        append(&mut log, pe(1, 0), 1),
        reject(ErrorCode::InvalidProducerEpoch),
        "the fenced epoch is kept"
    );
}

/// `testOldEpochForControlRecord`: a marker older than the producer's epoch is
/// INVALID_PRODUCER_EPOCH and writes nothing.
#[test]
fn a_marker_with_an_old_epoch_is_rejected() {
    let mut log = PartitionLog::default();
    append(&mut log, pe(1, 5), 0);
    let before = log.clone();
    assert_eq!(
        marker(&mut log, pe(1, 3), true, 0),
        ErrorCode::InvalidProducerEpoch
    );
    assert_eq!(log, before);
}

/// `testCoordinatorFencing`: markers with the current coordinator epoch or a newer one are
/// written; one with an older coordinator epoch is TRANSACTION_COORDINATOR_FENCED.
#[test]
fn coordinator_fencing() {
    let mut log = PartitionLog::default();
    append(&mut log, pe(1, 5), 0);
    assert_eq!(marker(&mut log, pe(1, 5), true, 1), ErrorCode::None);
    assert_eq!(
        log.producers[&ProducerId(1)].coordinator_epoch,
        Some(CoordinatorEpoch(1))
    );
    assert_eq!(marker(&mut log, pe(1, 5), true, 1), ErrorCode::None);
    assert_eq!(marker(&mut log, pe(1, 5), true, 2), ErrorCode::None);
    assert_eq!(
        marker(&mut log, pe(1, 5), true, 1),
        ErrorCode::TransactionCoordinatorFenced
    );
}

/// `testFirstUnstableOffset`: the last stable offset is the first offset of the oldest open
/// transaction; it moves to the next one when that commits, and to the log end when every
/// transaction is decided (every append is replicated at once in the model, so the high
/// watermark steps of Kafka's test are the log end).
#[test]
fn first_unstable_offset() {
    let mut log = PartitionLog::default();
    assert_eq!(log.last_stable_offset(), log.high_watermark());
    append(&mut log, pe(1, 5), 0);
    assert_eq!(log.last_stable_offset(), 0);
    append(&mut log, pe(2, 5), 0);
    assert_eq!(log.last_stable_offset(), 0);
    marker(&mut log, pe(1, 5), true, 0);
    assert_eq!(
        log.last_stable_offset(),
        1,
        "producer 2's transaction starts at 1"
    );
    marker(&mut log, pe(2, 5), false, 0);
    assert_eq!(log.last_stable_offset(), log.high_watermark());
}

/// `testLastStableOffsetCompletedTxn`: three open transactions completed out of order; the
/// last stable offset stays at the oldest still open.
#[test]
fn last_stable_offset_with_transactions_completed_out_of_order() {
    let mut log = PartitionLog::default();
    for pid in 1..=3 {
        append(&mut log, pe(pid, 0), 0);
    }
    marker(&mut log, pe(1, 0), false, 0);
    assert_eq!(log.last_stable_offset(), 1);
    marker(&mut log, pe(3, 0), false, 0);
    assert_eq!(log.last_stable_offset(), 1);
    marker(&mut log, pe(2, 0), false, 0);
    assert_eq!(log.last_stable_offset(), log.high_watermark());
}

/// `testSkipEmptyTransactions`: markers of a producer with nothing open close nothing and
/// leave the last stable offset where the next transaction's first batch puts it.
#[test]
fn empty_transactions_are_skipped() {
    let mut log = PartitionLog::default();
    append(&mut log, pe(1, 0), 0);
    marker(&mut log, pe(1, 0), true, 0);
    marker(&mut log, pe(1, 0), true, 0);
    marker(&mut log, pe(1, 0), false, 0);
    assert_eq!(log.last_stable_offset(), log.high_watermark());
    let first = log.high_watermark();
    append(&mut log, pe(1, 0), 1);
    assert_eq!(log.last_stable_offset(), first);
}
