//! The client's `TransactionManagerTest` (clients/src/test/java/org/apache/kafka/clients/
//! producer/internals, apache/kafka `1eb7644349cb`): the transactional producer's states and
//! requests. The model's producer runs the consume-transform-produce loop by itself, so each
//! case drives it with the brokers' answers (Kafka's `prepare*Response`) and the
//! application's commit or abort (Kafka's `beginCommit`/`beginAbort`), and reads its
//! `TransactionManager` state and what it sends.

use super::fixture::{pid_epoch, sent_to, txn_basic_at, TXN};
use crate::common::{choose, deliver, fire, start, Cmd};
use sharetxn_model::clients::producer::ProducerState;
use sharetxn_model::coordinator::txn_state::TxnManagerState::{self, *};
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::world::node::NodeState;
use sharetxn_model::System;
use stateright::actor::{Command, Id};

/// The first producer of txn-basic at a transaction version, and its state.
struct Client {
    sys: System,
    state: NodeState,
}

impl Client {
    /// `initTransactions()`: the producer starts and sends InitProducerId.
    fn start(tv: u8) -> (Client, Vec<Cmd>) {
        Client::start_with(txn_basic_at(tv))
    }

    /// `initTransactions()` of the first producer of `sys`.
    fn start_with(sys: System) -> (Client, Vec<Cmd>) {
        let id = sys.topology.producers[0];
        let (state, cmds) = start(&sys, id, None);
        (Client { sys, state }, cmds)
    }

    fn id(&self) -> Id {
        self.sys.topology.producers[0]
    }

    fn producer(&self) -> &ProducerState {
        crate::common::producer_state(&self.state)
    }

    fn tm(&self) -> TxnManagerState {
        self.producer().manager.tm
    }

    /// A broker `src` answers `msg` to the producer.
    fn answer(&mut self, src: Id, msg: Msg) -> Vec<Cmd> {
        let (state, cmds) = deliver(&self.sys, self.id(), &self.state, src, msg);
        self.state = state;
        cmds
    }

    /// The transaction coordinator answers.
    fn coordinator_answers(&mut self, msg: Msg) -> Vec<Cmd> {
        self.answer(self.sys.topology.txn_coordinator, msg)
    }

    /// The application commits (`true`) or aborts.
    fn decide(&mut self, commit: bool) -> Vec<Cmd> {
        let choice = if commit {
            ClientChoice::Commit
        } else {
            ClientChoice::Abort
        };
        let (state, cmds) = choose(&self.sys, self.id(), &self.state, choice);
        self.state = state;
        cmds
    }

    /// What the commands send to the transaction coordinator.
    fn to_coordinator(&self, cmds: &[Cmd]) -> Vec<Msg> {
        sent_to(cmds, self.sys.topology.txn_coordinator)
    }

    /// `doInitTransactions`: InitProducerId answered with producer 0 at `epoch`, and the
    /// group's committed offset fetched (offset 0): the producer begins its first
    /// transaction. The commands of that last step.
    fn initialised(tv: u8, epoch: u16) -> (Client, Vec<Cmd>) {
        Client::initialised_in(txn_basic_at(tv), epoch)
    }

    /// [`Client::initialised`] in `sys`.
    fn initialised_in(sys: System, epoch: u16) -> (Client, Vec<Cmd>) {
        let (mut c, _) = Client::start_with(sys);
        c.coordinator_answers(init_answer(ErrorCode::None, Some(pid_epoch(0, epoch))));
        let gc = c.sys.topology.group_coordinator;
        let cmds = c.answer(
            gc,
            Msg::OffsetFetchResponse(OffsetFetchResponse {
                error: ErrorCode::None,
                offset: 0,
            }),
        );
        (c, cmds)
    }

    /// Answers every Produce and TxnOffsetCommit in `cmds` with `error`.
    fn answer_writes(&mut self, cmds: &[Cmd], error: ErrorCode) -> Vec<Cmd> {
        self.answer_writes_where(cmds, error, |_| true)
    }

    /// Answers the Produce and TxnOffsetCommit requests in `cmds` that `pick` takes.
    fn answer_writes_where(
        &mut self,
        cmds: &[Cmd],
        error: ErrorCode,
        pick: impl Fn(&Msg) -> bool,
    ) -> Vec<Cmd> {
        let mut out = Vec::new();
        for c in cmds {
            let Command::Send(dst, msg) = c else { continue };
            if !pick(msg) {
                continue;
            }
            let reply = match msg {
                Msg::Produce(p) => Msg::ProduceResponse(ProduceResponse {
                    partition: p.partition,
                    producer: p.producer,
                    seq: p.seq,
                    error,
                }),
                Msg::TxnOffsetCommit(t) => Msg::TxnOffsetCommitResponse(TxnOffsetCommitResponse {
                    producer: t.producer,
                    offset: t.offset,
                    error,
                }),
                _ => continue,
            };
            out.extend(self.answer(*dst, reply));
        }
        out
    }
}

fn init_answer(error: ErrorCode, producer: Option<ProducerIdAndEpoch>) -> Msg {
    Msg::InitProducerIdResponse(InitProducerIdResponse {
        txn: TXN,
        error,
        producer,
        ongoing: None,
        connection: Default::default(),
    })
}

fn add_partitions_answer(error: ErrorCode) -> Msg {
    Msg::AddPartitionsToTxnResponse(AddPartitionsToTxnResponse {
        txn: TXN,
        producer: pid_epoch(0, 0),
        partitions: vec![super::fixture::topic1()],
        mode: AddPartitionsMode::Client,
        error,
    })
}

fn add_offsets_answer(error: ErrorCode) -> Msg {
    Msg::AddOffsetsToTxnResponse(AddOffsetsToTxnResponse {
        txn: TXN,
        producer: pid_epoch(0, 0),
        error,
    })
}

fn end_txn_answer(
    request: ProducerIdAndEpoch,
    commit: bool,
    error: ErrorCode,
    producer: Option<ProducerIdAndEpoch>,
) -> Msg {
    Msg::EndTxnResponse(EndTxnResponse {
        txn: TXN,
        request_producer: request,
        commit,
        error,
        producer,
        connection: Default::default(),
    })
}

fn names(msgs: &[Msg]) -> Vec<&'static str> {
    msgs.iter().map(|m| m.name()).collect()
}

/// `testBasicTransaction` (TV1): InitProducerId, AddPartitionsToTxn, the produce,
/// AddOffsetsToTxn and TxnOffsetCommit, then EndTxn(COMMIT) once both writes are answered;
/// the client goes back to READY.
#[test]
fn a_basic_transaction_commits_and_the_client_is_ready_again() {
    let (mut c, cmds) = Client::initialised(1, 0);
    assert_eq!(c.tm(), InTransaction);
    assert_eq!(names(&c.to_coordinator(&cmds)), ["AddPartitionsToTxn"]);
    let cmds = c.coordinator_answers(add_partitions_answer(ErrorCode::None));
    let produce = sent_to(&cmds, c.sys.topology.partitions[0]);
    assert!(
        matches!(&produce[..], [Msg::Produce(p)] if p.seq == 0),
        "testDefaultSequenceNumber: {produce:?}"
    );
    assert_eq!(names(&c.to_coordinator(&cmds)), ["AddOffsetsToTxn"]);
    let mut writes = cmds;
    writes.extend(c.coordinator_answers(add_offsets_answer(ErrorCode::None)));
    c.answer_writes(&writes, ErrorCode::None);
    let cmds = c.decide(true);
    assert_eq!(c.tm(), CommittingTransaction);
    let end = c.to_coordinator(&cmds);
    assert!(matches!(&end[..], [Msg::EndTxn(e)] if e.commit), "{end:?}");
    c.coordinator_answers(end_txn_answer(pid_epoch(0, 0), true, ErrorCode::None, None));
    assert!(matches!(c.tm(), Ready | InTransaction), "{:?}", c.tm());
    assert_eq!(
        c.producer().next_input,
        1,
        "the committed input is not processed again"
    );
}

/// `testTransactionManagerEnablesV2`: under TV2 the client adds no partitions itself (no
/// AddPartitionsToTxn, no AddOffsetsToTxn) and takes the epoch EndTxn bumped.
#[test]
fn tv2_sends_no_add_partitions_and_takes_the_bumped_epoch() {
    let (mut c, cmds) = Client::initialised(2, 0);
    let sent: Vec<&str> = cmds
        .iter()
        .filter_map(|cmd| match cmd {
            Command::Send(_, m) => Some(m.name()),
            _ => None,
        })
        .collect();
    assert!(
        !sent.contains(&"AddPartitionsToTxn") && !sent.contains(&"AddOffsetsToTxn"),
        "{sent:?}"
    );
    assert!(
        sent.contains(&"Produce") && sent.contains(&"TxnOffsetCommit"),
        "{sent:?}"
    );
    c.answer_writes(&cmds, ErrorCode::None);
    let cmds = c.decide(true);
    assert_eq!(names(&c.to_coordinator(&cmds)), ["EndTxn"]);
    c.coordinator_answers(end_txn_answer(
        pid_epoch(0, 0),
        true,
        ErrorCode::None,
        Some(pid_epoch(0, 1)),
    ));
    assert_eq!(c.producer().manager.identity, Some(pid_epoch(0, 1)));
}

/// `testEndTxnNotSentIfIncompleteBatches`: the commit waits for the unanswered produce; EndTxn
/// goes once it is answered.
#[test]
fn end_txn_waits_for_the_unanswered_writes() {
    let (mut c, cmds) = Client::initialised(2, 0);
    let end = c.decide(true);
    assert!(c.to_coordinator(&end).is_empty(), "{end:?}");
    let after = c.answer_writes(&cmds, ErrorCode::None);
    assert_eq!(names(&c.to_coordinator(&after)), ["EndTxn"]);
}

/// `testProducerFencedExceptionInInitProducerId`: PRODUCER_FENCED on InitProducerId is fatal.
#[test]
fn producer_fenced_on_init_pid_is_fatal() {
    let (mut c, _) = Client::start(2);
    c.coordinator_answers(init_answer(ErrorCode::ProducerFenced, None));
    assert_eq!(c.tm(), FatalError);
}

/// `testProducerFencedInAddPartitionToTxn`, `testInvalidTxnStateInAddPartitions` and
/// `testTransactionalIdAuthorizationFailureInAddPartitions` (TV1): each is fatal.
#[test]
fn a_fatal_error_on_add_partitions_is_fatal() {
    for error in [
        ErrorCode::ProducerFenced,
        ErrorCode::InvalidTxnState,
        ErrorCode::TransactionalIdAuthorizationFailed,
    ] {
        let (mut c, _) = Client::initialised(1, 0);
        c.coordinator_answers(add_partitions_answer(error));
        assert_eq!(c.tm(), FatalError, "{error:?}");
    }
}

/// `testProducerFencedInAddOffSetsToTxn` (TV1): fatal.
#[test]
fn producer_fenced_on_add_offsets_is_fatal() {
    let (mut c, _) = Client::initialised(1, 0);
    c.coordinator_answers(add_partitions_answer(ErrorCode::None));
    c.coordinator_answers(add_offsets_answer(ErrorCode::ProducerFenced));
    assert_eq!(c.tm(), FatalError);
}

/// `testInvalidProducerEpochConvertToProducerFencedInEndTxn`: INVALID_PRODUCER_EPOCH on
/// EndTxn is fatal (Kafka converts it to ProducerFencedException).
#[test]
fn invalid_producer_epoch_on_end_txn_is_fatal() {
    let (mut c, cmds) = Client::initialised(2, 0);
    c.answer_writes(&cmds, ErrorCode::None);
    c.decide(true);
    c.coordinator_answers(end_txn_answer(
        pid_epoch(0, 0),
        true,
        ErrorCode::InvalidProducerEpoch,
        None,
    ));
    assert_eq!(c.tm(), FatalError);
}

/// `testRetriableErrors` (REQUEST_TIMED_OUT, COORDINATOR_LOAD_IN_PROGRESS and
/// CONCURRENT_TRANSACTIONS; UNKNOWN_TOPIC_OR_PARTITION is not modelled): InitProducerId,
/// AddPartitionsToTxn (where Kafka substitutes COORDINATOR_LOAD_IN_PROGRESS for
/// CONCURRENT_TRANSACTIONS) and EndTxn are each sent again, and the commit succeeds.
#[test]
fn retriable_errors_resend_the_request() {
    for error in [
        ErrorCode::RequestTimedOut,
        ErrorCode::CoordinatorLoadInProgress,
        ErrorCode::ConcurrentTransactions,
    ] {
        let (mut c, _) = Client::start(1);
        let again = c.coordinator_answers(init_answer(error, None));
        assert_eq!(
            names(&c.to_coordinator(&again)),
            ["InitProducerId"],
            "{error:?}"
        );
        c.coordinator_answers(init_answer(ErrorCode::None, Some(pid_epoch(0, 0))));
        let gc = c.sys.topology.group_coordinator;
        c.answer(
            gc,
            Msg::OffsetFetchResponse(OffsetFetchResponse {
                error: ErrorCode::None,
                offset: 0,
            }),
        );
        let add_error = if error == ErrorCode::ConcurrentTransactions {
            ErrorCode::CoordinatorLoadInProgress
        } else {
            error
        };
        let again = c.coordinator_answers(add_partitions_answer(add_error));
        assert_eq!(
            names(&c.to_coordinator(&again)),
            ["AddPartitionsToTxn"],
            "{error:?}"
        );
        let mut writes = c.coordinator_answers(add_partitions_answer(ErrorCode::None));
        writes.extend(c.coordinator_answers(add_offsets_answer(ErrorCode::None)));
        c.answer_writes(&writes, ErrorCode::None);
        c.decide(true);
        let again = c.coordinator_answers(end_txn_answer(pid_epoch(0, 0), true, error, None));
        assert_eq!(names(&c.to_coordinator(&again)), ["EndTxn"], "{error:?}");
        c.coordinator_answers(end_txn_answer(pid_epoch(0, 0), true, ErrorCode::None, None));
        assert_ne!(c.tm(), FatalError, "{error:?}");
        assert_eq!(c.producer().next_input, 1, "{error:?}: committed");
    }
}

/// `testDisallowCommitOnProduceFailure`: a produce failed with OUT_OF_ORDER_SEQUENCE_NUMBER
/// is an abortable error and the transaction cannot commit. Kafka's `commitTransaction`
/// throws and the application aborts; the model's client ends a failed transaction with
/// EndTxn(ABORT) itself once its writes are answered, and an application's commit then
/// changes nothing. After the abort the client processes the same input again.
#[test]
fn a_failed_produce_makes_the_transaction_abort() {
    let (mut c, cmds) = Client::initialised(2, 0);
    let (produce, commit): (Vec<Cmd>, Vec<Cmd>) = cmds
        .into_iter()
        .partition(|cmd| matches!(cmd, Command::Send(_, Msg::Produce(_))));
    let mut end = c.answer_writes(&commit, ErrorCode::None);
    end.extend(c.answer_writes(&produce, ErrorCode::OutOfOrderSequenceNumber));
    let end = c.to_coordinator(&end);
    assert!(matches!(&end[..], [Msg::EndTxn(e)] if !e.commit), "{end:?}");
    assert_eq!(c.tm(), AbortingTransaction);
    let later = c.decide(true);
    assert!(
        c.to_coordinator(&later).is_empty(),
        "the commit is not sent"
    );
    c.coordinator_answers(end_txn_answer(
        pid_epoch(0, 0),
        false,
        ErrorCode::None,
        Some(pid_epoch(0, 1)),
    ));
    assert_ne!(c.tm(), FatalError);
    assert_eq!(
        c.producer().next_input,
        0,
        "the aborted input is processed again"
    );
}

/// `testBumpTransactionalEpochOnAbortableError` (TV0/1): a produce fails with an abortable
/// error; the abort's EndTxn goes out with the current epoch, and once it is answered the
/// client asks InitProducerId to bump the epoch it holds (INITIALIZING), then is READY at the
/// bumped epoch and begins its next transaction with sequences from the start. Under TV2
/// the coordinator bumps the epoch at the EndTxn and the client asks nothing more (4.0's
/// `needToTriggerEpochBumpFromClient`).
#[test]
fn an_abortable_error_bumps_the_epoch_after_the_abort_before_tv2() {
    for tv in [1, 2] {
        let (mut c, cmds) = Client::initialised(tv, 1);
        let mut writes = cmds;
        if tv == 1 {
            writes = c.coordinator_answers(add_partitions_answer(ErrorCode::None));
            writes.extend(c.coordinator_answers(add_offsets_answer(ErrorCode::None)));
        }
        let is_produce = |m: &Msg| matches!(m, Msg::Produce(_));
        let mut end = c.answer_writes_where(&writes, ErrorCode::None, |m| !is_produce(m));
        // Kafka's test answers TOPIC_AUTHORIZATION_FAILED, which the model's leaders never
        // send; OUT_OF_ORDER_SEQUENCE_NUMBER is abortable for the client the same way.
        let failed = ErrorCode::OutOfOrderSequenceNumber;
        end.extend(c.answer_writes_where(&writes, failed, is_produce));
        let end = c.to_coordinator(&end);
        assert!(
            matches!(&end[..], [Msg::EndTxn(e)] if !e.commit && e.producer == pid_epoch(0, 1)),
            "tv={tv} {end:?}"
        );
        let bumped = (tv == 2).then_some(pid_epoch(0, 2));
        let after_abort = c.coordinator_answers(end_txn_answer(
            pid_epoch(0, 1),
            false,
            ErrorCode::None,
            bumped,
        ));
        if tv == 2 {
            assert!(matches!(c.tm(), Ready | InTransaction), "{:?}", c.tm());
            assert!(names(&c.to_coordinator(&after_abort))
                .iter()
                .all(|n| *n != "InitProducerId"));
            continue;
        }
        assert_eq!(c.tm(), Initializing);
        let init = c.to_coordinator(&after_abort);
        assert!(
            matches!(&init[..], [Msg::InitProducerId(i)] if i.expected == Some(pid_epoch(0, 1))),
            "{init:?}"
        );
        let next = c.coordinator_answers(init_answer(ErrorCode::None, Some(pid_epoch(0, 2))));
        assert_eq!(c.producer().manager.identity, Some(pid_epoch(0, 2)));
        assert_eq!(c.tm(), InTransaction, "the next transaction begins");
        let add = c.to_coordinator(&next);
        assert!(
            matches!(&add[..], [Msg::AddPartitionsToTxn(a)] if a.producer == pid_epoch(0, 2)),
            "{add:?}"
        );
        let cmds = c.coordinator_answers(add_partitions_answer(ErrorCode::None));
        let produce = sent_to(&cmds, c.sys.topology.partitions[0]);
        assert!(
            matches!(&produce[..], [Msg::Produce(p)] if p.seq == 0 && p.producer == pid_epoch(0, 2)),
            "sequences from the start: {produce:?}"
        );
    }
}

/// `testRetryCommitTransactionAfterTimeout`: the commit's EndTxn is not abandoned when no
/// answer comes in time (Kafka: the application's `await` times out; the model: the request
/// timeout fires), it is sent again as it was, and its answer completes the commit.
#[test]
fn an_unanswered_end_txn_is_sent_again_and_completes_the_commit() {
    let sys = crate::common::system(
        sharetxn_model::design::Design::consumer_offsets(),
        sharetxn_model::Scenario::txn_basic(),
        &["tv=2", "request_retries=1"],
    );
    let (mut c, cmds) = Client::initialised_in(sys, 0);
    c.answer_writes(&cmds, ErrorCode::None);
    let decided = c.decide(true);
    let first = c.to_coordinator(&decided);
    let (state, cmds) = fire(
        &c.sys,
        c.id(),
        &c.state,
        Timer::RequestTimeout(RequestKey::Coordinator),
    );
    c.state = state;
    assert_eq!(c.to_coordinator(&cmds), first);
    assert_eq!(c.tm(), CommittingTransaction);
    c.coordinator_answers(end_txn_answer(
        pid_epoch(0, 0),
        true,
        ErrorCode::None,
        Some(pid_epoch(0, 1)),
    ));
    assert_eq!(c.producer().next_input, 1, "committed");
}

/// `TxnOffsetCommitHandler.handleResponse`: INVALID_PRODUCER_EPOCH is fatal
/// (`isFatalException`) at every transaction version, and a failed verification's
/// INVALID_TXN_STATE, a code the handler does not list, is fatal ("Unexpected error in
/// TxnOffsetCommitResponse") before TV2. A TV2 client's TxnOffsetCommit v5 is answered
/// TRANSACTION_ABORTABLE for it instead, an abortable error: the model keeps the transaction
/// going to its abort. A Produce's INVALID_PRODUCER_EPOCH is abortable
/// (`TransactionManager.maybeTransitionToErrorState`), not fatal.
#[test]
fn txn_offset_commit_errors_are_fatal_or_abortable_as_kafkas_handler_makes_them() {
    for (tv, error, fatal) in [
        (1, ErrorCode::InvalidProducerEpoch, true),
        (2, ErrorCode::InvalidProducerEpoch, true),
        (1, ErrorCode::InvalidTxnState, true),
        (2, ErrorCode::InvalidTxnState, false),
    ] {
        let (mut c, cmds) = Client::initialised(tv, 0);
        let mut writes = cmds;
        if tv < 2 {
            writes.extend(c.coordinator_answers(add_partitions_answer(ErrorCode::None)));
            writes.extend(c.coordinator_answers(add_offsets_answer(ErrorCode::None)));
        }
        let is_commit = |m: &Msg| matches!(m, Msg::TxnOffsetCommit(_));
        assert!(
            writes
                .iter()
                .any(|c| matches!(c, Command::Send(_, m) if is_commit(m))),
            "tv{tv}: {writes:?}"
        );
        c.answer_writes_where(&writes, error, is_commit);
        let expected = if fatal { FatalError } else { AbortableError };
        assert_eq!(c.tm(), expected, "tv{tv} {error:?}");
    }
    let (mut c, cmds) = Client::initialised(2, 0);
    c.answer_writes_where(&cmds, ErrorCode::InvalidProducerEpoch, |m| {
        matches!(m, Msg::Produce(_))
    });
    assert_eq!(c.tm(), AbortableError, "a Produce's INVALID_PRODUCER_EPOCH");
}
