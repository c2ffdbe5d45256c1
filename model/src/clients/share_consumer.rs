//! A share consumer (`KafkaShareConsumer` with its `ShareConsumeRequestManager`): a member
//! of the share group that fetches from the share-partition leader inside a share session
//! and acknowledges what it was given.
//!
//! The member id is fixed and so is the member epoch: group membership (ShareGroupHeartbeat
//! with the group coordinator, assignment) is not modelled, since with one share partition
//! every member is assigned it. One request is in flight at a time. Its request timeout is
//! the client's `request.timeout.ms`; after it the session is gone (the connection closes)
//! and the consumer opens a fresh one, failing the acknowledgements that request carried,
//! as the Java client does.
//!
//! * Implicit mode (Kafka's default): the next poll ACCEPTs everything the previous one
//!   delivered; the acknowledgements ride on the next ShareFetch.
//! * Explicit mode: the application acknowledges each delivered record with a type of its
//!   choice (`ack_types`, a client choice), then polls.
//! * RENEW is handled by the share-partition leader, but the consumer never sends it: a
//!   renewed record stays held while the next ShareFetch waits for records at the leader,
//!   which the model (without `MaxWaitMs` expiring) would turn into a hold forever.
//! * Stalling is a client choice too, bounded by `stalls`: the application takes longer
//!   than the acquisition lock on the records it holds, which makes their lock timers due.
//!   It then carries on and sends its (now late) acknowledgements.

use crate::protocol::error::ErrorCode;
use crate::protocol::ghost::Ghost;
use crate::protocol::ids::MemberId;
use crate::protocol::msg::{ClientChoice, Msg, RequestKey, Timer};
use crate::protocol::output::Host;
use crate::protocol::record_state::AckType;
use crate::protocol::share_msg::*;
use crate::protocol::wait::{Answer, Down, Held, Holding, Reply, Wait};
use crate::protocol::width::{Counter, Offset};
use serde::{Deserialize, Serialize};
use stateright::actor::{Id, Out};
use std::time::Duration;

/// A record delivered to the application and not yet acknowledged to the leader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Delivery {
    /// The offset.
    pub offset: Offset,
    /// Its delivery count.
    pub delivery_count: u8,
    /// The application's acknowledgement, once it chose.
    pub ack: Option<AckType>,
}

/// The share consumer's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShareConsumerState {
    /// The epoch the next request carries (0 opens a session).
    pub session_epoch: Counter,
    /// The request in flight.
    pub in_flight: Option<Msg>,
    /// Records delivered and not yet acknowledged.
    pub delivered: Vec<Delivery>,
    /// The application is stalled past the locks of what it holds.
    pub stalled: bool,
    /// Stalls left.
    pub stalls_left: u8,
}

/// The share consumer's configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShareConsumer {
    /// Its member id.
    pub member: MemberId,
    /// The share-partition leader.
    pub share_partition: Id,
    /// `share.acknowledgement.mode`.
    pub ack_mode: AckMode,
    /// The types the application chooses from in explicit mode.
    pub ack_types: Vec<AckType>,
    /// Stalls allowed.
    pub stalls: u8,
    /// ShareFetch `MaxRecords`.
    pub max_records: u8,
    /// The key of its one request in flight and of that request's timer:
    /// [`RequestKey::Share`], but for a Flink reader's further share consumers
    /// ([`RequestKey::ShareOf`]), whose fetches are in flight beside the first one's.
    pub key: RequestKey,
}

const STALL: &str = "stall";
const POLL: &str = "poll";

impl ShareConsumer {
    /// Starts: opens a share session with its first ShareFetch.
    pub fn on_start<A: Host>(&self, o: &mut Out<A>) -> ShareConsumerState {
        let mut s = ShareConsumerState {
            session_epoch: 0,
            in_flight: None,
            delivered: Vec::new(),
            stalled: false,
            stalls_left: self.stalls,
        };
        self.poll(&mut s, o);
        s
    }

    /// Handles ShareFetch and ShareAcknowledge responses to the request in flight.
    pub fn on_msg<A: Host>(&self, s: &mut ShareConsumerState, _src: Id, msg: Msg, o: &mut Out<A>) {
        let Some(acquired) = self.receive(s, msg, o) else {
            return;
        };
        s.stalled = false;
        s.delivered.extend(acquired.iter().map(|a| Delivery {
            offset: a.offset,
            delivery_count: a.delivery_count,
            ack: None,
        }));
        self.offer(s, o);
    }

    /// The answer to the ShareFetch in flight: the records it acquired. `None` when `msg`
    /// answers no request in flight, or when the session is gone (the leader restarted, or
    /// a repeated request used up the epoch), in which case a new session is opened.
    pub(crate) fn receive<A: Host>(
        &self,
        s: &mut ShareConsumerState,
        msg: Msg,
        o: &mut Out<A>,
    ) -> Option<Vec<AcquiredRecord>> {
        let Msg::ShareFetchResponse(r) = msg else {
            return None;
        };
        let current =
            matches!(&s.in_flight, Some(Msg::ShareFetch(q)) if q.session_epoch == r.session_epoch);
        if !current || r.member != self.member {
            return None;
        }
        s.in_flight = None;
        o.cancel_timer(Timer::RequestTimeout(self.key));
        if r.error != ErrorCode::None {
            // What is held cannot be acknowledged in a new session.
            self.reset(s, o);
            return None;
        }
        Some(r.acquired)
    }

    /// The request timed out: a new session, without what the old one held.
    pub fn on_timeout<A: Host>(&self, s: &mut ShareConsumerState, timer: Timer, o: &mut Out<A>) {
        if timer == Timer::RequestTimeout(self.key) && s.in_flight.is_some() {
            s.in_flight = None;
            self.reset(s, o);
        }
    }

    /// The application's choices.
    pub fn on_choice<A: Host>(
        &self,
        s: &mut ShareConsumerState,
        choice: ClientChoice,
        o: &mut Out<A>,
    ) {
        match choice {
            ClientChoice::Stall => {
                s.stalls_left = s.stalls_left.saturating_sub(1);
                s.stalled = true;
            }
            ClientChoice::Poll => {
                for d in &mut s.delivered {
                    d.ack = Some(AckType::Accept);
                }
                o.choose_random(STALL, Vec::new());
                self.poll(s, o);
            }
            ClientChoice::Ack { offset, ack } => {
                if let Some(d) = s.delivered.iter_mut().find(|d| d.offset == offset) {
                    d.ack = Some(ack);
                }
                if s.delivered.iter().all(|d| d.ack.is_some()) {
                    o.choose_random(STALL, Vec::new());
                    self.poll(s, o);
                }
            }
            ClientChoice::Commit
            | ClientChoice::Abort
            | ClientChoice::Checkpoint
            | ClientChoice::Handoff
            | ClientChoice::Vanish
            | ClientChoice::Wake
            | ClientChoice::ShareAdd(_)
            | ClientChoice::ShareGroupReset(_) => {}
        }
    }

    fn reset<A: Host>(&self, s: &mut ShareConsumerState, o: &mut Out<A>) {
        for d in &s.delivered {
            o.choose_random(ack_key(d.offset), Vec::new());
        }
        o.choose_random(STALL, Vec::new());
        o.choose_random(POLL, Vec::new());
        s.session_epoch = 0;
        s.delivered.clear();
        s.stalled = false;
        self.poll(s, o);
    }

    /// What the application may do with what it holds.
    fn offer<A: Host>(&self, s: &mut ShareConsumerState, o: &mut Out<A>) {
        if s.delivered.is_empty() {
            self.poll(s, o);
            return;
        }
        let may_stall = s.stalls_left > 0 && !s.stalled;
        match self.ack_mode {
            AckMode::Implicit => {
                if !may_stall {
                    for d in &mut s.delivered {
                        d.ack = Some(AckType::Accept);
                    }
                    self.poll(s, o);
                    return;
                }
                o.choose_random(POLL, vec![ClientChoice::Poll]);
            }
            AckMode::Explicit => {
                for d in &s.delivered {
                    let options: Vec<ClientChoice> = self
                        .ack_types
                        .iter()
                        .map(|ack| ClientChoice::Ack {
                            offset: d.offset,
                            ack: *ack,
                        })
                        .collect();
                    o.choose_random(ack_key(d.offset), options);
                }
            }
        }
        if may_stall {
            o.choose_random(STALL, vec![ClientChoice::Stall]);
        }
    }

    /// The next ShareFetch, carrying every acknowledgement the application made.
    pub(crate) fn poll<A: Host>(&self, s: &mut ShareConsumerState, o: &mut Out<A>) {
        let acks = std::mem::take(&mut s.delivered)
            .into_iter()
            .filter_map(|d| {
                d.ack.map(|ack| Acknowledgement {
                    offset: d.offset,
                    ack,
                    tag: Ghost::new(DeliveryTag {
                        member: self.member,
                        delivery_count: d.delivery_count,
                    }),
                })
            })
            .collect();
        let req = ShareFetchRequest {
            member: self.member,
            session_epoch: s.session_epoch,
            max_records: self.max_records,
            acks,
        };
        s.session_epoch = s.session_epoch.saturating_add(1);
        o.send(self.share_partition, Msg::ShareFetch(req.clone()));
        o.set_timer(Timer::RequestTimeout(self.key), timeout());
        s.in_flight = Some(Msg::ShareFetch(req));
    }
}

/// The choice key of the acknowledgement of `offset`.
fn ack_key(offset: Offset) -> String {
    format!("ack-{offset}")
}

fn timeout() -> std::ops::Range<Duration> {
    Duration::ZERO..Duration::ZERO
}

/// What the consumer's timers wait for, and which acquisitions it holds (see
/// [`crate::protocol::wait`]).
impl ShareConsumer {
    /// What `timer` waits for: the answer to the request in flight. A request is lost
    /// when nothing is in flight between the consumer and the leader and the leader does
    /// not hold it (waiting for its state, for records, or for the write of the request's
    /// acknowledgements).
    pub fn wait(&self, s: &ShareConsumerState, _timer: &Timer) -> Wait {
        match self.request_destination(s) {
            Some(peer) => Wait::Reply(Reply {
                peer,
                answer: Answer::Any,
                held: Some(Held::Session),
                down: Down::InFlightArrives,
            }),
            None => Wait::Always,
        }
    }

    /// Where the request in flight went.
    pub fn request_destination(&self, s: &ShareConsumerState) -> Option<Id> {
        s.in_flight.as_ref().map(|_| self.share_partition)
    }

    /// Whether the consumer holds the delivery `record`: while it does and the
    /// application is not stalled, it acknowledges it before the lock.
    pub fn acquisition(&self, s: &ShareConsumerState, record: AcquiredRecord) -> Holding {
        let holds = s
            .delivered
            .iter()
            .any(|d| d.offset == record.offset && d.delivery_count == record.delivery_count);
        match (holds, s.stalled) {
            (true, false) => Holding::Holds,
            (true, true) => Holding::Dropped,
            (false, _) => Holding::No,
        }
    }
}

/// `share.acknowledgement.mode`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum AckMode {
    /// Kafka's default: the next poll accepts every record the previous one delivered.
    #[default]
    Implicit,
    /// The application acknowledges each record with a type of its choice.
    Explicit,
}

impl AckMode {
    /// Whether this is the implicit mode.
    pub fn is_implicit(&self) -> bool {
        *self == AckMode::Implicit
    }

    /// The lowercase name used in settings.
    pub fn name(self) -> &'static str {
        match self {
            AckMode::Implicit => "implicit",
            AckMode::Explicit => "explicit",
        }
    }
}
