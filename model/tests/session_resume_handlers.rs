//! `TransactionSession.resume` at the committer of `session-resume`, one event in, the
//! requests out: `resume=install` sends nothing and completes with the prepared pair;
//! `resume=fence` sends InitProducerId(keepPreparedTxn=true) and completes with the bumped
//! pair once the kept transaction is returned; with `decide_after_resume` a fence that
//! finds no kept transaction decides abort.

use sharetxn_model::clients::committer::{CommitterState, CommitterStorage};
use sharetxn_model::coordinator::txn_state::TxnManagerState;
use sharetxn_model::design::Design;
use sharetxn_model::history::ghost_value::Ghost;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::external_msg::*;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::world::node::{NodeState, NodeStorage};
use sharetxn_model::{Scenario, System};
use stateright::actor::{Actor, Command, Id, Out};
use std::borrow::Cow;

type Cmd = Command<Msg, Timer, ClientChoice, NodeStorage>;

const TXN: TransactionalId = TransactionalId(0);

fn pair(epoch: u16) -> ProducerIdAndEpoch {
    ProducerIdAndEpoch {
        pid: ProducerId(0),
        epoch: ProducerEpoch(epoch),
    }
}

fn committable() -> Committable {
    Committable {
        txn: TXN,
        producer: pair(0),
        tag: Ghost::new(TxnTag {
            client: 0,
            incarnation: 0,
            attempt: 0,
        }),
    }
}

fn committer(sys: &System) -> Id {
    sys.topology.committers[0]
}

fn start(sys: &System, decision: Option<bool>) -> (NodeState, Vec<Cmd>) {
    let id = committer(sys);
    let storage = Some(NodeStorage::Committer(CommitterStorage {
        incarnation: 0,
        committable: Some(committable()),
        decision,
    }));
    let mut out = Out::new();
    let s = sys.actors[usize::from(id)].on_start(id, &storage, &mut out);
    (s, out.into_iter().collect())
}

fn deliver(sys: &System, state: &NodeState, src: Id, msg: Msg) -> (NodeState, Vec<Cmd>) {
    let id = committer(sys);
    let mut cow = Cow::Borrowed(state);
    let mut out = Out::new();
    sys.actors[usize::from(id)].on_msg(id, &mut cow, src, msg, &mut out);
    (cow.into_owned(), out.into_iter().collect())
}

fn sent(cmds: &[Cmd]) -> Vec<Msg> {
    cmds.iter()
        .filter_map(|c| match c {
            Command::Send(_, m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

fn k(state: &NodeState) -> &CommitterState {
    match state {
        NodeState::Committer(s) => s,
        other => panic!("not a committer: {other:?}"),
    }
}

fn end_txn(msgs: &[Msg]) -> Option<EndTxnRequest> {
    msgs.iter().find_map(|m| match m {
        Msg::EndTxn(r) => Some(r.clone()),
        _ => None,
    })
}

#[test]
fn install_sends_no_init_producer_id_and_commits_with_the_prepared_pair() {
    let sys = System::new(Design::seed(), Scenario::session_resume());
    let (state, cmds) = start(&sys, Some(true));
    let msgs = sent(&cmds);
    assert!(
        !msgs.iter().any(|m| matches!(m, Msg::InitProducerId(_))),
        "{msgs:?}"
    );
    let end = end_txn(&msgs).expect("EndTxn at once");
    assert!(end.commit);
    assert_eq!(end.producer, pair(0), "the writer's own pair");
    assert!(msgs.contains(&Msg::ExternalRequest(ExternalRequest {
        op: ExternalOp::Commit
    })));
    assert!(k(&state).resumed, "installed: acknowledged at once");
}

#[test]
fn fence_keeps_the_prepared_transaction_and_completes_it_with_the_bumped_pair() {
    let sys = System::new(Design::proposed(), Scenario::session_resume());
    let (state, cmds) = start(&sys, Some(true));
    let msgs = sent(&cmds);
    let init = msgs
        .iter()
        .find_map(|m| match m {
            Msg::InitProducerId(r) => Some(r.clone()),
            _ => None,
        })
        .expect("InitProducerId");
    assert!(init.keep_prepared_txn && init.enable_2pc);
    assert!(
        end_txn(&msgs).is_none(),
        "nothing completes before the fence"
    );
    assert!(!k(&state).resumed);
    let tc = sys.topology.txn_coordinator;
    let (state, cmds) = deliver(
        &sys,
        &state,
        tc,
        Msg::InitProducerIdResponse(InitProducerIdResponse {
            txn: TXN,
            error: ErrorCode::None,
            producer: Some(pair(1)),
            ongoing: Some(pair(0)),
        }),
    );
    assert!(k(&state).resumed);
    let end = end_txn(&sent(&cmds)).expect("completeTransaction sends EndTxn");
    assert!(end.commit, "the kept pair is the prepared state");
    assert_eq!(end.producer, pair(1), "the bumped pair");
    let session = k(&state).session.as_ref().unwrap();
    assert_eq!(session.tm, TxnManagerState::CommittingTransaction);
    assert_eq!(session.txn.as_ref().unwrap().tag, committable().tag);
}

#[test]
fn a_fence_that_finds_no_kept_transaction_decides_abort() {
    let sys = System::new(Design::proposed(), Scenario::session_resume());
    let (state, _) = start(&sys, None);
    let db = sys.topology.externals[0];
    let (state, cmds) = deliver(
        &sys,
        &state,
        db,
        Msg::ExternalResponse(ExternalResponse {
            op: ExternalOp::Prepare,
            decided: None,
        }),
    );
    assert!(
        sent(&cmds)
            .iter()
            .any(|m| matches!(m, Msg::InitProducerId(r) if r.keep_prepared_txn)),
        "decide_after_resume: the fence comes before the decision"
    );
    assert_eq!(k(&state).log.decision, None);
    let tc = sys.topology.txn_coordinator;
    let (state, cmds) = deliver(
        &sys,
        &state,
        tc,
        Msg::InitProducerIdResponse(InitProducerIdResponse {
            txn: TXN,
            error: ErrorCode::None,
            producer: Some(pair(2)),
            ongoing: None,
        }),
    );
    assert_eq!(k(&state).log.decision, Some(false));
    assert!(sent(&cmds).contains(&Msg::ExternalRequest(ExternalRequest {
        op: ExternalOp::Abort
    })));
    assert!(cmds.iter().any(|c| matches!(
        c,
        Command::Save(NodeStorage::Committer(CommitterStorage {
            decision: Some(false),
            ..
        }))
    )));
}
