//! When a timer is due. The exhaustive checker has no clock: any armed timer may fire.
//! Firing is split in two. A timer is *due* when what it waits for can no longer arrive
//! (the request or its answer was lost, the other side is down, the client gave up or
//! crashed): firing it is recovery, free, and part of every fair run. Otherwise firing is
//! *early*, the timeout-with-unknown-outcome fault, and costs one unit of the scenario's
//! `timeouts` budget. The actors cannot tell the two apart; only the closed world can.

use crate::msg::{Msg, RequestKey, Timer};
use crate::node::NodeState;
use crate::system::{System, SystemState};
use crate::txn_state::TxnManagerState;
use stateright::actor::Id;

/// Whether `timer` of actor `id` is due in `state`.
pub fn is_due(sys: &System, state: &SystemState, id: Id, timer: &Timer) -> bool {
    match timer {
        Timer::RequestTimeout(key) => request_is_lost(sys, state, id, *key),
        Timer::MarkerRetry(_) => marker_is_lost(sys, state, id),
        // Due once the transaction's own client is gone (down or failed for good): it
        // neither ends the transaction nor heartbeats for it.
        Timer::TxnHeartbeatExpiry(txn) => crate::session_heartbeat::expiry_is_due(sys, state, *txn),
        Timer::TxnHeartbeat => crate::session_heartbeat::heartbeat_is_due(sys, state, id),
        Timer::TxnTimeout(txn) => sys.topology.client_of(*txn).is_none_or(|p| {
            !state.is_up(p)
                || state
                    .node(p)
                    .txn_client()
                    .is_some_and(|s| s.tm == TxnManagerState::FatalError)
        }),
        Timer::AcquisitionLock(offset) => crate::share_timing::lock_is_due(sys, state, id, *offset),
        Timer::PersisterTimeout(write) => {
            crate::share_timing::write_is_lost(sys, state, id, *write)
        }
        Timer::ReadStateTimeout => crate::share_timing::read_is_lost(sys, state, id),
        Timer::StageRetry => crate::share_partition_txn::stage_is_lost(sys, state, id),
        // `refresh()` is the leader's own re-read: nothing it waits for, so always due.
        Timer::TxnRefresh => true,
        Timer::ResolvedRetry => crate::share_coordinator_notify::outcome_is_lost(state, id),
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
            .is_none_or(|db| crate::committer::external_is_lost(state, id, *db));
    }
    if matches!(node, NodeState::ShareConsumer(_))
        || (key == RequestKey::Share && matches!(node, NodeState::SourceReader(_)))
    {
        return crate::share_timing::share_request_is_lost(sys, state, id);
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
                || crate::share_partition_txn::holds_reply(sp, id)
                || (key != RequestKey::TxnShareAcknowledge
                    && crate::share_partition_txn::answers_parked(sp, id))
        }
        _ => false,
    };
    !(talking(state, id, dst) || waiting || in_verification(sys, state, id, dst))
}

/// Whether `leader` is still verifying a write of producer `client` with the coordinator.
fn in_verification(sys: &System, state: &SystemState, client: Id, leader: Id) -> bool {
    let parked = match state.node(leader) {
        NodeState::DataPartition(s) => s.verifying.values().any(|p| p.src == client),
        NodeState::GroupCoordinator(s) => s.verifying.values().any(|p| p.src == client),
        NodeState::ShareCoordinator(s) => s.verifying.values().any(|p| p.src == client),
        _ => false,
    };
    parked && state.is_up(leader) && {
        let tc = sys.topology.txn_coordinator;
        let waiting_at_tc = matches!(state.node(tc), NodeState::TxnCoordinator(s)
            if s.parked.iter().any(|(src, _)| *src == leader));
        (waiting_at_tc
            || state.network.any(|src, dst, msg| {
                matches!(
                    msg,
                    Msg::AddPartitionsToTxn(_) | Msg::AddPartitionsToTxnResponse(_)
                ) && ((src == leader && dst == tc) || (src == tc && dst == leader))
            }))
            && state.is_up(tc)
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
