//! Actions whose message is borrowed from the state they are enabled in.
//!
//! An exhaustive search lists every enabled action of each state it expands and steps each
//! one into a scratch state; 77% of those steps reach a state it already knows. With
//! owned actions every listed delivery copied its message (a heap allocation for most
//! Kafka messages) only to drop it again. An [`ActionRef`] points at the message where
//! the state holds it, at the head of its connection, so listing and stepping copy no
//! message. [`Action`] stays the value a trace, the simulator and replay keep; the step
//! function takes the borrowed form of either.

use crate::protocol::msg::{ClientChoice, Msg, Timer};
use crate::world::state::{Action, Envelope};
use stateright::actor::Id;

/// A message in flight, borrowed: [`Envelope`]'s fields with the message by reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct EnvelopeRef<'a> {
    /// The sender.
    pub src: Id,
    /// The recipient.
    pub dst: Id,
    /// The message.
    pub msg: &'a Msg,
}

impl EnvelopeRef<'_> {
    /// The envelope by value (a copy of the message).
    pub fn to_owned(self) -> Envelope {
        Envelope {
            src: self.src,
            dst: self.dst,
            msg: self.msg.clone(),
        }
    }

    /// Whether `env` is this envelope. The pointer is compared first: a step's envelope
    /// usually points at the very message it is looked up against.
    pub fn is(self, env: &Envelope) -> bool {
        self.src == env.src && self.dst == env.dst && same_msg(self.msg, &env.msg)
    }
}

/// Whether two messages are equal, by pointer first.
pub fn same_msg(a: &Msg, b: &Msg) -> bool {
    std::ptr::eq(a, b) || a == b
}

impl Envelope {
    /// This envelope, borrowed.
    pub fn as_ref(&self) -> EnvelopeRef<'_> {
        EnvelopeRef {
            src: self.src,
            dst: self.dst,
            msg: &self.msg,
        }
    }
}

/// [`Action`] with its envelope borrowed: what the step function takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionRef<'a> {
    /// The envelope reaches its (live) recipient.
    Deliver(EnvelopeRef<'a>),
    /// The envelope is lost.
    Drop(EnvelopeRef<'a>),
    /// A second copy of the envelope enters the network.
    Duplicate(EnvelopeRef<'a>),
    /// An armed timer fires.
    Fire {
        /// Whose timer.
        actor: Id,
        /// Which timer.
        timer: Timer,
    },
    /// The actor crashes.
    Crash(Id),
    /// The crashed actor restarts.
    Restart(Id),
    /// A client makes a decision.
    Choose {
        /// Which client.
        actor: Id,
        /// What it decides.
        choice: ClientChoice,
    },
}

impl ActionRef<'_> {
    /// The action by value.
    pub fn to_owned(self) -> Action {
        match self {
            ActionRef::Deliver(e) => Action::Deliver(e.to_owned()),
            ActionRef::Drop(e) => Action::Drop(e.to_owned()),
            ActionRef::Duplicate(e) => Action::Duplicate(e.to_owned()),
            ActionRef::Fire { actor, timer } => Action::Fire { actor, timer },
            ActionRef::Crash(id) => Action::Crash(id),
            ActionRef::Restart(id) => Action::Restart(id),
            ActionRef::Choose { actor, choice } => Action::Choose { actor, choice },
        }
    }
}

impl Action {
    /// This action, borrowed.
    pub fn as_ref(&self) -> ActionRef<'_> {
        match self {
            Action::Deliver(e) => ActionRef::Deliver(e.as_ref()),
            Action::Drop(e) => ActionRef::Drop(e.as_ref()),
            Action::Duplicate(e) => ActionRef::Duplicate(e.as_ref()),
            Action::Fire { actor, timer } => ActionRef::Fire {
                actor: *actor,
                timer: *timer,
            },
            Action::Crash(id) => ActionRef::Crash(*id),
            Action::Restart(id) => ActionRef::Restart(*id),
            Action::Choose { actor, choice } => ActionRef::Choose {
                actor: *actor,
                choice: *choice,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Design, Scenario, System};

    /// Every action enabled along a few steps of `share-basic` survives the round trip
    /// through its borrowed form.
    #[test]
    fn an_action_is_its_borrowed_form_by_value() {
        let sys: System = System::new(
            Design::proposed(),
            Scenario::by_name("share-basic").unwrap(),
        );
        let mut state = sys.init_state();
        let mut actions = Vec::new();
        for _ in 0..6 {
            actions.clear();
            sys.enabled(&state, &mut actions);
            assert!(!actions.is_empty());
            for a in &actions {
                assert_eq!(a.as_ref().to_owned(), *a);
            }
            state = sys.step(&state, &actions[0]);
        }
    }
}
