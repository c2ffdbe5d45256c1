//! Scenario `spl-move`'s history, for `leader_fencing`: what the share coordinator did with
//! a message from a share-partition leader that another leader has replaced. A leader is
//! replaced when the coordinator has stored a newer leader epoch for its share partition
//! than the leader's own (another broker read the state at the moved-in epoch); a restart
//! of the same actor is not a replacement, since its own epoch moved on too. Recorded only
//! where the topology has a moved-in leader, so the other scenarios' ghosts never change.

use crate::protocol::error::ErrorCode;
use crate::protocol::msg::Msg;
use crate::world::action_ref::EnvelopeRef;
use crate::world::record::Outgoing;
use crate::{System, SystemState};

/// The share coordinator handled `env`; `sent` is what it answered.
pub(crate) fn observe_delivery(
    sys: &System,
    before: &SystemState,
    next: &mut SystemState,
    env: EnvelopeRef<'_>,
    sent: &[Outgoing],
) {
    if sys.topology.moved_share_partition.is_none()
        || Some(env.dst) != sys.topology.share_coordinator
    {
        return;
    }
    let (Some(leader), Some(sc)) = (
        before.node(env.src).share_partition(),
        before.node(env.dst).share_coordinator(),
    ) else {
        return;
    };
    // Only the first share partition moves in `spl-move`.
    let stored = sc.partition(0).leader_epoch;
    if leader.leader_epoch >= stored {
        return;
    }
    let name = sys.topology.name(env.src);
    let answer = sent.iter().find(|a| a.dst == env.src).map(Outgoing::msg);
    let what = match (env.msg, answer) {
        (Msg::TxnShareAcknowledge(_), Some(Msg::TxnShareAcknowledgeResponse(r))) => {
            Some(("a staging", r.error))
        }
        (Msg::WriteShareGroupState(_), Some(Msg::WriteShareGroupStateResponse(r))) => {
            Some(("a write", r.error))
        }
        _ => None,
    };
    let retired = matches!(env.msg, Msg::TxnShareAcksResolvedResponse(_))
        && next
            .node(env.dst)
            .share_coordinator()
            .is_some_and(|after| after.outbox.len() < sc.outbox.len());
    let epoch = leader.leader_epoch;
    let accepted = match what {
        Some((_, ErrorCode::FencedLeaderEpoch)) => {
            next.ghost.update(|g| g.share.stale_leader_fenced = true);
            None
        }
        Some((kind, ErrorCode::None)) => Some(format!(
            "SC took {kind} from {name} at leader epoch {epoch} after a leader at epoch {stored} read the state"
        )),
        _ if retired => Some(format!(
            "SC retired an outcome on the answer of {name} at leader epoch {epoch} after a leader at epoch {stored} read the state"
        )),
        _ => None,
    };
    if let Some(what) = accepted {
        if next.ghost.share.stale_leader_accepted.is_none() {
            next.ghost
                .update(|g| g.share.stale_leader_accepted = Some(what));
        }
    }
}
