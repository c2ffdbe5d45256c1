//! What the clients did with their transactions, for `txn_atomicity`, `no_aborted_read`,
//! `producer_fencing` and `flush_before_commit`: every write each attempt issued, what the
//! client asked EndTxn to do with it, and whether a broker fenced a zombie client.

use crate::protocol::ids::TopicPartition;
use crate::protocol::msg::Msg;
use crate::world::action_ref::EnvelopeRef;
use crate::{System, SystemState};

/// A message sent: a transactional write is recorded under its attempt, and a fencing
/// error answered to a transactional client is a zombie fenced.
pub(crate) fn record_sent(sys: &System, next: &mut SystemState, env: EnvelopeRef<'_>) {
    if env.msg.response_error().is_some_and(|e| e.is_fencing())
        && sys.topology.txn_clients().any(|c| c == env.dst)
    {
        next.ghost.update(|g| g.zombie_fenced = true);
    }
    let write = match env.msg {
        Msg::Produce(p) => Some((p.record.tag, TopicPartition::Output(p.partition))),
        Msg::TxnOffsetCommit(c) => Some((c.tag, TopicPartition::ConsumerOffsets)),
        Msg::TxnShareAcknowledge(c) => {
            crate::history::txn_ack_ghost::observe_staging(next, c);
            Some((c.tag, TopicPartition::ShareGroupState))
        }
        _ => None,
    };
    if let Some((tag, tp)) = write {
        if !next.ghost.writes.get(&tag).is_some_and(|w| w.contains(&tp)) {
            next.ghost.update(|g| {
                g.writes.entry(tag).or_default().insert(tp);
            });
        }
    }
}

/// After every step: each client attempt's first move to COMMITTING_TRANSACTION or
/// ABORTING_TRANSACTION is its decision (and a session's commit is judged for what of the
/// attempt was still unanswered).
pub(crate) fn record_decisions(sys: &System, next: &mut SystemState) {
    for id in sys.topology.txn_clients() {
        let Some(p) = next.node(id).txn_client() else {
            continue;
        };
        let commit = match p.tm {
            crate::coordinator::txn_state::TxnManagerState::CommittingTransaction => true,
            crate::coordinator::txn_state::TxnManagerState::AbortingTransaction => false,
            _ => continue,
        };
        let Some(txn) = &p.txn else {
            continue;
        };
        let tag = txn.tag;
        if next.ghost.decisions.contains_key(&tag) {
            continue;
        }
        if sys.topology.writers.contains(&id) {
            // The resumed transaction is decided by its committer; the writer's shutdown
            // abort is a request, not that decision.
            continue;
        }
        let session = next.node(id).session_client().filter(|_| commit).cloned();
        let name = sys.topology.name(id);
        next.ghost.update(|g| {
            g.decisions.insert(tag, commit);
            if let Some(client) = &session {
                let issued = g.writes.get(&tag).map_or((false, false), |w| {
                    (
                        w.iter().any(|tp| matches!(tp, TopicPartition::Output(_))),
                        w.contains(&TopicPartition::ShareGroupState),
                    )
                });
                g.session.observe_commit(&name, client, tag, issued);
            }
        });
    }
}
