//! The transition tables and what bends them, for `legal_transitions`, `txn_completes`
//! and `no_hanging_transaction`: the first move a handler made that its table forbids,
//! epochs and producer ids that went back, a coordinator load that does not reproduce its
//! log, and the witnesses (a fault, a commit completed after one, a coordinator restart
//! with work in its log, a transaction aborted by its timeout).

use crate::coordinator::txn_coordinator::TxnCoordinatorState;
use crate::coordinator::txn_state::TransactionState;
use crate::history::share_ghost::check_share_state;
use crate::world::node::NodeState;
use crate::world::observation::Observation;
use crate::{System, SystemState};
use stateright::actor::Id;

/// The first move in `observation` that its transition table does not allow, described.
pub fn illegal_move(observation: &Observation) -> Option<String> {
    match observation {
        Observation::TxnMoves(moves) => moves
            .iter()
            .find(|(from, to)| !to.can_follow(*from))
            .map(|(from, to)| format!("TC moved a transaction from {from:?} to {to:?}")),
        Observation::ManagerMoves(moves) => moves
            .iter()
            .find(|(from, to)| !to.can_follow(*from))
            .map(|(from, to)| format!("TransactionManager moved from {from:?} to {to:?}")),
        Observation::RecordMoves(moves) => moves
            .iter()
            .find(|(from, to)| !to.can_follow(*from))
            .map(|(from, to)| format!("moved a record from {from:?} to {to:?}")),
        _ => None,
    }
}

/// A handler of `id` left a transition table (the first such step is kept).
pub(crate) fn record_moves(sys: &System, next: &mut SystemState, id: Id, obs: &Observation) {
    if let Some(what) = illegal_move(obs) {
        let what = format!("{}: {what}", sys.topology.name(id));
        next.ghost.update(|g| g.illegal(what));
    }
}

/// What a handler's moves alone do not show: epochs and producer ids never go back,
/// and a commit completing after a fault (the `commit_after_fault` witness).
pub(crate) fn check_handler(sys: &System, before: &NodeState, next: &mut SystemState, id: Id) {
    check_share_state(sys, before, next, id);
    if sys.topology.share_coordinator.is_some() && id == sys.topology.txn_coordinator {
        let after = next.nodes[usize::from(id)].clone();
        crate::history::txn_ack_ghost::observe_decision(sys, before, &after, next);
    }
    let (Some(b), Some(a)) = (before.txn_coordinator(), next.node(id).txn_coordinator()) else {
        return;
    };
    let went_back = went_back(b, a);
    let completed = a.txns.iter().any(|(t, m)| {
        m.state == TransactionState::CompleteCommit
            && b.txns
                .get(t)
                .is_some_and(|o| o.state == TransactionState::PrepareCommit)
    });
    for what in went_back {
        next.ghost.update(|g| g.illegal(what));
    }
    if completed && next.ghost.fault && !next.ghost.commit_after_fault {
        next.ghost.update(|g| g.commit_after_fault = true);
    }
}

/// Each transaction whose epoch went back or whose producer id changed, described.
fn went_back(b: &TxnCoordinatorState, a: &TxnCoordinatorState) -> Vec<String> {
    let mut out = Vec::new();
    for (txn, meta) in &a.txns {
        if let Some(old) = b.txns.get(txn) {
            if meta.epoch < old.epoch || meta.pid != old.pid {
                out.push(format!(
                    "TC moved {txn} from {:?}/{:?} back to {:?}/{:?}",
                    old.pid, old.epoch, meta.pid, meta.epoch
                ));
            }
        }
    }
    out
}

/// A coordinator load must reproduce what its log holds: each transaction is where it
/// was before the crash, or one legal move further (a write the log took and memory did
/// not yet show), and its epoch did not go back.
pub(crate) fn check_failover(sys: &System, before: &NodeState, next: &mut SystemState, id: Id) {
    check_share_state(sys, before, next, id);
    let (Some(b), Some(a)) = (before.txn_coordinator(), next.node(id).txn_coordinator()) else {
        return;
    };
    let mut found = Vec::new();
    for (txn, old) in &b.txns {
        let what = match a.txns.get(txn) {
            None => Some(format!("TC lost {txn} ({:?}) across a failover", old.state)),
            Some(meta) if meta.state != old.state && !meta.state.can_follow(old.state) => {
                Some(format!(
                    "TC reloaded {txn} as {:?}, it was {:?} before the failover",
                    meta.state, old.state
                ))
            }
            Some(meta) if meta.epoch < old.epoch || meta.pid != old.pid => Some(format!(
                "TC reloaded {txn} at {:?}/{:?}, it was {:?}/{:?} before the failover",
                meta.pid, meta.epoch, old.pid, old.epoch
            )),
            Some(_) => None,
        };
        found.extend(what);
    }
    for what in found {
        next.ghost.update(|g| g.illegal(what));
    }
}

/// A coordinator restarted: the `coordinator_restart` witness, when its log (before the
/// crash) held a transaction in flight or share state.
pub(crate) fn record_restart(sys: &System, before: &SystemState, next: &mut SystemState, id: Id) {
    if id == sys.topology.txn_coordinator && txn_states(before, id).iter().any(|s| s.is_in_flight())
    {
        next.ghost.update(|g| g.coordinator_restart = true);
    }
    if Some(id) == sys.topology.share_coordinator {
        if let Some(sc) = before.node(id).share_coordinator() {
            let held = |s: &crate::protocol::share_state::ShareState| {
                !s.batches.is_empty() || s.start_offset > 0
            };
            if held(&sc.state) || sc.more.iter().any(held) {
                next.ghost.update(|g| g.coordinator_restart = true);
            }
        }
    }
}

/// A transaction timeout fired: the `timeout_abort` witness, when the coordinator went
/// from an ongoing transaction to aborting one.
pub(crate) fn record_txn_timeout(sys: &System, before: &SystemState, next: &mut SystemState) {
    let tc = sys.topology.txn_coordinator;
    if txn_states(next, tc)
        .iter()
        .any(|s| *s == TransactionState::PrepareAbort || *s == TransactionState::CompleteAbort)
        && txn_states(before, tc).contains(&TransactionState::Ongoing)
    {
        next.ghost.update(|g| g.timeout_abort = true);
    }
}

/// The coordinator's transaction states (empty when `id` is not a coordinator).
pub fn txn_states(state: &SystemState, id: Id) -> Vec<TransactionState> {
    state
        .node(id)
        .txn_coordinator()
        .map(|tc| tc.txns.values().map(|m| m.state).collect())
        .unwrap_or_default()
}
