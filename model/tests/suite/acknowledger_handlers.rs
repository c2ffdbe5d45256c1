//! The standalone `TransactionalShareAcknowledger` inside the Flink source reader, one
//! event in, the state and the requests out: `initTransactions`, `commitAcknowledgements`
//! as begin, AddShareAcksToTxn, TxnShareAcknowledge (as no member), EndTxn COMMIT; the
//! abort after a failed write; the restart that commits the restored checkpoint again.

use crate::common;

use common::{choose, deliver, fire, pe, reader, reader_state, sent, start, system};
use sharetxn_model::clients::producer_share::NOT_A_MEMBER;
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

/// The flink scenario with one resend after a request timeout (its default, from `ctp`,
/// is none), so the handler tests see a resend.
const RESEND: &[&str] = &["request_retries=1"];

/// The reader after `open()`, the acknowledger initialised and record 0 (delivery 1)
/// emitted.
fn holding_a_record(sys: &System) -> NodeState {
    let tc = sys.topology.txn_coordinator;
    let spl = sys.topology.share_partition.unwrap();
    let (s, _) = start(sys, reader(sys), None);
    let (s, _) = deliver(
        sys,
        reader(sys),
        &s,
        tc,
        Msg::InitProducerIdResponse(InitProducerIdResponse {
            txn: TransactionalId(0),
            error: ErrorCode::None,
            producer: Some(pe(0)),
            ongoing: None,
            connection: Default::default(),
        }),
    );
    let (s, cmds) = deliver(
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
    assert!(cmds.iter().any(|c| matches!(c,
        Command::ChooseRandom(k, opts) if k == "checkpoint" && opts == &vec![ClientChoice::Checkpoint])));
    s
}

fn accept(delivery_count: u8) -> HandedAck {
    HandedAck {
        offset: 0,
        ack: AckType::Accept,
        delivery: DeliveryTag {
            member: MemberId(0),
            delivery_count,
        },
    }
}

/// The transaction coordinator's answer NONE to AddShareAcksToTxn of (0, 0).
fn share_acks_added() -> Msg {
    Msg::AddShareAcksToTxnResponse(AddShareAcksToTxnResponse {
        group: Default::default(),
        txn: TransactionalId(0),
        producer: pe(0),
        error: ErrorCode::None,
    })
}

/// The share coordinator's answer NONE to TxnShareAcknowledge of (0, 0).
fn acks_staged() -> Msg {
    Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
        group: Default::default(),
        producer: pe(0),
        error: ErrorCode::None,
        leader_epoch: None,
    })
}

#[test]
fn open_initialises_the_acknowledger_and_opens_a_share_session() {
    let sys = system(Design::seed(), Scenario::flink_acknowledger(), RESEND);
    let (s, cmds) = start(&sys, reader(&sys), None);
    let msgs = sent(&cmds);
    assert!(msgs
        .iter()
        .any(|(dst, m)| *dst == sys.topology.txn_coordinator
            && matches!(m, Msg::InitProducerId(q) if q.txn == TransactionalId(0))));
    assert!(msgs
        .iter()
        .any(|(dst, m)| Some(*dst) == sys.topology.share_partition
            && matches!(m, Msg::ShareFetch(q) if q.session_epoch == 0 && q.acks.is_empty())));
    assert_eq!(
        reader_state(&s).acknowledger.manager.tm,
        TxnManagerState::Initializing
    );
}

#[test]
fn a_completed_checkpoint_commits_its_acks_as_no_member() {
    let sys = system(Design::seed(), Scenario::flink_acknowledger(), RESEND);
    let tc = sys.topology.txn_coordinator;
    let sc = sys.topology.share_coordinator.unwrap();
    let s = holding_a_record(&sys);
    assert_eq!(reader_state(&s).pending, vec![accept(1)]);

    // snapshotState + notifyCheckpointComplete: the checkpoint is saved, then begin and
    // AddShareAcksToTxn (no output partition: nothing is produced).
    let (s, cmds) = choose(&sys, reader(&sys), &s, ClientChoice::Checkpoint);
    assert!(cmds.iter().any(|c| matches!(c,
        Command::Save(NodeStorage::SourceReader(ReaderStorage { checkpoint, .. })) if *checkpoint == vec![accept(1)])));
    let msgs = sent(&cmds);
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    assert!(
        matches!(&msgs[0], (dst, Msg::AddShareAcksToTxn(q)) if *dst == tc && q.producer == pe(0))
    );
    assert!(reader_state(&s).pending.is_empty());
    assert_eq!(reader_state(&s).committing, vec![accept(1)]);
    assert_eq!(
        reader_state(&s).acknowledger.manager.tm,
        TxnManagerState::InTransaction
    );

    // TxnShareAcknowledge to the share coordinator, carrying no member of the group.
    let (s, cmds) = deliver(&sys, reader(&sys), &s, tc, share_acks_added());
    let msgs = sent(&cmds);
    let Some((dst, Msg::TxnShareAcknowledge(q))) = msgs.first() else {
        panic!("{msgs:?}");
    };
    assert_eq!(*dst, sc);
    assert_eq!(q.member, NOT_A_MEMBER);
    assert_eq!(q.acks, vec![accept(1).to_wire()]);
    assert_eq!(q.tag.open().client, 0);

    // Answered: EndTxn COMMIT, with no client choice (commitAcknowledgements decides).
    let (s, cmds) = deliver(&sys, reader(&sys), &s, sc, acks_staged());
    assert!(matches!(sent(&cmds).as_slice(), [(_, Msg::EndTxn(q))] if q.commit));
    assert!(!cmds
        .iter()
        .any(|c| matches!(c, Command::ChooseRandom(k, o) if k == "end" && !o.is_empty())));
    assert_eq!(
        reader_state(&s).acknowledger.manager.tm,
        TxnManagerState::CommittingTransaction
    );

    // The commit ends: the reader polls again for its second checkpoint.
    let (s, cmds) = deliver(
        &sys,
        reader(&sys),
        &s,
        tc,
        Msg::EndTxnResponse(EndTxnResponse {
            txn: TransactionalId(0),
            request_producer: pe(0),
            commit: true,
            error: ErrorCode::None,
            producer: Some(pe(1)),
            connection: Default::default(),
        }),
    );
    assert!(reader_state(&s).committing.is_empty());
    assert!(reader_state(&s).acknowledger.manager.done);
    assert!(matches!(sent(&cmds).as_slice(), [(_, Msg::ShareFetch(q))] if q.acks.is_empty()));
}

#[test]
fn a_failed_acknowledgement_write_aborts_the_transaction() {
    let sys = system(Design::seed(), Scenario::flink_acknowledger(), RESEND);
    let tc = sys.topology.txn_coordinator;
    let s = holding_a_record(&sys);
    let (s, _) = choose(&sys, reader(&sys), &s, ClientChoice::Checkpoint);
    let (s, _) = deliver(&sys, reader(&sys), &s, tc, share_acks_added());
    // The request times out, is resent once, and times out again: the batch expired.
    let timer = Timer::RequestTimeout(RequestKey::TxnShareAcknowledge);
    let (s, cmds) = fire(&sys, reader(&sys), &s, timer);
    assert!(matches!(
        sent(&cmds).as_slice(),
        [(_, Msg::TxnShareAcknowledge(_))]
    ));
    let (s, cmds) = fire(&sys, reader(&sys), &s, timer);
    assert!(matches!(sent(&cmds).as_slice(), [(_, Msg::EndTxn(q))] if !q.commit));
    assert_eq!(
        reader_state(&s).acknowledger.manager.tm,
        TxnManagerState::AbortingTransaction
    );
}

#[test]
fn a_restart_commits_the_restored_checkpoint_again() {
    let sys = system(Design::seed(), Scenario::flink_acknowledger(), RESEND);
    let tc = sys.topology.txn_coordinator;
    let storage = NodeStorage::SourceReader(ReaderStorage {
        incarnation: 0,
        checkpoint: vec![accept(1)],
        prepared: None,
    });
    let (s, cmds) = start(&sys, reader(&sys), Some(storage));
    assert_eq!(reader_state(&s).incarnation, 1);
    assert_eq!(reader_state(&s).restored, vec![accept(1)]);
    assert!(cmds.iter().any(|c| matches!(c,
        Command::Save(NodeStorage::SourceReader(ReaderStorage { incarnation: 1, checkpoint, prepared: None })) if *checkpoint == vec![accept(1)])));
    // Once initialised (the new epoch fences the previous incarnation), it begins a
    // transaction for the restored acks.
    let (s, cmds) = deliver(
        &sys,
        reader(&sys),
        &s,
        tc,
        Msg::InitProducerIdResponse(InitProducerIdResponse {
            txn: TransactionalId(0),
            error: ErrorCode::None,
            producer: Some(pe(2)),
            ongoing: None,
            connection: Default::default(),
        }),
    );
    assert!(
        matches!(sent(&cmds).as_slice(), [(_, Msg::AddShareAcksToTxn(q))] if q.producer == pe(2))
    );
    assert!(reader_state(&s).restored.is_empty());
    assert_eq!(reader_state(&s).committing, vec![accept(1)]);
    assert_eq!(
        reader_state(&s)
            .acknowledger
            .manager
            .txn
            .as_ref()
            .unwrap()
            .tag
            .open()
            .incarnation,
        1
    );
}
