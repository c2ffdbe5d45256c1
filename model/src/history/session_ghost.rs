//! Ghost facts about KIP-1310 sessions, for `flush_before_commit`: whether a session
//! decided a commit while a write of that transaction was still unanswered; and for
//! `live_session_kept`, whether KIP-1309's heartbeat deadline aborted a live session's
//! transaction, and whether a session told by a heartbeat answer that its transaction is
//! fenced failed. Only clients on a session record them, so other scenarios' ghost (and their
//! digests) stay as they were.

use crate::clients::transaction_manager::TransactionManager;
use crate::coordinator::txn_state::{TransactionState, TxnManagerState};
use crate::protocol::error::ErrorCode;
use crate::protocol::ghost::Ghost;
use crate::protocol::ids::{TransactionalId, TxnTag};
use crate::protocol::msg::Msg;
use crate::world::action_ref::EnvelopeRef;
use crate::{System, SystemState};
use serde::{Deserialize, Serialize};

/// What the sessions' commit decisions found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SessionGhost {
    /// The first commit decided with a produce or a share acknowledgement of its
    /// transaction unanswered, described.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unflushed_commit: Option<String>,
    /// A commit was decided after its produce and its share acknowledgement were both
    /// answered.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flushed_commit: bool,
    /// KIP-1309: the transaction coordinator aborted a transaction whose heartbeats
    /// stopped.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub heartbeat_abort: bool,
    /// The first such abort of a live session's transaction (up, not failed, its deadline
    /// due rather than fired early by a fault), described.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live_heartbeat_abort: Option<String>,
    /// KIP-1309: a heartbeat answer told a session that its open transaction is fenced,
    /// and the session failed (the twin of [`SessionGhost::ignored_fence`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fenced_heartbeat_failed: bool,
    /// The first heartbeat answer that told a session its open transaction is fenced
    /// without the session failing on it, described.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignored_fence: Option<String>,
}

impl SessionGhost {
    /// Whether nothing was recorded (left out of traces then).
    pub fn is_empty(&self) -> bool {
        *self == SessionGhost::default()
    }

    /// A session client `name` decided to commit attempt `tag`: records what of the
    /// attempt was still unanswered, given the attempt's writes issued so far (`issued`:
    /// a produce and a share acknowledgement).
    pub(crate) fn observe_commit(
        &mut self,
        name: &str,
        client: &TransactionManager,
        tag: Ghost<TxnTag>,
        issued: (bool, bool),
    ) {
        let unanswered: Vec<&str> = client
            .requests
            .values()
            .filter_map(|r| match &r.msg {
                Msg::Produce(p) if p.record.tag == tag => Some("a Produce"),
                Msg::TxnShareAcknowledge(a) if a.tag == tag => Some("a TxnShareAcknowledge"),
                _ => None,
            })
            .collect();
        if unanswered.is_empty() {
            self.flushed_commit |= issued.0 && issued.1;
        } else if self.unflushed_commit.is_none() {
            self.unflushed_commit = Some(format!(
                "{name} decided to commit {tag} with {} unanswered",
                unanswered.join(" and ")
            ));
        }
    }
}

/// After the coordinator's heartbeat deadline for `txn` fired in `before` (`due`: what it
/// waited for could no longer arrive): whether it aborted the transaction, and whether its
/// owner was a live session then (up, not failed, and the deadline due, not fired early by
/// a fault), for `live_session_kept`.
pub(crate) fn observe_expiry(
    sys: &System,
    before: &SystemState,
    next: &mut SystemState,
    txn: TransactionalId,
    due: bool,
) {
    let tc = sys.topology.txn_coordinator;
    let state_of = |s: &SystemState| {
        s.node(tc)
            .txn_coordinator()
            .and_then(|c| c.txns.get(&txn).map(|m| m.state))
    };
    let aborted = state_of(before) == Some(TransactionState::Ongoing)
        && state_of(next) == Some(TransactionState::PrepareAbort);
    if !aborted {
        return;
    }
    let live = sys.topology.client_of(txn).filter(|&p| {
        before.is_up(p)
            && before
                .node(p)
                .txn_client()
                .is_some_and(|s| s.tm != TxnManagerState::FatalError)
            && due
    });
    let name = live.map(|p| sys.topology.name(p));
    next.ghost.update(|g| {
        g.session.heartbeat_abort = true;
        if let (Some(name), None) = (name, &g.session.live_heartbeat_abort) {
            g.session.live_heartbeat_abort = Some(format!(
                "TC aborted {name}'s transaction for missing heartbeats while {name} was up and in task.put()"
            ));
        }
    });
}

/// After `env` was delivered: if it is a heartbeat answer telling its session that the
/// open transaction of the pair it holds is fenced (PRODUCER_FENCED, or no such producer
/// any more: the coordinator aborted it and bumped the epoch), whether the session failed
/// in that step, as the `TransactionManager` fails on PRODUCER_FENCED from a
/// transactional request (`AddPartitionsToTxnHandler.handleResponse` calls
/// `TxnRequestHandler.fatalError`, then `transitionToFatalError`, at 1eb7644; KIP-1309 is
/// silent on the client). A session that goes on keeps using a transaction the coordinator
/// has aborted.
pub(crate) fn observe_heartbeat_answer(
    sys: &System,
    before: &SystemState,
    next: &mut SystemState,
    env: EnvelopeRef<'_>,
) {
    let Msg::TxnHeartbeatResponse(r) = env.msg else {
        return;
    };
    let fenced = matches!(
        r.error,
        ErrorCode::ProducerFenced | ErrorCode::InvalidProducerIdMapping
    );
    let Some(client) = before.node(env.dst).session_client() else {
        return;
    };
    let open = matches!(
        client.tm,
        TxnManagerState::InTransaction | TxnManagerState::AbortableError
    );
    if !fenced || !open || client.identity != Some(r.producer) {
        return;
    }
    let failed = next
        .node(env.dst)
        .session_client()
        .is_some_and(|c| c.tm == TxnManagerState::FatalError);
    let g = &next.ghost.session;
    if (failed && g.fenced_heartbeat_failed) || (!failed && g.ignored_fence.is_some()) {
        return;
    }
    if failed {
        next.ghost
            .update(|g| g.session.fenced_heartbeat_failed = true);
        return;
    }
    let what = format!(
        "{} went on in {:?} after its heartbeat was answered {:?} for {:?}",
        sys.topology.name(env.dst),
        client.tm,
        r.error,
        r.producer
    );
    next.ghost.update(|g| g.session.ignored_fence = Some(what));
}
