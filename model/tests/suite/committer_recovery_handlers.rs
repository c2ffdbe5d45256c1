//! The 2PC coordinator application's recovery on `session-resume`, one event in, the
//! requests out: each session it builds has a connection of its own and drops an answer
//! that came back on another (Kafka's `NetworkClient` delivers nothing of a closed
//! connection); with `writer_failover` a writer whose session went fatal before its
//! hand-off reports it, and the committer with nothing logged runs the presumed abort again.

use crate::common;
use common::resume::init_producer_ids;

use common::{committer_state as k, deliver, fire, messages, pe, start, system, TXN};
use sharetxn_model::clients::committer::CommitterStorage;
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::external_msg::WriterFailed;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::world::node::{NodeState, NodeStorage};
use sharetxn_model::{Scenario, System};

const TIMED_OUT: &[&str] = &["crashable=committer", "timeouts=1"];

/// The committer restarted with nothing logged, whose wait for the writer's vote timed
/// out: its presumed abort's InitProducerId.
fn restarted_empty(sys: &System) -> (NodeState, InitProducerIdRequest) {
    let storage = Some(NodeStorage::Committer(CommitterStorage {
        incarnation: 1,
        committable: None,
        decision: None,
    }));
    let id = sys.topology.committers[0];
    let (state, _) = start(sys, id, storage);
    let (state, cmds) = fire(sys, id, &state, Timer::VoteTimeout);
    let init = init_producer_ids(&cmds);
    assert_eq!(init.len(), 1, "the presumed abort's InitProducerId");
    (state, init[0].clone())
}

#[test]
fn a_retried_recovery_goes_out_on_a_new_connection_and_drops_the_old_ones_answer() {
    let sys = system(Design::proposed(), Scenario::session_resume(), TIMED_OUT);
    let id = sys.topology.committers[0];
    let (state, first) = restarted_empty(&sys);
    let timer = Timer::RequestTimeout(RequestKey::Coordinator);
    let (state, cmds) = fire(&sys, id, &state, timer);
    let retry = init_producer_ids(&cmds);
    assert_eq!(retry.len(), 1, "{:?}", messages(&cmds));
    assert_ne!(retry[0].connection, first.connection, "a fresh connection");
    let late = Msg::InitProducerIdResponse(InitProducerIdResponse {
        txn: TXN,
        error: ErrorCode::None,
        producer: Some(pe(1)),
        ongoing: Some(pe(0)),
        connection: first.connection,
    });
    let tc = sys.topology.txn_coordinator;
    let (after, cmds) = deliver(&sys, id, &state, tc, late);
    assert!(cmds.is_empty(), "the closed session's answer: {cmds:?}");
    assert_eq!(k(&after), k(&state), "nothing changes");
}

#[test]
fn the_coordinator_echoes_the_connection_of_init_producer_id() {
    let sys = system(Design::proposed(), Scenario::session_resume(), TIMED_OUT);
    let (_, init) = restarted_empty(&sys);
    assert!(
        !init.connection.is_default(),
        "the committer's own connection"
    );
    let tc = sys.topology.txn_coordinator;
    let (tc_state, _) = start(&sys, tc, None);
    let (_, cmds) = deliver(
        &sys,
        tc,
        &tc_state,
        sys.topology.committers[0],
        Msg::InitProducerId(init.clone()),
    );
    let answer = messages(&cmds)
        .into_iter()
        .find_map(|m| match m {
            Msg::InitProducerIdResponse(r) => Some(r),
            _ => None,
        })
        .expect("answered at once: nothing is ongoing");
    assert_eq!(answer.connection, init.connection);
}

/// The committer that ended its presumed abort (nothing was kept), then hears that the
/// writer failed before its hand-off: the requests it sends.
fn writer_failed_after_recovery(settings: &[&str]) -> Vec<InitProducerIdRequest> {
    let sys = system(Design::proposed(), Scenario::session_resume(), settings);
    let id = sys.topology.committers[0];
    let (state, init) = restarted_empty(&sys);
    let nothing_kept = Msg::InitProducerIdResponse(InitProducerIdResponse {
        txn: TXN,
        error: ErrorCode::None,
        producer: Some(pe(1)),
        ongoing: None,
        connection: init.connection,
    });
    let tc = sys.topology.txn_coordinator;
    let (state, _) = deliver(&sys, id, &state, tc, nothing_kept);
    assert!(!k(&state).presumed_abort, "the recovery ended");
    let failed = Msg::WriterFailed(WriterFailed { txn: TXN });
    let (state, cmds) = deliver(&sys, id, &state, sys.topology.writers[0], failed);
    let again = init_producer_ids(&cmds);
    assert_eq!(k(&state).presumed_abort, !again.is_empty());
    again
}

/// `writer_failover` on (it is off in `proposed`, which `vote_timeout` covers).
const FAILOVER: &[&str] = &["crashable=committer", "timeouts=1", "writer_failover=true"];

#[test]
fn a_failed_writer_makes_the_committer_run_the_presumed_abort_again() {
    let again = writer_failed_after_recovery(FAILOVER);
    assert_eq!(again.len(), 1, "the presumed abort again");
    assert!(again[0].keep_prepared_txn && again[0].enable_2pc);
}

#[test]
fn without_writer_failover_a_failed_writer_changes_nothing() {
    let mut settings = TIMED_OUT.to_vec();
    settings.push("writer_failover=false");
    assert!(writer_failed_after_recovery(&settings).is_empty());
}

#[test]
fn a_writer_whose_init_producer_id_timed_out_reports_its_failure() {
    let sys = system(Design::proposed(), Scenario::session_resume(), FAILOVER);
    let id = sys.topology.writers[0];
    let (state, cmds) = start(&sys, id, None);
    assert_eq!(init_producer_ids(&cmds).len(), 1);
    let timer = Timer::RequestTimeout(RequestKey::Coordinator);
    let (_, cmds) = fire(&sys, id, &state, timer);
    let failed = Msg::WriterFailed(WriterFailed { txn: TXN });
    assert!(
        cmds.iter().any(|c| matches!(
            c,
            stateright::actor::Command::Send(dst, m)
                if *dst == sys.topology.committers[0] && *m == failed
        )),
        "{cmds:?}"
    );
}
