//! `TransactionSession.resume` at the committer of `session-resume`, one event in, the
//! requests out: `resume=install` sends nothing and completes with the prepared pair;
//! `resume=fence` sends InitProducerId(keepPreparedTxn=true) and completes with the bumped
//! pair once the kept transaction is returned; with `decide_after_resume` a fence that
//! finds no kept transaction decides abort; with `recovery_retry` a presumed abort whose
//! session went fatal starts again with a fresh InitProducerId.

use crate::common;
use common::resume::{committable, committer, init_producer_ids};

use common::{committer_state as k, deliver, fire, messages, pe, start, system, Cmd, TXN};
use sharetxn_model::clients::committer::CommitterStorage;
use sharetxn_model::coordinator::txn_state::TxnManagerState;
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::external_msg::*;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::world::node::{NodeState, NodeStorage};
use sharetxn_model::{Scenario, System};
use stateright::actor::Command;

/// The committer started from the writer's committable, with the external coordinator's
/// `decision` if it has one.
fn resumed(sys: &System, decision: Option<bool>) -> (NodeState, Vec<Cmd>) {
    let storage = Some(NodeStorage::Committer(CommitterStorage {
        incarnation: 0,
        committable: Some(committable()),
        decision,
    }));
    start(sys, committer(sys), storage)
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
    let (state, cmds) = resumed(&sys, Some(true));
    let msgs = messages(&cmds);
    assert!(
        !msgs.iter().any(|m| matches!(m, Msg::InitProducerId(_))),
        "{msgs:?}"
    );
    let end = end_txn(&msgs).expect("EndTxn at once");
    assert!(end.commit);
    assert_eq!(end.producer, pe(0), "the writer's own pair");
    assert!(msgs.contains(&Msg::ExternalRequest(ExternalRequest {
        op: ExternalOp::Commit
    })));
    assert!(k(&state).resumed, "installed: acknowledged at once");
}

/// The installed session counts the resumed transaction as begun, as a session that began it
/// itself would (the attempt number tags the next transaction's ghost), and after its commit
/// is answered it begins no other.
#[test]
fn an_installed_session_counts_its_transaction_and_ends_after_the_commit() {
    let sys = System::new(Design::seed(), Scenario::session_resume());
    let (state, _) = resumed(&sys, Some(true));
    let session = k(&state).session.as_ref().expect("the installed session");
    assert_eq!(
        session.manager.attempts, 1,
        "the resumed transaction was begun"
    );
    let tc = sys.topology.txn_coordinator;
    let (state, cmds) = deliver(
        &sys,
        committer(&sys),
        &state,
        tc,
        Msg::EndTxnResponse(EndTxnResponse {
            txn: TXN,
            request_producer: pe(0),
            commit: true,
            error: ErrorCode::None,
            producer: None,
            connection: Default::default(),
        }),
    );
    let msgs = messages(&cmds);
    assert!(
        !msgs.iter().any(|m| matches!(
            m,
            Msg::AddPartitionsToTxn(_) | Msg::Produce(_) | Msg::OffsetFetch(_)
        )),
        "no second transaction: {msgs:?}"
    );
    let session = k(&state).session.as_ref().expect("the session");
    assert_eq!(session.manager.attempts, 1);
}

#[test]
fn fence_keeps_the_prepared_transaction_and_completes_it_with_the_bumped_pair() {
    let sys = System::new(Design::proposed(), Scenario::session_resume());
    let (state, cmds) = resumed(&sys, Some(true));
    let msgs = messages(&cmds);
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
        committer(&sys),
        &state,
        tc,
        Msg::InitProducerIdResponse(InitProducerIdResponse {
            txn: TXN,
            error: ErrorCode::None,
            producer: Some(pe(1)),
            ongoing: Some(pe(0)),
            // Answered on the connection the request went out on.
            connection: init.connection,
        }),
    );
    assert!(k(&state).resumed);
    let end = end_txn(&messages(&cmds)).expect("completeTransaction sends EndTxn");
    assert!(end.commit, "the kept pair is the prepared state");
    assert_eq!(end.producer, pe(1), "the bumped pair");
    let session = k(&state).session.as_ref().unwrap();
    assert_eq!(session.manager.tm, TxnManagerState::CommittingTransaction);
    assert_eq!(session.manager.txn.as_ref().unwrap().tag, committable().tag);
}

#[test]
fn a_fence_that_finds_no_kept_transaction_decides_abort() {
    let sys = System::new(Design::proposed(), Scenario::session_resume());
    let (state, _) = resumed(&sys, None);
    let db = sys.topology.externals[0];
    let (state, cmds) = deliver(
        &sys,
        committer(&sys),
        &state,
        db,
        Msg::ExternalResponse(ExternalResponse {
            op: ExternalOp::Prepare,
            decided: None,
        }),
    );
    let fence = messages(&cmds)
        .into_iter()
        .find_map(|m| match m {
            Msg::InitProducerId(r) if r.keep_prepared_txn => Some(r),
            _ => None,
        })
        .expect("decide_after_resume: the fence comes before the decision");
    assert_eq!(k(&state).log.decision, None);
    let tc = sys.topology.txn_coordinator;
    let (state, cmds) = deliver(
        &sys,
        committer(&sys),
        &state,
        tc,
        Msg::InitProducerIdResponse(InitProducerIdResponse {
            txn: TXN,
            error: ErrorCode::None,
            producer: Some(pe(2)),
            ongoing: None,
            connection: fence.connection,
        }),
    );
    assert_eq!(k(&state).log.decision, Some(false));
    assert!(
        messages(&cmds).contains(&Msg::ExternalRequest(ExternalRequest {
            op: ExternalOp::Abort
        }))
    );
    assert!(cmds.iter().any(|c| matches!(
        c,
        Command::Save(NodeStorage::Committer(CommitterStorage {
            decision: Some(false),
            ..
        }))
    )));
}

/// The restarted committer with nothing in its log presumes abort once the writer's vote
/// timed out; its InitProducerId times out with no retries left, so that session is fatal:
/// the state after the timeout and its commands.
fn recovery_timed_out(settings: &[&str]) -> (NodeState, Vec<Cmd>) {
    let sys = system(Design::proposed(), Scenario::session_resume(), settings);
    let storage = Some(NodeStorage::Committer(CommitterStorage {
        incarnation: 0,
        committable: None,
        decision: None,
    }));
    let (state, _) = start(&sys, committer(&sys), storage);
    let (state, cmds) = fire(&sys, committer(&sys), &state, Timer::VoteTimeout);
    let init = init_producer_ids(&cmds);
    assert_eq!(init.len(), 1, "the presumed abort's InitProducerId");
    assert!(init[0].keep_prepared_txn);
    assert!(k(&state).presumed_abort);
    fire(
        &sys,
        committer(&sys),
        &state,
        Timer::RequestTimeout(RequestKey::Coordinator),
    )
}

#[test]
fn a_recovery_whose_session_went_fatal_sends_a_fresh_init_producer_id() {
    let (state, cmds) =
        recovery_timed_out(&["crashable=committer", "timeouts=1", "recovery_retry=true"]);
    let init = init_producer_ids(&cmds);
    assert_eq!(init.len(), 1, "the recovery again: {:?}", messages(&cmds));
    assert!(init[0].keep_prepared_txn && init[0].enable_2pc);
    assert!(k(&state).presumed_abort, "still recovering");
    let session = k(&state).session.as_ref().expect("a fresh session");
    assert_eq!(session.manager.tm, TxnManagerState::Initializing);
}

#[test]
fn without_recovery_retry_a_fatal_recovery_session_is_dropped_and_nothing_is_sent() {
    let (state, cmds) =
        recovery_timed_out(&["crashable=committer", "timeouts=1", "recovery_retry=false"]);
    assert!(init_producer_ids(&cmds).is_empty(), "{:?}", messages(&cmds));
    assert!(!k(&state).presumed_abort);
    assert!(k(&state).session.is_none());
}
