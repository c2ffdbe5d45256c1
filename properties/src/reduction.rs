//! A sound reduction of depth-first search: a duplication is taken together with the first
//! delivery of that envelope (the copy), as one edge of two actions.
//!
//! Why it is sound. `Duplicate(e)` only adds a stray copy of an envelope that is in flight
//! and deliverable, and `Network::take` always consumes the stray copy first. Until the
//! first delivery of `e`, a state `W` with the copy differs from the state `X` without it
//! only in the copy, the budget and `History::fault`: the same actor states, the same other
//! ghost facts, the same deliverable envelopes (the original stays at its connection's
//! head, or stray), the same due timers (timing asks whether a message is in flight, never
//! how many copies), the same quiescence. Every action of `W` other than delivering `e` is
//! enabled in `X` and leads to the same pair again (a drop of `e` removes the copy: `X`
//! stays where it is with more budget; a crash removes both copies). Delivering `e` from
//! `W` leads to exactly the state the fused edge leads to from `X`. So every state the
//! unreduced search reaches is such a `W` over a state `X` the reduced search reaches,
//! judged alike by every property that reads neither the budget, nor `History::fault`, nor
//! how many copies of a message are in flight; and every fused edge is a path of the
//! unreduced model, so nothing found is spurious.
//!
//! Where it applies. `History::fault` feeds `commit_after_fault`, which a commit in that
//! window would set sooner without the reduction, so the reduction is used only where no
//! transaction can commit: scenarios without transactional clients (producers and source
//! readers), such as `share-basic`. No property reads the budget or counts copies
//! (`properties/tests/suite/fused_duplicates.rs` compares every verdict with and without it).
//!
//! Breadth-first levels never fuse: a fused edge would be one level for two actions, and a
//! BFS discovery must stay a shortest trace.

use sharetxn_model::world::action_ref::EnvelopeRef;
use sharetxn_model::world::system::Envelope;
use sharetxn_model::{Action, System, SystemState};

/// The bit of a successor's action index that marks a fused edge: the action at the
/// index is `Duplicate(e)`, and `Deliver(e)` follows it.
pub const FUSED: u32 = 1 << 31;

/// Whether duplications may be fused with their delivery in `sys` (see the module docs).
pub fn fuses_duplicates(sys: &System) -> bool {
    sys.scenario.budget.duplicates > 0
        && sys.topology.producers.is_empty()
        && sys.topology.readers.is_empty()
}

/// Whether a fused search takes the duplication of `env` now, fused with its delivery:
/// not while its recipient is down (it is taken later, with the delivery, after the
/// restart).
pub fn fused(state: &SystemState, env: EnvelopeRef<'_>) -> bool {
    state.is_up(env.dst)
}

/// The two actions of a fused edge.
pub fn fused_actions(env: &Envelope) -> [Action; 2] {
    [Action::Duplicate(env.clone()), Action::Deliver(env.clone())]
}

/// The state a fused edge leads to: `env` duplicated, then the copy delivered.
pub fn duplicate_and_deliver(
    sys: &System,
    state: &SystemState,
    env: EnvelopeRef<'_>,
) -> SystemState {
    let [dup, deliver] = fused_actions(&env.to_owned());
    let copied = sys.step(state, &dup);
    sys.step(&copied, &deliver)
}
