//! The closed world's timer rule (`world::timing`) for a request in flight: its timeout is
//! due (enabled as progress) only once neither the request nor its answer can still
//! arrive, a message of another exchange between the same two actors does not hold it
//! back, and a timeout fired early closes the connection the request went out on
//! (`NetworkClient` disconnects a node whose request timed out), so what was queued on
//! it may still arrive, but out of order.

use crate::common;

use sharetxn_model::protocol::external_msg::ExternalRequest;
use sharetxn_model::protocol::msg::{Msg, RequestKey, Timer};
use sharetxn_model::protocol::share_msg::{
    WriteShareGroupStateRequest, WriteShareGroupStateResponse,
};
use sharetxn_model::{Action, Design, Envelope, Scenario, System, SystemState};
use stateright::actor::Id;

/// Takes the first enabled progress action until `found` picks something out of the
/// state (a deterministic walk).
fn walk_to<T>(sys: &System, found: impl Fn(&SystemState) -> Option<T>) -> (SystemState, T) {
    let mut state = sys.init_state();
    for _ in 0..200 {
        if let Some(t) = found(&state) {
            return (state, t);
        }
        let mut actions = Vec::new();
        sys.enabled_progress(&state, &mut actions);
        let action = actions.first().expect("the walk goes on").clone();
        state = sys.step(&state, &action);
    }
    panic!("the walk did not get there in 200 steps");
}

/// The first message in flight from `src` to `dst` that `pick` takes.
fn in_flight<T>(
    state: &SystemState,
    src: Id,
    dst: Id,
    pick: impl Fn(&Msg) -> Option<T>,
) -> Option<T> {
    state
        .network
        .iter()
        .filter(|e| e.src == src && e.dst == dst)
        .find_map(|e| pick(&e.msg))
}

/// Whether firing `timer` of `id` is enabled as progress in `state` (it is due).
fn fires_as_progress(sys: &System, state: &SystemState, id: Id, timer: Timer) -> bool {
    let mut actions = Vec::new();
    sys.enabled_progress(state, &mut actions);
    actions.contains(&Action::Fire { actor: id, timer })
}

/// `share-basic` with the share-partition leader's first WriteShareGroupState in flight.
fn persisting() -> (System, SystemState, WriteShareGroupStateRequest) {
    let sys = System::new(Design::proposed(), Scenario::share_basic());
    let spl = sys.topology.share_partition.expect("a share partition");
    let sc = sys.topology.share_coordinator.expect("a share coordinator");
    let (state, write) = walk_to(&sys, |s| {
        in_flight(s, spl, sc, |m| match m {
            Msg::WriteShareGroupState(w) => Some(w.clone()),
            _ => None,
        })
    });
    (sys, state, write)
}

/// The persister's answer to `write`, or to another write of the same leader epoch.
fn answer(write: &WriteShareGroupStateRequest, number: u32) -> Msg {
    Msg::WriteShareGroupStateResponse(WriteShareGroupStateResponse {
        leader_epoch: write.leader_epoch,
        write: number,
        error: sharetxn_model::protocol::error::ErrorCode::None,
    })
}

#[test]
fn a_persister_timeout_waits_for_its_own_write_only() {
    let (sys, mut state, write) = persisting();
    let spl = sys.topology.share_partition.unwrap();
    let sc = sys.topology.share_coordinator.unwrap();
    let timeout = Timer::PersisterTimeout(write.write);
    assert!(state.timers[usize::from(spl)].contains(&timeout));
    assert!(
        !fires_as_progress(&sys, &state, spl, timeout),
        "the write is in flight"
    );
    let request = Envelope {
        src: spl,
        dst: sc,
        msg: Msg::WriteShareGroupState(write.clone()),
    };
    state.network.take(request.as_ref());
    assert!(
        fires_as_progress(&sys, &state, spl, timeout),
        "the write was lost"
    );
    // The same leader epoch, another write: another exchange, each way.
    let mut other = state.clone();
    let later = WriteShareGroupStateRequest {
        write: write.write + 1,
        ..write.clone()
    };
    other.network.add_stray(Envelope {
        src: spl,
        dst: sc,
        msg: Msg::WriteShareGroupState(later),
    });
    other.network.add_stray(Envelope {
        src: sc,
        dst: spl,
        msg: answer(&write, write.write + 1),
    });
    assert!(
        fires_as_progress(&sys, &other, spl, timeout),
        "another write's request and answer do not answer this one"
    );
    // Its own answer on the way holds it back.
    let mut answered = state.clone();
    answered.network.add_stray(Envelope {
        src: sc,
        dst: spl,
        msg: answer(&write, write.write),
    });
    assert!(!fires_as_progress(&sys, &answered, spl, timeout));
}

/// `session-resume` with the committer's first ExternalRequest in flight.
fn asking_the_participant() -> (System, SystemState, ExternalRequest) {
    let sys = common::system(
        Design::proposed(),
        Scenario::session_resume(),
        &["timeouts=1"],
    );
    let (committer, external) = (sys.topology.committers[0], sys.topology.externals[0]);
    let (state, request) = walk_to(&sys, |s| {
        in_flight(s, committer, external, |m| match m {
            Msg::ExternalRequest(r) => Some(r.clone()),
            _ => None,
        })
    });
    (sys, state, request)
}

#[test]
fn a_committers_request_timeout_is_early_while_the_participant_can_answer() {
    let (sys, state, request) = asking_the_participant();
    let (committer, external) = (sys.topology.committers[0], sys.topology.externals[0]);
    let timeout = Timer::RequestTimeout(RequestKey::External);
    assert!(state.timers[usize::from(committer)].contains(&timeout));
    assert!(!fires_as_progress(&sys, &state, committer, timeout));
    let node = &sys.actors[usize::from(committer)];
    assert_eq!(
        node.request_destination(state.node(committer), RequestKey::External),
        Some(external)
    );
    let mut lost = state.clone();
    let sent = Envelope {
        src: committer,
        dst: external,
        msg: Msg::ExternalRequest(request),
    };
    lost.network.take(sent.as_ref());
    assert!(
        fires_as_progress(&sys, &lost, committer, timeout),
        "the request was lost"
    );
}

#[test]
fn a_committers_early_request_timeout_closes_its_connection_to_the_participant() {
    let (sys, state, request) = asking_the_participant();
    let (committer, external) = (sys.topology.committers[0], sys.topology.externals[0]);
    let timeout = Timer::RequestTimeout(RequestKey::External);
    let next = sys.step(
        &state,
        &Action::Fire {
            actor: committer,
            timer: timeout,
        },
    );
    assert_eq!(next.budget.timeouts, 0, "an early firing is a fault");
    let request = Envelope {
        src: committer,
        dst: external,
        msg: Msg::ExternalRequest(request),
    };
    assert!(
        next.network.strays().iter().any(|(e, _)| *e == request),
        "the request is off its connection: {:?}",
        next.network
    );
}

/// `txn-basic` with the coordinator's first COMMIT or ABORT marker to `D0` in flight.
fn marker_in_flight() -> (System, SystemState, Envelope) {
    let sys = System::new(Design::consumer_offsets(), Scenario::txn_basic());
    let (tc, d0) = (sys.topology.txn_coordinator, sys.topology.partitions[0]);
    let (state, env) = walk_to(&sys, |s| {
        s.network
            .iter()
            .find(|e| e.src == tc && e.dst == d0 && matches!(e.msg, Msg::WriteTxnMarkers(_)))
    });
    (sys, state, env)
}

/// The resend timer of the marker's transaction.
fn marker_retry(env: &Envelope) -> Timer {
    let Msg::WriteTxnMarkers(_) = &env.msg else {
        panic!("a marker: {env:?}");
    };
    Timer::MarkerRetry(sharetxn_model::protocol::ids::TransactionalId(0))
}

#[test]
fn a_marker_resend_is_due_once_the_marker_is_lost() {
    let (sys, state, env) = marker_in_flight();
    let tc = sys.topology.txn_coordinator;
    let retry = marker_retry(&env);
    assert!(
        !fires_as_progress(&sys, &state, tc, retry),
        "the marker is in flight"
    );
    let lost = sys.step(&state, &Action::Drop(env));
    assert!(
        fires_as_progress(&sys, &lost, tc, retry),
        "the marker was lost"
    );
}

/// Kafka's `InterBrokerSendThread` cannot reach a broker that is down: the marker's request
/// times out as disconnected and is re-enqueued, and reaches the broker once it is back. So
/// the resend is not due while the leader is down (firing then is an early timeout), and is
/// due once it restarted without the marker (lost with the crash). Were it due while the
/// leader is down, unbounded resends would queue a copy a firing for as long as it stays
/// down, and the space would have no end.
#[test]
fn a_marker_resend_waits_for_its_leaders_restart() {
    let (sys, state, env) = marker_in_flight();
    let (tc, d0) = (sys.topology.txn_coordinator, env.dst);
    let retry = marker_retry(&env);
    let down = sys.step(&state, &Action::Crash(d0));
    assert!(!down.is_up(d0));
    assert!(!fires_as_progress(&sys, &down, tc, retry), "D0 is down");
    let back = sys.step(&down, &Action::Restart(d0));
    assert!(
        fires_as_progress(&sys, &back, tc, retry),
        "the marker was lost with D0"
    );
}
