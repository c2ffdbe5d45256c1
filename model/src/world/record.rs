//! The seam between the world and the history the properties read. As stateright's
//! `ActorModel` is generic over its history (`record_msg_in`, `record_msg_out`), the world
//! is generic over a [`Record`]: it keeps one in every state and calls it once per step
//! with what it saw, and never looks inside. `crate::history::History` is the one
//! implementation; the crate root names `System` and `SystemState` over it.

use crate::protocol::msg::Msg;
use crate::world::action_ref::{ActionRef, EnvelopeRef};
use crate::world::network::Queue;
use crate::world::observation::Observation;
use crate::world::shared::Shared;
use crate::world::state::SystemState;
use crate::world::system::System;
use serde::de::DeserializeOwned;
use serde::Serialize;
use smallvec::SmallVec;
use stateright::actor::Id;
use std::fmt::Debug;
use std::hash::Hash;

/// The messages one step sent: a handler sends one or two, so they are kept in place.
pub type Sent = SmallVec<[Outgoing; 2]>;

/// A message a step sent, held as the one-message queue a connection opens with: most
/// messages go out on a connection with nothing in flight, and a step the handler memo
/// answers then shares the queue it remembered (its hash already known) instead of
/// copying, hashing and later freeing the message again (`docs/checker.md`).
#[derive(Clone, Debug)]
pub struct Outgoing {
    /// The sender.
    pub src: Id,
    /// The recipient.
    pub dst: Id,
    /// The message, alone in its queue.
    pub queue: Shared<Queue>,
}

impl Outgoing {
    /// `msg` from `src` to `dst`, in a queue of its own.
    pub fn new(src: Id, dst: Id, msg: Msg) -> Outgoing {
        Outgoing {
            src,
            dst,
            queue: Shared::new(Queue::from_buf([msg])),
        }
    }

    /// The message.
    pub fn msg(&self) -> &Msg {
        &self.queue[0]
    }

    /// The envelope, borrowed.
    pub fn env(&self) -> EnvelopeRef<'_> {
        EnvelopeRef {
            src: self.src,
            dst: self.dst,
            msg: self.msg(),
        }
    }
}

/// What the world saw in one step, beyond the states before and after it.
#[derive(Debug, Default)]
pub struct StepFacts {
    /// What the handler that ran recorded (drained from its state).
    pub observations: Vec<Observation>,
    /// The messages the step sent, in order (not yet in the network).
    pub sent: Sent,
    /// For a timer firing: it was due (what it waited for could no longer arrive), not
    /// early (a fault).
    pub due: bool,
}

/// A run's history: a value in the world's state (so it is part of the state's identity,
/// its traces and its fingerprint) that the world updates after every step.
pub trait Record:
    Clone + Debug + Default + PartialEq + Eq + Hash + Serialize + DeserializeOwned
{
    /// Records step `action` from `before` to `next` in `next`'s history.
    fn record(
        sys: &System<Self>,
        before: &SystemState<Self>,
        action: ActionRef<'_>,
        facts: &StepFacts,
        next: &mut SystemState<Self>,
    );

    /// Records the messages an actor sent outside a step (its start in the initial state).
    fn record_sent(sys: &System<Self>, next: &mut SystemState<Self>, sent: &[Outgoing]);
}
