//! What an armed timer waits for, as the actor that armed it declares it. The closed world
//! (`world::timing`) judges from these declarations, the messages in flight and who is
//! up whether a timer is *due* (what it waits for can no longer arrive) or would fire
//! early; no actor reads another's state for it. A declaration names peers, requests and
//! the wire fields that identify an answer, never a ghost tag.

use crate::protocol::ids::{MemberId, TopicPartition, TransactionalId};
use crate::protocol::msg::{
    AddPartitionsMode, Msg, ProducerIdAndEpoch, RequestKey, VerificationGuard,
};
use crate::protocol::share_msg::{Acknowledgement, AcquiredRecord};
use crate::protocol::width::{Counter, Epoch};
use stateright::actor::Id;

/// What an armed timer waits for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Nothing that can still arrive: the timer is due (the actor's own schedule, or what
    /// it waited for is already gone).
    Always,
    /// Something that always arrives in a fair run: firing is always early.
    Never,
    /// An answer from a peer.
    Reply(Reply),
    /// A transactional client that must keep doing `duty` (end its transaction, or
    /// heartbeat for it): due once the client is down or has given it up.
    Client {
        /// The client.
        client: Id,
        /// What the waiter needs from it.
        duty: Duty,
    },
    /// An acknowledgement of the acquisition `record` by share-group member `member`.
    Acquisition {
        /// The member holding the acquisition.
        member: MemberId,
        /// The record and the delivery count of that acquisition.
        record: AcquiredRecord,
    },
    /// Several answers: due as soon as any one of them is.
    Any(Vec<Wait>),
}

/// An answer awaited from `peer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reply {
    /// Who answers.
    pub peer: Id,
    /// The messages (each way) that are the exchange waited on.
    pub answer: Answer,
    /// What `peer` holds while it has not answered yet (a parked or loading request), if
    /// anything can be held there.
    pub held: Option<Held>,
    /// What `peer` being down means for the wait.
    pub down: Down,
}

/// What a peer being down means for a wait on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Down {
    /// The request is lost with the peer (`NetworkClient` sees the connection close),
    /// even if an answer was already on its way.
    Lost,
    /// An answer the peer already sent still arrives; a request to it does not.
    AnswerArrives,
    /// Whatever is in flight between the two still arrives.
    InFlightArrives,
    /// The waiter waits for the peer's restart (it resends to the new leader).
    Waits,
}

/// A request a peer can hold unanswered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// A transactional client's request, by its key.
    Request(RequestKey),
    /// A share consumer's ShareFetch or ShareAcknowledge of its share session.
    Session,
    /// A leader's KIP-890 verification of `producer` under `guard`.
    Verification {
        /// The producer verified.
        producer: ProducerIdAndEpoch,
        /// The verification's guard.
        guard: VerificationGuard,
    },
    /// KIP-1289 `notify`: the share coordinator's outcome for `producer`'s staged
    /// acknowledgements.
    Outcome(ProducerIdAndEpoch),
    /// KIP-1309: a heartbeat's pair, held while the coordinator would accept it (the
    /// transaction is still `producer`'s).
    Heartbeat {
        /// The transactional id.
        txn: TransactionalId,
        /// The pair the session heartbeats with.
        producer: ProducerIdAndEpoch,
    },
    /// An acknowledgement of the acquisition `record`.
    Acquisition(AcquiredRecord),
    /// The 2PC writer's hand-off (its committable, or its failure report), still to come.
    HandOff,
}

/// What a transactional client is waited on for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Duty {
    /// Ending its transaction (the coordinator's transaction timeout).
    EndTxn,
    /// Heartbeating for its transaction (KIP-1309's liveness deadline).
    Heartbeat,
}

/// Whether a client holds the acquisition of a record (for [`Wait::Acquisition`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holding {
    /// It holds the delivery and will acknowledge it (or end the transaction that does).
    Holds,
    /// It holds it but will not acknowledge in time: stalled past the lock, or failed
    /// for good.
    Dropped,
    /// It does not hold it: only an answer or acknowledgement in flight can still count.
    No,
}

/// The exchange a [`Reply`] waits on, named by the messages' wire fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Any message between the two (one connection, one request at a time).
    Any,
    /// WriteTxnMarkers for `producer` on `partition`, or its answer.
    Marker {
        /// The partition the marker is for.
        partition: TopicPartition,
        /// The producer id and the marker's epoch.
        producer: ProducerIdAndEpoch,
    },
    /// The persister's WriteShareGroupState number `write` of leader epoch `leader_epoch`.
    Write {
        /// The writer's leader epoch.
        leader_epoch: Epoch,
        /// The write's number.
        write: Counter,
    },
    /// The ReadShareGroupState of leader epoch `leader_epoch`.
    Read {
        /// The reader's leader epoch.
        leader_epoch: Epoch,
    },
    /// A staging (TxnShareAcknowledge) or its answer.
    Stage,
    /// TxnShareAcksResolved for `producer`, or its answer.
    Outcome(ProducerIdAndEpoch),
    /// The verification of `producer` under `guard` (AddPartitionsToTxn), or its answer.
    Verification {
        /// The producer verified.
        producer: ProducerIdAndEpoch,
        /// The verification's guard.
        guard: VerificationGuard,
    },
    /// A TxnHeartbeat or its answer.
    Heartbeat,
    /// The delivery of `record` (a ShareFetch answer acquiring it) or an acknowledgement
    /// made for it.
    Acquisition(AcquiredRecord),
    /// The 2PC writer's hand-off to the coordinator application: its committable, or its
    /// failure report.
    HandOff,
}

impl Answer {
    /// Whether `msg` belongs to this exchange.
    pub fn matches(&self, msg: &Msg) -> bool {
        match *self {
            Answer::Any => true,
            Answer::Marker {
                partition,
                producer,
            } => match msg {
                Msg::WriteTxnMarkers(m) => m.partition == partition && m.producer == producer,
                Msg::WriteTxnMarkersResponse(m) => {
                    m.partition == partition && m.producer == producer
                }
                _ => false,
            },
            Answer::Write {
                leader_epoch,
                write,
            } => match msg {
                Msg::WriteShareGroupState(w) => w.leader_epoch == leader_epoch && w.write == write,
                Msg::WriteShareGroupStateResponse(w) => {
                    w.leader_epoch == leader_epoch && w.write == write
                }
                _ => false,
            },
            Answer::Read { leader_epoch } => match msg {
                Msg::ReadShareGroupState(r) => r.leader_epoch == leader_epoch,
                Msg::ReadShareGroupStateResponse(r) => r.leader_epoch == leader_epoch,
                _ => false,
            },
            Answer::Stage => matches!(
                msg,
                Msg::TxnShareAcknowledge(_) | Msg::TxnShareAcknowledgeResponse(_)
            ),
            Answer::Outcome(producer) => match msg {
                Msg::TxnShareAcksResolved(q) => q.producer == producer,
                Msg::TxnShareAcksResolvedResponse(r) => r.producer == producer,
                _ => false,
            },
            Answer::Verification { producer, guard } => carries_verification(msg, producer, guard),
            Answer::Heartbeat => {
                matches!(msg, Msg::TxnHeartbeat(_) | Msg::TxnHeartbeatResponse(_))
            }
            Answer::Acquisition(record) => acknowledges(msg, record),
            Answer::HandOff => matches!(msg, Msg::Committable(_) | Msg::WriterFailed(_)),
        }
    }
}

/// Whether `msg` is the verification of `producer` under `guard`, or its answer.
pub fn carries_verification(
    msg: &Msg,
    producer: ProducerIdAndEpoch,
    guard: VerificationGuard,
) -> bool {
    let (p, mode) = match msg {
        Msg::AddPartitionsToTxn(r) => (r.producer, r.mode),
        Msg::AddPartitionsToTxnResponse(r) => (r.producer, r.mode),
        _ => return false,
    };
    p == producer
        && matches!(mode, AddPartitionsMode::VerifyOnly { guard: g } | AddPartitionsMode::BrokerAdd { guard: g } if g == guard)
}

/// Whether `msg` delivers `record` or acknowledges that delivery. Which delivery an
/// acknowledgement was made for is ghost (the wire's `AcknowledgementBatch` carries only
/// offsets and types, KIP-932): whether a lock firing now is early is the closed world's
/// judgement over the whole run, so it reads the acknowledgement's ghost tag
/// ([`crate::protocol::ghost`]; judged by the offset alone, a reader's checkpoint restored
/// from an earlier delivery would hold the lock of the record's next delivery to the same
/// member).
pub fn acknowledges(msg: &Msg, record: AcquiredRecord) -> bool {
    let acks_it = |acks: &[Acknowledgement]| {
        acks.iter()
            .any(|a| a.offset == record.offset && a.tag.is_for_delivery(record.delivery_count))
    };
    match msg {
        Msg::ShareFetchResponse(r) => r.acquired.contains(&record),
        Msg::ShareFetch(q) => acks_it(&q.acks),
        Msg::ShareAcknowledge(q) => acks_it(&q.acks),
        _ => false,
    }
}
