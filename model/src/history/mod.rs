//! The history of a run: what the properties need to know that no actor records, and
//! that no actor may read. Like stateright's `ActorModel` history (`record_msg_in`,
//! `record_msg_out`), it is a value in the state that the world updates from each step it
//! executes; unlike it, it also sees crashes, timers, choices, and the typed
//! [`Observation`]s a handler made. The world is generic over its history
//! ([`crate::world::record::Record`]) and [`History`] is the one it runs with (the crate
//! root's `System` and `SystemState`), so the world calls [`record`] once per step without
//! naming this folder, the top of the stack; each field is recorded by a rule in the module
//! of the properties that read it.

pub mod decisions;
pub mod leader_ghost;
pub mod resume_ghost;
pub mod session_ghost;
pub mod share_ghost;
pub mod share_resolutions;
pub mod transitions;
pub mod txn_ack_ghost;
pub mod txn_acks;

use crate::history::resume_ghost::ResumeGhost;
use crate::history::session_ghost::SessionGhost;
use crate::history::share_ghost::ShareGhost;
use crate::protocol::ghost::Ghost;
use crate::protocol::ids::{TopicPartition, TxnTag};
use crate::protocol::msg::Timer;
use crate::world::action_ref::ActionRef;
use crate::world::observation::Observation;
use crate::world::record::{Outgoing, Record, StepFacts};
use crate::{System, SystemState};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Facts about the run so far.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct History {
    /// Every write each client transaction attempt issued, by partition.
    pub writes: BTreeMap<Ghost<TxnTag>, BTreeSet<TopicPartition>>,
    /// What the client asked EndTxn to do for each attempt (commit = true).
    pub decisions: BTreeMap<Ghost<TxnTag>, bool>,
    /// The first step that left a transition table, described.
    pub illegal_transition: Option<String>,
    /// A partition or the coordinator rejected a request for carrying a fenced epoch.
    pub zombie_fenced: bool,
    /// The coordinator aborted a transaction because it timed out.
    pub timeout_abort: bool,
    /// The coordinator restarted with a transaction in flight in its log.
    pub coordinator_restart: bool,
    /// A message was lost or duplicated, or an actor crashed.
    pub fault: bool,
    /// A transaction completed its commit after a fault.
    pub commit_after_fault: bool,
    /// Facts about the share group (left out of traces while empty, so the transaction
    /// scenarios' state digests are what they were before share groups).
    #[serde(default, skip_serializing_if = "ShareGhost::is_empty")]
    pub share: ShareGhost,
    /// KIP-1310 facts about sessions (left out of traces while empty).
    #[serde(default, skip_serializing_if = "SessionGhost::is_empty")]
    pub session: SessionGhost,
    /// KIP-1310 resume facts (left out of traces while empty).
    #[serde(default, skip_serializing_if = "ResumeGhost::is_empty")]
    pub resume: ResumeGhost,
}

impl History {
    /// Records a transition-table violation (the first one wins, so the trace ends there).
    pub fn illegal(&mut self, what: String) {
        if self.illegal_transition.is_none() {
            self.illegal_transition = Some(what);
        }
    }
}

/// Records step `action` from `before` to `next` in `next`'s history, in the order the
/// rules read each other's facts: faults first (a commit completing in the same step is
/// after a fault), then the handler's observations, the messages it sent, the comparison
/// of its state before and after, and last the facts read from the states after the step.
pub fn record(
    sys: &System,
    before: &SystemState,
    action: ActionRef<'_>,
    facts: &StepFacts,
    next: &mut SystemState,
) {
    let fault = match action {
        ActionRef::Drop(_) | ActionRef::Duplicate(_) | ActionRef::Crash(_) => true,
        ActionRef::Fire { .. } => !facts.due,
        _ => false,
    };
    // Most states after a fault already record one: the history is copied only when it
    // changes.
    if fault && !next.ghost.fault {
        next.ghost.update(|g| g.fault = true);
    }
    if let ActionRef::Restart(id) = action {
        transitions::record_restart(sys, before, next, id);
        share_ghost::record_restart(sys, next, id);
        txn_ack_ghost::observe_restart(before.node(id), &next.nodes[usize::from(id)].clone(), next);
    }
    if let Some(id) = handler_of(action) {
        record_observations(sys, next, id, &facts.observations);
    }
    record_answers(sys, Some(before), next, &facts.sent);
    match action {
        ActionRef::Restart(id) => transitions::check_failover(sys, before.node(id), next, id),
        ActionRef::Deliver(env) => {
            transitions::check_handler(sys, before.node(env.dst), next, env.dst);
            txn_ack_ghost::observe_delivery(sys, before.node(env.dst), next, env.dst, env.msg);
            leader_ghost::observe_delivery(sys, before, next, env, &facts.sent);
            session_ghost::observe_heartbeat_answer(sys, before, next, env);
        }
        ActionRef::Fire { actor, timer } => {
            transitions::check_handler(sys, before.node(actor), next, actor);
            match timer {
                Timer::TxnTimeout(_) => transitions::record_txn_timeout(sys, before, next),
                Timer::TxnHeartbeatExpiry(txn) => {
                    session_ghost::observe_expiry(sys, before, next, txn, facts.due)
                }
                _ => {}
            }
        }
        ActionRef::Choose { actor, .. } => {
            transitions::check_handler(sys, before.node(actor), next, actor)
        }
        _ => {}
    }
    decisions::record_decisions(sys, next);
    resume_ghost::observe(sys, next);
}

impl Record for History {
    fn record(
        sys: &System,
        before: &SystemState,
        action: ActionRef<'_>,
        facts: &StepFacts,
        next: &mut SystemState,
    ) {
        record(sys, before, action, facts, next);
    }

    fn record_sent(sys: &System, next: &mut SystemState, sent: &[Outgoing]) {
        record_sent(sys, next, sent);
    }
}

/// The messages an actor sent, in order (also each actor's start in the initial state).
pub fn record_sent(sys: &System, next: &mut SystemState, sent: &[Outgoing]) {
    record_answers(sys, None, next, sent);
}

/// The messages a step sent, judged against the state `before` it where there is one.
fn record_answers(
    sys: &System,
    before: Option<&SystemState>,
    next: &mut SystemState,
    sent: &[Outgoing],
) {
    for out in sent {
        resume_ghost::observe_answer(sys, before, next, out.env());
        decisions::record_sent(sys, next, out.env());
    }
}

/// What the handler of `id` recorded, each kind by its rule.
fn record_observations(
    sys: &System,
    next: &mut SystemState,
    id: stateright::actor::Id,
    observations: &[Observation],
) {
    for obs in observations {
        match obs {
            Observation::TxnMoves(_)
            | Observation::ManagerMoves(_)
            | Observation::RecordMoves(_) => transitions::record_moves(sys, next, id, obs),
            Observation::ShareEvents(events) => share_ghost::record_events(sys, next, id, events),
            Observation::Processed(processed) => share_ghost::record_processed(next, processed),
        }
    }
}

/// The actor whose handler the action runs (a restart runs `on_start`, not a handler).
fn handler_of(action: ActionRef<'_>) -> Option<stateright::actor::Id> {
    match action {
        ActionRef::Deliver(env) => Some(env.dst),
        ActionRef::Fire { actor, .. } | ActionRef::Choose { actor, .. } => Some(actor),
        _ => None,
    }
}
