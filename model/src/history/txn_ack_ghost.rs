//! The closed world's record of KIP-1289 facts no actor keeps: what each attempt staged,
//! what the transaction coordinator decided for it, and whether a marker resolved exactly
//! its own transaction's acknowledgements, for `pending_isolation`, `marker_match`,
//! `no_orphan_acks` and `no_lost_record`. `crate::history::record` calls these rules from
//! each step; protocol logic never reads what they write.

use crate::history::txn_acks::PendingAck;
use crate::protocol::ghost::Ghost;
use crate::protocol::ids::{MemberId, TransactionalId, TxnTag};
use crate::protocol::msg::{Msg, ProducerIdAndEpoch, WriteTxnMarkersRequest};
use crate::protocol::txn_share_msg::TxnShareAcknowledgeRequest;
use crate::protocol::width::Offset;
use crate::world::node::NodeState;
use crate::{System, SystemState};
use serde::{Deserialize, Serialize};
use stateright::actor::Id;
use std::collections::{BTreeMap, BTreeSet};

/// Ghost facts about transactional share acknowledgements (KIP-1289).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TxnAckGhost {
    /// What each attempt's TxnShareAcknowledge carried: the producer id and epoch it was
    /// staged with, and the offsets it acknowledged.
    pub staged: BTreeMap<Ghost<TxnTag>, StagedAck>,
    /// The transaction coordinator's decisions, by the producer id and epoch the
    /// transaction wrote with (its staging identity); under TV0/1 two transactions of one
    /// producer share it, and the later decision is kept.
    pub decided: BTreeMap<ProducerIdAndEpoch, TcDecision>,
    /// The transaction coordinator's decision for each attempt that staged acks or was the
    /// client's transaction when it was decided (commit = true).
    pub outcomes: BTreeMap<Ghost<TxnTag>, bool>,
    /// The first marker that resolved acks of another transaction, or left its own
    /// pending.
    pub marker_mismatch: Option<String>,
    /// An ABORT marker discarded staged acks.
    pub abort_discarded: bool,
    /// The share coordinator restarted while its log held pending acks.
    pub pending_across_restart: bool,
    /// The share coordinator's load left acks pending.
    pub reloaded_pending: bool,
    /// A marker resolved pending acks after a load left acks pending.
    pub resolved_after_restart: bool,
    /// A record whose transactional acknowledgement was aborted was delivered again.
    pub redelivered_after_abort: bool,
    /// Offsets a plain share consumer's acknowledgement ACCEPTed beside KIP-1289's clients
    /// (its state write completed): that consumer's processing of the record is committed,
    /// for `no_duplicate_processing`.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub plain_accepted: BTreeSet<Offset>,
    /// The first record a plain acknowledgement made terminal while a transaction's
    /// acknowledgement of it was pending at the share coordinator (S14).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled_while_staged: Option<String>,
    /// A record staged in a transaction that aborted was later made terminal by a plain
    /// acknowledgement: after the abort it was available again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub plain_after_abort: bool,
    /// The first plain acknowledgement (an implicit ACCEPT, a `close()` release) a member
    /// made of a record while its own transaction's acknowledgement of the record was
    /// pending, or that made it terminal after that transaction aborted (S14 on the
    /// KIP-1289 client itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_plain_while_staged: Option<String>,
}

/// What one attempt's TxnShareAcknowledge carried.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct StagedAck {
    /// The producer id and epoch the acks were written with.
    pub producer: ProducerIdAndEpoch,
    /// The offsets acknowledged.
    pub offsets: Vec<Offset>,
}

/// A decision of the transaction coordinator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TcDecision {
    /// The producer id and epoch its markers carry.
    pub marker: ProducerIdAndEpoch,
    /// COMMIT (true) or ABORT.
    pub commit: bool,
}

impl TxnAckGhost {
    /// Nothing recorded (always the case without KIP-1289).
    pub fn is_empty(&self) -> bool {
        *self == TxnAckGhost::default()
    }

    /// The transaction coordinator's decision for attempt `tag`, if it decided.
    pub fn outcome(&self, tag: Ghost<TxnTag>) -> Option<bool> {
        self.outcomes.get(&tag).copied()
    }

    /// The staging identities of the transactions whose markers are `marker`/`commit`.
    pub fn stagings_of(&self, marker: ProducerIdAndEpoch, commit: bool) -> Vec<ProducerIdAndEpoch> {
        self.decided
            .iter()
            .filter(|(_, d)| d.marker == marker && d.commit == commit)
            .map(|(s, _)| *s)
            .collect()
    }
}

/// A TxnShareAcknowledge was sent: what it stages, under which identity.
pub fn observe_staging(next: &mut SystemState, req: &TxnShareAcknowledgeRequest) {
    let staged = StagedAck {
        producer: req.producer,
        offsets: req.acks.iter().map(|a| a.offset).collect(),
    };
    if next.ghost.share.txn_acks.staged.get(&req.tag) != Some(&staged) {
        next.ghost.update(|g| {
            g.share.txn_acks.staged.insert(req.tag, staged);
        });
    }
}

/// The transaction coordinator stepped from `before` to `after`: record each transaction
/// it moved into PREPARE_COMMIT or PREPARE_ABORT, by the identity its writes carried.
pub fn observe_decision(
    sys: &System,
    before: &NodeState,
    after: &NodeState,
    next: &mut SystemState,
) {
    let (Some(b), Some(a)) = (before.txn_coordinator(), after.txn_coordinator()) else {
        return;
    };
    for (txn, meta) in &a.txns {
        if !meta.state.is_prepare() {
            continue;
        }
        let old = b.txns.get(txn);
        if old.is_some_and(|o| o.state.is_prepare()) {
            continue;
        }
        let staging = old.map_or(meta.pid, |o| o.pid);
        let staging = crate::protocol::msg::ProducerIdAndEpoch {
            pid: staging,
            epoch: old.map_or(meta.epoch, |o| o.epoch),
        };
        // KIP-939: a transaction kept across a new incarnation's epoch bump was staged
        // under the pair it began with, not the one that ends it.
        let staging = old.and_then(|o| o.kept).unwrap_or(staging);
        let marker = crate::protocol::msg::ProducerIdAndEpoch {
            pid: meta.pid,
            epoch: meta.epoch,
        };
        let commit = meta.state == crate::coordinator::txn_state::TransactionState::PrepareCommit;
        // The attempts this decision is for: those that staged under its identity and
        // were not decided before, and the client's transaction at that identity.
        let mut tags: BTreeSet<_> = next
            .ghost
            .share
            .txn_acks
            .staged
            .iter()
            .filter(|(t, s)| {
                s.producer == staging && !next.ghost.share.txn_acks.outcomes.contains_key(t)
            })
            .map(|(t, _)| *t)
            .collect();
        for id in &sys.topology.producers {
            if let Some(p) = next.node(*id).producer() {
                if let (Some(txn), Some(identity)) = (&p.manager.txn, p.manager.identity) {
                    if identity == staging {
                        tags.insert(txn.tag);
                    }
                }
            }
        }
        next.ghost.update(|g| {
            let acks = &mut g.share.txn_acks;
            acks.decided.insert(staging, TcDecision { marker, commit });
            for tag in tags {
                acks.outcomes.entry(tag).or_insert(commit);
            }
        });
    }
}

/// A marker was delivered to `id`, whose state was `before`: did it resolve exactly the
/// acknowledgements of its own transaction?
pub fn observe_marker(
    before: &NodeState,
    next: &mut SystemState,
    id: Id,
    marker: &WriteTxnMarkersRequest,
    name: &str,
) {
    let was: BTreeSet<PendingAck> = before.pending_acks().into_iter().collect();
    if was.is_empty() {
        return;
    }
    let now: BTreeSet<PendingAck> = next.node(id).pending_acks().into_iter().collect();
    let resolved: Vec<&PendingAck> = was.difference(&now).collect();
    let ghost = &next.ghost.share.txn_acks;
    let own = ghost.stagings_of(marker.producer, marker.commit);
    let kind = if marker.commit { "COMMIT" } else { "ABORT" };
    let mut mismatch = None;
    if !own.is_empty() {
        if let Some(other) = resolved.iter().find(|a| !own.contains(&a.producer)) {
            mismatch = Some(format!(
                "{kind} marker {:?}/{:?} at {name} resolved the ack of offset {} by {} staged at {:?}/{:?}, not its own transaction's (staged at {:?}/{:?})",
                marker.producer.pid,
                marker.producer.epoch,
                other.offset,
                other.tag,
                other.producer.pid,
                other.producer.epoch,
                own[0].pid,
                own[0].epoch
            ));
        } else if let Some(left) = now.iter().find(|a| {
            was.contains(a)
                && own.contains(&a.producer)
                && ghost.outcome(a.tag) == Some(marker.commit)
        }) {
            mismatch = Some(format!(
                "{kind} marker {:?}/{:?} at {name} left the ack of offset {} by {} (staged at {:?}/{:?}) pending",
                marker.producer.pid,
                marker.producer.epoch,
                left.offset,
                left.tag,
                left.producer.pid,
                left.producer.epoch
            ));
        }
    }
    let discarded = !marker.commit && !resolved.is_empty();
    let after_restart = ghost.reloaded_pending && !resolved.is_empty();
    let record = (mismatch.is_some() && ghost.marker_mismatch.is_none())
        || (discarded && !ghost.abort_discarded)
        || (after_restart && !ghost.resolved_after_restart);
    if record {
        next.ghost.update(|g| {
            let acks = &mut g.share.txn_acks;
            if acks.marker_mismatch.is_none() {
                acks.marker_mismatch = mismatch;
            }
            acks.abort_discarded |= discarded;
            acks.resolved_after_restart |= after_restart;
        });
    }
}

/// An actor restarted from `before` (its state when it crashed) to `after` (loaded).
pub fn observe_restart(before: &NodeState, after: &NodeState, next: &mut SystemState) {
    let across = !before.pending_acks().is_empty();
    let reloaded = !after.pending_acks().is_empty();
    let ghost = &next.ghost.share.txn_acks;
    if (across && !ghost.pending_across_restart) || (reloaded && !ghost.reloaded_pending) {
        next.ghost.update(|g| {
            g.share.txn_acks.pending_across_restart |= across;
            g.share.txn_acks.reloaded_pending |= reloaded;
        });
    }
}

/// The share-partition leader delivered `offset` again: was its acknowledgement aborted?
pub fn observe_acquired(next: &mut SystemState, offset: Offset) {
    let acks = &next.ghost.share.txn_acks;
    if acks.redelivered_after_abort {
        return;
    }
    let aborted = acks
        .staged
        .iter()
        .any(|(tag, s)| s.offsets.contains(&offset) && acks.outcome(*tag) == Some(false));
    if aborted {
        next.ghost
            .update(|g| g.share.txn_acks.redelivered_after_abort = true);
    }
}

/// A message delivered to `id` (whose state was `before`): a marker is judged by
/// [`observe_marker`].
pub(crate) fn observe_delivery(
    sys: &System,
    before: &NodeState,
    next: &mut SystemState,
    id: Id,
    msg: &Msg,
) {
    if let Msg::WriteTxnMarkers(marker) = msg {
        let name = sys.topology.name(id);
        observe_marker(before, next, id, marker, &name);
    }
}

/// A plain acknowledgement made `offset` terminal (`state`): it is a committed processing
/// when it ACCEPTed, a violation of S14 while a transaction holds the record's
/// acknowledgement pending, and the twin's witness when a transaction that staged it
/// aborted.
pub fn observe_plain_settled(
    sys: &System,
    next: &mut SystemState,
    offset: Offset,
    member: Option<MemberId>,
    state: crate::protocol::record_state::RecordState,
) {
    let pending = crate::history::txn_acks::pending_acks(sys, next)
        .into_iter()
        .find(|(_, a)| a.offset == offset);
    let acks = &next.ghost.share.txn_acks;
    let aborted = acks
        .staged
        .iter()
        .any(|(tag, s)| s.offsets.contains(&offset) && acks.outcome(*tag) == Some(false));
    // A processing of its own only for a plain share consumer: a KIP-1289 client's own
    // implicit ACCEPT settles the record its transaction processed (or failed to).
    let plain_member = member.is_none_or(|m| {
        sys.topology
            .member_actor(m)
            .is_some_and(|id| sys.topology.consumers.contains(&id))
    });
    let accepted =
        plain_member && state == crate::protocol::record_state::RecordState::Acknowledged;
    let new_accept = accepted && !acks.plain_accepted.contains(&offset);
    let new_violation = acks.settled_while_staged.is_none() && pending.is_some();
    let new_abort = aborted && !acks.plain_after_abort;
    let own_after_abort = (!plain_member && acks.own_plain_while_staged.is_none())
        .then(|| own_aborted(sys, acks, offset, member))
        .flatten();
    if !(new_accept || new_violation || new_abort || own_after_abort.is_some()) {
        return;
    }
    next.ghost.update(|g| {
        let acks = &mut g.share.txn_acks;
        if new_accept {
            acks.plain_accepted.insert(offset);
        }
        if let Some((_, a)) = pending.filter(|_| new_violation) {
            acks.settled_while_staged = Some(format!(
                "a plain acknowledgement made offset {offset} {state:?} while the acknowledgement staged by {} (delivery {}) was pending",
                a.tag, a.delivery_count
            ));
        }
        acks.plain_after_abort |= new_abort;
        if let Some(tag) = own_after_abort {
            acks.own_plain_while_staged = Some(format!(
                "a plain acknowledgement of its own made offset {offset} {state:?} after the transaction {tag} that staged it aborted: the abort did not make it available again"
            ));
        }
    });
}

/// The aborted attempt of `member`'s own client that staged `offset`, if any: its plain
/// acknowledgement settling the record is the one the abort should have prevented.
fn own_aborted(
    sys: &System,
    acks: &TxnAckGhost,
    offset: Offset,
    member: Option<MemberId>,
) -> Option<Ghost<TxnTag>> {
    let client = sys.topology.member_actor(member?)?;
    acks.staged
        .iter()
        .find(|(tag, s)| {
            s.offsets.contains(&offset)
                && acks.outcome(**tag) == Some(false)
                && sys.topology.client_of(TransactionalId(tag.open().client)) == Some(client)
        })
        .map(|(tag, _)| *tag)
}

/// A plain acknowledgement was applied to `acquisition`'s delivery of `offset`: a violation
/// of S14 when the acquiring member's own transaction holds the record's acknowledgement
/// pending (staged, its marker not yet applied), whatever the type: an ACCEPT settles the
/// record outside the transaction, a RELEASE hands it to the next poll while the
/// transaction may still commit it.
pub fn observe_own_plain_ack(
    sys: &System,
    next: &mut SystemState,
    offset: Offset,
    acquisition: crate::protocol::share_msg::DeliveryTag,
) {
    if next.ghost.share.txn_acks.own_plain_while_staged.is_some() {
        return;
    }
    let own = crate::history::txn_acks::pending_acks(sys, next)
        .into_iter()
        .find(|(_, a)| {
            a.offset == offset
                && sys
                    .topology
                    .client_of(TransactionalId(a.tag.open().client))
                    .and_then(|id| sys.topology.member_of(id))
                    == Some(acquisition.member)
        });
    if let Some((holder, a)) = own {
        let what = format!(
            "member {:?} acknowledged offset {offset} outside its transaction while the acknowledgement staged by {} was pending at {}",
            acquisition.member,
            a.tag,
            sys.topology.name(holder)
        );
        next.ghost
            .update(|g| g.share.txn_acks.own_plain_while_staged = Some(what));
    }
}
