//! What every conformance test needs: a system at a transaction version, one handler call,
//! the answer it sends, and a transaction coordinator put in a given `TransactionMetadata`.

pub use crate::common::tc_state;
use sharetxn_model::coordinator::txn_coordinator::TransactionMetadata;
use sharetxn_model::coordinator::txn_state::TransactionState;
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::world::node::NodeState;
use sharetxn_model::{Scenario, System};
use stateright::actor::{Command, Id};
use std::collections::BTreeSet;

pub use crate::common::{deliver, pid_epoch, Cmd, TXN};

/// The consumer-offsets design on txn-basic at transaction version `tv`.
pub fn txn_basic_at(tv: u8) -> System {
    crate::common::system(
        Design::consumer_offsets(),
        Scenario::txn_basic(),
        &[&format!("tv={tv}")],
    )
}

/// The first output partition.
pub fn topic1() -> TopicPartition {
    TopicPartition::Output(PartitionIndex(0))
}

/// `new TransactionMetadata(...)` as Kafka's tests build it: producer id, epoch, last
/// epoch (`None` is `RecordBatch.NO_PRODUCER_EPOCH`), state and partitions.
pub fn metadata(
    pid: u8,
    epoch: u8,
    last_epoch: Option<u8>,
    state: TransactionState,
    partitions: &[TopicPartition],
) -> TransactionMetadata {
    TransactionMetadata {
        pid: ProducerId(pid),
        epoch: ProducerEpoch(epoch.into()),
        last_epoch: last_epoch.map(|e| ProducerEpoch(e.into())),
        state,
        partitions: partitions.iter().copied().collect::<BTreeSet<_>>(),
        two_phase: false,
        kept: None,
    }
}

/// A loaded transaction coordinator; with `meta`, holding that metadata for `TXN` (Kafka's
/// mocked `getTransactionState`).
pub fn coordinator(sys: &System, meta: Option<TransactionMetadata>) -> NodeState {
    let tc = sys.topology.txn_coordinator;
    let (mut state, _) = crate::common::start(sys, tc, None);
    if let Some(meta) = meta {
        let s = crate::common::tc_state_mut(&mut state);
        s.next_pid = ProducerId(meta.pid.0 + 1);
        s.txns.insert(TXN, meta);
    }
    state
}

/// The producer id and epoch of `meta`.
pub fn identity(meta: &TransactionMetadata) -> ProducerIdAndEpoch {
    ProducerIdAndEpoch {
        pid: meta.pid,
        epoch: meta.epoch,
    }
}

/// `TXN`'s metadata at the coordinator.
pub fn txn(state: &NodeState) -> &TransactionMetadata {
    &tc_state(state).txns[&TXN]
}

/// Delivers `msg` from the first producer to the coordinator.
pub fn to_coordinator(sys: &System, state: &NodeState, msg: Msg) -> (NodeState, Vec<Cmd>) {
    let (tc, p0) = (sys.topology.txn_coordinator, sys.topology.producers[0]);
    deliver(sys, tc, state, p0, msg)
}

/// The messages the commands send to `dst`.
pub fn sent_to(cmds: &[Cmd], dst: Id) -> Vec<Msg> {
    cmds.iter()
        .filter_map(|c| match c {
            Command::Send(d, m) if *d == dst => Some(m.clone()),
            _ => None,
        })
        .collect()
}

/// Whether the commands write the coordinator's log (`appendTransactionToLog`).
pub fn appends(cmds: &[Cmd]) -> bool {
    cmds.iter().any(|c| matches!(c, Command::Save(_)))
}

/// The one answer the first producer gets.
pub fn answer(sys: &System, cmds: &[Cmd]) -> Msg {
    let sent = sent_to(cmds, sys.topology.producers[0]);
    assert_eq!(sent.len(), 1, "one answer expected: {cmds:?}");
    sent[0].clone()
}

/// The error of the one answer the first producer gets.
pub fn error_of(sys: &System, cmds: &[Cmd]) -> sharetxn_model::protocol::error::ErrorCode {
    answer(sys, cmds)
        .response_error()
        .expect("a response with an error code")
}

/// Kafka answers CONCURRENT_TRANSACTIONS and the client retries after its backoff; the
/// model holds the request and handles it again once the transaction completes
/// (`docs/conformance.md`, "parked"). Asserts that the request got no answer now and is held.
pub fn assert_parked(sys: &System, before: &NodeState, after: &NodeState, cmds: &[Cmd]) {
    assert!(
        sent_to(cmds, sys.topology.producers[0]).is_empty(),
        "{cmds:?}"
    );
    assert_eq!(
        tc_state(after).parked.len(),
        tc_state(before).parked.len() + 1,
        "the request is held until the transaction completes"
    );
}

/// An EndTxn of `TXN`.
pub fn end_txn(producer: ProducerIdAndEpoch, commit: bool) -> Msg {
    Msg::EndTxn(EndTxnRequest {
        txn: TXN,
        producer,
        commit,
        connection: Default::default(),
    })
}

/// A client's AddPartitionsToTxn of `TXN`.
pub fn add_partitions(producer: ProducerIdAndEpoch, partitions: Vec<TopicPartition>) -> Msg {
    Msg::AddPartitionsToTxn(AddPartitionsToTxnRequest {
        txn: TXN,
        producer,
        partitions,
        mode: AddPartitionsMode::Client,
    })
}

/// A partition leader's KIP-890 verification (`handleVerifyPartitionsInTransaction`).
pub fn verify_only(producer: ProducerIdAndEpoch, partitions: Vec<TopicPartition>) -> Msg {
    Msg::AddPartitionsToTxn(AddPartitionsToTxnRequest {
        txn: TXN,
        producer,
        partitions,
        mode: AddPartitionsMode::VerifyOnly {
            guard: VerificationGuard {
                generation: 0,
                counter: 0,
            },
        },
    })
}

/// The answer of an InitProducerId of `TXN`.
pub fn init_producer_id(sys: &System, state: &NodeState) -> (NodeState, Vec<Cmd>) {
    to_coordinator(
        sys,
        state,
        Msg::InitProducerId(InitProducerIdRequest::plain(TXN)),
    )
}

/// The first partition leader answers the coordinator's pending marker for `topic1()` with
/// `error`, at the coordinator epoch the marker carried.
pub fn marker_answered(sys: &System, state: &NodeState, error: ErrorCode) -> (NodeState, Vec<Cmd>) {
    let pending = tc_state(state)
        .markers
        .get(&TXN)
        .expect("markers in flight")
        .clone();
    let reply = Msg::WriteTxnMarkersResponse(WriteTxnMarkersResponse {
        producer: pending.producer,
        commit: pending.commit,
        coordinator_epoch: tc_state(state).coordinator_epoch,
        partition: topic1(),
        error,
    });
    let (tc, d0) = (sys.topology.txn_coordinator, sys.topology.partitions[0]);
    deliver(sys, tc, state, d0, reply)
}
