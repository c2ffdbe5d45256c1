//! Which timers and client choices a step set afresh. The closed world keeps armed timers
//! as a set, so a handler that cancels and sets the same timer in one step (a client's
//! next request to the coordinator reuses its request-timeout timer) leaves the set as it
//! was; only the handler's commands tell that the deadline moved. This re-runs the
//! step's handler on the state before the step, as [`System::step`] does, and reads its
//! commands. Handlers are pure functions, so this changes nothing but costs one more call.

use sharetxn_model::msg::Timer;
use sharetxn_model::{Action, System, SystemState};
use stateright::actor::{Actor, Command, Id, Out};
use std::borrow::Cow;

/// What the acting actor set during a step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rearmed {
    /// The actor whose handler ran.
    pub actor: Option<Id>,
    /// Timers it set (reset if already armed).
    pub timers: Vec<Timer>,
    /// Choice keys it offered (anew if already offered).
    pub choices: Vec<String>,
}

/// The timers and choices `action`'s handler sets when taken in `before`.
pub fn rearmed(sys: &System, before: &SystemState, action: &Action) -> Rearmed {
    let mut out = Out::new();
    let actor = match action {
        Action::Deliver(env) => {
            let id = env.dst;
            let mut state = Cow::Borrowed(before.node(id));
            sys.actors[usize::from(id)].on_msg(id, &mut state, env.src, env.msg.clone(), &mut out);
            id
        }
        Action::Fire { actor, timer } => {
            let mut state = Cow::Borrowed(before.node(*actor));
            sys.actors[usize::from(*actor)].on_timeout(*actor, &mut state, timer, &mut out);
            *actor
        }
        Action::Choose { actor, choice } => {
            let mut state = Cow::Borrowed(before.node(*actor));
            sys.actors[usize::from(*actor)].on_random(*actor, &mut state, choice, &mut out);
            *actor
        }
        Action::Restart(id) => {
            let storage = before.storage[usize::from(*id)].as_deref().cloned();
            let _ = sys.actors[usize::from(*id)].on_start(*id, &storage, &mut out);
            *id
        }
        Action::Drop(_) | Action::Duplicate(_) | Action::Crash(_) => return Rearmed::default(),
    };
    let mut r = Rearmed {
        actor: Some(actor),
        ..Rearmed::default()
    };
    for command in out.iter() {
        match command {
            Command::SetTimer(timer, _) => r.timers.push(*timer),
            Command::ChooseRandom(key, options) if !options.is_empty() => {
                r.choices.push(key.clone())
            }
            _ => {}
        }
    }
    r
}
