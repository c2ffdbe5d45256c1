//! Handler tests for the deviations `docs/fidelity.md` found: each pins Kafka's answer (the
//! class and method in its doc comment, apache/kafka at `1eb7644349cb` unless it says
//! otherwise), with the model fixed, or with the knob that gives Kafka's rule.

use crate::common;
use crate::conformance::fixture;

use common::{deliver, dp_state, pe, sc_state, start, system, Cmd};
use fixture::{coordinator, end_txn, error_of, init_producer_id, metadata, txn};
use sharetxn_model::coordinator::txn_state::TransactionState::*;
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::protocol::record_state::RecordState;
use sharetxn_model::protocol::share_msg::*;
use sharetxn_model::protocol::share_state::StateBatch;
use sharetxn_model::{Scenario, System};
use stateright::actor::Command;

/// D6. `TransactionMetadata.prepareIncrementProducerEpoch` with no expected epoch (an
/// InitProducerId from a new incarnation) bumps the epoch and sets `lastProducerEpoch` to
/// NO_PRODUCER_EPOCH. Under TV2 the previous incarnation's EndTxn with the old epoch is then
/// no retry of a bumped EndTxn: `endTransaction`'s `isValidEpoch` for EMPTY asks for the
/// current epoch, so Kafka answers PRODUCER_FENCED, as the model does by default. With
/// `init_pid_clears_last_epoch` and `ongoing_end_txn_fenced` off (the model's earlier
/// rules) it answers INVALID_TXN_STATE, also fatal for the client.
#[test]
fn init_pid_leaves_no_last_epoch_so_the_old_end_txn_is_fenced() {
    for kafka in [false, true] {
        for previous in [Empty, CompleteCommit, CompleteAbort] {
            let knob = format!("init_pid_clears_last_epoch={kafka}");
            let retry = format!("ongoing_end_txn_fenced={kafka}");
            let sys = system(
                Design::consumer_offsets(),
                Scenario::txn_basic(),
                &["tv=2", &knob, &retry],
            );
            let state = coordinator(&sys, Some(metadata(10, 1, Some(0), previous, &[])));
            let (after, _) = init_producer_id(&sys, &state);
            assert_eq!(txn(&after).epoch, ProducerEpoch(2), "{previous:?}");
            let last = (!kafka).then_some(ProducerEpoch(1));
            assert_eq!(txn(&after).last_epoch, last, "{previous:?}");
            let expected = if kafka {
                ErrorCode::ProducerFenced
            } else {
                ErrorCode::InvalidTxnState
            };
            for commit in [true, false] {
                let old = fixture::pid_epoch(10, 1);
                let (_, cmds) = fixture::to_coordinator(&sys, &after, end_txn(old, commit));
                assert_eq!(
                    error_of(&sys, &cmds),
                    expected,
                    "kafka={kafka} {previous:?} commit={commit}"
                );
            }
        }
    }
}

fn produce(seq: u32) -> ProduceRequest {
    ProduceRequest {
        txn: TransactionalId(0),
        producer: pe(0),
        seq,
        partition: PartitionIndex(0),
        record: OutputRecord {
            input: 0,
            tag: Ghost::new(TxnTag {
                client: 0,
                incarnation: 0,
                attempt: 0,
            }),
        },
    }
}

/// The answers a data partition sends its producer.
fn to_producer(sys: &System, cmds: &[Cmd]) -> Vec<Msg> {
    common::sent_to(cmds, sys.topology.producers[0])
}

/// D9. `AddPartitionsToTxnManager.AddPartitionsToTxnHandler.onComplete` maps only
/// PRODUCER_FENCED (to INVALID_PRODUCER_EPOCH) and, for old clients, TRANSACTION_ABORTABLE;
/// INVALID_PRODUCER_ID_MAPPING from `handleVerifyPartitionsInTransaction` passes through
/// `ReplicaManager.appendRecords`' `postVerificationCallback` to the produce response
/// unchanged (the model answered INVALID_TXN_STATE).
#[test]
fn an_unknown_producer_id_mapping_reaches_the_writer_as_it_is() {
    let sys = system(Design::consumer_offsets(), Scenario::txn_basic(), &[]);
    let d0 = sys.topology.partitions[0];
    let p0 = sys.topology.producers[0];
    let tc = sys.topology.txn_coordinator;
    let (state, _) = start(&sys, d0, None);
    let (parked, cmds) = deliver(&sys, d0, &state, p0, Msg::Produce(produce(0)));
    let Some(Msg::AddPartitionsToTxn(verification)) = common::sent_to(&cmds, tc).pop() else {
        panic!("the first write is verified: {cmds:?}")
    };
    for (error, seen) in [
        (
            ErrorCode::InvalidProducerIdMapping,
            ErrorCode::InvalidProducerIdMapping,
        ),
        (ErrorCode::ProducerFenced, ErrorCode::InvalidProducerEpoch),
        (
            ErrorCode::TransactionAbortable,
            ErrorCode::TransactionAbortable,
        ),
    ] {
        let answer = Msg::AddPartitionsToTxnResponse(AddPartitionsToTxnResponse {
            txn: verification.txn,
            producer: verification.producer,
            partitions: verification.partitions.clone(),
            mode: verification.mode,
            error,
        });
        let (after, cmds) = deliver(&sys, d0, &parked, tc, answer);
        let errors: Vec<_> = to_producer(&sys, &cmds)
            .iter()
            .map(|m| m.response_error())
            .collect();
        assert_eq!(errors, vec![Some(seen)], "{error:?}");
        let d = dp_state(&after);
        assert!(d.log.entries.is_empty(), "{error:?}: nothing appended");
    }
}

/// F1. `ShareCoordinatorShard.merge` takes the ShareUpdate's start offset
/// (`newStartOffset = newData.startOffset()`, the same in 4.x), so a WriteShareGroupState
/// with a lower start offset than the stored one, which a resent or overtaken older write
/// of the same leader carries, moves the start offset back; the batches a newer write
/// pruned are gone, and those offsets read as never delivered. The model keeps the higher
/// start offset unless `sc_start_offset_from_write` is on.
#[test]
fn an_older_write_moves_the_start_offset_back_only_as_kafka_does() {
    for kafka in [false, true] {
        let setting = format!("sc_start_offset_from_write={kafka}");
        let sys = system(
            Design::consumer_offsets(),
            Scenario::share_basic(),
            &[&setting],
        );
        let (sp, sc) = (
            sys.topology.share_partition.unwrap(),
            sys.topology.share_coordinator.unwrap(),
        );
        let write = |write: u32, start_offset: u16, batches: Vec<StateBatch>| {
            Msg::WriteShareGroupState(WriteShareGroupStateRequest {
                leader_epoch: 1,
                state_epoch: 0,
                write,
                start_offset,
                batches,
                partition: 0,
            })
        };
        let acked = StateBatch {
            offset: 0,
            state: RecordState::Acknowledged,
            delivery_count: 1,
        };
        let (state, _) = start(&sys, sc, None);
        // The newer write: offset 0 acknowledged, the start offset past it.
        let (state, _) = deliver(&sys, sc, &state, sp, write(1, 1, vec![acked]));
        // The older write, resent by the persister, arrives after it.
        let (state, cmds) = deliver(&sys, sc, &state, sp, write(0, 0, vec![]));
        assert!(matches!(
            &cmds[..],
            [.., Command::Send(_, Msg::WriteShareGroupStateResponse(r))] if r.error == ErrorCode::None
        ));
        let s = sc_state(&state);
        if kafka {
            assert_eq!(s.state.start_offset, 0, "Kafka: the write's start offset");
            assert_eq!(s.state.state_of(0), None, "pruned by the newer write");
            assert!(!s.state.is_terminal(0), "offset 0 reads as never delivered");
        } else {
            assert_eq!(s.state.start_offset, 1, "the model: never back");
            assert!(s.state.is_terminal(0));
        }
    }
}
