//! KIP-1289 `leader_resolution=notify`, the share coordinator's half: when a marker
//! resolves acknowledgements that a share-partition leader staged (and asked to hear
//! about), the coordinator tells that leader COMMIT or ABORT with TxnShareAcksResolved and
//! resends it until answered. The outbox is rebuilt by replaying the log, so a coordinator
//! restart resends every outcome it resolved; the leader applies an outcome only to
//! records still TX_PENDING under the same producer id and epoch, so a resend is harmless.
//!
//! With `outcome_per_transaction` each transaction's outcome is its own outbox entry and
//! the leader's answer retires the offsets it names; without it there is one entry per
//! producer id, and the producer's next outcome replaces one still unanswered.

use crate::partition::parked_write::{verification_wait, verifications_from};
use crate::protocol::ids::{ProducerEpoch, ProducerId};
use crate::protocol::msg::{Msg, ProducerIdAndEpoch, Timer};
use crate::protocol::txn_share_msg::{TxnShareAcksResolvedRequest, TxnShareAcksResolvedResponse};
use crate::protocol::wait::{Answer, Down, Held, Reply, Wait};
use crate::protocol::width::Offset;
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

/// Where an outcome waits for its answer: the producer id, and with
/// `outcome_per_transaction` the staged epoch and the outcome (COMMIT true).
pub type OutboxKey = (ProducerId, Option<(ProducerEpoch, bool)>);

impl ShareCoordinator {
    /// The outbox entry an outcome of `producer` goes to.
    fn outbox_key(&self, producer: ProducerIdAndEpoch, commit: bool) -> OutboxKey {
        let txn = self.design.outcome_per_transaction;
        (producer.pid, txn.then_some((producer.epoch, commit)))
    }

    /// Replay hook: a marker resolved `p` (commit or abort); queue the outcome for its
    /// leader, joining the offsets of an unanswered outcome of the same transaction.
    pub(crate) fn resolved(&self, s: &mut ShareCoordinatorState, p: &PendingAcks, commit: bool) {
        let Some(leader) = p.notify else {
            return;
        };
        let mut offsets: Vec<Offset> = p.batches.iter().map(|b| b.offset).collect();
        let key = self.outbox_key(p.producer, commit);
        if let (Some(_), Some(queued)) = (key.1, s.outbox.get(&key)) {
            offsets.extend(queued.request.offsets.iter().copied());
            offsets.sort_unstable();
            offsets.dedup();
        }
        let request = TxnShareAcksResolvedRequest {
            producer: p.producer,
            commit,
            offsets,
        };
        s.outbox.insert(key, Resolution { leader, request });
    }

    /// After a live marker: send every outcome queued for `pid`.
    pub(crate) fn notify_leader(
        &self,
        s: &ShareCoordinatorState,
        pid: ProducerId,
        o: &mut Out<Node>,
    ) {
        let queued = s
            .outbox
            .range((pid, None)..)
            .take_while(|(k, _)| k.0 == pid);
        let mut any = false;
        for (_, r) in queued {
            o.send(r.leader, Msg::TxnShareAcksResolved(r.request.clone()));
            any = true;
        }
        if any {
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
        match &r.answered {
            Some((commit, offsets)) => {
                let key = self.outbox_key(r.producer, *commit);
                if let Some(q) = s.outbox.get_mut(&key) {
                    q.request.offsets.retain(|offset| !offsets.contains(offset));
                    if q.request.offsets.is_empty() {
                        s.outbox.remove(&key);
                    }
                }
            }
            None => {
                let key = (r.producer.pid, None);
                let answered = s
                    .outbox
                    .get(&key)
                    .is_some_and(|q| q.request.producer == r.producer);
                if answered {
                    s.outbox.remove(&key);
                }
            }
        }
        if s.outbox.is_empty() {
            o.cancel_timer(Timer::ResolvedRetry);
        }
    }

    /// Timers: the outcome resend and a staging's verification timeout.
    pub fn on_timeout(&self, s: &mut ShareCoordinatorState, timer: Timer, o: &mut Out<Node>) {
        match timer {
            Timer::ResolvedRetry => self.resend_outcomes(s, o),
            Timer::VerificationTimeout(pid) => self.on_verification_timeout(s, pid, o),
            Timer::SharePrune => self.on_prune(s, o),
            _ => {}
        }
    }
}

/// What the share coordinator's timers wait for (see [`crate::protocol::wait`]).
impl ShareCoordinator {
    /// What `timer` waits for. An outcome resend waits for each queued outcome's answer:
    /// due once some outcome's leader is up and neither the outcome nor its answer is in
    /// flight, and the leader does not hold it while loading (a leader that is down
    /// waits to be reloaded, and is sent the outcome then).
    pub fn wait(&self, state: &ShareCoordinatorState, timer: &Timer) -> Wait {
        match *timer {
            Timer::ResolvedRetry if state.outbox.is_empty() => Wait::Always,
            Timer::ResolvedRetry => Wait::Any(
                state
                    .outbox
                    .values()
                    .map(|r| {
                        let producer = r.request.producer;
                        Wait::Reply(Reply {
                            peer: r.leader,
                            answer: Answer::Outcome(producer),
                            held: Some(Held::Outcome(producer)),
                            down: Down::Waits,
                        })
                    })
                    .collect(),
            ),
            Timer::VerificationTimeout(pid) => {
                verification_wait(&state.verifying, pid, self.txn_coordinator)
            }
            _ => Wait::Always,
        }
    }

    /// The verifications in progress for stagings from `client`.
    pub fn verifications_from(&self, state: &ShareCoordinatorState, client: Id) -> Vec<Wait> {
        verifications_from(&state.verifying, client, self.txn_coordinator)
    }
}

fn retry() -> std::ops::Range<Duration> {
    Duration::ZERO..Duration::ZERO
}
