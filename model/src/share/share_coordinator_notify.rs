//! KIP-1289 `leader_resolution=notify`, the share coordinator's half: when a marker
//! resolves acknowledgements that a share-partition leader staged (and asked to hear
//! about), the coordinator tells that leader COMMIT or ABORT with TxnShareAcksResolved and
//! resends it until answered. The outbox is rebuilt by replaying the log, so a coordinator
//! restart resends every outcome it resolved; the leader applies an outcome only to
//! records still TX_PENDING under the same producer id and epoch, so a resend is harmless.

use crate::protocol::ids::ProducerId;
use crate::protocol::msg::{Msg, ProducerIdAndEpoch, Timer};
use crate::protocol::txn_share_msg::{TxnShareAcksResolvedRequest, TxnShareAcksResolvedResponse};
use crate::share::share_coordinator::{ShareCoordinator, ShareCoordinatorState};
use crate::share::share_coordinator_txn::PendingAcks;
use crate::world::node::Node;
use serde::{Deserialize, Serialize};
use stateright::actor::{Id, Out};
use std::time::Duration;

/// An outcome to tell a share-partition leader.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Resolution {
    /// The leader that staged the acknowledgements.
    pub leader: Id,
    /// The outcome, as sent.
    pub request: TxnShareAcksResolvedRequest,
}

/// Replay hook: a marker resolved `p` (commit or abort); queue the outcome for its leader.
pub fn resolved(s: &mut ShareCoordinatorState, p: &PendingAcks, commit: bool) {
    if let Some(leader) = p.notify {
        let request = TxnShareAcksResolvedRequest {
            producer: p.producer,
            commit,
            offsets: p.batches.iter().map(|b| b.offset).collect(),
        };
        s.outbox
            .insert(p.producer.pid, Resolution { leader, request });
    }
}

impl ShareCoordinator {
    /// After a live marker: send the outcome it queued for `pid`, if any.
    pub(crate) fn notify_leader(
        &self,
        s: &ShareCoordinatorState,
        pid: ProducerId,
        o: &mut Out<Node>,
    ) {
        if let Some(r) = s.outbox.get(&pid) {
            o.send(r.leader, Msg::TxnShareAcksResolved(r.request.clone()));
            o.set_timer(Timer::ResolvedRetry, retry());
        }
    }

    /// Sends every unanswered outcome again (after a restart, or when the retry fires).
    pub(crate) fn resend_outcomes(&self, s: &ShareCoordinatorState, o: &mut Out<Node>) {
        for r in s.outbox.values() {
            o.send(r.leader, Msg::TxnShareAcksResolved(r.request.clone()));
        }
        if !s.outbox.is_empty() {
            o.set_timer(Timer::ResolvedRetry, retry());
        }
    }

    /// The leader answered: the outcome is delivered.
    pub(crate) fn on_outcome_answered(
        &self,
        s: &mut ShareCoordinatorState,
        r: TxnShareAcksResolvedResponse,
        o: &mut Out<Node>,
    ) {
        let answered = s
            .outbox
            .get(&r.producer.pid)
            .is_some_and(|q| q.request.producer == r.producer);
        if answered {
            s.outbox.remove(&r.producer.pid);
            if s.outbox.is_empty() {
                o.cancel_timer(Timer::ResolvedRetry);
            }
        }
    }

    /// Timers: the outcome resend and a staging's verification timeout.
    pub fn on_timeout(&self, s: &mut ShareCoordinatorState, timer: Timer, o: &mut Out<Node>) {
        match timer {
            Timer::ResolvedRetry => self.resend_outcomes(s, o),
            Timer::VerificationTimeout(pid) => self.on_verification_timeout(s, pid, o),
            _ => {}
        }
    }
}

/// Whether an outcome resend is due: some outcome's leader is up and neither the outcome
/// nor its answer is in flight, and the leader does not hold it while loading.
pub fn outcome_is_lost(state: &crate::world::system::SystemState, sc: Id) -> bool {
    let crate::world::node::NodeState::ShareCoordinator(s) = state.node(sc) else {
        return true;
    };
    let in_flight = |leader: Id, producer: ProducerIdAndEpoch| {
        state.network.any(|src, dst, msg| match msg {
            Msg::TxnShareAcksResolved(q) => src == sc && dst == leader && q.producer == producer,
            Msg::TxnShareAcksResolvedResponse(r) => {
                src == leader && dst == sc && r.producer == producer
            }
            _ => false,
        })
    };
    let held = |leader: Id, producer: ProducerIdAndEpoch| {
        matches!(state.node(leader), crate::world::node::NodeState::SharePartition(p)
            if p.loading.iter().any(|(_, m)| matches!(m, Msg::TxnShareAcksResolved(q) if q.producer == producer)))
    };
    s.outbox.is_empty()
        || s.outbox.values().any(|r| {
            state.is_up(r.leader)
                && !in_flight(r.leader, r.request.producer)
                && !held(r.leader, r.request.producer)
        })
}

fn retry() -> std::ops::Range<Duration> {
    Duration::ZERO..Duration::ZERO
}
