//! KIP-890 verification at a leader that takes transactional writes: a producer's first
//! write of a transaction waits (is parked) while the transaction coordinator verifies it,
//! and is resumed, failed or timed out by what comes back. Data partitions (Produce), the
//! group coordinator (TxnOffsetCommit) and the share coordinator (TxnShareAcknowledge)
//! all do this through `AddPartitionsToTxnManager`, so they share this one implementation.
//!
//! The manager is an `InterBrokerSendThread`: a verification unanswered within the
//! broker's `request.timeout.ms` completes with `wasTimedOut` and every waiting write is
//! answered NETWORK_EXCEPTION, after which the entry is gone and the client's retry
//! verifies afresh. Without that timeout a lost verification would hold every retry
//! joined to it for ever (the simulator's seed 82214 on `proposed`).

use crate::design::TransactionVersion;
use crate::protocol::error::ErrorCode;
use crate::protocol::ids::{ProducerId, TopicPartition, TransactionalId};
use crate::protocol::keyed::Keyed;
use crate::protocol::msg::{
    AddPartitionsMode, AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, Msg, ProduceRequest,
    ProduceResponse, ProducerIdAndEpoch, Timer, TxnOffsetCommitRequest, TxnOffsetCommitResponse,
    VerificationGuard,
};
use crate::protocol::output::Host;
use crate::protocol::txn_share_msg::{TxnShareAcknowledgeRequest, TxnShareAcknowledgeResponse};
use crate::protocol::wait::{Answer, Down, Held, Reply, Wait};
use serde::{Deserialize, Serialize};
use stateright::actor::{Id, Out};
use std::collections::BTreeMap;
use std::time::Duration;

/// A write parked while the transaction coordinator verifies it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Parked<R> {
    /// The guard the verification carries.
    pub guard: VerificationGuard,
    /// Who sent the write (the response goes there).
    pub src: Id,
    /// The producer id and epoch the write carries (and its verification asked about).
    pub producer: ProducerIdAndEpoch,
    /// The write itself.
    pub request: R,
    /// Still guarded: a marker for its producer since it was parked voids the guard, so
    /// a successful verification can no longer unlock the append.
    pub valid: bool,
}

/// The verifications in progress at one leader, one per producer id at each of its keys (a
/// newer one replaces the older). Kafka's verification state is per partition
/// (`ProducerStateManager.maybeCreateVerificationStateEntry` keeps one
/// `VerificationStateEntry` per producer id in each partition's producer state), and the
/// share coordinator's keys are its partitions' here, so a staging of one share group never
/// displaces another group's (docs/fidelity.md, "Share coordinator"); every other leader
/// has one key, 0.
pub type Verifying<R> = BTreeMap<Keyed<ProducerId>, Parked<R>>;

/// A transactional write that a leader verifies before its append.
pub trait VerifiedWrite: Clone + PartialEq {
    /// The transactional id the verification names.
    fn txn(&self) -> TransactionalId;
    /// The producer id and epoch the write carries.
    fn producer(&self) -> ProducerIdAndEpoch;
    /// The response that answers this write with `error`.
    fn response(&self, error: ErrorCode) -> Msg;
}

/// How one leader verifies: where the verification goes and what it asks about.
#[derive(Clone, Copy, Debug)]
pub struct Verifier {
    /// The transaction coordinator.
    pub txn_coordinator: Id,
    /// The transaction version (TV2 adds the partition instead of only verifying).
    pub tv: TransactionVersion,
    /// The partition the leader writes.
    pub partition: TopicPartition,
    /// Whether a retry also joins a verification whose guard a marker voided (the share
    /// coordinator's choice: such a retry is answered INVALID_TXN_STATE with the old
    /// write), or displaces it and verifies afresh (the partition leaders').
    pub join_voided: bool,
    /// The key the write is for: the share coordinator's share partition, 0 at a leader
    /// of one key.
    pub key: u8,
}

impl Verifier {
    /// Parks `request` from `src` under `guard` and sends its verification, unless it is
    /// a retry of the write being verified, which joins that verification. A displaced
    /// older write is answered NETWORK_EXCEPTION, as `addTxnData` answers the entry a
    /// same-epoch retry replaces.
    pub fn park<A: Host, R: VerifiedWrite>(
        &self,
        verifying: &mut Verifying<R>,
        guard: VerificationGuard,
        src: Id,
        request: R,
        o: &mut Out<A>,
    ) {
        let producer = request.producer();
        let at = Keyed::new(self.key, producer.pid);
        let joins = verifying
            .get(&at)
            .is_some_and(|p| p.request == request && (p.valid || self.join_voided));
        if joins {
            // The retry waits for the answer already on its way (Kafka answers the
            // abandoned copy NETWORK_EXCEPTION, which the client ignores: it no longer
            // waits on that correlation id).
            return;
        }
        let parked = Parked {
            guard,
            src,
            producer,
            request: request.clone(),
            valid: true,
        };
        if let Some(old) = verifying.insert(at, parked) {
            o.send(old.src, old.request.response(ErrorCode::NetworkException));
        }
        o.send(
            self.txn_coordinator,
            AddPartitionsToTxnRequest::verification(
                self.tv,
                request.txn(),
                producer,
                self.partition,
                guard,
            ),
        );
        o.set_timer(Timer::VerificationTimeout(at), immediate());
    }

    /// The coordinator answered a verification. Returns the parked write to append when
    /// it was verified and its guard still holds; otherwise answers it (or ignores an
    /// answer to a verification no longer current).
    pub fn resume<A: Host, R: VerifiedWrite>(
        &self,
        verifying: &mut Verifying<R>,
        resp: &AddPartitionsToTxnResponse,
        o: &mut Out<A>,
    ) -> Option<Parked<R>> {
        let guard = match resp.mode {
            AddPartitionsMode::VerifyOnly { guard } | AddPartitionsMode::BrokerAdd { guard } => {
                guard
            }
            AddPartitionsMode::Client => return None,
        };
        // The answer names no key: its guard does (each key's verification has its own).
        let current = verifying.iter().find_map(|(at, p)| {
            let ours = at.key == resp.producer.pid && p.guard == guard;
            (ours && p.producer == resp.producer).then_some(*at)
        })?;
        let parked = verifying.remove(&current)?;
        o.cancel_timer(Timer::VerificationTimeout(current));
        if resp.error == ErrorCode::None && parked.valid {
            return Some(parked);
        }
        let error = if resp.error == ErrorCode::None {
            // `VerificationGuard` mismatch at append: "Record was not part of an ongoing
            // transaction" (a marker came in between).
            ErrorCode::InvalidTxnState
        } else {
            verification_error(resp.error)
        };
        o.send(parked.src, parked.request.response(error));
        None
    }

    /// The verification of a producer id at a key (`at`) went unanswered for the
    /// inter-broker request timeout: the waiting write is answered NETWORK_EXCEPTION and
    /// the entry dropped, so a retry verifies afresh.
    pub fn time_out<A: Host, R: VerifiedWrite>(
        &self,
        verifying: &mut Verifying<R>,
        at: Keyed<ProducerId>,
        o: &mut Out<A>,
    ) {
        if let Some(parked) = verifying.remove(&at) {
            o.send(
                parked.src,
                parked.request.response(ErrorCode::NetworkException),
            );
        }
    }
}

/// A marker was written for `pid`: its parked writes (if any, one per key) lose their
/// guard. The model's one WriteTxnMarkers for `__share_group_state` stands for the marker
/// of each key the transaction staged at.
pub fn void_guard<R>(verifying: &mut Verifying<R>, pid: ProducerId) {
    for (_, p) in verifying.iter_mut().filter(|(at, _)| at.key == pid) {
        p.valid = false;
    }
}

/// What a client sees when verification fails: `AddPartitionsToTxnHandler.onComplete`
/// turns PRODUCER_FENCED into INVALID_PRODUCER_EPOCH and passes every other code on, so
/// INVALID_PRODUCER_ID_MAPPING reaches the writer as it is (Kafka 1eb7644;
/// docs/fidelity.md, D9).
pub fn verification_error(e: ErrorCode) -> ErrorCode {
    match e {
        ErrorCode::ProducerFenced => ErrorCode::InvalidProducerEpoch,
        other => other,
    }
}

/// What a leader's `timer` waits for when verifications are all that arm its timers (data
/// partitions and the group coordinator): a verification timer waits for the transaction
/// coordinator's answer; anything else is the leader's own schedule.
pub fn leader_wait<R>(verifying: &Verifying<R>, timer: &Timer, tc: Id) -> Wait {
    match *timer {
        Timer::VerificationTimeout(at) => verification_wait(verifying, at, tc),
        _ => Wait::Always,
    }
}

/// What `VerificationTimeout(at)` waits for: the coordinator's answer to the
/// verification of the producer id at that key, if one is in progress. An answer already
/// sent arrives even if the coordinator has crashed since; a request to a coordinator that
/// is down does not (`InterBrokerSendThread` cannot connect to it).
pub fn verification_wait<R>(verifying: &Verifying<R>, at: Keyed<ProducerId>, tc: Id) -> Wait {
    verifying
        .get(&at)
        .map_or(Wait::Always, |p| verification_of(p, tc))
}

/// The verifications this leader runs for writes from `client`: while one can still be
/// answered, the client's write is held here, not lost.
pub fn verifications_from<R>(verifying: &Verifying<R>, client: Id, tc: Id) -> Vec<Wait> {
    verifying
        .values()
        .filter(|p| p.src == client)
        .map(|p| verification_of(p, tc))
        .collect()
}

fn verification_of<R>(p: &Parked<R>, tc: Id) -> Wait {
    let (producer, guard) = (p.producer, p.guard);
    Wait::Reply(Reply {
        peer: tc,
        answer: Answer::Verification { producer, guard },
        held: Some(Held::Verification { producer, guard }),
        down: Down::AnswerArrives,
    })
}

fn immediate() -> std::ops::Range<Duration> {
    Duration::ZERO..Duration::ZERO
}

impl VerifiedWrite for ProduceRequest {
    fn txn(&self) -> TransactionalId {
        self.txn
    }

    fn producer(&self) -> ProducerIdAndEpoch {
        self.producer
    }

    fn response(&self, error: ErrorCode) -> Msg {
        Msg::ProduceResponse(ProduceResponse {
            partition: self.partition,
            producer: self.producer,
            seq: self.seq,
            error,
        })
    }
}

impl VerifiedWrite for TxnOffsetCommitRequest {
    fn txn(&self) -> TransactionalId {
        self.txn
    }

    fn producer(&self) -> ProducerIdAndEpoch {
        self.producer
    }

    fn response(&self, error: ErrorCode) -> Msg {
        Msg::TxnOffsetCommitResponse(TxnOffsetCommitResponse {
            producer: self.producer,
            offset: self.offset,
            error,
        })
    }
}

impl VerifiedWrite for TxnShareAcknowledgeRequest {
    fn txn(&self) -> TransactionalId {
        self.txn
    }

    fn producer(&self) -> ProducerIdAndEpoch {
        self.producer
    }

    fn response(&self, error: ErrorCode) -> Msg {
        Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
            producer: self.producer,
            error,
            group: self.group,
            // The staging's leader epoch (`stage_leader_epoch`), echoed on every answer,
            // this one after a verification too, so that only that leader takes it.
            leader_epoch: self.leader_epoch,
        })
    }
}
