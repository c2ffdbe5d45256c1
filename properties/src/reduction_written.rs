//! The first hand-written declarations of a persistent-set reduction: which requests each
//! actor of KIP-1289's consume-transform-produce loop may still send to an actor `a`
//! before `a` acts, read from the state. Answers need none (`docs/checker.md`, "How many
//! states a reduction could spare"): each is to a request of its recipient's, so it
//! comes only where one is owed. [`crate::reduction_sizing::Rule::Written`] sizes them
//! against the ceiling, and [`Graph::undeclared`] tests them on the whole graph: every
//! request an actor sends on an empty connection before its recipient acts must be
//! declared here. [`timers_may_move`] declares when an actor's due timers may change
//! before it acts, tested the same way by [`Graph::undeclared_timers`].
//!
//! They are written for the loop's actors as `ctp` runs them with `proposed`'s knobs
//! (one client, one output partition, one share partition, TV2 verification, stagings
//! through the share-partition leader, outcomes notified to it, a flush before EndTxn):
//! [`declared_for`] says where they apply, and elsewhere every actor may send anything. They read only the actors' states, the
//! messages in flight and the armed timers, as a reduction deciding from the state would.
//! Each rule says which Kafka behaviour it restates; each is an over-approximation, and
//! the graph test is what shows it is one.

use crate::reduction_graph::{bit, Graph};
use sharetxn_model::clients::transaction_manager::{Outstanding, TransactionManager};
use sharetxn_model::coordinator::txn_state::TransactionState;
use sharetxn_model::protocol::msg::{Msg, RequestKey, Timer};
use sharetxn_model::protocol::wait::Wait;
use sharetxn_model::share::share_coordinator::ShareRecord;
use sharetxn_model::world::scenario::Role;
use sharetxn_model::world::timing;
use sharetxn_model::{Design, Scenario, System, SystemState};
use stateright::actor::Id;

/// Whether the declarations apply to `sys`: `proposed` with its knobs as they are, on
/// `ctp` as it is but for its number of records (one client, one output partition, one
/// share partition, a share-coordinator crash). Another knob or scenario field (a
/// `--set`) is another protocol or another world, which they were neither written for
/// nor tested on.
pub fn declared_for(sys: &System) -> bool {
    let ctp = Scenario {
        records: sys.scenario.records,
        ..Scenario::ctp()
    };
    sys.scenario == ctp && sys.design == Design::proposed()
}

/// The request connections into `a` (bits of [`bit`]) that may get a message before `a`
/// acts in `s`: every connection into `a` where the declarations do not apply.
pub fn requests_into(sys: &System, s: &SystemState, a: usize) -> u128 {
    if !declared_for(sys) {
        let all = (0..sys.actors.len()).filter(|x| *x != a);
        return all.fold(0, |b, x| b | bit(x, a, false));
    }
    declared_requests_into(sys, s, a)
}

/// [`requests_into`] where the declarations apply (`declared_for`, which the caller
/// has decided once for the whole search).
pub(crate) fn declared_requests_into(sys: &System, s: &SystemState, a: usize) -> u128 {
    let all = (0..sys.actors.len()).filter(|x| *x != a);
    let (aid, t) = (Id::from(a), &sys.topology);
    all.filter(|x| {
        let x = Id::from(*x);
        if x == t.txn_coordinator {
            coordinator_may(sys, s, aid)
        } else if t.partitions.contains(&x) {
            aid == t.txn_coordinator && partition_may_verify(sys, s, x)
        } else if t.txn_clients().any(|c| c == x) {
            client_may(sys, s, x, aid)
        } else if Some(x) == t.share_coordinator {
            share_coordinator_may(sys, s, x, aid)
        } else if Some(x) == t.share_partition {
            Some(aid) == t.share_coordinator && leader_may(sys, s, x)
        } else {
            // The group coordinator only answers.
            x != t.group_coordinator
        }
    })
    .fold(0, |b, x| b | bit(x, a, false))
}

/// Whether a message from `src` to `dst` is in flight.
fn flying(s: &SystemState, src: Id, dst: Id) -> bool {
    s.network.any_from(src, dst, |_| true)
}

/// Whether `m` is a TxnShareAcknowledge: the client's acknowledgements to stage, to the
/// share-partition leader, or the leader's staging of them, to the share coordinator.
fn is_staging(m: &Msg) -> bool {
    matches!(m, Msg::TxnShareAcknowledge(_))
}

/// Whether a message to `dst` that `is` picks is in flight.
fn flying_to(s: &SystemState, dst: Id, is: impl Fn(&Msg) -> bool) -> bool {
    s.network.any(|_, to, m| to == dst && is(m))
}

/// Whether client `c` (its `TransactionManager` `m`) awaits an answer from `peer` that
/// is not in flight: to its coordinator request, or to a request `pick` picks among its
/// others.
fn awaits(
    s: &SystemState,
    c: Id,
    m: &TransactionManager,
    peer: Id,
    pick: fn(&Msg) -> bool,
) -> bool {
    let coordinator = m.coordinator.as_ref().is_some_and(|o| o.dst == peer);
    let other = m.requests.values().any(|o| o.dst == peer && pick(&o.msg));
    (coordinator || other) && !flying(s, peer, c)
}

/// Any request.
fn any_msg(_: &Msg) -> bool {
    true
}

/// The client (`TransactionManager` and the application's loop around it): it sends
/// the transaction coordinator one request at a time (`TransactionManager`'s in-flight
/// request), and sends the share-partition leader and the output partition nothing new
/// while a request to them is unanswered (`ShareConsumer.poll` and `commitTransaction`,
/// which flushes, wait for them). So no request to `a` while its request to `a` is
/// unanswered (no answer in flight), nor, to the coordinator, while its
/// TxnShareAcknowledge's staging still needs the coordinator's verification (EndTxn waits
/// for that answer). It never sends to the share coordinator, nor to the group
/// coordinator when acknowledging to a share group instead of committing offsets.
fn client_may(sys: &System, s: &SystemState, c: Id, a: Id) -> bool {
    let t = &sys.topology;
    let targets = a == t.txn_coordinator
        || Some(a) == t.share_partition
        || t.partitions.contains(&a)
        || (a == t.group_coordinator && t.share_partition.is_none());
    let Some(m) = s.node(c).txn_client() else {
        return targets;
    };
    if !targets || m.done {
        return false;
    }
    if !s.is_up(c) {
        return true;
    }
    let blocked = awaits(s, c, m, a, any_msg);
    if a == t.txn_coordinator {
        return !blocked && !staging_waits_on(sys, s, c, a) && !produce_waits_on(sys, s, c);
    }
    !blocked
}

/// Whether the client awaits the answer to its TxnShareAcknowledge, and the staging still
/// needs `who` to act: the share coordinator, which has it (in flight to the leader or to
/// it, or verifying), or the transaction coordinator, whose verification of it
/// (`AddPartitionsToTxn` from the share coordinator, KIP-890) is not answered yet.
fn staging_waits_on(sys: &System, s: &SystemState, c: Id, who: Id) -> bool {
    let (Some(sp), Some(sc)) = (sys.topology.share_partition, sys.topology.share_coordinator)
    else {
        return false;
    };
    let Some(m) = s.node(c).txn_client() else {
        return false;
    };
    let answered =
        flying_to(s, sp, |m| matches!(m, Msg::TxnShareAcknowledgeResponse(_))) || !s.is_up(sc);
    if !awaits(s, c, m, sp, is_staging) || answered {
        return false;
    }
    let verifying = s
        .node(sc)
        .share_coordinator()
        .is_some_and(|st| !st.verifying.is_empty());
    let ahead = flying_to(s, sp, is_staging) || flying_to(s, sc, is_staging);
    let needs_sc = ahead || verifying;
    if who == sys.topology.txn_coordinator {
        needs_sc && !flying(s, who, sc)
    } else {
        who == sc && needs_sc
    }
}

/// Whether the client awaits the answer to a Produce that its leader cannot give before
/// the transaction coordinator verifies it (KIP-890: the leader appends a transaction's
/// first write to it only once `AddPartitionsToTxn` answers): the Produce is in flight to
/// the leader or held there, and the coordinator's answer is not in flight. EndTxn waits
/// for the Produce's answer (`flush_before_end_txn`).
fn produce_waits_on(sys: &System, s: &SystemState, c: Id) -> bool {
    let tc = sys.topology.txn_coordinator;
    let Some(m) = s.node(c).txn_client() else {
        return false;
    };
    m.requests.values().any(|o| {
        let leader = o.dst;
        let held = s
            .node(leader)
            .data_partition()
            .is_some_and(|d| !d.verifying.is_empty());
        matches!(o.msg, Msg::Produce(_))
            && !flying(s, leader, c)
            && (flying_to(s, leader, |m| matches!(m, Msg::Produce(_))) || held)
            && !flying(s, tc, leader)
    })
}

/// Whether the client may send EndTxn before `p` acts: it is up and neither awaits `p`'s
/// answer nor a staging that needs `p`.
fn client_may_end_before(sys: &System, s: &SystemState, p: Id) -> bool {
    sys.topology.txn_clients().any(|c| {
        let Some(m) = s.node(c).txn_client() else {
            return true;
        };
        !s.is_up(c) || (!awaits(s, c, m, p, any_msg) && !staging_waits_on(sys, s, c, p))
    })
}

/// The transaction coordinator sends only WriteTxnMarkers, to the leaders of a
/// transaction's partitions (`TransactionMarkerChannelManager`). For an ongoing
/// transaction they follow EndTxn (in flight, parked behind markers, or a timeout's
/// abort) or the client's EndTxn to come, which to the share coordinator comes only once
/// it staged the transaction's acknowledgements ([`acks_staged`]); once prepared, they
/// went out with the step that prepared it, and go again only on a retry (a marker-retry
/// timer) or to a leader that is down.
fn coordinator_may(sys: &System, s: &SystemState, a: Id) -> bool {
    use TransactionState::*;
    let tc = sys.topology.txn_coordinator;
    let Some(st) = s.node(tc).txn_coordinator() else {
        return true;
    };
    if !s.is_up(tc) {
        return true;
    }
    let timers = s.timers[usize::from(tc)].iter();
    let timeout = timers.clone().any(|t| matches!(t, Timer::TxnTimeout(_)));
    let retries = timers.clone().any(|t| {
        let wait = || sys.actors[usize::from(tc)].wait(s.node(tc), t);
        !matches!(t, Timer::TxnTimeout(_))
            && (timing::is_due(sys, s, tc, t) || may_be_cut(sys, s, &wait()))
    });
    let ending = flying_to(s, tc, |m| matches!(m, Msg::EndTxn(_))) || !st.parked.is_empty();
    let leads =
        |tps: &std::collections::BTreeSet<_>| tps.iter().any(|tp| sys.topology.leader_of(*tp) == a);
    let staged = Some(a) != sys.topology.share_coordinator || acks_staged(sys, s);
    let ongoing = st.txns.values().any(|m| {
        matches!(m.state, Ongoing | PrepareEpochFence)
            && leads(&m.partitions)
            && (ending || timeout || (staged && client_may_end_before(sys, s, a)))
    });
    let pending = st.markers.values().any(|m| leads(&m.partitions));
    ongoing || (pending && (retries || !s.is_up(a)))
}

/// Whether the share coordinator has staged acknowledgements, or answered a staging: the
/// client flushes before EndTxn (`flush_before_end_txn`), and its TxnShareAcknowledge is
/// answered only once the share coordinator staged it, so without that no EndTxn of a
/// transaction that acknowledges can come before the share coordinator acts.
fn acks_staged(sys: &System, s: &SystemState) -> bool {
    let (Some(sp), Some(sc)) = (sys.topology.share_partition, sys.topology.share_coordinator)
    else {
        return true;
    };
    let pending = s
        .node(sc)
        .share_coordinator()
        .is_none_or(|st| !st.pending.is_empty());
    let answered = sys.topology.txn_clients().any(|c| flying(s, sp, c));
    !sys.design.flush_before_end_txn
        || pending
        || answered
        || flying_to(s, sp, |m| matches!(m, Msg::TxnShareAcknowledgeResponse(_)))
}

/// An output partition's leader sends only the verification of a transactional Produce to
/// the transaction coordinator (`AddPartitionsToTxnManager`, KIP-890): for a Produce in
/// flight to it, or one the client may still send before the coordinator acts (it has not
/// written in this transaction yet, or its EndTxn is answered, and it does not await the
/// coordinator).
fn partition_may_verify(sys: &System, s: &SystemState, leader: Id) -> bool {
    if !s.is_up(leader) || flying_to(s, leader, |m| matches!(m, Msg::Produce(_))) {
        return true;
    }
    let tc = sys.topology.txn_coordinator;
    sys.topology.txn_clients().any(|c| {
        let Some(m) = s.node(c).txn_client() else {
            return true;
        };
        if !s.is_up(c) {
            return true;
        }
        if m.done {
            return false;
        }
        let answered = flying(s, tc, c);
        let blocked = m.coordinator.as_ref().is_some_and(|o| o.dst == tc) && !answered;
        let ending = |o: &Outstanding| matches!(o.msg, Msg::EndTxn(_));
        let ended = m.coordinator.as_ref().is_some_and(ending) && answered;
        let written = m.txn.as_ref().is_some_and(|t| t.writes_issued);
        !blocked && (!written || ended)
    })
}

/// The share coordinator sends the transaction coordinator the verification of a staging
/// (KIP-1289 on KIP-890's `AddPartitionsToTxn`), and the share-partition leader the
/// outcomes of its stagings (`notify`'s TxnShareAcksResolved): the first for a staging in
/// flight to it or to the leader, held by it, or that the leader or the client may still
/// send (a leader's timer, a leader loading, the client's AddShareAcksToTxn answered);
/// the second after a crash and reload of a log with resolved outcomes, for markers in
/// flight to it or still to come from the coordinator, or outcomes its leader has not
/// acknowledged.
fn share_coordinator_may(sys: &System, s: &SystemState, sc: Id, a: Id) -> bool {
    let t = &sys.topology;
    let Some(st) = s.node(sc).share_coordinator() else {
        return true;
    };
    if a == t.txn_coordinator {
        let Some(sp) = t.share_partition else {
            return true;
        };
        let resend = s.timers[usize::from(sp)]
            .iter()
            .any(|t| matches!(t, Timer::StageRetry));
        let leader_stages = resend
            || s.node(sp)
                .share_partition()
                .is_none_or(|l| !l.loading.is_empty() || !l.loaded);
        let client_stages = t.txn_clients().any(|c| {
            s.node(c).txn_client().is_some_and(|m| {
                let adding = |o: &Outstanding| matches!(o.msg, Msg::AddShareAcksToTxn(_));
                m.coordinator.as_ref().is_some_and(adding) && flying(s, a, c)
            })
        });
        return flying_to(s, sc, is_staging)
            || flying_to(s, sp, is_staging)
            || leader_stages
            || client_stages;
    }
    if Some(a) == t.share_partition {
        // A reload replays the log into the outbox: every outcome a marker resolved is
        // sent again.
        let resolved = st
            .log
            .iter()
            .any(|r| matches!(r, ShareRecord::TxnMarker { .. }));
        return ((s.budget.crashes > 0 || !s.is_up(sc)) && resolved)
            || flying_to(s, sc, |m| matches!(m, Msg::WriteTxnMarkers(_)))
            || !st.outbox.is_empty()
            || coordinator_may(sys, s, sc);
    }
    false
}

/// The share-partition leader sends the share coordinator its state reads and writes and
/// the stagings it forwards (`Persister`, KIP-1289): while it loads or holds requests
/// until it has, on a timer (a resend), for a staging or an outcome in flight to it, or
/// for a TxnShareAcknowledge the client may still send (it does not await the answer to
/// one).
fn leader_may(sys: &System, s: &SystemState, sp: Id) -> bool {
    let Some(l) = s.node(sp).share_partition() else {
        return true;
    };
    let client_stages = sys.topology.txn_clients().any(|c| {
        let staging = |m: &TransactionManager| !m.done && !awaits(s, c, m, sp, is_staging);
        s.node(c).txn_client().is_none_or(staging)
    });
    !s.is_up(sp)
        || !l.loaded
        || !l.loading.is_empty()
        || !s.timers[usize::from(sp)].is_empty()
        || flying_to(s, sp, |m| {
            matches!(
                m,
                Msg::TxnShareAcknowledge(_) | Msg::TxnShareAcksResolved(_)
            )
        })
        || client_stages
}

/// Whether `a`'s due timers may change before it acts: which of its armed timers other
/// actors' steps can make due, or no longer due (`model/src/world/timing.rs`: a timer is
/// due once what it awaits can no longer arrive).
/// - The share-partition leader's StageRetry follows the share coordinator's own
///   verification of the staging with the transaction coordinator, which either of them
///   may settle, and the client's request timeout of a ShareFetch the leader parks (a long
///   poll, due once no record can come) follows what the others do with the records: both
///   may always change.
/// - A request timeout, a persister or state-read timeout and a marker retry await an
///   answer that a live peer always gives (`Down` in `protocol/wait.rs`): they become due
///   only if a crash cuts the exchange, directly or through a peer's own request, so they
///   may change only while a crash may still cut it (`may_be_cut`).
/// - Any other timer is the actor's own schedule or awaits nothing another actor can take
///   away here.
///
/// Where the declarations do not apply, or drops or early timeouts are left, any armed
/// timer may change.
pub fn timers_may_move(sys: &System, s: &SystemState, a: usize) -> bool {
    if !declared_for(sys) || s.budget.timeouts > 0 || s.budget.drops > 0 {
        return !s.timers[a].is_empty();
    }
    declared_timers_may_move(sys, s, a)
}

/// [`timers_may_move`] where the declarations apply and no drop or early timeout is
/// left (decided by the caller once for the whole search).
pub(crate) fn declared_timers_may_move(sys: &System, s: &SystemState, a: usize) -> bool {
    s.timers[a].iter().any(|t| timer_may_move(sys, s, a, t))
}

/// Whether timer `t` of `a` may become due, or stop being due, before `a` acts, where
/// the declarations apply and no drop or early timeout is left ([`timers_may_move`]).
fn timer_may_move(sys: &System, s: &SystemState, a: usize, t: &Timer) -> bool {
    match t {
        Timer::StageRetry | Timer::RequestTimeout(RequestKey::Share) => true,
        Timer::RequestTimeout(_)
        | Timer::PersisterTimeout(_)
        | Timer::ReadStateTimeout
        | Timer::MarkerRetry(_) => {
            let node = &sys.actors[a];
            may_be_cut(sys, s, &node.wait(s.node(Id::from(a)), t))
        }
        _ => false,
    }
}

/// Whether a crash may still cut the exchange `wait` awaits: its peer may crash (a crash
/// is left and its role is crashable) or is down, or its peer is the share-partition
/// leader while the share coordinator may crash or is down (the leader holds its
/// clients' requests while it loads from, writes to or stages at the share coordinator).
/// A client or an acquisition waited on may always be.
fn may_be_cut(sys: &System, s: &SystemState, wait: &Wait) -> bool {
    let t = &sys.topology;
    let exposed = |p: Id| {
        !s.is_up(p) || (s.budget.crashes > 0 && sys.scenario.crashable.contains(&t.role(p)))
    };
    match wait {
        Wait::Always | Wait::Never => false,
        Wait::Reply(r) => {
            exposed(r.peer)
                || (Some(r.peer) == t.share_partition && t.share_coordinator.is_some_and(exposed))
        }
        Wait::Any(waits) => waits.iter().any(|w| may_be_cut(sys, s, w)),
        Wait::Client { .. } | Wait::Acquisition { .. } => true,
    }
}

/// Whether the steps of `a`'s enabled actions in `s`, which put messages on the
/// connections `sends` (bits of [`bit`]), commute with every step another actor may take
/// before `a` acts (the order of two steps of different actors changes nothing else,
/// `docs/checker.md`, "Steps that commute"):
/// - no crash is in `a`'s set (a crash loses what is in flight to the actor, so a step
///   that sends to it and the crash reach different states in the two orders), and none
///   of its steps sends to an actor that may still crash;
/// - while another actor may still crash, none of its steps completes a commit (the
///   history's `commit_after_fault` records a commit after a fault: the crash first
///   sets it, the commit first does not);
/// - no armed timer of another actor that may change (as [`timers_may_move`] has it per
///   timer) awaits `a`, directly or through a verification `a` runs for it: `a`'s step
///   would decide whether it is due (a staging retry follows the share coordinator's
///   answer).
///
/// Where the declarations do not apply, or drops, duplicates or early timeouts are left
/// (each shares the scenario's budget with the others), nothing is declared to commute.
pub fn commutes(sys: &System, s: &SystemState, a: usize, (sends, commits): (u128, bool)) -> bool {
    let b = &s.budget;
    if !declared_for(sys) || b.timeouts > 0 || b.drops > 0 || b.duplicates > 0 {
        return false;
    }
    declared_commutes_in_state(sys, s, a) && declared_commutes_by_steps(sys, s, a, (sends, commits))
}

/// Whether `actor` may still crash in `s`: a crash is left and its role is crashable.
fn may_crash(sys: &System, s: &SystemState, actor: usize) -> bool {
    s.budget.crashes > 0
        && sys
            .scenario
            .crashable
            .contains(&sys.topology.role(Id::from(actor)))
}

/// What of [`commutes`] reads the state alone, where the declarations apply and no drop,
/// duplicate or early timeout is left (decided by the caller once for the whole search):
/// `a` may not crash, and no armed timer of another actor that may change awaits `a`.
pub(crate) fn declared_commutes_in_state(sys: &System, s: &SystemState, a: usize) -> bool {
    if may_crash(sys, s, a) && s.is_up(Id::from(a)) {
        return false;
    }
    !(0..sys.actors.len()).filter(|x| *x != a).any(|x| {
        s.timers[x].iter().any(|t| {
            let wait = sys.actors[x].wait(s.node(Id::from(x)), t);
            timer_may_move(sys, s, x, t) && awaits_through(sys, &wait, Id::from(a))
        })
    })
}

/// What of [`commutes`] reads the set's steps, where [`declared_commutes_in_state`]
/// reads the state: no commit while another actor may crash, and nothing sent to an
/// actor that may.
pub(crate) fn declared_commutes_by_steps(
    sys: &System,
    s: &SystemState,
    a: usize,
    (sends, commits): (u128, bool),
) -> bool {
    let n = sys.actors.len();
    let to = |x: usize| bit(a, x, false) | bit(a, x, true);
    let crash_left = (0..n).any(|x| x != a && may_crash(sys, s, x));
    if commits && crash_left {
        return false;
    }
    !(0..n).any(|x| x != a && may_crash(sys, s, x) && sends & to(x) != 0)
}

/// Whether the step from `s` to `next`, of actor `a`, completes a commit: the
/// transaction coordinator moves a transaction from PrepareCommit to CompleteCommit.
pub fn completes_commit(s: &SystemState, next: &SystemState, a: usize) -> bool {
    use TransactionState::*;
    coordinator_moves(s, next, a, |from, to| {
        from == Some(PrepareCommit) && to == CompleteCommit
    })
}

/// Whether the step from `s` to `next`, of actor `a`, moves one of the transaction
/// coordinator's transactions as `moved` says, given its state before (`None` if it had
/// none) and after.
pub(crate) fn coordinator_moves(
    s: &SystemState,
    next: &SystemState,
    a: usize,
    moved: impl Fn(Option<TransactionState>, TransactionState) -> bool,
) -> bool {
    let id = Id::from(a);
    let (Some(b), Some(n)) = (
        s.node(id).txn_coordinator(),
        next.node(id).txn_coordinator(),
    ) else {
        return false;
    };
    n.txns
        .iter()
        .any(|(t, m)| moved(b.txns.get(t).map(|o| o.state), m.state))
}

/// Whether what `wait` awaits goes through `a`: `a` is the peer, or verifies the request
/// for the peer (the transaction coordinator, for a leader's or coordinator's KIP-890
/// verification), or holds the client or the acquisition waited on.
fn awaits_through(sys: &System, wait: &Wait, a: Id) -> bool {
    let t = &sys.topology;
    match wait {
        Wait::Always | Wait::Never => false,
        Wait::Reply(r) => {
            let verifies = matches!(
                t.role(r.peer),
                Role::DataPartition | Role::GroupCoordinator | Role::ShareCoordinator
            );
            r.peer == a || (r.held.is_some() && verifies && a == t.txn_coordinator)
        }
        Wait::Any(waits) => waits.iter().any(|w| awaits_through(sys, w, a)),
        Wait::Client { client, .. } => *client == a,
        Wait::Acquisition { .. } => Some(a) == t.share_partition || t.txn_clients().any(|c| c == a),
    }
}

impl Graph {
    /// Per actor: the states where its due timers change on some path before it acts
    /// while `declared` (by state and actor) says they cannot. Sound declarations leave
    /// none.
    pub fn undeclared_timers(&self, declared: impl Fn(usize, usize) -> bool) -> Vec<usize> {
        let exact = self.timers_move.get_or_init(|| self.timer_moves());
        let missed = |a: usize| {
            let moves = (0..self.states()).filter(|s| exact[a][*s] && !declared(*s, a));
            moves.count()
        };
        (0..self.actors).map(missed).collect()
    }

    /// Per actor: the states where it sends a request on an empty connection to another
    /// actor before that one acts, on some path, which `declared` (the request connections
    /// into each actor, by state) does not declare. Sound declarations leave none.
    pub fn undeclared(&self, declared: impl Fn(usize, usize) -> u128) -> Vec<usize> {
        let mut missed = vec![0; self.actors];
        for b in 0..self.actors {
            let sends = self.sends_before(b);
            for (s, sent) in sends.iter().enumerate() {
                let missing = sent & !self.held[s] & !declared(s, b);
                for (x, m) in missed.iter_mut().enumerate() {
                    *m += usize::from(x != b && missing & bit(x, b, false) != 0);
                }
            }
        }
        missed
    }
}
