//! `TransactionCoordinatorTest` (core/src/test/scala/unit/kafka/coordinator/transaction,
//! apache/kafka `1eb7644349cb`): InitProducerId, AddPartitionsToTxn (client add and
//! KIP-890 verification) and EndTxn at the coordinator, and the timeout abort.

use super::fixture::*;
use crate::common::Cmd;
use sharetxn_model::coordinator::txn_state::TransactionState::*;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ids::ProducerEpoch;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::{world::settings, System};

/// `shouldInitPidWithEpochZeroForNewTransactionalId`.
#[test]
fn init_pid_with_epoch_zero_for_new_transactional_id() {
    let sys = txn_basic_at(2);
    let state = coordinator(&sys, None);
    let (after, cmds) = init_producer_id(&sys, &state);
    let Msg::InitProducerIdResponse(r) = answer(&sys, &cmds) else {
        panic!("not an InitProducerIdResponse")
    };
    assert_eq!(
        (r.error, r.producer),
        (ErrorCode::None, Some(pid_epoch(0, 0)))
    );
    assert!(appends(&cmds));
    assert_eq!(txn(&after).state, Empty);
}

/// `validateIncrementEpochAndUpdateMetadata`, as called by
/// `shouldIncrementEpochAndUpdateMetadataOnHandleInitPidWhenExistingEmptyTransaction`,
/// `...WhenExistingCompleteTransaction` and `...WhenExistingCompleteCommitTransaction`
/// (client TV 0 and 2): the epoch is bumped, the state is Empty, the log is written.
#[test]
fn init_pid_increments_the_epoch_of_an_empty_or_complete_transaction() {
    for tv in [0, 2] {
        for previous in [Empty, CompleteAbort, CompleteCommit] {
            let sys = txn_basic_at(tv);
            let state = coordinator(&sys, Some(metadata(10, 1, Some(0), previous, &[])));
            let (after, cmds) = init_producer_id(&sys, &state);
            let Msg::InitProducerIdResponse(r) = answer(&sys, &cmds) else {
                panic!("not an InitProducerIdResponse")
            };
            assert_eq!(r.error, ErrorCode::None, "tv={tv} {previous:?}");
            assert_eq!(r.producer, Some(pid_epoch(10, 2)), "tv={tv} {previous:?}");
            assert_eq!(txn(&after).state, Empty);
            assert!(appends(&cmds));
        }
    }
}

/// An InitProducerId that carries the pair the client holds (KIP-360, a TV0/1 client's
/// epoch bump after an abortable error).
fn init_expecting(pid: u8, epoch: u16) -> Msg {
    Msg::InitProducerId(InitProducerIdRequest {
        expected: Some(pid_epoch(pid, epoch)),
        ..InitProducerIdRequest::plain(TXN)
    })
}

fn init_answer(sys: &System, cmds: &[Cmd]) -> (ErrorCode, Option<ProducerIdAndEpoch>) {
    let Msg::InitProducerIdResponse(r) = answer(sys, cmds) else {
        panic!("not an InitProducerIdResponse")
    };
    (r.error, r.producer)
}

/// `testInitProducerIdWithCurrentEpochProvided`: with the current epoch expected, the epoch
/// is bumped; a retry that expects the same epoch (its answer was lost) gets the bumped
/// pair again without another bump.
#[test]
fn init_pid_with_the_current_epoch_bumps_it_and_a_retry_gets_the_same_pair() {
    let sys = txn_basic_at(0);
    let state = coordinator(&sys, Some(metadata(10, 10, Some(9), Empty, &[])));
    let (after, cmds) = to_coordinator(&sys, &state, init_expecting(10, 10));
    assert_eq!(
        init_answer(&sys, &cmds),
        (ErrorCode::None, Some(pid_epoch(10, 11)))
    );
    assert_eq!(txn(&after).last_epoch, Some(ProducerEpoch(10)));
    let (again, cmds) = to_coordinator(&sys, &after, init_expecting(10, 10));
    assert_eq!(
        init_answer(&sys, &cmds),
        (ErrorCode::None, Some(pid_epoch(10, 11)))
    );
    assert_eq!(txn(&again).epoch, ProducerEpoch(11), "no second bump");
    // Kafka writes the retry's transition as any other (`prepareIncrementProducerEpoch`
    // returns the current epochs): a retry that comes after the next transaction completed
    // leaves the transaction Empty, at the same epoch.
    let completed = coordinator(&sys, Some(metadata(10, 11, Some(10), CompleteCommit, &[])));
    let (after, cmds) = to_coordinator(&sys, &completed, init_expecting(10, 10));
    assert_eq!(
        init_answer(&sys, &cmds),
        (ErrorCode::None, Some(pid_epoch(10, 11)))
    );
    assert_eq!(txn(&after).state, Empty);
    assert_eq!(txn(&after).last_epoch, Some(ProducerEpoch(10)));
    assert!(appends(&cmds));
}

/// `testInitProducerIdStaleCurrentEpochProvided`: a new incarnation's InitProducerId (no
/// pair) bumps the epoch and leaves no last epoch, so the old producer's bump, expecting the
/// epoch before, is PRODUCER_FENCED.
#[test]
fn init_pid_with_a_stale_epoch_after_a_new_incarnation_is_fenced() {
    let sys = txn_basic_at(0);
    let state = coordinator(&sys, Some(metadata(10, 10, Some(9), Empty, &[])));
    let (after, cmds) = init_producer_id(&sys, &state);
    assert_eq!(
        init_answer(&sys, &cmds),
        (ErrorCode::None, Some(pid_epoch(10, 11)))
    );
    let (unchanged, cmds) = to_coordinator(&sys, &after, init_expecting(10, 10));
    assert_eq!(init_answer(&sys, &cmds), (ErrorCode::ProducerFenced, None));
    assert_eq!(txn(&unchanged), txn(&after), "nothing moves");
}

/// `testFenceProducerWhenMappingExistsWithDifferentProducerId`: the transactional id maps to
/// another producer id than the one expected: PRODUCER_FENCED (`isValidProducerId`).
#[test]
fn init_pid_expecting_another_producer_id_is_fenced() {
    let sys = txn_basic_at(0);
    let state = coordinator(&sys, Some(metadata(11, 0, None, Empty, &[])));
    let (after, cmds) = to_coordinator(&sys, &state, init_expecting(10, 0));
    assert_eq!(init_answer(&sys, &cmds), (ErrorCode::ProducerFenced, None));
    assert_eq!(txn(&after), txn(&state), "nothing moves");
}

/// `validateRespondsWithConcurrentTransactionsOnInitPidWhenInPrepareState`, as called by
/// `shouldWaitForCommitToCompleteOnHandleInitPidAndExistingTransactionInPrepareCommitState`
/// and `...InPrepareAbortState`: CONCURRENT_TRANSACTIONS (held, in the model).
#[test]
fn init_pid_waits_for_a_prepared_transaction_to_complete() {
    for prepared in [PrepareCommit, PrepareAbort] {
        let sys = txn_basic_at(0);
        let state = coordinator(&sys, Some(metadata(10, 1, Some(0), prepared, &[topic1()])));
        let (after, cmds) = init_producer_id(&sys, &state);
        assert_parked(&sys, &state, &after, &cmds);
        assert_eq!(txn(&after).state, prepared, "nothing moves while it waits");
        assert!(!appends(&cmds));
    }
}

/// `shouldAbortTransactionOnHandleInitPidWhenExistingTransactionInOngoingState` (TV0): the
/// ongoing transaction is aborted with the epoch bumped once (PrepareAbort at epoch 2 is
/// written), and the new incarnation is told to retry.
#[test]
fn init_pid_aborts_an_ongoing_transaction() {
    let sys = txn_basic_at(0);
    let state = coordinator(&sys, Some(metadata(10, 1, Some(0), Ongoing, &[topic1()])));
    let (after, cmds) = init_producer_id(&sys, &state);
    assert_parked(&sys, &state, &after, &cmds);
    assert!(appends(&cmds));
    assert_eq!(txn(&after).state, PrepareAbort);
    assert_eq!(identity(txn(&after)), pid_epoch(10, 2));
    let markers = sent_to(&cmds, sys.topology.partitions[0]);
    assert!(matches!(&markers[..], [Msg::WriteTxnMarkers(m)]
        if !m.commit && m.producer == pid_epoch(10, 2)));
}

/// `shouldRespondWithInvalidPidMappingOnAddPartitionsToTransactionWhenTransactionalIdNotPresent`.
#[test]
fn add_partitions_of_an_unknown_transactional_id_is_an_invalid_mapping() {
    let sys = txn_basic_at(0);
    let state = coordinator(&sys, None);
    let (_, cmds) = to_coordinator(
        &sys,
        &state,
        add_partitions(pid_epoch(0, 1), vec![topic1()]),
    );
    assert_eq!(error_of(&sys, &cmds), ErrorCode::InvalidProducerIdMapping);
}

/// `validateConcurrentTransactions`, as called by
/// `shouldRespondWithConcurrentTransactionsOnAddPartitionsWhenStateIsPrepareCommit` and
/// `shouldRespondWithConcurrentTransactionOnAddPartitionsWhenStateIsPrepareAbort`.
#[test]
fn add_partitions_while_prepared_waits() {
    for prepared in [PrepareCommit, PrepareAbort] {
        let sys = txn_basic_at(2);
        let state = coordinator(&sys, Some(metadata(0, 0, None, prepared, &[])));
        let (after, cmds) = to_coordinator(
            &sys,
            &state,
            add_partitions(pid_epoch(0, 0), vec![topic1()]),
        );
        assert_parked(&sys, &state, &after, &cmds);
    }
}

/// `shouldRespondWithProducerFencedOnAddPartitionsWhenEpochsAreDifferent`: the epoch check
/// comes before the state check.
#[test]
fn add_partitions_with_an_older_epoch_is_fenced_even_while_prepared() {
    let sys = txn_basic_at(2);
    let state = coordinator(&sys, Some(metadata(0, 10, Some(9), PrepareCommit, &[])));
    let (_, cmds) = to_coordinator(
        &sys,
        &state,
        add_partitions(pid_epoch(0, 0), vec![topic1()]),
    );
    assert_eq!(error_of(&sys, &cmds), ErrorCode::ProducerFenced);
}

/// `validateSuccessfulAddPartitions`, as called by
/// `shouldAppendNewMetadataToLogOnAddPartitionsWhenPartitionsAdded` (Empty),
/// `shouldRespondWithSuccessOnAddPartitionsWhenStateIsOngoing`, `...IsCompleteCommit` and
/// `...IsCompleteAbort` (client TV 0 and 2): the new partition set is written to the log.
#[test]
fn add_partitions_writes_the_new_partition_set() {
    for tv in [0, 2] {
        for previous in [Empty, Ongoing, CompleteCommit, CompleteAbort] {
            let sys = txn_basic_at(tv);
            let state = coordinator(&sys, Some(metadata(10, 1, Some(0), previous, &[])));
            let (after, cmds) = to_coordinator(
                &sys,
                &state,
                add_partitions(pid_epoch(10, 1), vec![topic1()]),
            );
            assert_eq!(
                error_of(&sys, &cmds),
                ErrorCode::None,
                "tv={tv} {previous:?}"
            );
            assert!(appends(&cmds), "tv={tv} {previous:?}");
            assert_eq!(txn(&after).state, Ongoing);
            assert!(txn(&after).partitions.contains(&topic1()));
        }
    }
}

/// `shouldRespondWithErrorsNoneOnAddPartitionWhenNoErrorsAndPartitionsTheSame`, in the form
/// the model can reach (an ongoing transaction that holds the partition; Kafka's test
/// puts the partition in an Empty transaction, which no run reaches): NONE and no write.
#[test]
fn add_partitions_already_in_the_transaction_writes_nothing() {
    let sys = txn_basic_at(0);
    let state = coordinator(&sys, Some(metadata(0, 0, None, Ongoing, &[topic1()])));
    let (after, cmds) = to_coordinator(
        &sys,
        &state,
        add_partitions(pid_epoch(0, 0), vec![topic1()]),
    );
    assert_eq!(error_of(&sys, &cmds), ErrorCode::None);
    assert!(!appends(&cmds));
    assert_eq!(txn(&after), txn(&state));
}

/// Verifies `partitions` for `producer` as the first partition leader does.
fn verify(
    sys: &sharetxn_model::System,
    state: &sharetxn_model::world::node::NodeState,
    producer: ProducerIdAndEpoch,
) -> (
    sharetxn_model::world::node::NodeState,
    Vec<Cmd>,
    Option<ErrorCode>,
) {
    let (tc, d0) = (sys.topology.txn_coordinator, sys.topology.partitions[0]);
    let (after, cmds) = deliver(sys, tc, state, d0, verify_only(producer, vec![topic1()]));
    let error = sent_to(&cmds, d0).first().and_then(|m| m.response_error());
    (after, cmds, error)
}

/// `testVerifyPartitionHandling`: INVALID_PRODUCER_ID_MAPPING for another producer id,
/// PRODUCER_FENCED for another epoch, CONCURRENT_TRANSACTIONS while prepared (held, in the
/// model), TRANSACTION_ABORTABLE for a partition not in the ongoing transaction.
#[test]
fn verification_answers_as_kafka_does() {
    let sys = txn_basic_at(1);
    let wrong_pid = coordinator(&sys, Some(metadata(1, 0, None, PrepareCommit, &[topic1()])));
    assert_eq!(
        verify(&sys, &wrong_pid, pid_epoch(0, 0)).2,
        Some(ErrorCode::InvalidProducerIdMapping)
    );
    let old_epoch = coordinator(&sys, Some(metadata(0, 0, None, PrepareCommit, &[topic1()])));
    assert_eq!(
        verify(&sys, &old_epoch, pid_epoch(0, 1)).2,
        Some(ErrorCode::ProducerFenced)
    );
    let (after, cmds, error) = verify(&sys, &old_epoch, pid_epoch(0, 0));
    assert_eq!(error, None, "{cmds:?}");
    assert_eq!(
        tc_state(&after).parked.len(),
        1,
        "held until the commit completes"
    );
    let ongoing = coordinator(&sys, Some(metadata(0, 0, None, Ongoing, &[])));
    assert_eq!(
        verify(&sys, &ongoing, pid_epoch(0, 0)).2,
        Some(ErrorCode::TransactionAbortable)
    );
}

/// `shouldRespondWithErrorsNoneOnAddPartitionWhenOngoingVerifyOnlyAndPartitionsTheSame`, and
/// the present partition of `shouldRespondWithInvalidTxnStateWhenVerifyOnlyAndPartitionNotPresent`.
#[test]
fn verification_of_a_partition_in_the_transaction_is_none() {
    let sys = txn_basic_at(1);
    let state = coordinator(&sys, Some(metadata(0, 0, None, Ongoing, &[topic1()])));
    let (after, cmds, error) = verify(&sys, &state, pid_epoch(0, 0));
    assert_eq!(error, Some(ErrorCode::None));
    assert!(!appends(&cmds), "verification writes nothing");
    assert_eq!(txn(&after), txn(&state));
}

/// `shouldReplyWithInvalidPidMappingOnEndTxnWhenTxnIdDoesntExist` (TV 0 and 2).
#[test]
fn end_txn_of_an_unknown_transactional_id_is_an_invalid_mapping() {
    for tv in [0, 2] {
        let sys = txn_basic_at(tv);
        let state = coordinator(&sys, None);
        let (_, cmds) = to_coordinator(&sys, &state, end_txn(pid_epoch(0, 0), true));
        assert_eq!(error_of(&sys, &cmds), ErrorCode::InvalidProducerIdMapping);
    }
}

/// `shouldReplyWithInvalidPidMappingOnEndTxnWhenPidDosentMatchMapped` (TV 0 and 2).
#[test]
fn end_txn_of_another_producer_id_is_an_invalid_mapping() {
    for tv in [0, 2] {
        let sys = txn_basic_at(tv);
        let state = coordinator(&sys, Some(metadata(10, 0, None, Ongoing, &[])));
        let (_, cmds) = to_coordinator(&sys, &state, end_txn(pid_epoch(0, 0), true));
        assert_eq!(error_of(&sys, &cmds), ErrorCode::InvalidProducerIdMapping);
    }
}

/// `shouldReplyWithProducerFencedOnEndTxnWhenEpochIsNotSameAsTransaction`. Kafka's test
/// keeps TV0 metadata for both client versions; the model's transaction version is one
/// setting for the whole cluster, so this is TV0 and TV1.
#[test]
fn end_txn_with_an_older_epoch_is_fenced() {
    for tv in [0, 1] {
        let sys = txn_basic_at(tv);
        let state = coordinator(&sys, Some(metadata(10, 1, Some(0), Ongoing, &[])));
        let (_, cmds) = to_coordinator(&sys, &state, end_txn(pid_epoch(10, 0), true));
        assert_eq!(error_of(&sys, &cmds), ErrorCode::ProducerFenced, "tv={tv}");
    }
}

/// The same request under TV2 metadata: an epoch one below the current one in an ongoing
/// transaction is not a retry (`isValidEpoch` takes only the current epoch in Ongoing), so
/// Kafka answers PRODUCER_FENCED, as the model does by default (`ongoing_end_txn_fenced`;
/// `docs/conformance.md`, TC-1).
#[test]
fn tv2_end_txn_with_the_previous_epoch_in_an_ongoing_transaction_is_fenced() {
    let sys = txn_basic_at(2);
    let state = coordinator(&sys, Some(metadata(10, 1, Some(0), Ongoing, &[])));
    let (_, cmds) = to_coordinator(&sys, &state, end_txn(pid_epoch(10, 0), true));
    assert_eq!(error_of(&sys, &cmds), ErrorCode::ProducerFenced);
}

/// The same request in Ongoing and Empty: Kafka's PRODUCER_FENCED by default, and with
/// `ongoing_end_txn_fenced=false` the model's earlier INVALID_TXN_STATE.
#[test]
fn tv2_end_txn_with_the_previous_epoch_is_fenced_unless_the_knob_is_off() {
    for state_now in [Ongoing, Empty] {
        let kafka = txn_basic_at(2);
        let state = coordinator(&kafka, Some(metadata(10, 1, Some(0), state_now, &[])));
        let (after, cmds) = to_coordinator(&kafka, &state, end_txn(pid_epoch(10, 0), true));
        assert_eq!(
            error_of(&kafka, &cmds),
            ErrorCode::ProducerFenced,
            "{state_now:?}"
        );
        assert_eq!(txn(&after), txn(&state), "nothing moves");

        // The model's earlier rule, kept behind the knob: taken for a retry.
        let earlier = with_setting(&kafka, "ongoing_end_txn_fenced=false");
        let state = coordinator(&earlier, Some(metadata(10, 1, Some(0), state_now, &[])));
        let (_, cmds) = to_coordinator(&earlier, &state, end_txn(pid_epoch(10, 0), true));
        assert_eq!(
            error_of(&earlier, &cmds),
            ErrorCode::InvalidTxnState,
            "{state_now:?}"
        );
    }
}

/// `sys` with one scenario field or design knob changed.
fn with_setting(sys: &System, setting: &str) -> System {
    let (mut design, mut scenario) = (sys.design.clone(), sys.scenario.clone());
    settings::apply(&mut design, &mut scenario, setting).unwrap();
    System::new(design, scenario)
}

/// `requestEpoch`: the epoch Kafka's tests send, the current one under TV0 and the one
/// before the bump under TV2 (a retry of the EndTxn that bumped it).
fn request_epoch(tv: u8, current: u8) -> u8 {
    if tv == 2 {
        current - 1
    } else {
        current
    }
}

/// `shouldReturnOkOnEndTxnWhenStatusIsCompleteCommitAndResultIsCommit` and
/// `shouldReturnOkOnEndTxnWhenStatusIsCompleteAbortAndResultIsAbort` (TV 0 and 2): a retry
/// of a completed EndTxn is NONE and changes nothing.
#[test]
fn end_txn_retried_after_completion_is_none() {
    for tv in [0, 2] {
        for (complete, commit) in [(CompleteCommit, true), (CompleteAbort, false)] {
            let sys = txn_basic_at(tv);
            let state = coordinator(&sys, Some(metadata(10, 1, Some(0), complete, &[])));
            let request = end_txn(pid_epoch(10, request_epoch(tv, 1).into()), commit);
            let (after, cmds) = to_coordinator(&sys, &state, request);
            assert_eq!(
                error_of(&sys, &cmds),
                ErrorCode::None,
                "tv={tv} {complete:?}"
            );
            assert!(!appends(&cmds));
            assert_eq!(txn(&after), txn(&state));
        }
    }
}

/// `shouldReturnInvalidTxnRequestOnEndTxnRequestWhenStatusIsCompleteAbortAndResultIsNotAbort`
/// and `...WhenStatusIsCompleteCommitAndResultIsNotCommit` (TV 0 and 2).
#[test]
fn end_txn_with_the_other_result_after_completion_is_an_invalid_state() {
    for tv in [0, 2] {
        for (complete, commit) in [(CompleteAbort, true), (CompleteCommit, false)] {
            let sys = txn_basic_at(tv);
            let state = coordinator(&sys, Some(metadata(10, 1, Some(0), complete, &[])));
            let request = end_txn(pid_epoch(10, request_epoch(tv, 1).into()), commit);
            let (_, cmds) = to_coordinator(&sys, &state, request);
            assert_eq!(
                error_of(&sys, &cmds),
                ErrorCode::InvalidTxnState,
                "tv={tv} {complete:?}"
            );
        }
    }
}

/// `shouldReturnConcurrentTransactionsOnEndTxnRequestWhenStatusIsPrepareCommit` (TV 0 and
/// 2): CONCURRENT_TRANSACTIONS (held, in the model).
#[test]
fn end_txn_retried_while_the_commit_is_prepared_waits() {
    for tv in [0, 2] {
        let sys = txn_basic_at(tv);
        let state = coordinator(&sys, Some(metadata(10, 1, Some(0), PrepareCommit, &[])));
        let request = end_txn(pid_epoch(10, request_epoch(tv, 1).into()), true);
        let (after, cmds) = to_coordinator(&sys, &state, request);
        assert_parked(&sys, &state, &after, &cmds);
    }
}

/// `shouldReturnInvalidTxnRequestOnEndTxnRequestWhenStatusIsPrepareAbort`, TV0.
#[test]
fn end_txn_commit_while_the_abort_is_prepared_is_an_invalid_state() {
    let sys = txn_basic_at(0);
    let state = coordinator(&sys, Some(metadata(10, 1, None, PrepareAbort, &[])));
    let (_, cmds) = to_coordinator(&sys, &state, end_txn(pid_epoch(10, 1), true));
    assert_eq!(error_of(&sys, &cmds), ErrorCode::InvalidTxnState);
}

/// The same test under TV2: the last epoch is `NO_PRODUCER_EPOCH` and the request carries
/// the epoch before the current one. Kafka's retry rule looks at the current epoch only
/// (`endTxnEpochBumped`), so the request is a retry and a COMMIT in PrepareAbort is
/// INVALID_TXN_STATE. The model also asked that the last epoch be the request's, and
/// answered PRODUCER_FENCED, until fix TC-2 (`docs/conformance.md`).
#[test]
fn tv2_end_txn_commit_while_the_abort_is_prepared_is_an_invalid_state() {
    let sys = txn_basic_at(2);
    let state = coordinator(&sys, Some(metadata(10, 1, None, PrepareAbort, &[])));
    let (_, cmds) = to_coordinator(&sys, &state, end_txn(pid_epoch(10, 0), true));
    assert_eq!(error_of(&sys, &cmds), ErrorCode::InvalidTxnState);
}

/// `shouldReturnInvalidTxnRequestOnEndTxnV2IfNotEndTxnV2Retry`, first half: under TV2 an
/// EndTxn with the current epoch while the previous transaction is still PrepareCommit is
/// the next transaction's EndTxn, not a retry: PRODUCER_FENCED, as the model answers by
/// default (`prepared_end_txn_fenced`; `docs/conformance.md`, TC-3).
#[test]
fn tv2_end_txn_with_the_current_epoch_while_prepared_is_fenced() {
    let sys = txn_basic_at(2);
    let state = coordinator(&sys, Some(metadata(10, 1, None, PrepareCommit, &[])));
    let (_, cmds) = to_coordinator(&sys, &state, end_txn(pid_epoch(10, 1), true));
    assert_eq!(error_of(&sys, &cmds), ErrorCode::ProducerFenced);
}

/// The first half in PrepareCommit and PrepareAbort: Kafka's PRODUCER_FENCED by default,
/// and with `prepared_end_txn_fenced=false` the model's earlier rule, which holds it.
#[test]
fn tv2_end_txn_with_the_current_epoch_while_prepared_is_fenced_unless_the_knob_is_off() {
    for (prepared, commit) in [(PrepareCommit, true), (PrepareAbort, false)] {
        let kafka = txn_basic_at(2);
        let state = coordinator(&kafka, Some(metadata(10, 1, None, prepared, &[])));
        let (after, cmds) = to_coordinator(&kafka, &state, end_txn(pid_epoch(10, 1), commit));
        assert_eq!(
            error_of(&kafka, &cmds),
            ErrorCode::ProducerFenced,
            "{prepared:?}"
        );
        assert_eq!(txn(&after).state, prepared, "nothing moves");

        // The model's earlier simplification, kept behind the knob: held until it completes.
        let held = with_setting(&kafka, "prepared_end_txn_fenced=false");
        let state = coordinator(&held, Some(metadata(10, 1, None, prepared, &[])));
        let (after, cmds) = to_coordinator(&held, &state, end_txn(pid_epoch(10, 1), commit));
        assert_parked(&held, &state, &after, &cmds);
    }
}

/// `shouldReturnInvalidTxnRequestOnEndTxnV2IfNotEndTxnV2Retry`, second half, as
/// `TransactionCoordinator` at `bb126f2d` answers it (its V2 table: CompleteCommit, Commit,
/// Current is INVALID_TXN_STATE; the test at `1eb7644` expects PRODUCER_FENCED, from before
/// that table).
#[test]
fn tv2_end_txn_commit_with_the_current_epoch_after_a_commit_is_an_invalid_state() {
    let sys = txn_basic_at(2);
    let state = coordinator(&sys, Some(metadata(10, 1, None, CompleteCommit, &[])));
    let (_, cmds) = to_coordinator(&sys, &state, end_txn(pid_epoch(10, 1), true));
    assert_eq!(error_of(&sys, &cmds), ErrorCode::InvalidTxnState);
}

/// `shouldAppendPrepareCommitToLogOnEndTxnWhenStatusIsOngoingAndResultIsCommit` and
/// `shouldAppendPrepareAbortToLogOnEndTxnWhenStatusIsOngoingAndResultIsAbort` (TV 0 and 2):
/// the prepare state is written; under TV2 with the epoch bumped.
#[test]
fn end_txn_of_an_ongoing_transaction_writes_the_prepare_state() {
    for tv in [0, 2] {
        for (commit, prepared) in [(true, PrepareCommit), (false, PrepareAbort)] {
            let sys = txn_basic_at(tv);
            let state = coordinator(&sys, Some(metadata(10, 1, Some(0), Ongoing, &[topic1()])));
            let (after, cmds) = to_coordinator(&sys, &state, end_txn(pid_epoch(10, 1), commit));
            assert_eq!(
                error_of(&sys, &cmds),
                ErrorCode::None,
                "tv={tv} {prepared:?}"
            );
            assert!(appends(&cmds));
            assert_eq!(txn(&after).state, prepared);
            let epoch = if tv == 2 { 2 } else { 1 };
            assert_eq!(identity(txn(&after)), pid_epoch(10, epoch), "tv={tv}");
        }
    }
}

/// `verifyEndTxnEpoch`, as called by `shouldReturnInvalidEpochOnEndTxnWhenEpochIsLarger`
/// (metadata epoch 1, request 2) and `shouldReturnInvalidEpochOnEndTxnWhenEpochIsSmaller`
/// (metadata epoch 2, request `requestEpoch`), in CompleteCommit with last epoch 1.
#[test]
fn end_txn_with_a_wrong_epoch_after_a_commit_is_fenced() {
    for tv in [0, 2] {
        for (current, requested) in [(1, 2), (2, request_epoch(tv, 1))] {
            let sys = txn_basic_at(tv);
            let state = coordinator(
                &sys,
                Some(metadata(10, current, Some(1), CompleteCommit, &[])),
            );
            let (_, cmds) =
                to_coordinator(&sys, &state, end_txn(pid_epoch(10, requested.into()), true));
            assert_eq!(
                error_of(&sys, &cmds),
                ErrorCode::ProducerFenced,
                "tv={tv} epoch {current} request {requested}"
            );
        }
    }
}

/// `shouldAbortExpiredTransactionsInOngoingStateAndBumpEpoch`: the timeout fences the
/// producer with a bumped epoch and aborts (PrepareAbort written, ABORT markers sent).
#[test]
fn an_expired_ongoing_transaction_is_aborted_with_a_bumped_epoch() {
    for tv in [0, 2] {
        let sys = txn_basic_at(tv);
        let state = coordinator(&sys, Some(metadata(10, 1, Some(0), Ongoing, &[topic1()])));
        let (after, cmds) = time_out(&sys, &state);
        assert!(appends(&cmds));
        assert_eq!(txn(&after).state, PrepareAbort);
        assert_eq!(identity(txn(&after)), pid_epoch(10, 2), "tv={tv}");
        let markers = sent_to(&cmds, sys.topology.partitions[0]);
        assert!(matches!(&markers[..], [Msg::WriteTxnMarkers(m)] if !m.commit));
    }
}

/// `shouldNotAbortExpiredTransactionsThatHaveAPendingStateTransition`, in the states the
/// model has instead of a pending transition: only an ongoing transaction times out.
#[test]
fn only_an_ongoing_transaction_expires() {
    for other in [
        Empty,
        PrepareCommit,
        PrepareAbort,
        CompleteCommit,
        CompleteAbort,
    ] {
        let sys = txn_basic_at(2);
        let state = coordinator(&sys, Some(metadata(10, 1, Some(0), other, &[topic1()])));
        let (after, cmds) = time_out(&sys, &state);
        assert!(cmds.is_empty(), "{other:?}: {cmds:?}");
        assert_eq!(txn(&after).state, other);
    }
}

/// Fires the coordinator's transaction timeout of `TXN`.
fn time_out(
    sys: &sharetxn_model::System,
    state: &sharetxn_model::world::node::NodeState,
) -> (sharetxn_model::world::node::NodeState, Vec<Cmd>) {
    use stateright::actor::{Actor, Out};
    let tc = sys.topology.txn_coordinator;
    let mut cow = std::borrow::Cow::Borrowed(state);
    let mut out = Out::new();
    sys.actors[usize::from(tc)].on_timeout(tc, &mut cow, &Timer::TxnTimeout(TXN), &mut out);
    (cow.into_owned(), out.into_iter().collect())
}
