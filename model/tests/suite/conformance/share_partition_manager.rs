//! `SharePartitionManagerTest` (core/src/test/java/kafka/server/share, apache/kafka
//! `1eb7644349cb`), the parts that touch record state: the share session a ShareFetch or
//! ShareAcknowledge runs in, acknowledgements passed to the partition, delayed (long-poll)
//! fetches completed by an acknowledgement, and fetches that arrive before the partition is
//! initialised. The model has one share partition, and its leader is also its
//! `SharePartitionManager`: the share session cache lives in the leader's state.

use super::share_partition::{
    acknowledge_all, fetch, fetch_request, ids, loaded, record, spl, with_delivery_limit,
};
use crate::common::{deliver, start};
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ids::MemberId;
use sharetxn_model::protocol::msg::Msg;
use sharetxn_model::protocol::record_state::{AckType, RecordState::*};
use sharetxn_model::protocol::share_msg::*;
use sharetxn_model::protocol::share_state::ShareState;
use stateright::actor::Command;

/// The error of the ShareFetch answer to consumer `m` in `cmds`.
fn fetch_error(
    sys: &sharetxn_model::System,
    cmds: &[crate::common::Cmd],
    m: usize,
) -> Option<ErrorCode> {
    let consumer = sys.topology.consumers[m];
    cmds.iter().find_map(|c| match c {
        Command::Send(dst, Msg::ShareFetchResponse(r)) if *dst == consumer => Some(r.error),
        _ => None,
    })
}

/// `testNewContext`, its share session checks: epoch 0 opens a session; a request with an
/// epoch the session does not expect is INVALID_SHARE_SESSION_EPOCH, one for a member with
/// no session is SHARE_SESSION_NOT_FOUND, and the expected epoch continues the session.
#[test]
fn share_session_epochs_are_checked_as_kafka_checks_them() {
    let sys = with_delivery_limit(5);
    let state = loaded(&sys, ShareState::default());
    let (state, cmds) = fetch_request(&sys, &state, 0, 0, 1);
    assert_eq!(fetch_error(&sys, &cmds, 0), Some(ErrorCode::None));
    let (state, cmds) = fetch_request(&sys, &state, 0, 5, 1);
    assert_eq!(
        fetch_error(&sys, &cmds, 0),
        Some(ErrorCode::InvalidShareSessionEpoch)
    );
    let (state, cmds) = fetch_request(&sys, &state, 1, 1, 1);
    assert_eq!(
        fetch_error(&sys, &cmds, 1),
        Some(ErrorCode::ShareSessionNotFound)
    );
    let (_, cmds) = fetch_request(&sys, &state, 0, 1, 1);
    assert_ne!(
        fetch_error(&sys, &cmds, 0),
        Some(ErrorCode::InvalidShareSessionEpoch)
    );
    assert_ne!(
        fetch_error(&sys, &cmds, 0),
        Some(ErrorCode::ShareSessionNotFound)
    );
}

/// `testAcknowledgeSinglePartition`: a ShareAcknowledge in the session is applied to the
/// partition and answered NONE.
#[test]
fn an_acknowledgement_is_applied_to_the_partition() {
    let sys = with_delivery_limit(5);
    let (state, _) = fetch(&sys, &loaded(&sys, ShareState::default()), 0, 0);
    let acked = acknowledge_all(
        &sys,
        &state,
        0,
        1,
        &[(0, 1, AckType::Accept)],
        ErrorCode::None,
    );
    assert_eq!(acked.error, ErrorCode::None);
    assert_eq!(spl(&acked.state).start_offset, 1);
}

/// `testAcknowledgeCompletesDelayedShareFetchRequest`: a fetch waiting for records is
/// completed when an acknowledgement makes one acquirable (a RELEASE).
#[test]
fn an_acknowledgement_completes_a_waiting_fetch() {
    let sys = with_delivery_limit(5);
    let (state, _) =
        super::share_partition::fetch_up_to(&sys, &loaded(&sys, ShareState::default()), 0, 0, 5);
    let (state, acquired) = fetch(&sys, &state, 1, 0);
    assert!(acquired.is_empty());
    assert_eq!(spl(&state).parked.len(), 1);
    let acked = acknowledge_all(
        &sys,
        &state,
        0,
        1,
        &[(0, 1, AckType::Release)],
        ErrorCode::None,
    );
    assert!(spl(&acked.state).parked.is_empty());
    let r = record(&acked.state, 0);
    assert_eq!(
        (r.state, r.member, r.delivery_count),
        (Acquired, Some(MemberId(1)), 2)
    );
}

/// `testAcknowledgeDoesNotCompleteDelayedShareFetchRequest`: an acknowledgement that makes
/// nothing acquirable (an ACCEPT) leaves the waiting fetch waiting.
#[test]
fn an_accept_leaves_a_waiting_fetch_waiting() {
    let sys = with_delivery_limit(5);
    let (state, _) =
        super::share_partition::fetch_up_to(&sys, &loaded(&sys, ShareState::default()), 0, 0, 5);
    let (state, _) = fetch(&sys, &state, 1, 0);
    let acked = acknowledge_all(
        &sys,
        &state,
        0,
        1,
        &[(0, 1, AckType::Accept)],
        ErrorCode::None,
    );
    assert_eq!(spl(&acked.state).parked.len(), 1);
}

/// `testPendingInitializationShouldCompleteFetchRequest`: a fetch that arrives while the
/// partition is initialising waits, and is answered once the state is loaded.
#[test]
fn a_fetch_during_initialisation_is_answered_after_the_load() {
    let sys = with_delivery_limit(5);
    let (sp, sc, c0, _) = ids(&sys);
    let (state, _) = start(&sys, sp, None);
    let (state, cmds) = fetch_request(&sys, &state, 0, 0, 1);
    assert_eq!(fetch_error(&sys, &cmds, 0), None, "no answer yet");
    let read = Msg::ReadShareGroupStateResponse(ReadShareGroupStateResponse {
        leader_epoch: 1,
        error: ErrorCode::None,
        state: Some(ShareState {
            leader_epoch: 1,
            ..ShareState::default()
        }),
        pending: Vec::new(),
        refresh: false,
    });
    let (state, cmds) = deliver(&sys, sp, &state, sc, read);
    let answered = cmds.iter().any(|c| {
        matches!(c, Command::Send(dst, Msg::ShareFetchResponse(r)) if *dst == c0 && r.acquired.len() == 1)
    });
    assert!(answered, "{cmds:?}");
    assert_eq!(record(&state, 0).state, Acquired);
}
