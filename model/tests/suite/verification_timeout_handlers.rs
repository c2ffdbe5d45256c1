//! The inter-broker request timeout of KIP-890 verification (`AddPartitionsToTxnManager`)
//! at the three leaders that verify a first write: one message or timer in, the exact
//! commands out; and its due rule in the closed world.

use crate::common;
use common::staging;

use common::{deliver, fire, same_commands, start, Cmd};
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::keyed::Keyed;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::protocol::txn_share_msg::*;
use sharetxn_model::world::node::{NodeState, NodeStorage};
use sharetxn_model::{Action, SystemState};
use sharetxn_model::{Scenario, System};
use stateright::actor::{Command, Id, Out};

const PRODUCER: ProducerIdAndEpoch = ProducerIdAndEpoch {
    pid: ProducerId(0),
    epoch: ProducerEpoch(0),
};

const TAG: Ghost<TxnTag> = Ghost::new(TxnTag {
    client: 0,
    incarnation: 0,
    attempt: 0,
});

const TIMEOUT: Timer = Timer::VerificationTimeout(Keyed::first(ProducerId(0)));

fn produce() -> ProduceRequest {
    ProduceRequest {
        txn: TransactionalId(0),
        producer: PRODUCER,
        seq: 0,
        partition: PartitionIndex(0),
        record: OutputRecord { input: 0, tag: TAG },
    }
}

/// The verification a leader sends; its guard is the log end (1 at the share
/// coordinator, whose log starts with a snapshot).
fn verification(partition: TopicPartition) -> AddPartitionsToTxnRequest {
    let counter = u32::from(partition == TopicPartition::ShareGroupState);
    AddPartitionsToTxnRequest {
        txn: TransactionalId(0),
        producer: PRODUCER,
        partitions: vec![partition],
        mode: AddPartitionsMode::BrokerAdd {
            guard: VerificationGuard {
                generation: 0,
                counter,
            },
        },
    }
}

fn parks(tc: Id, partition: TopicPartition, cmds: &[Cmd]) -> bool {
    let mut out: Out<sharetxn_model::world::node::Node> = Out::new();
    out.send(tc, Msg::AddPartitionsToTxn(verification(partition)));
    out.set_timer(
        TIMEOUT,
        std::time::Duration::ZERO..std::time::Duration::ZERO,
    );
    let expected: Vec<Cmd> = out.into_iter().collect();
    same_commands(cmds, &expected)
}

fn verifying_len(state: &NodeState) -> usize {
    let verifying = state.data_partition().map(|s| s.verifying.len());
    verifying
        .or_else(|| state.group_coordinator().map(|s| s.verifying.len()))
        .or_else(|| state.share_coordinator().map(|s| s.verifying.len()))
        .expect("a verifying leader")
}

#[test]
fn a_data_partition_answers_a_timed_out_verification_network_exception() {
    let sys = System::new(Design::consumer_offsets(), Scenario::txn_basic());
    let (d0, p0, tc) = (
        sys.topology.partitions[0],
        sys.topology.producers[0],
        sys.topology.txn_coordinator,
    );
    let partition = TopicPartition::Output(PartitionIndex(0));
    let (parked, cmds) = deliver(
        &sys,
        d0,
        &start(&sys, d0, None).0,
        p0,
        Msg::Produce(produce()),
    );
    assert!(parks(tc, partition, &cmds), "{cmds:?}");
    // A retry joins the verification on its way: nothing is sent, no timer moves.
    let (joined, cmds) = deliver(&sys, d0, &parked, p0, Msg::Produce(produce()));
    assert!(cmds.is_empty(), "{cmds:?}");
    assert_eq!(joined, parked);
    let (after, cmds) = fire(&sys, d0, &parked, TIMEOUT);
    let expected = vec![Command::Send(
        p0,
        Msg::ProduceResponse(ProduceResponse {
            partition: PartitionIndex(0),
            producer: PRODUCER,
            seq: 0,
            error: ErrorCode::NetworkException,
        }),
    )];
    assert!(same_commands(&cmds, &expected), "{cmds:?}");
    assert_eq!(verifying_len(&after), 0, "the entry is dropped");
    // The client's retry (NETWORK_EXCEPTION is retriable) verifies afresh.
    let (_, cmds) = deliver(&sys, d0, &after, p0, Msg::Produce(produce()));
    assert!(parks(tc, partition, &cmds), "{cmds:?}");
    // A late answer to the dropped verification finds nothing to resume.
    let late = Msg::AddPartitionsToTxnResponse(AddPartitionsToTxnResponse {
        txn: TransactionalId(0),
        producer: PRODUCER,
        partitions: vec![partition],
        mode: verification(partition).mode,
        error: ErrorCode::None,
    });
    let (unchanged, cmds) = deliver(&sys, d0, &after, tc, late);
    assert!(cmds.is_empty(), "{cmds:?}");
    assert_eq!(unchanged, after);
}

#[test]
fn an_answered_verification_cancels_its_timeout() {
    let sys = System::new(Design::consumer_offsets(), Scenario::txn_basic());
    let (d0, p0, tc) = (
        sys.topology.partitions[0],
        sys.topology.producers[0],
        sys.topology.txn_coordinator,
    );
    let partition = TopicPartition::Output(PartitionIndex(0));
    let (parked, _) = deliver(
        &sys,
        d0,
        &start(&sys, d0, None).0,
        p0,
        Msg::Produce(produce()),
    );
    let answer = Msg::AddPartitionsToTxnResponse(AddPartitionsToTxnResponse {
        txn: TransactionalId(0),
        producer: PRODUCER,
        partitions: vec![partition],
        mode: verification(partition).mode,
        error: ErrorCode::None,
    });
    let (after, cmds) = deliver(&sys, d0, &parked, tc, answer);
    assert_eq!(cmds.len(), 3, "{cmds:?}");
    assert!(matches!(cmds[0], Command::CancelTimer(TIMEOUT)), "{cmds:?}");
    assert!(matches!(cmds[1], Command::Save(NodeStorage::Leader(_))));
    assert!(matches!(
        &cmds[2],
        Command::Send(dst, Msg::ProduceResponse(ProduceResponse { error: ErrorCode::None, .. }))
            if *dst == p0
    ));
    assert_eq!(verifying_len(&after), 0);
    // A timeout with nothing parked changes nothing.
    let (unchanged, cmds) = fire(&sys, d0, &after, TIMEOUT);
    assert!(cmds.is_empty(), "{cmds:?}");
    assert_eq!(unchanged, after);
}

#[test]
fn the_group_coordinator_answers_a_timed_out_verification_network_exception() {
    let sys = System::new(Design::consumer_offsets(), Scenario::txn_basic());
    let (gc, p0, tc) = (
        sys.topology.group_coordinator,
        sys.topology.producers[0],
        sys.topology.txn_coordinator,
    );
    let commit = TxnOffsetCommitRequest {
        txn: TransactionalId(0),
        producer: PRODUCER,
        offset: 1,
        tag: TAG,
    };
    let (parked, cmds) = deliver(
        &sys,
        gc,
        &start(&sys, gc, None).0,
        p0,
        Msg::TxnOffsetCommit(commit),
    );
    assert!(
        parks(tc, TopicPartition::ConsumerOffsets, &cmds),
        "{cmds:?}"
    );
    let (after, cmds) = fire(&sys, gc, &parked, TIMEOUT);
    let expected = vec![Command::Send(
        p0,
        Msg::TxnOffsetCommitResponse(TxnOffsetCommitResponse {
            producer: PRODUCER,
            offset: 1,
            error: ErrorCode::NetworkException,
        }),
    )];
    assert!(same_commands(&cmds, &expected), "{cmds:?}");
    assert_eq!(verifying_len(&after), 0);
}

fn staging() -> TxnShareAcknowledgeRequest {
    TxnShareAcknowledgeRequest {
        producer: PRODUCER,
        tag: TAG,
        ..staging::accept(0)
    }
}

#[test]
fn the_share_coordinator_answers_a_timed_out_staging_verification_network_exception() {
    // The seed verifies stagings (`stage_verification`) under TV2, as `proposed` does.
    let sys = System::new(Design::seed(), Scenario::ctp());
    let sc = sys.topology.share_coordinator.expect("ctp has one");
    let (p0, tc) = (sys.topology.producers[0], sys.topology.txn_coordinator);
    let (parked, cmds) = deliver(
        &sys,
        sc,
        &start(&sys, sc, None).0,
        p0,
        Msg::TxnShareAcknowledge(staging()),
    );
    assert!(
        parks(tc, TopicPartition::ShareGroupState, &cmds),
        "{cmds:?}"
    );
    // A resend joins it (seed 82214: for ever, before the timeout).
    let (joined, cmds) = deliver(&sys, sc, &parked, p0, Msg::TxnShareAcknowledge(staging()));
    assert!(cmds.is_empty(), "{cmds:?}");
    assert_eq!(joined, parked);
    let (after, cmds) = fire(&sys, sc, &parked, TIMEOUT);
    let expected = vec![Command::Send(
        p0,
        Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
            group: Default::default(),
            producer: PRODUCER,
            error: ErrorCode::NetworkException,
            leader_epoch: None,
        }),
    )];
    assert!(same_commands(&cmds, &expected), "{cmds:?}");
    assert_eq!(verifying_len(&after), 0);
    let (_, cmds) = deliver(&sys, sc, &after, p0, Msg::TxnShareAcknowledge(staging()));
    assert!(
        parks(tc, TopicPartition::ShareGroupState, &cmds),
        "the resend verifies afresh: {cmds:?}"
    );
}

/// Runs the first enabled delivery until some data partition holds a verification.
fn until_parked(sys: &System) -> (SystemState, Id) {
    let mut state = sys.init_state();
    for _ in 0..100 {
        if let Some(d) = sys
            .topology
            .partitions
            .iter()
            .copied()
            .find(|d| verifying_len(state.node(*d)) > 0)
        {
            return (state, d);
        }
        let mut actions = Vec::new();
        sys.enabled_progress(&state, &mut actions);
        let next = actions
            .into_iter()
            .find(|a| matches!(a, Action::Deliver(_)))
            .expect("a delivery");
        state = sys.step(&state, &next);
    }
    panic!("no verification within 100 deliveries");
}

#[test]
fn the_timeout_is_due_only_once_the_verification_is_lost() {
    let sys = System::new(Design::consumer_offsets(), Scenario::txn_basic());
    let (parked, d0) = until_parked(&sys);
    assert!(parked.timers[usize::from(d0)].contains(&TIMEOUT));
    assert!(
        !sys.timer_is_due(&parked, d0, &TIMEOUT),
        "the verification is on its way: firing now would be early"
    );
    let request = parked
        .network
        .deliverable()
        .into_iter()
        .find(|e| e.src == d0 && matches!(e.msg, Msg::AddPartitionsToTxn(_)))
        .expect("the verification in flight");
    let lost = sys.step(&parked, &Action::Drop(request.clone()));
    assert!(sys.timer_is_due(&lost, d0, &TIMEOUT), "lost: due");
    // Held by a coordinator that then crashes: due as well.
    let at_tc = sys.step(&parked, &Action::Deliver(request));
    let answered = at_tc
        .network
        .deliverable()
        .into_iter()
        .any(|e| e.dst == d0 && matches!(e.msg, Msg::AddPartitionsToTxnResponse(_)));
    assert!(answered, "the coordinator answers the verification");
    assert!(
        !sys.timer_is_due(&at_tc, d0, &TIMEOUT),
        "its answer is on its way"
    );
    let crashed = sys.step(&at_tc, &Action::Crash(sys.topology.txn_coordinator));
    assert!(
        !sys.timer_is_due(&crashed, d0, &TIMEOUT),
        "the answer already sent still arrives"
    );
}

/// Delivers the one message in flight from `src` to `dst` that `pick` accepts.
fn deliver_from(
    sys: &System,
    state: &SystemState,
    src: Id,
    dst: Id,
    pick: impl Fn(&Msg) -> bool,
) -> SystemState {
    let env = state
        .network
        .deliverable()
        .into_iter()
        .find(|e| e.src == src && e.dst == dst && pick(&e.msg))
        .expect("the message in flight");
    sys.step(state, &Action::Deliver(env))
}

/// The verifications queued from `leader` to the transaction coordinator.
fn queued_verifications(sys: &System, state: &SystemState, leader: Id) -> usize {
    let tc = sys.topology.txn_coordinator;
    state
        .network
        .iter()
        .filter(|e| e.src == leader && e.dst == tc && matches!(e.msg, Msg::AddPartitionsToTxn(_)))
        .count()
}

/// One turn of the retry loop while the coordinator is down: the due timeout answers
/// NETWORK_EXCEPTION, the producer resends at once, the leader parks it and verifies again.
fn time_out_and_retry(sys: &System, state: &SystemState, d0: Id) -> SystemState {
    let p0 = sys.topology.producers[0];
    assert!(
        sys.timer_is_due(state, d0, &TIMEOUT),
        "the coordinator is down: due"
    );
    let fired = sys.step(
        state,
        &Action::Fire {
            actor: d0,
            timer: TIMEOUT,
        },
    );
    let answered = deliver_from(
        sys,
        &fired,
        d0,
        p0,
        |m| matches!(m, Msg::ProduceResponse(r) if r.error == ErrorCode::NetworkException),
    );
    deliver_from(sys, &answered, p0, d0, |m| matches!(m, Msg::Produce(_)))
}

#[test]
fn a_verification_timed_out_while_the_coordinator_is_down_was_never_sent() {
    let sys = System::new(Design::consumer_offsets(), Scenario::txn_basic());
    let (parked, d0) = until_parked(&sys);
    let tc = sys.topology.txn_coordinator;
    // The crash takes the request on its way with it; the retry's verification then
    // waits on the connection to the down coordinator.
    let down = sys.step(&parked, &Action::Crash(tc));
    assert_eq!(queued_verifications(&sys, &down, d0), 0);
    let once = time_out_and_retry(&sys, &down, d0);
    assert_eq!(queued_verifications(&sys, &once, d0), 1);
    // Its timeout takes it back (InterBrokerSendThread fails an unsent request at its
    // timeout), so the retry queues one verification, not a second.
    let twice = time_out_and_retry(&sys, &once, d0);
    assert_eq!(queued_verifications(&sys, &twice, d0), 1);
    assert_eq!(
        twice.network, once.network,
        "the loop returns to the network it left"
    );
    assert_eq!(twice.node(d0), once.node(d0));
    // Once the coordinator is back, the queued verification reaches it.
    let up = sys.step(&twice, &Action::Restart(tc));
    assert_eq!(queued_verifications(&sys, &up, d0), 1);
    assert!(!sys.timer_is_due(&up, d0, &TIMEOUT), "on its way: not due");
}
