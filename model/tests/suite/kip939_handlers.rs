//! The transaction coordinator's KIP-939 and KIP-1309 paths, one message or timer in, the
//! exact commands out: `Enable2Pc` refused or exempt from the transaction timeout,
//! `KeepPreparedTxn` fencing the old incarnation while keeping its transaction (and a
//! failover reloading it), and TxnHeartbeat keeping a transaction alive or its expiry
//! aborting it.

use crate::common;

use common::{deliver, fire, pe, start, system, tc_state as coordinator, Cmd, TXN};
use sharetxn_model::coordinator::txn_state::TransactionState;
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::protocol::txn_heartbeat_msg::*;
use sharetxn_model::world::node::{NodeState, NodeStorage};
use sharetxn_model::{Scenario, System};
use stateright::actor::{Command, Id};

/// KIP-939's broker and client setting.
const TWO_PC: &[&str] = &["two_phase_commit=true"];

/// KIP-1309's transaction heartbeats.
const HEARTBEAT: &[&str] = &["txn_heartbeat=true"];

/// Both.
const TWO_PC_AND_HEARTBEAT: &[&str] = &["two_phase_commit=true", "txn_heartbeat=true"];

fn tc(sys: &System) -> Id {
    sys.topology.txn_coordinator
}

fn p0(sys: &System) -> Id {
    sys.topology.producers[0]
}

/// `Command` has no `PartialEq`: compare what it prints.
fn shown(cmds: &[Cmd]) -> Vec<String> {
    cmds.iter().map(|c| format!("{c:?}")).collect()
}

fn init(enable_2pc: bool, keep_prepared_txn: bool) -> Msg {
    Msg::InitProducerId(InitProducerIdRequest {
        txn: TXN,
        enable_2pc,
        keep_prepared_txn,
        expected: None,
        connection: Default::default(),
    })
}

fn init_response(
    error: ErrorCode,
    producer: Option<ProducerIdAndEpoch>,
    ongoing: Option<ProducerIdAndEpoch>,
) -> Msg {
    Msg::InitProducerIdResponse(InitProducerIdResponse {
        txn: TXN,
        error,
        producer,
        ongoing,
        connection: Default::default(),
    })
}

fn add_output(epoch: u16) -> Msg {
    Msg::AddPartitionsToTxn(AddPartitionsToTxnRequest {
        txn: TXN,
        producer: pe(epoch),
        partitions: vec![TopicPartition::Output(PartitionIndex(0))],
        mode: AddPartitionsMode::Client,
    })
}

fn add_response(epoch: u16, error: ErrorCode) -> Msg {
    Msg::AddPartitionsToTxnResponse(AddPartitionsToTxnResponse {
        txn: TXN,
        producer: pe(epoch),
        partitions: vec![TopicPartition::Output(PartitionIndex(0))],
        mode: AddPartitionsMode::Client,
        error,
    })
}

fn heartbeat(epoch: u16) -> Msg {
    Msg::TxnHeartbeat(TxnHeartbeatRequest {
        txn: TXN,
        producer: pe(epoch),
    })
}

fn heartbeat_response(epoch: u16, error: ErrorCode) -> Msg {
    Msg::TxnHeartbeatResponse(TxnHeartbeatResponse {
        txn: TXN,
        producer: pe(epoch),
        error,
    })
}

fn saved(state: &NodeState) -> String {
    let s = coordinator(state);
    format!(
        "{:?}",
        Command::<Msg, Timer, ClientChoice, NodeStorage>::Save(NodeStorage::TxnCoordinator(
            sharetxn_model::coordinator::txn_coordinator::TxnLog {
                coordinator_epoch: s.coordinator_epoch,
                next_pid: s.next_pid,
                txns: s.txns.clone(),
            }
        ))
    )
}

/// The coordinator after InitProducerId (with `enable_2pc`) and one AddPartitionsToTxn:
/// an ONGOING transaction of (0, 0).
fn ongoing(sys: &System, enable_2pc: bool) -> NodeState {
    let (s, _) = start(sys, tc(sys), None);
    let (s, cmds) = deliver(sys, tc(sys), &s, p0(sys), init(enable_2pc, false));
    assert_eq!(
        shown(&cmds)[1],
        format!(
            "{:?}",
            Command::<Msg, Timer, ClientChoice, NodeStorage>::Send(
                p0(sys),
                init_response(ErrorCode::None, Some(pe(0)), None)
            )
        )
    );
    let (s, _) = deliver(sys, tc(sys), &s, p0(sys), add_output(0));
    assert_eq!(coordinator(&s).txns[&TXN].state, TransactionState::Ongoing);
    s
}

fn send(dst: Id, msg: Msg) -> String {
    format!("{:?}", Cmd::Send(dst, msg))
}

fn set_timer(timer: Timer) -> String {
    format!(
        "{:?}",
        Cmd::SetTimer(timer, std::time::Duration::ZERO..std::time::Duration::ZERO)
    )
}

fn cancel_timer(timer: Timer) -> String {
    format!("{:?}", Cmd::CancelTimer(timer))
}

#[test]
fn enable_2pc_is_refused_when_the_broker_does_not_allow_two_phase_commit() {
    let sys = system(Design::consumer_offsets(), Scenario::txn_basic(), &[]);
    let (s, _) = start(&sys, tc(&sys), None);
    let (after, cmds) = deliver(&sys, tc(&sys), &s, p0(&sys), init(true, false));
    assert_eq!(
        shown(&cmds),
        vec![send(
            p0(&sys),
            init_response(ErrorCode::TransactionalIdAuthorizationFailed, None, None)
        )]
    );
    assert!(coordinator(&after).txns.is_empty(), "nothing was allocated");
}

#[test]
fn a_2pc_transaction_starts_without_a_transaction_timeout_and_the_timeout_never_aborts_it() {
    let sys = system(Design::consumer_offsets(), Scenario::txn_basic(), TWO_PC);
    let (s, _) = start(&sys, tc(&sys), None);
    let (s, _) = deliver(&sys, tc(&sys), &s, p0(&sys), init(true, false));
    assert!(coordinator(&s).txns[&TXN].two_phase);
    let (s, cmds) = deliver(&sys, tc(&sys), &s, p0(&sys), add_output(0));
    assert_eq!(
        shown(&cmds),
        vec![saved(&s), send(p0(&sys), add_response(0, ErrorCode::None))],
        "no TxnTimeout timer is armed"
    );
    let (after, cmds) = fire(&sys, tc(&sys), &s, Timer::TxnTimeout(TXN));
    assert!(cmds.is_empty(), "{cmds:?}");
    assert_eq!(
        coordinator(&after).txns[&TXN].state,
        TransactionState::Ongoing
    );
}

#[test]
fn without_enable_2pc_the_same_transaction_runs_its_timeout() {
    let sys = system(Design::consumer_offsets(), Scenario::txn_basic(), TWO_PC);
    let (s, _) = start(&sys, tc(&sys), None);
    let (s, _) = deliver(&sys, tc(&sys), &s, p0(&sys), init(false, false));
    let (s, cmds) = deliver(&sys, tc(&sys), &s, p0(&sys), add_output(0));
    assert_eq!(
        shown(&cmds),
        vec![
            set_timer(Timer::TxnTimeout(TXN)),
            saved(&s),
            send(p0(&sys), add_response(0, ErrorCode::None))
        ]
    );
}

#[test]
fn keep_prepared_txn_fences_by_an_epoch_bump_keeps_the_transaction_and_returns_its_pair() {
    let sys = system(Design::consumer_offsets(), Scenario::txn_basic(), TWO_PC);
    let s = ongoing(&sys, true);
    let (after, cmds) = deliver(&sys, tc(&sys), &s, p0(&sys), init(true, true));
    assert_eq!(
        shown(&cmds),
        vec![
            cancel_timer(Timer::TxnTimeout(TXN)),
            saved(&after),
            send(
                p0(&sys),
                init_response(ErrorCode::None, Some(pe(1)), Some(pe(0)))
            )
        ]
    );
    let meta = &coordinator(&after).txns[&TXN];
    assert_eq!(meta.state, TransactionState::Ongoing);
    assert_eq!(meta.epoch, ProducerEpoch(1));
    assert_eq!(meta.kept, Some(pe(0)));
    assert!(meta
        .partitions
        .contains(&TopicPartition::Output(PartitionIndex(0))));
    // A retry (the answer was lost) fences again and returns the same ongoing pair.
    let (again, cmds) = deliver(&sys, tc(&sys), &after, p0(&sys), init(true, true));
    assert_eq!(
        shown(&cmds)[2],
        send(
            p0(&sys),
            init_response(ErrorCode::None, Some(pe(2)), Some(pe(0)))
        )
    );
    assert_eq!(coordinator(&again).txns[&TXN].kept, Some(pe(0)));
}

#[test]
fn after_keep_prepared_txn_the_old_pair_is_fenced_and_the_new_one_commits_the_kept_transaction() {
    let sys = system(Design::consumer_offsets(), Scenario::txn_basic(), TWO_PC);
    let s = ongoing(&sys, true);
    let (s, _) = deliver(&sys, tc(&sys), &s, p0(&sys), init(true, true));
    let (_, cmds) = deliver(&sys, tc(&sys), &s, p0(&sys), add_output(0));
    assert_eq!(
        shown(&cmds),
        vec![send(p0(&sys), add_response(0, ErrorCode::ProducerFenced))]
    );
    let end = |epoch: u16| {
        Msg::EndTxn(EndTxnRequest {
            txn: TXN,
            producer: pe(epoch),
            commit: true,
            connection: Default::default(),
        })
    };
    let (_, cmds) = deliver(&sys, tc(&sys), &s, p0(&sys), end(0));
    assert_eq!(
        shown(&cmds),
        vec![send(
            p0(&sys),
            Msg::EndTxnResponse(EndTxnResponse {
                txn: TXN,
                request_producer: pe(0),
                commit: true,
                error: ErrorCode::ProducerFenced,
                producer: None,
                connection: Default::default(),
            })
        )],
        "the zombie's EndTxn is fenced, not taken for a retry"
    );
    let (after, cmds) = deliver(&sys, tc(&sys), &s, p0(&sys), end(1));
    let d0 = sys.topology.partitions[0];
    assert_eq!(
        shown(&cmds),
        vec![
            cancel_timer(Timer::TxnTimeout(TXN)),
            saved(&after),
            send(
                d0,
                Msg::WriteTxnMarkers(WriteTxnMarkersRequest {
                    producer: pe(2),
                    commit: true,
                    coordinator_epoch: CoordinatorEpoch(0),
                    partition: TopicPartition::Output(PartitionIndex(0)),
                    tv: 2,
                })
            ),
            set_timer(Timer::MarkerRetry(TXN)),
            send(
                p0(&sys),
                Msg::EndTxnResponse(EndTxnResponse {
                    txn: TXN,
                    request_producer: pe(1),
                    commit: true,
                    error: ErrorCode::None,
                    producer: Some(pe(2)),
                    connection: Default::default(),
                })
            ),
        ]
    );
    assert_eq!(
        coordinator(&after).txns[&TXN].state,
        TransactionState::PrepareCommit
    );
}

#[test]
fn a_failover_reloads_the_kept_2pc_transaction_ongoing_without_its_timeout() {
    let sys = system(Design::consumer_offsets(), Scenario::txn_basic(), TWO_PC);
    let s = ongoing(&sys, true);
    let (s, _) = deliver(&sys, tc(&sys), &s, p0(&sys), init(true, true));
    let log = sharetxn_model::coordinator::txn_coordinator::TxnLog {
        coordinator_epoch: coordinator(&s).coordinator_epoch,
        next_pid: coordinator(&s).next_pid,
        txns: coordinator(&s).txns.clone(),
    };
    let (reloaded, cmds) = start(&sys, tc(&sys), Some(NodeStorage::TxnCoordinator(log)));
    assert_eq!(
        shown(&cmds),
        vec![saved(&reloaded)],
        "no timer for a 2PC transaction"
    );
    let meta = &coordinator(&reloaded).txns[&TXN];
    assert_eq!(meta.state, TransactionState::Ongoing);
    assert_eq!((meta.epoch, meta.kept), (ProducerEpoch(1), Some(pe(0))));
    let (_, cmds) = deliver(&sys, tc(&sys), &reloaded, p0(&sys), init(true, true));
    assert_eq!(
        shown(&cmds)[2],
        send(
            p0(&sys),
            init_response(ErrorCode::None, Some(pe(2)), Some(pe(0)))
        )
    );
}

#[test]
fn keep_prepared_txn_without_an_ongoing_transaction_is_an_ordinary_init() {
    let sys = system(Design::consumer_offsets(), Scenario::txn_basic(), TWO_PC);
    let (s, _) = start(&sys, tc(&sys), None);
    let (s, _) = deliver(&sys, tc(&sys), &s, p0(&sys), init(true, false));
    let (_, cmds) = deliver(&sys, tc(&sys), &s, p0(&sys), init(true, true));
    assert_eq!(
        shown(&cmds)[1],
        send(p0(&sys), init_response(ErrorCode::None, Some(pe(1)), None))
    );
}

#[test]
fn without_keep_prepared_txn_the_ongoing_2pc_transaction_is_fenced_and_aborted() {
    let sys = system(Design::consumer_offsets(), Scenario::txn_basic(), TWO_PC);
    let s = ongoing(&sys, true);
    let (after, cmds) = deliver(&sys, tc(&sys), &s, p0(&sys), init(true, false));
    assert_eq!(
        coordinator(&after).txns[&TXN].state,
        TransactionState::PrepareAbort
    );
    assert!(
        !shown(&cmds)
            .iter()
            .any(|c| c.contains("InitProducerIdResponse")),
        "the caller waits (CONCURRENT_TRANSACTIONS) until the abort completes: {cmds:?}"
    );
}

#[test]
fn heartbeat_is_unknown_without_kip_1309() {
    let sys = system(Design::consumer_offsets(), Scenario::txn_basic(), &[]);
    let s = ongoing(&sys, false);
    let (_, cmds) = deliver(&sys, tc(&sys), &s, p0(&sys), heartbeat(0));
    assert_eq!(
        shown(&cmds),
        vec![send(
            p0(&sys),
            heartbeat_response(0, ErrorCode::UnsupportedVersion)
        )]
    );
}

#[test]
fn an_ongoing_transaction_arms_the_heartbeat_deadline_and_a_heartbeat_renews_it() {
    let sys = system(Design::consumer_offsets(), Scenario::txn_basic(), HEARTBEAT);
    let (s, _) = start(&sys, tc(&sys), None);
    let (s, _) = deliver(&sys, tc(&sys), &s, p0(&sys), init(false, false));
    let (s, cmds) = deliver(&sys, tc(&sys), &s, p0(&sys), add_output(0));
    assert_eq!(
        shown(&cmds),
        vec![
            set_timer(Timer::TxnTimeout(TXN)),
            set_timer(Timer::TxnHeartbeatExpiry(TXN)),
            saved(&s),
            send(p0(&sys), add_response(0, ErrorCode::None))
        ]
    );
    let (_, cmds) = deliver(&sys, tc(&sys), &s, p0(&sys), heartbeat(0));
    assert_eq!(
        shown(&cmds),
        vec![
            set_timer(Timer::TxnHeartbeatExpiry(TXN)),
            send(p0(&sys), heartbeat_response(0, ErrorCode::None))
        ]
    );
    let (_, cmds) = deliver(&sys, tc(&sys), &s, p0(&sys), heartbeat(1));
    assert_eq!(
        shown(&cmds),
        vec![send(
            p0(&sys),
            heartbeat_response(1, ErrorCode::ProducerFenced)
        )],
        "a heartbeat with another epoch keeps nothing alive"
    );
}

#[test]
fn heartbeat_expiry_fences_and_aborts_the_transaction() {
    let sys = system(Design::consumer_offsets(), Scenario::txn_basic(), HEARTBEAT);
    let s = ongoing(&sys, false);
    let (after, cmds) = fire(&sys, tc(&sys), &s, Timer::TxnHeartbeatExpiry(TXN));
    let d0 = sys.topology.partitions[0];
    assert_eq!(
        shown(&cmds),
        vec![
            cancel_timer(Timer::TxnTimeout(TXN)),
            cancel_timer(Timer::TxnHeartbeatExpiry(TXN)),
            saved(&after),
            send(
                d0,
                Msg::WriteTxnMarkers(WriteTxnMarkersRequest {
                    producer: pe(1),
                    commit: false,
                    coordinator_epoch: CoordinatorEpoch(0),
                    partition: TopicPartition::Output(PartitionIndex(0)),
                    tv: 2,
                })
            ),
            set_timer(Timer::MarkerRetry(TXN)),
        ]
    );
    assert_eq!(
        coordinator(&after).txns[&TXN].state,
        TransactionState::PrepareAbort
    );
}

#[test]
fn a_2pc_transaction_has_no_heartbeat_deadline() {
    let sys = system(
        Design::consumer_offsets(),
        Scenario::txn_basic(),
        TWO_PC_AND_HEARTBEAT,
    );
    let s = ongoing(&sys, true);
    let (after, cmds) = fire(&sys, tc(&sys), &s, Timer::TxnHeartbeatExpiry(TXN));
    assert!(cmds.is_empty(), "{cmds:?}");
    assert_eq!(
        coordinator(&after).txns[&TXN].state,
        TransactionState::Ongoing
    );
    let (_, cmds) = deliver(&sys, tc(&sys), &s, p0(&sys), heartbeat(0));
    assert_eq!(
        shown(&cmds),
        vec![send(p0(&sys), heartbeat_response(0, ErrorCode::None))]
    );
}
