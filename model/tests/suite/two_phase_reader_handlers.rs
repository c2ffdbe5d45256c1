//! The Flink source reader with `acknowledger_commit=two-phase` (KIP-939), one event in, the
//! state and the requests out: `open()` asks for 2PC and keeps a prepared transaction;
//! `snapshotState` stages and prepares, and the checkpoint completes (stored with its
//! `PreparedTxnState`) only when prepared, then commits; a restart completes the kept
//! transaction iff the restored checkpoint prepared it.

use crate::common;

use common::{choose, deliver, pe, reader, reader_state, sent, start, system, Cmd, TXN};
use sharetxn_model::clients::share_acknowledger::HandedAck;
use sharetxn_model::clients::source_reader::ReaderStorage;
use sharetxn_model::coordinator::txn_state::TxnManagerState;
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::protocol::record_state::AckType;
use sharetxn_model::protocol::share_msg::*;
use sharetxn_model::protocol::txn_share_msg::*;
use sharetxn_model::world::node::{NodeState, NodeStorage};
use sharetxn_model::{Scenario, System};
use stateright::actor::Command;

fn saved(cmds: &[Cmd]) -> Vec<ReaderStorage> {
    cmds.iter()
        .filter_map(|c| match c {
            Command::Save(NodeStorage::SourceReader(s)) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

fn accept() -> HandedAck {
    HandedAck {
        offset: 0,
        ack: AckType::Accept,
        delivery: DeliveryTag {
            member: MemberId(0),
            delivery_count: 1,
        },
    }
}

fn init_response(producer: ProducerIdAndEpoch, ongoing: Option<ProducerIdAndEpoch>) -> Msg {
    Msg::InitProducerIdResponse(InitProducerIdResponse {
        txn: TXN,
        error: ErrorCode::None,
        producer: Some(producer),
        ongoing,
        connection: Default::default(),
    })
}

fn end_txn(producer: ProducerIdAndEpoch, commit: bool) -> Msg {
    Msg::EndTxn(EndTxnRequest {
        txn: TXN,
        producer,
        commit,
        connection: Default::default(),
    })
}

/// After `open()` (nothing kept) and one fetched record: the checkpoint is offered.
fn holding_a_record(sys: &System) -> NodeState {
    let tc = sys.topology.txn_coordinator;
    let spl = sys.topology.share_partition.unwrap();
    let (s, _) = start(sys, reader(sys), None);
    let (s, _) = deliver(sys, reader(sys), &s, tc, init_response(pe(0), None));
    let (s, _) = deliver(
        sys,
        reader(sys),
        &s,
        spl,
        Msg::ShareFetchResponse(ShareFetchResponse {
            member: MemberId(0),
            session_epoch: 0,
            error: ErrorCode::None,
            ack_error: ErrorCode::None,
            acquired: vec![AcquiredRecord {
                offset: 0,
                delivery_count: 1,
            }],
        }),
    );
    assert_eq!(reader_state(&s).pending, vec![accept()]);
    s
}

#[test]
fn open_asks_for_2pc_and_keeps_a_prepared_transaction() {
    let sys = system(Design::proposed(), Scenario::flink_acknowledger(), &[]);
    let (_, cmds) = start(&sys, reader(&sys), None);
    assert!(sent(&cmds).contains(&(
        sys.topology.txn_coordinator,
        Msg::InitProducerId(InitProducerIdRequest {
            txn: TXN,
            enable_2pc: true,
            keep_prepared_txn: true,
            expected: None,
            connection: Default::default(),
        })
    )));
}

#[test]
fn the_checkpoint_completes_only_when_its_acks_are_prepared_then_commits_them() {
    let sys = system(Design::proposed(), Scenario::flink_acknowledger(), &[]);
    let tc = sys.topology.txn_coordinator;
    let spl = sys.topology.share_partition.unwrap();
    let s = holding_a_record(&sys);
    let (s, cmds) = choose(&sys, reader(&sys), &s, ClientChoice::Checkpoint);
    assert!(
        saved(&cmds).is_empty(),
        "not complete before it is prepared"
    );
    assert_eq!(reader_state(&s).snapshotting, vec![accept()]);
    assert_eq!(
        sent(&cmds),
        vec![(
            tc,
            Msg::AddShareAcksToTxn(AddShareAcksToTxnRequest {
                group: Default::default(),
                txn: TXN,
                producer: pe(0),
            })
        )]
    );
    let (s, cmds) = deliver(
        &sys,
        reader(&sys),
        &s,
        tc,
        Msg::AddShareAcksToTxnResponse(AddShareAcksToTxnResponse {
            group: Default::default(),
            txn: TXN,
            producer: pe(0),
            error: ErrorCode::None,
        }),
    );
    assert!(saved(&cmds).is_empty());
    assert!(
        matches!(&sent(&cmds)[..], [(dst, Msg::TxnShareAcknowledge(q))]
        if *dst == spl && q.producer == pe(0) && q.acks == vec![accept().to_wire()])
    );
    // The staging is answered: flushed, so prepared; the checkpoint completes with its
    // PreparedTxnState and notifyCheckpointComplete commits.
    let (s, cmds) = deliver(
        &sys,
        reader(&sys),
        &s,
        spl,
        Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
            group: Default::default(),
            producer: pe(0),
            error: ErrorCode::None,
            leader_epoch: None,
        }),
    );
    assert_eq!(
        saved(&cmds),
        vec![ReaderStorage {
            incarnation: 0,
            checkpoint: vec![accept()],
            prepared: Some(pe(0)),
        }]
    );
    assert_eq!(sent(&cmds), vec![(tc, end_txn(pe(0), true))]);
    assert_eq!(reader_state(&s).checkpoints, 1);
    assert_eq!(
        reader_state(&s).processed.len(),
        1,
        "the checkpoint covers the record"
    );
    assert_eq!(
        reader_state(&s).acknowledger.manager.tm,
        TxnManagerState::CommittingTransaction
    );
}

#[test]
fn a_failed_staging_aborts_and_fails_the_checkpoint() {
    let sys = system(Design::proposed(), Scenario::flink_acknowledger(), &[]);
    let tc = sys.topology.txn_coordinator;
    let spl = sys.topology.share_partition.unwrap();
    let s = holding_a_record(&sys);
    let (s, _) = choose(&sys, reader(&sys), &s, ClientChoice::Checkpoint);
    let (s, _) = deliver(
        &sys,
        reader(&sys),
        &s,
        tc,
        Msg::AddShareAcksToTxnResponse(AddShareAcksToTxnResponse {
            group: Default::default(),
            txn: TXN,
            producer: pe(0),
            error: ErrorCode::None,
        }),
    );
    let (s, cmds) = deliver(
        &sys,
        reader(&sys),
        &s,
        spl,
        Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
            group: Default::default(),
            producer: pe(0),
            error: ErrorCode::InvalidRecordState,
            leader_epoch: None,
        }),
    );
    assert!(saved(&cmds).is_empty());
    assert_eq!(sent(&cmds), vec![(tc, end_txn(pe(0), false))]);
    assert!(
        reader_state(&s).processed.is_empty(),
        "no checkpoint covers the record"
    );
}

fn restored(prepared: Option<ProducerIdAndEpoch>) -> NodeStorage {
    NodeStorage::SourceReader(ReaderStorage {
        incarnation: 0,
        checkpoint: vec![accept()],
        prepared,
    })
}

#[test]
fn a_restart_commits_the_kept_transaction_its_checkpoint_prepared() {
    let sys = system(Design::proposed(), Scenario::flink_acknowledger(), &[]);
    let tc = sys.topology.txn_coordinator;
    let (s, cmds) = start(&sys, reader(&sys), Some(restored(Some(pe(0)))));
    assert!(
        reader_state(&s).restored.is_empty(),
        "the acks are not committed again"
    );
    assert_eq!(reader_state(&s).recovering, Some(pe(0)));
    assert_eq!(
        saved(&cmds),
        vec![ReaderStorage {
            incarnation: 1,
            checkpoint: vec![accept()],
            prepared: Some(pe(0)),
        }]
    );
    let (s, cmds) = deliver(
        &sys,
        reader(&sys),
        &s,
        tc,
        init_response(pe(1), Some(pe(0))),
    );
    assert_eq!(sent(&cmds), vec![(tc, end_txn(pe(1), true))]);
    assert_eq!(reader_state(&s).recovering, None);
}

#[test]
fn a_restart_aborts_a_kept_transaction_no_completed_checkpoint_prepared() {
    let sys = system(Design::proposed(), Scenario::flink_acknowledger(), &[]);
    let tc = sys.topology.txn_coordinator;
    let (s, _) = start(&sys, reader(&sys), Some(restored(Some(pe(0)))));
    // A later snapshotState had prepared (0, 1) when the reader died.
    let (_, cmds) = deliver(
        &sys,
        reader(&sys),
        &s,
        tc,
        init_response(pe(2), Some(pe(1))),
    );
    assert_eq!(sent(&cmds), vec![(tc, end_txn(pe(2), false))]);
}

#[test]
fn a_restart_with_nothing_kept_has_nothing_to_complete() {
    let sys = system(Design::proposed(), Scenario::flink_acknowledger(), &[]);
    let tc = sys.topology.txn_coordinator;
    let (s, _) = start(&sys, reader(&sys), Some(restored(Some(pe(0)))));
    let (s, cmds) = deliver(&sys, reader(&sys), &s, tc, init_response(pe(2), None));
    assert!(!sent(&cmds).iter().any(|(_, m)| matches!(m, Msg::EndTxn(_))));
    assert_eq!(reader_state(&s).recovering, None);
    assert_eq!(
        reader_state(&s).acknowledger.manager.tm,
        TxnManagerState::Ready
    );
}
