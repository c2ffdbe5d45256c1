//! KIP-1289 `leader_resolution=notify`, the share coordinator's half: when a marker
//! resolves acknowledgements that a share-partition leader staged (and asked to hear
//! about), the coordinator tells that leader COMMIT or ABORT with TxnShareAcksResolved and
//! resends it until answered. The outbox is rebuilt by replaying the log, so a coordinator
//! restart resends every outcome it resolved; the leader applies an outcome only to
//! records still TX_PENDING under the same producer id and epoch, so a resend is harmless.
//!
//! With `outcome_per_transaction` each transaction's outcome is its own outbox entry and
//! the leader's answer retires the offsets it names; without it there is one entry per
//! producer id, and the producer's next outcome replaces one still unanswered. Either way
//! the entries are per `SharePartitionKey` (the share coordinator keeps its state per key,
//! `ShareCoordinatorShard`): a transaction that staged for two share groups owes each
//! group's leader its own outcome.

use crate::partition::parked_write::{verification_wait, verifications_from};
use crate::protocol::ids::{ProducerEpoch, ProducerId};
use crate::protocol::keyed::Keyed;
use crate::protocol::msg::{Msg, ProducerIdAndEpoch, Timer};
use crate::protocol::output::Saves;
use crate::protocol::txn_share_msg::{TxnShareAcksResolvedRequest, TxnShareAcksResolvedResponse};
use crate::protocol::wait::{Answer, Down, Held, Reply, Wait};
use crate::protocol::width::Offset;
use crate::share::share_coordinator::{ShareCoordinator, ShareCoordinatorState, ShareRecord};
use crate::share::share_coordinator_txn::PendingAcks;
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
    /// The outbox entry an outcome of `producer` at key `partition` goes to.
    fn outbox_key(
        &self,
        partition: u8,
        producer: ProducerIdAndEpoch,
        commit: bool,
    ) -> Keyed<OutboxKey> {
        let txn = self.design.outcome_per_transaction;
        Keyed::new(
            partition,
            (producer.pid, txn.then_some((producer.epoch, commit))),
        )
    }

    /// Replay hook: a marker resolved `p` (commit or abort); queue the outcome for its
    /// leader, joining the offsets of an unanswered outcome of the same transaction.
    pub(crate) fn resolved(&self, s: &mut ShareCoordinatorState, p: &PendingAcks, commit: bool) {
        let Some(leader) = p.notify else {
            return;
        };
        let mut offsets: Vec<Offset> = p.batches.iter().map(|b| b.offset).collect();
        let key = self.outbox_key(p.partition, p.producer, commit);
        if let (Some(_), Some(queued)) = (key.key.1, s.outbox.get(&key)) {
            offsets.extend(queued.request.offsets.iter().copied());
            offsets.sort_unstable();
            offsets.dedup();
        }
        let request = TxnShareAcksResolvedRequest {
            producer: p.producer,
            commit,
            offsets,
            leader_epoch: None,
        };
        s.outbox.insert(key, Resolution { leader, request });
    }

    /// The share partition whose leader an outcome is for (that of its first offset).
    fn outcome_partition(&self, r: &Resolution) -> u8 {
        r.request
            .offsets
            .first()
            .map_or(0, |offset| self.partition_of(*offset))
    }

    /// Where an outcome goes: the share partition's leader at the leader epoch the
    /// coordinator has stored (scenario `spl-move`: the moved-in leader once its read
    /// stored its epoch; Kafka's coordinator would look the leader up in the metadata),
    /// else the leader that staged the acknowledgements.
    pub(crate) fn outcome_leader(&self, s: &ShareCoordinatorState, r: &Resolution) -> Id {
        let partition = self.outcome_partition(r);
        match self.moved_leader {
            Some((leader, epoch))
                if partition == 0 && s.partition(partition).leader_epoch >= epoch =>
            {
                leader
            }
            _ => r.leader,
        }
    }

    /// The outcome as sent: with `stage_leader_epoch` it carries the stored leader epoch,
    /// so a replaced leader knows it is one. Every outcome carries it, whatever the
    /// topology: the coordinator cannot tell whether the leadership will move.
    fn outcome(&self, s: &ShareCoordinatorState, r: &Resolution) -> Msg {
        let leader_epoch = self
            .design
            .stage_leader_epoch
            .then(|| s.partition(self.outcome_partition(r)).leader_epoch);
        Msg::TxnShareAcksResolved(TxnShareAcksResolvedRequest {
            leader_epoch,
            ..r.request.clone()
        })
    }

    /// After a live marker: send every outcome queued for `pid`.
    pub(crate) fn notify_leader<A: Saves<Vec<ShareRecord>>>(
        &self,
        s: &ShareCoordinatorState,
        pid: ProducerId,
        o: &mut Out<A>,
    ) {
        // Every key's outcome: the marker resolved each key the transaction staged at.
        let queued = s.outbox.iter().filter(|(at, _)| at.key.0 == pid);
        let mut any = false;
        for (_, r) in queued {
            o.send(self.outcome_leader(s, r), self.outcome(s, r));
            any = true;
        }
        if any {
            o.set_timer(Timer::ResolvedRetry, retry());
        }
    }

    /// Sends every unanswered outcome again (after a restart, or when the retry fires).
    pub(crate) fn resend_outcomes<A: Saves<Vec<ShareRecord>>>(
        &self,
        s: &ShareCoordinatorState,
        o: &mut Out<A>,
    ) {
        for r in s.outbox.values() {
            o.send(self.outcome_leader(s, r), self.outcome(s, r));
        }
        if !s.outbox.is_empty() {
            o.set_timer(Timer::ResolvedRetry, retry());
        }
    }

    /// The leader `src` answered: the outcome is delivered.
    pub(crate) fn on_outcome_answered<A: Saves<Vec<ShareRecord>>>(
        &self,
        s: &mut ShareCoordinatorState,
        src: Id,
        r: TxnShareAcksResolvedResponse,
        o: &mut Out<A>,
    ) {
        let key = self.answered_key(s, src, &r);
        if self.stale_answer(s, &key, &r) {
            return;
        }
        match &r.answered {
            Some((_, offsets)) => {
                if let Some(q) = s.outbox.get_mut(&key) {
                    q.request.offsets.retain(|offset| !offsets.contains(offset));
                    if q.request.offsets.is_empty() {
                        s.outbox.remove(&key);
                    }
                }
            }
            None => {
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

    /// `stage_leader_epoch`: the answer comes from a leader older than the stored epoch (a
    /// leader the share partition moved away from, answering late), so it retires nothing
    /// and the outcome stays queued for the new leader, as `ShareCoordinatorShard` fences a
    /// write of an older leader epoch.
    fn stale_answer(
        &self,
        s: &ShareCoordinatorState,
        key: &Keyed<OutboxKey>,
        r: &TxnShareAcksResolvedResponse,
    ) -> bool {
        let Some(epoch) = r.leader_epoch else {
            return false;
        };
        s.outbox
            .get(key)
            .is_some_and(|q| epoch < s.partition(self.outcome_partition(q)).leader_epoch)
    }

    /// The outbox entry an answer is for. With `outcome_per_transaction` the answer names
    /// its offsets, whose share partition is the key; otherwise it names only the producer,
    /// and the key is the one whose leader `src` is (the only key but in `ctp-two-groups`,
    /// `draft-itest`, where each key has its own leader).
    fn answered_key(
        &self,
        s: &ShareCoordinatorState,
        src: Id,
        r: &TxnShareAcksResolvedResponse,
    ) -> Keyed<OutboxKey> {
        if let Some((commit, offsets)) = &r.answered {
            let partition = offsets.first().map_or(0, |o| self.partition_of(*o));
            return self.outbox_key(partition, r.producer, *commit);
        }
        let plain = (r.producer.pid, None);
        let leaders = s.outbox.iter().filter(|(at, _)| at.key == plain);
        let mine = leaders
            .filter(|(_, q)| q.leader == src || self.outcome_leader(s, q) == src)
            .map(|(at, _)| at.partition)
            .next();
        Keyed::new(mine.unwrap_or(0), plain)
    }

    /// Timers: the outcome resend and a staging's verification timeout.
    pub fn on_timeout<A: Saves<Vec<ShareRecord>>>(
        &self,
        s: &mut ShareCoordinatorState,
        timer: Timer,
        o: &mut Out<A>,
    ) {
        match timer {
            Timer::ResolvedRetry => self.resend_outcomes(s, o),
            Timer::VerificationTimeout(at) => self.on_verification_timeout(s, at, o),
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
                            peer: self.outcome_leader(state, r),
                            answer: Answer::Outcome(producer),
                            held: Some(Held::Outcome(producer)),
                            down: Down::Waits,
                        })
                    })
                    .collect(),
            ),
            Timer::VerificationTimeout(at) => {
                verification_wait(&state.verifying, at, self.txn_coordinator)
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
