//! What a step's handler asked for, beyond the state it left: timers it set and choices it
//! offered, even when they were already armed or offered. The state keeps armed timers as
//! a set, so a handler that cancels and sets the same timer in one step (a client's next
//! coordinator request reuses its request-timeout timer) leaves it unchanged; a scheduler
//! with real time needs to know that the deadline moved.

use crate::protocol::msg::Timer;
use stateright::actor::Id;

/// The timers and choices the acting actor set during one step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepEffects {
    /// The actor whose handler ran (none for a drop, a duplicate or a crash).
    pub actor: Option<Id>,
    /// Timers it set (again, if they were armed).
    pub timers: Vec<Timer>,
    /// Choice keys it offered (again, if they were offered).
    pub choices: Vec<String>,
}

impl StepEffects {
    /// No effects, keeping the vectors' memory.
    pub fn clear(&mut self) {
        self.actor = None;
        self.timers.clear();
        self.choices.clear();
    }
}
