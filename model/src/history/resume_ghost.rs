//! Ghost facts about a resumed `TransactionSession` (scenario `session-resume`), for
//! `single_writer` and `external_agreement`: when the resume was acknowledged and with
//! which identity, what brokers then did with the old incarnation's requests carrying that
//! identity, and what Kafka and the external participant decided. Only scenarios with a
//! committer record them, so other scenarios' ghost (and their digests) stay as they were.

use crate::coordinator::txn_state::TransactionState;
use crate::partition::partition_log::PartitionLog;
use crate::protocol::error::ErrorCode;
use crate::protocol::msg::{Msg, ProducerIdAndEpoch};
use crate::world::action_ref::EnvelopeRef;
use crate::world::system::TXN_ID;
use crate::{System, SystemState};
use serde::{Deserialize, Serialize};
use stateright::actor::Id;

/// What the resumed session's run showed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ResumeGhost {
    /// The identity the committer resumed, once its resume was acknowledged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed: Option<ProducerIdAndEpoch>,
    /// The first request of the writer with the resumed identity a broker accepted after
    /// the resume, described.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zombie_accepted: Option<String>,
    /// A broker rejected a request of the writer with the resumed identity after the
    /// resume.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub zombie_rejected: bool,
    /// The transaction coordinator's first decision on the writer's transaction: the one it
    /// handed over, so a decision taken before the hand-off (an attempt the writer aborted
    /// itself and retried, when `txns` allows more than one) is not it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kafka: Option<bool>,
    /// The external participant's decision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<bool>,
}

impl ResumeGhost {
    /// Whether nothing was recorded (left out of traces then).
    pub fn is_empty(&self) -> bool {
        *self == ResumeGhost::default()
    }
}

/// After every step: the resume acknowledgement, Kafka's and the participant's decisions.
pub(crate) fn observe(sys: &System, next: &mut SystemState) {
    let Some(&committer) = sys.topology.committers.first() else {
        return;
    };
    let mut g = next.ghost.resume.clone();
    if g.resumed.is_none() {
        if let Some(c) = next.node(committer).committer() {
            if c.resumed {
                g.resumed = c.log.committable.as_ref().map(|c| c.producer);
            }
        }
    }
    // Once the writer handed its transaction over it begins no other (its application
    // closes its producer), so the coordinator's next decision is on the handed one.
    let handed = sys
        .topology
        .writers
        .iter()
        .any(|&w| next.node(w).resume_writer().is_some_and(|w| w.handed));
    if g.kafka.is_none() && handed {
        if let Some(tc) = next.node(sys.topology.txn_coordinator).txn_coordinator() {
            g.kafka = tc.txns.get(&TXN_ID).and_then(|m| match m.state {
                TransactionState::PrepareCommit | TransactionState::CompleteCommit => Some(true),
                TransactionState::PrepareAbort | TransactionState::CompleteAbort => Some(false),
                _ => None,
            });
        }
    }
    if g.external.is_none() {
        if let Some(&db) = sys.topology.externals.first() {
            if let Some(x) = next.node(db).external_participant() {
                g.external = x.decision;
            }
        }
    }
    if g != next.ghost.resume {
        next.ghost.update(|ghost| ghost.resume = g);
    }
}

/// A broker's answer `env`: if it goes to the writer and answers a request carrying the
/// resumed identity, record whether it was accepted. A write counts as accepted only if
/// the step added something the log did not hold: a retried Produce the partition already
/// holds is answered without an error and writes nothing (`ProducerStateManager`'s
/// duplicate detection), and a retried TxnOffsetCommit appends the same offset for the same
/// transaction again, so neither changes what the resumed transaction commits.
pub(crate) fn observe_answer(
    sys: &System,
    before: Option<&SystemState>,
    state: &mut SystemState,
    env: EnvelopeRef<'_>,
) {
    let (src, dst, msg) = (env.src, env.dst, env.msg);
    if !sys.topology.writers.contains(&dst) {
        return;
    }
    let Some(resumed) = state.ghost.resume.resumed else {
        return;
    };
    let (producer, error) = match msg {
        Msg::ProduceResponse(r) => (r.producer, r.error),
        Msg::TxnOffsetCommitResponse(r) => (r.producer, r.error),
        Msg::EndTxnResponse(r) => (r.request_producer, r.error),
        _ => return,
    };
    let write = matches!(
        msg,
        Msg::ProduceResponse(_) | Msg::TxnOffsetCommitResponse(_)
    );
    if producer != resumed || (write && error == ErrorCode::None && !adds(before, state, src)) {
        return;
    }
    if error == ErrorCode::None {
        if state.ghost.resume.zombie_accepted.is_none() {
            let what = format!(
                "{} accepted the writer's {} with {producer:?} after the committer resumed that identity",
                sys.topology.name(src),
                msg.name().trim_end_matches("Response")
            );
            state
                .ghost
                .update(|g| g.resume.zombie_accepted = Some(what));
        }
    } else if !state.ghost.resume.zombie_rejected {
        state.ghost.update(|g| g.resume.zombie_rejected = true);
    }
}

/// Whether the step from `before` to `next` appended to the log of the partition leader
/// `id` (a data partition or the group coordinator) an entry it did not already hold.
fn adds(before: Option<&SystemState>, next: &SystemState, id: Id) -> bool {
    fn log(s: &SystemState, id: Id) -> Option<&PartitionLog> {
        let node = s.node(id);
        let data = node.data_partition().map(|l| &l.log);
        data.or(node.group_coordinator().map(|l| &l.log))
    }
    let Some(before) = before else {
        return true;
    };
    let old = log(before, id).map_or(&[][..], |l| &l.entries[..]);
    let new = log(next, id).map_or(&[][..], |l| &l.entries[..]);
    new.iter().skip(old.len()).any(|e| !old.contains(e))
}
