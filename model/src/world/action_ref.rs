//! Actions whose message is borrowed from the state they are enabled in.
//!
//! An exhaustive search lists every enabled action of each state it expands and steps each
//! one into a scratch state; 77% of those steps reach a state it already knows. With
//! owned actions every listed delivery copied its message (a heap allocation for most
//! Kafka messages) only to drop it again. An [`ActionRef`] points at the message where
//! the state holds it, at the head of its connection, so listing and stepping copy no
//! message. It is the same enum, [`Action`], over a borrowed envelope: an owned `Action`
//! stays the value a trace, the simulator and replay keep, and the step function takes the
//! borrowed form of either.

use crate::protocol::msg::Msg;
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
pub type ActionRef<'a> = Action<EnvelopeRef<'a>>;

impl<E> Action<E> {
    /// This action with its envelope by reference.
    pub fn by_ref(&self) -> Action<&E> {
        match self {
            Action::Deliver(e) => Action::Deliver(e),
            Action::Drop(e) => Action::Drop(e),
            Action::Duplicate(e) => Action::Duplicate(e),
            Action::Fire { actor, timer } => Action::Fire {
                actor: *actor,
                timer: *timer,
            },
            Action::Crash(id) => Action::Crash(*id),
            Action::Restart(id) => Action::Restart(*id),
            Action::Choose { actor, choice } => Action::Choose {
                actor: *actor,
                choice: *choice,
            },
        }
    }

    /// This action with its envelope mapped by `f`.
    pub fn map<F>(self, f: impl FnOnce(E) -> F) -> Action<F> {
        match self {
            Action::Deliver(e) => Action::Deliver(f(e)),
            Action::Drop(e) => Action::Drop(f(e)),
            Action::Duplicate(e) => Action::Duplicate(f(e)),
            Action::Fire { actor, timer } => Action::Fire { actor, timer },
            Action::Crash(id) => Action::Crash(id),
            Action::Restart(id) => Action::Restart(id),
            Action::Choose { actor, choice } => Action::Choose { actor, choice },
        }
    }
}

impl Action {
    /// This action, borrowed.
    pub fn as_ref(&self) -> ActionRef<'_> {
        self.by_ref().map(Envelope::as_ref)
    }
}

impl ActionRef<'_> {
    /// The action by value.
    pub fn to_owned(self) -> Action {
        self.map(EnvelopeRef::to_owned)
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
