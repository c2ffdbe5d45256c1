//! Which steps may unset a label (a property's violation or its twin): the visibility
//! condition of a persistent-set search, declared by hand from what each property reads
//! (`docs/checker.md`, "Labels a set must not unset"). A set whose steps unset no label
//! where it is moved across keeps every verdict, so a search that decides from the state
//! refuses only the sets that hold a step this declares may unset one.
//!
//! Most labels are never unset: they read ghost facts set once (`History`, `ShareGhost`),
//! partition logs that are only appended to, and the share coordinator's resolutions,
//! which it only appends to. The liveness properties' violations are judged only at rest
//! (`System::is_quiescent`), and a state a set is moved across is not at rest: the set's
//! own deliveries, due timers or choices are enabled there. What is left:
//!
//! - a crash or a restart: a crash ends rest (where the liveness properties judged) and
//!   loses what the actor held; on its restart the share coordinator reloads its
//!   resolutions and share state from its log, a share-partition leader its counts
//!   (`delivery_limit` forgives what a failover forgot), so whatever was read of them
//!   before may be gone. No set a search takes holds a crash
//!   ([`crate::reduction_written::commutes`]);
//! - any step of the share coordinator while a prune is left (`sc_prunes`): a snapshot and
//!   prune drop resolutions;
//! - a step of the transaction coordinator that decides a commit (a transaction enters
//!   PrepareCommit or CompleteCommit): `pending_isolation` judges an acknowledgement
//!   applied to share state before its transaction committed, which the decision ends;
//! - a step that changes a record that was terminal at the share coordinator or at the
//!   share-partition leader: `no_lost_record` judges a record held terminal at the
//!   delivery an aborted acknowledgement was made for, which a later write replaces.
//!
//! [`Graph::undeclared_unsets`] tests the declaration on whole graphs: every step that
//! unsets a label must be one it declares.

use crate::reduction_graph::{Edge, Graph};
use crate::reduction_written::coordinator_moves;
use crate::view::{share_coordinator_state_of, share_partition_state_of};
use sharetxn_model::coordinator::txn_state::TransactionState;
use sharetxn_model::protocol::record_state::RecordState;
use sharetxn_model::{System, SystemState};
use stateright::actor::Id;

/// Whether the step of actor `a` from `s` to `next` (a crash or a restart, if
/// `crash_or_restart`) may unset a label, by the declarations above. What it reads of
/// `a`'s own step is the same in every state a set of `a`'s is moved across: a handler
/// reads only its own state and message.
pub fn may_unset(
    sys: &System,
    s: &SystemState,
    next: &SystemState,
    a: usize,
    crash_or_restart: bool,
) -> bool {
    crash_or_restart
        || (sys.scenario.sc_prunes > 0 && Some(Id::from(a)) == sys.topology.share_coordinator)
        || decides_commit(s, next, a)
        || changes_terminal(sys, s, next)
}

/// Whether the step of `a` from `s` to `next` moves one of its transactions into
/// PrepareCommit or CompleteCommit (a transaction coordinator's commit decision).
fn decides_commit(s: &SystemState, next: &SystemState, a: usize) -> bool {
    use TransactionState::*;
    coordinator_moves(s, next, a, |from, to| {
        matches!(to, PrepareCommit | CompleteCommit) && from != Some(to)
    })
}

/// Whether the step from `s` to `next` changes the state or delivery count of a record
/// that was terminal, at the share coordinator or at the share-partition leader.
fn changes_terminal(sys: &System, s: &SystemState, next: &SystemState) -> bool {
    (0..sys.scenario.share_offsets()).any(|offset| {
        let persisted = |st: &SystemState| {
            share_coordinator_state_of(sys, st, offset).and_then(|p| p.state_of(offset))
        };
        let cached = |st: &SystemState| {
            share_partition_state_of(sys, st, offset)
                .and_then(|l| l.records.get(&offset))
                .map(|r| (r.state, r.delivery_count))
        };
        let terminal = |r: Option<(RecordState, u8)>| r.is_some_and(|(st, _)| st.is_terminal());
        let was = persisted(s);
        let held = cached(s);
        (terminal(was) && persisted(next) != was) || (terminal(held) && cached(next) != held)
    })
}

impl Graph {
    /// The steps that unset a label (set in the state they leave, not in the state they
    /// reach) while [`may_unset`] says they may not. Sound declarations leave none.
    pub fn undeclared_unsets(&self) -> usize {
        self.unsetting(|e| !e.may_unset)
    }

    /// Every step that unsets a label.
    pub fn unsetting_steps(&self) -> usize {
        self.unsetting(|_| true)
    }

    /// The steps that unset a label and that `counted` counts.
    fn unsetting(&self, counted: impl Fn(&Edge) -> bool) -> usize {
        let edges = self.edges.iter().enumerate();
        edges
            .map(|(s, es)| {
                let unsets = |e: &&Edge| self.labels[s] & !self.labels[e.to as usize] != 0;
                es.iter().filter(unsets).filter(|e| counted(e)).count()
            })
            .sum()
    }
}
