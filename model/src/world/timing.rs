//! When a timer is due. The exhaustive checker has no clock: any armed timer may fire.
//! Firing is split in two. A timer is *due* when what it waits for can no longer arrive
//! (the request or its answer was lost, the other side is down, the client gave up or
//! crashed): firing it is recovery, free, and part of every fair run. Otherwise firing is
//! *early*, the timeout-with-unknown-outcome fault, and costs one unit of the scenario's
//! `timeouts` budget. The actors cannot tell the two apart; only the closed world can.

use crate::coordinator::txn_state::TxnManagerState;
use crate::partition::parked_write::{carries_verification, Verifying};
use crate::protocol::ids::ProducerId;
use crate::protocol::msg::{Msg, ProducerIdAndEpoch, RequestKey, Timer, VerificationGuard};
use crate::world::node::NodeState;
use crate::world::system::{System, SystemState};
use stateright::actor::Id;

/// Whether `timer` of actor `id` is due in `state`.
pub fn is_due(sys: &System, state: &SystemState, id: Id, timer: &Timer) -> bool {
    match timer {
        Timer::RequestTimeout(key) => request_is_lost(sys, state, id, *key),
        Timer::MarkerRetry(_) => marker_is_lost(sys, state, id),
        // Due once the transaction's own client is gone (down or failed for good): it
        // neither ends the transaction nor heartbeats for it.
        Timer::TxnHeartbeatExpiry(txn) => {
            crate::clients::session_heartbeat::expiry_is_due(sys, state, *txn)
        }
        Timer::TxnHeartbeat => crate::clients::session_heartbeat::heartbeat_is_due(sys, state, id),
        Timer::TxnTimeout(txn) => sys.topology.client_of(*txn).is_none_or(|p| {
            !state.is_up(p)
                || state
                    .node(p)
                    .txn_client()
                    .is_some_and(|s| s.tm == TxnManagerState::FatalError)
        }),
        Timer::AcquisitionLock(offset) => {
            crate::share::share_timing::lock_is_due(sys, state, id, *offset)
        }
        Timer::PersisterTimeout(write) => {
            crate::share::share_timing::write_is_lost(sys, state, id, *write)
        }
        Timer::ReadStateTimeout => crate::share::share_timing::read_is_lost(sys, state, id),
        Timer::StageRetry => crate::share::share_partition_txn::stage_is_lost(sys, state, id),
        // `refresh()` is the leader's own re-read: nothing it waits for, so always due.
        Timer::TxnRefresh => true,
        Timer::ResolvedRetry => crate::share::share_coordinator_notify::outcome_is_lost(state, id),
        Timer::VerificationTimeout(pid) => verification_is_lost(sys, state, id, *pid),
    }
}

/// Messages between `a` and `b` in either direction.
pub(crate) fn talking(state: &SystemState, a: Id, b: Id) -> bool {
    state
        .network
        .any(|src, dst, _| (src == a && dst == b) || (src == b && dst == a))
}

fn request_is_lost(sys: &System, state: &SystemState, id: Id, key: RequestKey) -> bool {
    let node = state.node(id);
    if key == RequestKey::External {
        return sys
            .topology
            .externals
            .first()
            .is_none_or(|db| crate::clients::committer::external_is_lost(state, id, *db));
    }
    if matches!(node, NodeState::ShareConsumer(_))
        || (key == RequestKey::Share && matches!(node, NodeState::SourceReader(_)))
    {
        return crate::share::share_timing::share_request_is_lost(sys, state, id);
    }
    let Some(p) = node.txn_client() else {
        return true;
    };
    let outstanding = match key {
        RequestKey::Coordinator => p.coordinator.as_ref(),
        _ => p.requests.get(&key),
    };
    let Some(req) = outstanding else {
        return true;
    };
    let dst = req.dst;
    if !state.is_up(dst) {
        return true;
    }
    let waiting = match state.node(dst) {
        NodeState::TxnCoordinator(tc) => tc.parked.iter().any(|(s, _)| *s == id),
        NodeState::GroupCoordinator(gc) => gc.waiting_fetches.contains(&id),
        // A ShareFetch waiting for the leader to load its state will be answered; a parked
        // one (no record available) is what `poll` timing out stands for.
        // A parked poll is an answer to the poll only: counting it for a staging would
        // hold the staging's timeout back while the poll waits for that very transaction
        // to end (found by the simulator on `proposed`: a lost TxnShareAcknowledgeResponse
        // next to a duplicated ShareFetch left the transaction open for ever).
        NodeState::SharePartition(sp) => {
            sp.loading.iter().any(|(s, _)| *s == id)
                || crate::share::share_partition_txn::holds_reply(sp, id)
                || (key != RequestKey::TxnShareAcknowledge
                    && crate::share::share_partition_txn::answers_parked(sp, id))
        }
        _ => false,
    };
    !(talking(state, id, dst) || waiting || in_verification(sys, state, id, dst))
}

/// Whether `leader` is still verifying a write of producer `client` with the coordinator.
fn in_verification(sys: &System, state: &SystemState, client: Id, leader: Id) -> bool {
    state.is_up(leader)
        && parked_at(state, leader)
            .into_iter()
            .any(|(src, pid)| src == client && !verification_is_lost(sys, state, leader, pid))
}

/// The verifications `leader` waits for: who sent each parked write, and its producer id.
fn parked_at(state: &SystemState, leader: Id) -> Vec<(Id, ProducerId)> {
    fn list<R>(v: &Verifying<R>) -> Vec<(Id, ProducerId)> {
        v.iter().map(|(pid, p)| (p.src, *pid)).collect()
    }
    match state.node(leader) {
        NodeState::DataPartition(s) => list(&s.verifying),
        NodeState::GroupCoordinator(s) => list(&s.verifying),
        NodeState::ShareCoordinator(s) => list(&s.verifying),
        _ => Vec::new(),
    }
}

/// A leader's verification of `pid` can no longer be answered: no answer is in flight,
/// and the coordinator is down or neither holds the verification nor has it on its way
/// (a lost request or answer, or a coordinator crash). Only then is the
/// inter-broker request timeout recovery; before, it is an early timeout.
fn verification_is_lost(sys: &System, state: &SystemState, leader: Id, pid: ProducerId) -> bool {
    let Some((producer, guard)) = verification_of(state, leader, pid) else {
        return true;
    };
    let tc = sys.topology.txn_coordinator;
    let held_at_tc = matches!(state.node(tc), NodeState::TxnCoordinator(s)
        if s.parked.iter().any(|(src, msg)| *src == leader && carries_verification(msg, producer, guard)));
    let sent = |from: Id, to: Id| {
        state.network.any(|src, dst, msg| {
            src == from && dst == to && carries_verification(msg, producer, guard)
        })
    };
    // An answer already sent arrives even if the coordinator has crashed since.
    !(sent(tc, leader) || (state.is_up(tc) && (held_at_tc || sent(leader, tc))))
}

/// The producer and guard of `leader`'s verification of `pid`, if it has one.
fn verification_of(
    state: &SystemState,
    leader: Id,
    pid: ProducerId,
) -> Option<(ProducerIdAndEpoch, VerificationGuard)> {
    match state.node(leader) {
        NodeState::DataPartition(s) => s.verifying.get(&pid).map(|p| (p.producer, p.guard)),
        NodeState::GroupCoordinator(s) => s.verifying.get(&pid).map(|p| (p.producer, p.guard)),
        NodeState::ShareCoordinator(s) => s.verifying.get(&pid).map(|p| (p.producer, p.guard)),
        _ => None,
    }
}

/// `leader`'s verification of `pid` timed out while the transaction coordinator was down.
/// Kafka's `InterBrokerSendThread` never wrote that request to a socket (it cannot connect
/// to a broker that is down) and fails it at its timeout, so it is taken off the
/// connection here instead of reaching the coordinator after its restart. Without this,
/// each retry of the NETWORK_EXCEPTION that answers the timeout would queue one more copy
/// behind it, and the leader's verifications in flight would grow without bound for as
/// long as the coordinator stays down.
pub(crate) fn unsend_timed_out_verification(
    sys: &System,
    state: &mut SystemState,
    leader: Id,
    pid: ProducerId,
) {
    let tc = sys.topology.txn_coordinator;
    if state.is_up(tc) {
        // Transmitted or answered: what is on the wire may still arrive (late answers
        // are ignored by their guard).
        return;
    }
    if let Some((producer, guard)) = verification_of(state, leader, pid) {
        state.network.unsend(leader, tc, |m| {
            matches!(m, Msg::AddPartitionsToTxn(_)) && carries_verification(m, producer, guard)
        });
    }
}

fn marker_is_lost(sys: &System, state: &SystemState, tc: Id) -> bool {
    let NodeState::TxnCoordinator(s) = state.node(tc) else {
        return true;
    };
    s.markers.values().any(|pending| {
        pending.partitions.iter().any(|tp| {
            let leader = sys.topology.leader_of(*tp);
            !state.is_up(leader)
                || !state.network.any(|_, _, msg| {
                    matches!(msg, Msg::WriteTxnMarkers(m) if m.partition == *tp && m.producer == pending.producer)
                        || matches!(msg, Msg::WriteTxnMarkersResponse(m) if m.partition == *tp && m.producer == pending.producer)
                })
        })
    })
}
