//! The hand-off between the writer and the 2PC coordinator application of `session-resume`,
//! one event in, the requests out: with `vote_timeout` the committer waits a bounded time
//! for the writer's committable and presumes abort when it does not come; a commit
//! completes only the transaction the writer handed over (`completeTransaction` compares
//! the stored `PreparedTxnState`); with `writer_keep_prepared` the writer initialises with
//! `keepPreparedTxn=true`; and a writer that woke as a zombie and closed begins no other
//! transaction, whatever its attempt bound.

use crate::common;
use common::resume::{committable, committer, init_producer_ids};

use common::{
    choose, committer_state as k, deliver, fire, messages, pe, sent_to, start, system, Cmd, TXN,
};
use sharetxn_model::clients::committer::CommitterStorage;
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::external_msg::*;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::world::node::{NodeState, NodeStorage};
use sharetxn_model::{Scenario, System};
use stateright::actor::Command;

fn sets_vote_timeout(cmds: &[Cmd]) -> bool {
    cmds.iter()
        .any(|c| matches!(c, Command::SetTimer(Timer::VoteTimeout, _)))
}

#[test]
fn a_committer_with_nothing_logged_waits_a_bounded_time_for_the_vote() {
    let sys = system(Design::proposed(), Scenario::session_resume(), &[]);
    let (_, cmds) = start(&sys, committer(&sys), None);
    assert!(sets_vote_timeout(&cmds), "{cmds:?}");
    assert!(messages(&cmds).is_empty(), "it only waits");
    let off = system(
        Design::proposed(),
        Scenario::session_resume(),
        &["vote_timeout=false"],
    );
    let (_, cmds) = start(&off, committer(&off), None);
    assert!(!sets_vote_timeout(&cmds), "the seed's 4.5 waits for ever");
}

#[test]
fn a_vote_that_does_not_come_is_presumed_aborted() {
    let sys = system(Design::proposed(), Scenario::session_resume(), &[]);
    let id = committer(&sys);
    let (state, _) = start(&sys, id, None);
    let (state, cmds) = fire(&sys, id, &state, Timer::VoteTimeout);
    let init = init_producer_ids(&cmds);
    assert_eq!(init.len(), 1, "{cmds:?}");
    assert!(init[0].keep_prepared_txn && init[0].enable_2pc);
    assert!(k(&state).presumed_abort);
    assert_eq!(k(&state).log.committable, None, "nothing is logged");
}

#[test]
fn the_committable_ends_the_wait_and_starts_phase_one() {
    let sys = system(Design::proposed(), Scenario::session_resume(), &[]);
    let id = committer(&sys);
    let (state, _) = start(&sys, id, None);
    let writer = sys.topology.writers[0];
    let (state, cmds) = deliver(&sys, id, &state, writer, Msg::Committable(committable()));
    assert!(
        cmds.iter()
            .any(|c| matches!(c, Command::CancelTimer(Timer::VoteTimeout))),
        "{cmds:?}"
    );
    assert!(
        messages(&cmds).contains(&Msg::ExternalRequest(ExternalRequest {
            op: ExternalOp::Prepare
        }))
    );
    assert_eq!(k(&state).log.committable, Some(committable()));
}

/// The committer restarted with the decision to commit the writer's committable, after its
/// fence was answered with `ongoing` kept: the EndTxn it sends.
fn completed(ongoing: ProducerIdAndEpoch) -> EndTxnRequest {
    let sys = system(Design::proposed(), Scenario::session_resume(), &[]);
    let id = committer(&sys);
    let storage = Some(NodeStorage::Committer(CommitterStorage {
        incarnation: 0,
        committable: Some(committable()),
        decision: Some(true),
    }));
    let (state, cmds) = start(&sys, id, storage);
    let fence = init_producer_ids(&cmds).pop().expect("the fence");
    let kept = Msg::InitProducerIdResponse(InitProducerIdResponse {
        txn: TXN,
        error: ErrorCode::None,
        producer: Some(pe(2)),
        ongoing: Some(ongoing),
        connection: fence.connection,
    });
    let (_, cmds) = deliver(&sys, id, &state, sys.topology.txn_coordinator, kept);
    messages(&cmds)
        .into_iter()
        .find_map(|m| match m {
            Msg::EndTxn(r) => Some(r),
            _ => None,
        })
        .expect("completeTransaction sends EndTxn")
}

#[test]
fn a_commit_completes_only_the_transaction_the_writer_handed_over() {
    let end = completed(pe(0));
    assert!(end.commit, "the kept pair is the stored PreparedTxnState");
    // Another transaction of the writer's transactional id was kept (one a zombie began
    // after it aborted the handed one): `completeTransaction` aborts it.
    let end = completed(pe(1));
    assert!(!end.commit, "{end:?}");
    assert_eq!(end.producer, pe(2), "the bumped pair");
}

#[test]
fn the_writer_initialises_keeping_what_is_prepared() {
    for (design, keep) in [(Design::proposed(), true), (Design::seed(), false)] {
        let sys = system(design, Scenario::session_resume(), &[]);
        let (_, cmds) = start(&sys, sys.topology.writers[0], None);
        let init = init_producer_ids(&cmds);
        assert_eq!(init.len(), 1);
        assert_eq!(init[0].keep_prepared_txn, keep, "{init:?}");
    }
}

/// The writer of `sys` driven to its hand-off: initialised, its output and its offset
/// written and answered, its transaction prepared and its committable sent.
fn handed_over(sys: &System) -> NodeState {
    let id = sys.topology.writers[0];
    let (tc, gc, d0) = (
        sys.topology.txn_coordinator,
        sys.topology.group_coordinator,
        sys.topology.partitions[0],
    );
    let (state, cmds) = start(sys, id, None);
    let init = init_producer_ids(&cmds).pop().expect("InitProducerId");
    let answers = [
        (
            tc,
            Msg::InitProducerIdResponse(InitProducerIdResponse {
                txn: TXN,
                error: ErrorCode::None,
                producer: Some(pe(0)),
                ongoing: None,
                connection: init.connection,
            }),
        ),
        (
            gc,
            Msg::OffsetFetchResponse(OffsetFetchResponse {
                error: ErrorCode::None,
                offset: 0,
            }),
        ),
        (
            d0,
            Msg::ProduceResponse(ProduceResponse {
                partition: PartitionIndex(0),
                producer: pe(0),
                seq: 0,
                error: ErrorCode::None,
            }),
        ),
        (
            gc,
            Msg::TxnOffsetCommitResponse(TxnOffsetCommitResponse {
                producer: pe(0),
                offset: 1,
                error: ErrorCode::None,
            }),
        ),
    ];
    let mut state = state;
    let mut last = Vec::new();
    for (src, msg) in answers {
        (state, last) = deliver(sys, id, &state, src, msg);
    }
    let handed = sent_to(&last, committer(sys));
    assert!(
        matches!(handed.as_slice(), [Msg::Committable(c)] if c.producer == pe(0)),
        "{last:?}"
    );
    state
}

#[test]
fn a_zombie_that_closed_begins_no_other_transaction() {
    // Two attempts allowed: the zombie's abort of the handed transaction must not start
    // the second (`close()` ended its application).
    let sys = system(Design::proposed(), Scenario::session_resume(), &["txns=2"]);
    let id = sys.topology.writers[0];
    let state = handed_over(&sys);
    let (state, cmds) = choose(&sys, id, &state, ClientChoice::Wake);
    let end = messages(&cmds)
        .into_iter()
        .find_map(|m| match m {
            Msg::EndTxn(r) => Some(r),
            _ => None,
        })
        .expect("abortTransaction() sends EndTxn");
    assert!(!end.commit);
    let aborted = Msg::EndTxnResponse(EndTxnResponse {
        txn: TXN,
        request_producer: pe(0),
        commit: false,
        error: ErrorCode::None,
        producer: Some(pe(1)),
        connection: end.connection,
    });
    let (_, cmds) = deliver(&sys, id, &state, sys.topology.txn_coordinator, aborted);
    assert!(messages(&cmds).is_empty(), "nothing begins: {cmds:?}");
}
