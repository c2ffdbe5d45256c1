//! Handler tests: one message in, the exact commands out.

use crate::common;

use common::{deliver, dp_state, pe, same, sent, start, system, tc_state, Cmd};
use sharetxn_model::design::Design;
use sharetxn_model::partition::partition_log::{AppendCheck, PartitionLog};
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::keyed::Keyed;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::world::node::NodeStorage;
use sharetxn_model::Scenario;
use stateright::actor::Command;

#[test]
fn producer_start_sends_init_producer_id_with_a_request_timeout() {
    let sys = system(Design::consumer_offsets(), Scenario::txn_basic(), &[]);
    let p0 = sys.topology.producers[0];
    let (_, commands) = start(&sys, p0, None);
    assert_eq!(commands.len(), 3, "{commands:?}");
    assert!(same(
        &commands[0],
        &Command::Save(NodeStorage::Producer { incarnation: 0 })
    ));
    assert!(same(
        &commands[1],
        &Command::Send(
            sys.topology.txn_coordinator,
            Msg::InitProducerId(InitProducerIdRequest::plain(TransactionalId(0)))
        )
    ));
    assert!(matches!(
        commands[2],
        Command::SetTimer(Timer::RequestTimeout(RequestKey::Coordinator), _)
    ));
}

#[test]
fn coordinator_grants_a_new_producer_id_and_persists_it() {
    let sys = system(Design::consumer_offsets(), Scenario::txn_basic(), &[]);
    let tc = sys.topology.txn_coordinator;
    let p0 = sys.topology.producers[0];
    let (state, _) = start(&sys, tc, None);
    let (after, commands) = deliver(
        &sys,
        tc,
        &state,
        p0,
        Msg::InitProducerId(InitProducerIdRequest::plain(TransactionalId(0))),
    );
    assert_eq!(commands.len(), 2, "{commands:?}");
    assert!(matches!(
        commands[0],
        Command::Save(NodeStorage::TxnCoordinator(_))
    ));
    assert!(same(
        &commands[1],
        &Command::Send(
            p0,
            Msg::InitProducerIdResponse(InitProducerIdResponse {
                txn: TransactionalId(0),
                error: ErrorCode::None,
                producer: Some(pe(0)),
                ongoing: None,
                connection: Default::default(),
            })
        )
    ));
    let tc_state = tc_state(&after);
    assert_eq!(tc_state.next_pid, ProducerId(1));
}

#[test]
fn first_write_of_a_transaction_is_verified_with_an_implicit_add_under_tv2() {
    let sys = system(Design::consumer_offsets(), Scenario::txn_basic(), &[]);
    let d0 = sys.topology.partitions[0];
    let p0 = sys.topology.producers[0];
    let (state, _) = start(&sys, d0, None);
    let req = ProduceRequest {
        txn: TransactionalId(0),
        producer: pe(0),
        seq: 0,
        partition: PartitionIndex(0),
        record: OutputRecord {
            input: 0,
            tag: Ghost::new(TxnTag {
                client: 0,
                incarnation: 0,
                attempt: 0,
            }),
        },
    };
    let (after, commands) = deliver(&sys, d0, &state, p0, Msg::Produce(req));
    assert_eq!(commands.len(), 2, "{commands:?}");
    assert!(same(
        &commands[0],
        &Command::Send(
            sys.topology.txn_coordinator,
            Msg::AddPartitionsToTxn(AddPartitionsToTxnRequest {
                txn: TransactionalId(0),
                producer: pe(0),
                partitions: vec![TopicPartition::Output(PartitionIndex(0))],
                mode: AddPartitionsMode::BrokerAdd {
                    guard: VerificationGuard {
                        generation: 0,
                        counter: 0
                    }
                },
            })
        )
    ));
    assert!(matches!(
        commands[1],
        Command::SetTimer(
            Timer::VerificationTimeout(Keyed {
                partition: 0,
                key: ProducerId(0)
            }),
            _
        )
    ));
    let d = dp_state(&after);
    assert!(
        d.log.entries.is_empty(),
        "nothing is appended before verification"
    );
    assert_eq!(d.verifying.len(), 1);
}

#[test]
fn tv2_end_txn_bumps_the_epoch_and_writes_markers_to_every_participant() {
    let sys = system(Design::consumer_offsets(), Scenario::txn_basic(), &[]);
    let tc = sys.topology.txn_coordinator;
    let p0 = sys.topology.producers[0];
    let d0 = sys.topology.partitions[0];
    let (mut state, _) = start(&sys, tc, None);
    let init = Msg::InitProducerId(InitProducerIdRequest::plain(TransactionalId(0)));
    state = deliver(&sys, tc, &state, p0, init).0;
    let add = Msg::AddPartitionsToTxn(AddPartitionsToTxnRequest {
        txn: TransactionalId(0),
        producer: pe(0),
        partitions: vec![TopicPartition::Output(PartitionIndex(0))],
        mode: AddPartitionsMode::BrokerAdd {
            guard: VerificationGuard {
                generation: 0,
                counter: 0,
            },
        },
    });
    state = deliver(&sys, tc, &state, d0, add).0;
    let end = Msg::EndTxn(EndTxnRequest {
        txn: TransactionalId(0),
        producer: pe(0),
        commit: true,
        connection: Default::default(),
    });
    let (after, commands) = deliver(&sys, tc, &state, p0, end);
    let sends = sent(&commands);
    assert_eq!(
        sends,
        vec![
            (
                d0,
                Msg::WriteTxnMarkers(WriteTxnMarkersRequest {
                    producer: pe(1),
                    commit: true,
                    coordinator_epoch: CoordinatorEpoch(0),
                    partition: TopicPartition::Output(PartitionIndex(0)),
                    tv: 2,
                })
            ),
            (
                p0,
                Msg::EndTxnResponse(EndTxnResponse {
                    txn: TransactionalId(0),
                    request_producer: pe(0),
                    commit: true,
                    error: ErrorCode::None,
                    producer: Some(pe(1)),
                    connection: Default::default(),
                })
            ),
        ]
    );
    let cancel: Cmd = Command::CancelTimer(Timer::TxnTimeout(TransactionalId(0)));
    assert!(commands.iter().any(|c| same(c, &cancel)));
    let s = tc_state(&after);
    assert_eq!(
        s.txns[&TransactionalId(0)].state,
        sharetxn_model::coordinator::txn_state::TransactionState::PrepareCommit
    );
}

/// KIP-447: an OffsetFetch with RequireStable waits while a transactional offset commit is
/// pending (Kafka answers UNSTABLE_OFFSET_COMMIT and the consumer retries), so a restarted
/// client never starts from an offset that a committing transaction is about to move;
/// without RequireStable the last committed offset is answered at once.
#[test]
fn offset_fetch_require_stable_waits_for_a_pending_offset_commit() {
    use sharetxn_model::partition::partition_log::Payload;
    let sys = system(Design::consumer_offsets(), Scenario::txn_basic(), &[]);
    let gc = sys.topology.group_coordinator;
    let p0 = sys.topology.producers[0];
    let (mut state, _) = start(&sys, gc, None);
    let leader = state
        .group_coordinator_mut()
        .expect("the group coordinator's state");
    let tag = Ghost::new(TxnTag {
        client: 0,
        incarnation: 0,
        attempt: 0,
    });
    leader
        .log
        .append(pe(0), Some(0), Payload::Offset { offset: 1, tag });
    let fetch = |require_stable| Msg::OffsetFetch(OffsetFetchRequest { require_stable });
    let (waiting, commands) = deliver(&sys, gc, &state, p0, fetch(true));
    assert!(commands.is_empty(), "{commands:?}");
    let waiting = waiting
        .group_coordinator()
        .expect("the group coordinator's state");
    assert_eq!(waiting.waiting_fetches, vec![p0]);
    let (_, commands) = deliver(&sys, gc, &state, p0, fetch(false));
    assert!(same(
        &commands[0],
        &Command::Send(
            p0,
            Msg::OffsetFetchResponse(OffsetFetchResponse {
                error: ErrorCode::None,
                offset: 0,
            })
        )
    ));
}

/// `checkSequence` with a KIP-890 verification entry, the model's reading of it
/// (docs/fidelity.md, "an unknown producer's first batch"): the model's client verifies
/// its first batch to a partition at sequence 0, so the entry's `lowestSequence` is 0 and
/// under TV2 with verification a first batch of an unknown producer above it is out of
/// order (`appendFirstSeq > verificationStateEntry.lowestSequence()`). Without
/// verification, or before TV2, an unknown producer (`NO_PRODUCER_EPOCH`) appends at any
/// sequence, as Kafka's `checkSequence` does (1eb7644).
#[test]
fn an_unknown_producers_verified_first_batch_starts_at_zero() {
    const TV1: TransactionVersion = TransactionVersion(1);
    const TV2: TransactionVersion = TransactionVersion(2);
    let log = PartitionLog::default();
    assert_eq!(
        log.check_append(pe(0), Some(0), TV2, true, true),
        AppendCheck::Append
    );
    assert_eq!(
        log.check_append(pe(0), Some(1), TV2, true, true),
        AppendCheck::Reject(ErrorCode::OutOfOrderSequenceNumber)
    );
    assert_eq!(
        log.check_append(pe(0), Some(1), TV2, false, false),
        AppendCheck::Append
    );
    assert_eq!(
        log.check_append(pe(0), Some(1), TV1, true, true),
        AppendCheck::Append
    );
}

/// `TransactionMarkerRequestCompletionHandler.onComplete` (1eb7644) puts the markers of a
/// disconnected broker back on its queue (`addTxnMarkersToBrokerQueue`) however often that
/// happens, and so does the model by default; a scenario's `marker_retries` count bounds
/// the resends instead. With a bound of two, the first resend arms the resend timer again
/// and the second, the last, does not.
#[test]
fn each_marker_resend_but_the_last_arms_the_next() {
    use crate::conformance::fixture::{coordinator, end_txn, metadata, sent_to, to_coordinator};
    use sharetxn_model::coordinator::txn_state::TransactionState::{Ongoing, PrepareCommit};
    let sys = system(
        Design::consumer_offsets(),
        Scenario::txn_basic(),
        &["tv=2", "marker_retries=2"],
    );
    let (tc, d0) = (sys.topology.txn_coordinator, sys.topology.partitions[0]);
    let topic = TopicPartition::Output(PartitionIndex(0));
    let state = coordinator(&sys, Some(metadata(1, 0, None, Ongoing, &[topic])));
    let (state, _) = to_coordinator(&sys, &state, end_txn(common::pid_epoch(1, 0), true));
    let retry = Timer::MarkerRetry(common::TXN);
    let marker_sent = |cmds: &[Cmd]| {
        sent_to(cmds, d0)
            .iter()
            .any(|m| matches!(m, Msg::WriteTxnMarkers(w) if w.commit && w.partition == topic))
    };
    let rearmed = |cmds: &[Cmd]| {
        cmds.iter()
            .any(|c| matches!(c, Command::SetTimer(t, _) if *t == retry))
    };
    assert_eq!(tc_state(&state).markers[&common::TXN].retries_left, Some(2));
    let (state, first) = common::fire(&sys, tc, &state, retry);
    assert!(marker_sent(&first), "{first:?}");
    assert!(rearmed(&first), "one resend is left: {first:?}");
    assert_eq!(tc_state(&state).markers[&common::TXN].retries_left, Some(1));
    let (state, second) = common::fire(&sys, tc, &state, retry);
    assert!(marker_sent(&second), "{second:?}");
    assert!(!rearmed(&second), "the budget is spent: {second:?}");
    assert_eq!(tc_state(&state).markers[&common::TXN].retries_left, Some(0));
    assert_eq!(
        tc_state(&state).txns[&common::TXN].state,
        PrepareCommit,
        "still waiting for the marker's answer"
    );
}

/// Kafka's default, and every named scenario's: `onComplete` re-enqueues a disconnected
/// request's markers with no limit while the coordinator epoch stands, so every resend
/// sends the marker again and arms the next (a transaction whose lost marker the model
/// stopped resending stayed PREPARE_COMMIT for good, a liveness failure Kafka has not).
#[test]
fn markers_are_resent_without_limit_by_default() {
    use crate::conformance::fixture::{coordinator, end_txn, metadata, sent_to, to_coordinator};
    use sharetxn_model::coordinator::txn_state::TransactionState::Ongoing;
    let sys = system(Design::consumer_offsets(), Scenario::txn_basic(), &["tv=2"]);
    assert_eq!(sys.scenario.marker_retries, None);
    let (tc, d0) = (sys.topology.txn_coordinator, sys.topology.partitions[0]);
    let topic = TopicPartition::Output(PartitionIndex(0));
    let state = coordinator(&sys, Some(metadata(1, 0, None, Ongoing, &[topic])));
    let (mut state, _) = to_coordinator(&sys, &state, end_txn(common::pid_epoch(1, 0), true));
    let retry = Timer::MarkerRetry(common::TXN);
    for resend in 1..=5 {
        let (next, cmds) = common::fire(&sys, tc, &state, retry);
        assert!(
            sent_to(&cmds, d0)
                .iter()
                .any(|m| matches!(m, Msg::WriteTxnMarkers(w) if w.commit && w.partition == topic)),
            "resend {resend}: {cmds:?}"
        );
        assert!(
            cmds.iter()
                .any(|c| matches!(c, Command::SetTimer(t, _) if *t == retry)),
            "resend {resend} arms the next: {cmds:?}"
        );
        assert_eq!(tc_state(&next).markers[&common::TXN].retries_left, None);
        state = next;
    }
}
