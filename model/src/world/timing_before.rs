//! The due rule as it was before the waiting seam, kept only by this test: in every state
//! of small exhaustive runs, the declared waits give the same due timers, the same request
//! destinations and the same failovers.

#![allow(dead_code, clippy::all)]

use crate::clients::session_heartbeat::HeartbeatOwner;
use crate::coordinator::txn_coordinator::TxnCoordinator;
use crate::coordinator::txn_state::TxnManagerState;
use crate::design::kip939::AcknowledgerCommit;
use crate::partition::parked_write::Verifying;
use crate::protocol::error::ErrorCode;
use crate::protocol::ids::{MemberId, ProducerId, TransactionalId};
use crate::protocol::msg::{Msg, ProducerIdAndEpoch, RequestKey, Timer, VerificationGuard};
use crate::protocol::share_msg::{Acknowledgement, AcquiredRecord};
use crate::protocol::wait::carries_verification;
use crate::protocol::width::{Counter, Offset};
use crate::share::share_partition_txn::{answers_parked, has_unstaged, holds_reply};
use crate::world::node::NodeState;
use crate::world::system::{System, SystemState};
use stateright::actor::Id;

fn is_due(sys: &System, state: &SystemState, id: Id, timer: &Timer) -> bool {
    match timer {
        Timer::RequestTimeout(key) => request_is_lost(sys, state, id, *key),
        Timer::MarkerRetry(_) => marker_is_lost(sys, state, id),
        // Due once the transaction's own client is gone (down or failed for good): it
        // neither ends the transaction nor heartbeats for it.
        Timer::TxnHeartbeatExpiry(txn) => expiry_is_due(sys, state, *txn),
        Timer::TxnHeartbeat => heartbeat_is_due(sys, state, id),
        Timer::TxnTimeout(txn) => sys.topology.client_of(*txn).is_none_or(|p| {
            !state.is_up(p)
                || state
                    .node(p)
                    .txn_client()
                    .is_some_and(|s| s.tm == TxnManagerState::FatalError)
        }),
        Timer::AcquisitionLock(offset) => lock_is_due(sys, state, id, *offset),
        Timer::PersisterTimeout(write) => write_is_lost(sys, state, id, *write),
        Timer::ReadStateTimeout => read_is_lost(sys, state, id),
        Timer::StageRetry => stage_is_lost(sys, state, id),
        // `refresh()` is the leader's own re-read: nothing it waits for, so always due.
        Timer::TxnRefresh => true,
        Timer::ResolvedRetry => outcome_is_lost(state, id),
        Timer::VerificationTimeout(pid) => verification_is_lost(sys, state, id, *pid),
    }
}

fn talking(state: &SystemState, a: Id, b: Id) -> bool {
    state
        .network
        .any(|src, dst, _| (src == a && dst == b) || (src == b && dst == a))
}

fn request_is_lost(sys: &System, state: &SystemState, id: Id, key: RequestKey) -> bool {
    let node = state.node(id);
    if key == RequestKey::External {
        return sys
            .topology
            .externals
            .first()
            .is_none_or(|db| external_is_lost(state, id, *db));
    }
    if matches!(node, NodeState::ShareConsumer(_))
        || (key == RequestKey::Share && matches!(node, NodeState::SourceReader(_)))
    {
        return share_request_is_lost(sys, state, id);
    }
    let Some(p) = node.txn_client() else {
        return true;
    };
    let outstanding = match key {
        RequestKey::Coordinator => p.coordinator.as_ref(),
        _ => p.requests.get(&key),
    };
    let Some(req) = outstanding else {
        return true;
    };
    let dst = req.dst;
    if !state.is_up(dst) {
        return true;
    }
    let waiting = match state.node(dst) {
        NodeState::TxnCoordinator(tc) => tc.parked.iter().any(|(s, _)| *s == id),
        NodeState::GroupCoordinator(gc) => gc.waiting_fetches.contains(&id),
        // A ShareFetch waiting for the leader to load its state will be answered; a parked
        // one (no record available) is what `poll` timing out stands for.
        // A parked poll is an answer to the poll only: counting it for a staging would
        // hold the staging's timeout back while the poll waits for that very transaction
        // to end (found by the simulator on `proposed`: a lost TxnShareAcknowledgeResponse
        // next to a duplicated ShareFetch left the transaction open for ever).
        NodeState::SharePartition(sp) => {
            sp.loading.iter().any(|(s, _)| *s == id)
                || holds_reply(sp, id)
                || (key != RequestKey::TxnShareAcknowledge && answers_parked(sp, id))
        }
        _ => false,
    };
    !(talking(state, id, dst) || waiting || in_verification(sys, state, id, dst))
}

fn in_verification(sys: &System, state: &SystemState, client: Id, leader: Id) -> bool {
    state.is_up(leader)
        && parked_at(state, leader)
            .into_iter()
            .any(|(src, pid)| src == client && !verification_is_lost(sys, state, leader, pid))
}

fn parked_at(state: &SystemState, leader: Id) -> Vec<(Id, ProducerId)> {
    fn list<R>(v: &Verifying<R>) -> Vec<(Id, ProducerId)> {
        v.iter().map(|(pid, p)| (p.src, *pid)).collect()
    }
    match state.node(leader) {
        NodeState::DataPartition(s) => list(&s.verifying),
        NodeState::GroupCoordinator(s) => list(&s.verifying),
        NodeState::ShareCoordinator(s) => list(&s.verifying),
        _ => Vec::new(),
    }
}

fn verification_is_lost(sys: &System, state: &SystemState, leader: Id, pid: ProducerId) -> bool {
    let Some((producer, guard)) = verification_of(state, leader, pid) else {
        return true;
    };
    let tc = sys.topology.txn_coordinator;
    let held_at_tc = matches!(state.node(tc), NodeState::TxnCoordinator(s)
        if s.parked.iter().any(|(src, msg)| *src == leader && carries_verification(msg, producer, guard)));
    let sent = |from: Id, to: Id| {
        state.network.any(|src, dst, msg| {
            src == from && dst == to && carries_verification(msg, producer, guard)
        })
    };
    // An answer already sent arrives even if the coordinator has crashed since.
    !(sent(tc, leader) || (state.is_up(tc) && (held_at_tc || sent(leader, tc))))
}

fn verification_of(
    state: &SystemState,
    leader: Id,
    pid: ProducerId,
) -> Option<(ProducerIdAndEpoch, VerificationGuard)> {
    match state.node(leader) {
        NodeState::DataPartition(s) => s.verifying.get(&pid).map(|p| (p.producer, p.guard)),
        NodeState::GroupCoordinator(s) => s.verifying.get(&pid).map(|p| (p.producer, p.guard)),
        NodeState::ShareCoordinator(s) => s.verifying.get(&pid).map(|p| (p.producer, p.guard)),
        _ => None,
    }
}

fn marker_is_lost(sys: &System, state: &SystemState, tc: Id) -> bool {
    let NodeState::TxnCoordinator(s) = state.node(tc) else {
        return true;
    };
    s.markers.values().any(|pending| {
        pending.partitions.iter().any(|tp| {
            let leader = sys.topology.leader_of(*tp);
            !state.is_up(leader)
                || !state.network.any(|_, _, msg| {
                    matches!(msg, Msg::WriteTxnMarkers(m) if m.partition == *tp && m.producer == pending.producer)
                        || matches!(msg, Msg::WriteTxnMarkersResponse(m) if m.partition == *tp && m.producer == pending.producer)
                })
        })
    })
}

fn lock_is_due(sys: &System, state: &SystemState, spl: Id, offset: Offset) -> bool {
    let NodeState::SharePartition(s) = state.node(spl) else {
        return true;
    };
    let Some(rec) = s.records.get(&offset) else {
        return true;
    };
    if rec.state != crate::protocol::record_state::RecordState::Acquired {
        return true;
    }
    if rec.ongoing.is_some() {
        return false;
    }
    let Some(member) = rec.member else {
        return true;
    };
    let Some(consumer) = sys.topology.consumers.get(usize::from(member.0)).copied() else {
        if let Some(reader) = reader_of(sys, member) {
            let record = crate::protocol::share_msg::AcquiredRecord {
                offset,
                delivery_count: rec.delivery_count,
            };
            return reader_lock_is_due(state, spl, reader, record);
        }
        return ctp_lock_is_due(sys, state, spl, offset, rec.delivery_count);
    };
    if !state.is_up(consumer) {
        return true;
    }
    let count = rec.delivery_count;
    let acks_it = |acks: &[Acknowledgement]| {
        acks.iter()
            .any(|a| a.offset == offset && a.tag.delivery_count == count)
    };
    let carries = |msg: &Msg| match msg {
        Msg::ShareFetchResponse(r) => r
            .acquired
            .iter()
            .any(|a| a.offset == offset && a.delivery_count == count),
        Msg::ShareFetch(q) => acks_it(&q.acks),
        Msg::ShareAcknowledge(q) => acks_it(&q.acks),
        _ => false,
    };
    if let NodeState::ShareConsumer(c) = state.node(consumer) {
        let holds = c
            .delivered
            .iter()
            .any(|d| d.offset == offset && d.delivery_count == count);
        if holds && !c.stalled {
            return false;
        }
        if holds {
            return true;
        }
    }
    let in_flight = state.network.any(|src, dst, msg| {
        ((src == spl && dst == consumer) || (src == consumer && dst == spl)) && carries(msg)
    });
    let waiting = s
        .loading
        .iter()
        .any(|(src, msg)| *src == consumer && carries(msg));
    !(in_flight || waiting)
}

fn write_is_lost(sys: &System, state: &SystemState, spl: Id, write: Counter) -> bool {
    let NodeState::SharePartition(s) = state.node(spl) else {
        return true;
    };
    let Some(sc) = sys.topology.share_coordinator else {
        return true;
    };
    if !s.writes.contains_key(&write) {
        return true;
    }
    let epoch = s.leader_epoch;
    state.is_up(sc)
        && !state.network.any(|_, _, msg| match msg {
            Msg::WriteShareGroupState(w) => w.leader_epoch == epoch && w.write == write,
            Msg::WriteShareGroupStateResponse(w) => w.leader_epoch == epoch && w.write == write,
            _ => false,
        })
}

fn read_is_lost(sys: &System, state: &SystemState, spl: Id) -> bool {
    let NodeState::SharePartition(s) = state.node(spl) else {
        return true;
    };
    let Some(sc) = sys.topology.share_coordinator else {
        return true;
    };
    let epoch = s.leader_epoch;
    s.loaded
        || state.is_up(sc)
            && !state.network.any(|_, _, msg| match msg {
                Msg::ReadShareGroupState(r) => r.leader_epoch == epoch,
                Msg::ReadShareGroupStateResponse(r) => r.leader_epoch == epoch,
                _ => false,
            })
}

fn share_request_is_lost(sys: &System, state: &SystemState, consumer: Id) -> bool {
    let Some(c) = state.node(consumer).share_consumer() else {
        return true;
    };
    if c.in_flight.is_none() {
        return true;
    }
    let Some(spl) = sys.topology.share_partition else {
        return true;
    };
    if talking(state, consumer, spl) {
        return false;
    }
    if !state.is_up(spl) {
        return true;
    }
    let NodeState::SharePartition(s) = state.node(spl) else {
        return true;
    };
    let held = s.loading.iter().any(|(src, _)| *src == consumer)
        || s.parked.iter().any(|(src, _, _)| *src == consumer)
        || s.writes
            .values()
            .any(|w| w.reply.as_ref().is_some_and(|r| r.src == consumer));
    !held
}

fn ctp_lock_is_due(sys: &System, state: &SystemState, spl: Id, offset: Offset, count: u8) -> bool {
    let record = crate::protocol::share_msg::AcquiredRecord {
        offset,
        delivery_count: count,
    };
    !sys.topology.producers.iter().any(|p| {
        let NodeState::Producer(c) = state.node(*p) else {
            return false;
        };
        let holds = c
            .share
            .as_ref()
            .is_some_and(|sh| sh.fetched == Some(record) && !sh.stalled);
        let arriving = state.network.any(|src, dst, msg| {
            src == spl
                && dst == *p
                && matches!(msg, Msg::ShareFetchResponse(r) if r.acquired.contains(&record))
        });
        state.is_up(*p)
            && c.tm != crate::coordinator::txn_state::TxnManagerState::FatalError
            && (holds || arriving)
    })
}

fn stage_is_lost(sys: &System, state: &SystemState, spl: Id) -> bool {
    let crate::world::node::NodeState::SharePartition(s) = state.node(spl) else {
        return true;
    };
    let Some(sc) = sys.topology.share_coordinator else {
        return true;
    };
    !has_unstaged(s)
        || state.is_up(sc)
            && !state.network.any(|src, dst, msg| {
                matches!(
                    msg,
                    Msg::TxnShareAcknowledge(_) | Msg::TxnShareAcknowledgeResponse(_)
                ) && ((src == spl && dst == sc) || (src == sc && dst == spl))
            })
}

fn outcome_is_lost(state: &SystemState, sc: Id) -> bool {
    let crate::world::node::NodeState::ShareCoordinator(s) = state.node(sc) else {
        return true;
    };
    let in_flight = |leader: Id, producer: ProducerIdAndEpoch| {
        state.network.any(|src, dst, msg| match msg {
            Msg::TxnShareAcksResolved(q) => src == sc && dst == leader && q.producer == producer,
            Msg::TxnShareAcksResolvedResponse(r) => {
                src == leader && dst == sc && r.producer == producer
            }
            _ => false,
        })
    };
    let held = |leader: Id, producer: ProducerIdAndEpoch| {
        matches!(state.node(leader), crate::world::node::NodeState::SharePartition(p)
            if p.loading.iter().any(|(_, m)| matches!(m, Msg::TxnShareAcksResolved(q) if q.producer == producer)))
    };
    s.outbox.is_empty()
        || s.outbox.values().any(|r| {
            state.is_up(r.leader)
                && !in_flight(r.leader, r.request.producer)
                && !held(r.leader, r.request.producer)
        })
}

fn heartbeat_is_due(sys: &System, state: &SystemState, id: Id) -> bool {
    let Some(p) = state.node(id).txn_client() else {
        return false;
    };
    let (Some(pair), Some(txn)) = (p.identity, txn_of(sys, id)) else {
        return false;
    };
    let tc = sys.topology.txn_coordinator;
    if !heartbeating(p.tm) || !state.is_up(tc) {
        return false;
    }
    let in_flight = state.network.any(|src, dst, msg| {
        matches!(msg, Msg::TxnHeartbeat(_) | Msg::TxnHeartbeatResponse(_))
            && ((src == id && dst == tc) || (src == tc && dst == id))
    });
    if in_flight {
        return false;
    }
    let NodeState::TxnCoordinator(s) = state.node(tc) else {
        return false;
    };
    s.txns.get(&txn).is_none_or(|meta| {
        let error = TxnCoordinator::check_producer(meta, pair);
        error != ErrorCode::None && !error.is_retriable()
    })
}

fn expiry_is_due(sys: &System, state: &SystemState, txn: TransactionalId) -> bool {
    sys.topology.client_of(txn).is_none_or(|p| {
        !state.is_up(p)
            || state.node(p).txn_client().is_some_and(|s| {
                s.tm == TxnManagerState::FatalError
                    || (sys.design.heartbeat_owner == HeartbeatOwner::Producer
                        && s.share.as_ref().is_some_and(|sh| sh.stalled))
            })
    })
}

fn txn_of(sys: &System, id: Id) -> Option<TransactionalId> {
    sys.topology
        .txn_clients()
        .position(|c| c == id)
        .map(|i| TransactionalId(i as u8))
}

fn external_is_lost(state: &SystemState, id: Id, external: Id) -> bool {
    !talking(state, id, external)
}

fn reader_lock_is_due(state: &SystemState, spl: Id, reader: Id, record: AcquiredRecord) -> bool {
    let NodeState::SourceReader(r) = state.node(reader) else {
        return true;
    };
    if !state.is_up(reader) || r.acknowledger.tm == TxnManagerState::FatalError {
        return true;
    }
    let holds = r
        .pending
        .iter()
        .chain(&r.committing)
        .chain(&r.restored)
        .chain(&r.snapshotting)
        .any(|a| a.offset == record.offset && a.tag.delivery_count == record.delivery_count);
    let arriving = state.network.any(|src, dst, msg| {
        src == spl
            && dst == reader
            && matches!(msg, Msg::ShareFetchResponse(f) if f.acquired.contains(&record))
    });
    !(holds || arriving)
}

fn fails_over(sys: &System, state: &SystemState, id: Id) -> bool {
    sys.design.acknowledger_commit == AcknowledgerCommit::TwoPhase
        && state.is_up(id)
        && matches!(state.node(id), NodeState::SourceReader(r)
            if r.acknowledger.tm == TxnManagerState::FatalError)
}

fn reader_of(sys: &System, member: MemberId) -> Option<Id> {
    sys.topology
        .member_actor(member)
        .filter(|id| sys.topology.readers.contains(id))
}

fn request_destination(sys: &System, state: &SystemState, id: Id, key: RequestKey) -> Option<Id> {
    match state.node(id) {
        NodeState::Producer(p) => match key {
            RequestKey::Coordinator => p.coordinator.as_ref().map(|r| r.dst),
            _ => p.requests.get(&key).map(|r| r.dst),
        },
        NodeState::ShareConsumer(c) => c.in_flight.as_ref().and(sys.topology.share_partition),
        NodeState::ResumeWriter(w) => match key {
            RequestKey::Coordinator => w.session.coordinator.as_ref().map(|r| r.dst),
            _ => w.session.requests.get(&key).map(|r| r.dst),
        },
        NodeState::Committer(c) => match (key, c.session.as_ref()) {
            (RequestKey::External, _) => sys.topology.externals.first().copied(),
            (RequestKey::Coordinator, Some(p)) => p.coordinator.as_ref().map(|r| r.dst),
            (_, Some(p)) => p.requests.get(&key).map(|r| r.dst),
            (_, None) => None,
        },
        NodeState::SourceReader(r) => match key {
            RequestKey::Share => r
                .consumer
                .in_flight
                .as_ref()
                .and(sys.topology.share_partition),
            RequestKey::Coordinator => r.acknowledger.coordinator.as_ref().map(|q| q.dst),
            _ => r.acknowledger.requests.get(&key).map(|q| q.dst),
        },
        _ => None,
    }
}

fn heartbeating(tm: TxnManagerState) -> bool {
    matches!(
        tm,
        TxnManagerState::InTransaction | TxnManagerState::AbortableError
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::Design;
    use crate::world::scenario::Scenario;
    use std::collections::{HashSet, VecDeque};

    /// Breadth-first over at most `cap` states, comparing both rules in each.
    fn compare(design: &str, scenario: &str, cap: usize) -> (usize, Vec<String>) {
        let sys = System::new(
            Design::by_name(design).unwrap(),
            Scenario::by_name(scenario).unwrap(),
        );
        let init = sys.init_state();
        let mut seen = HashSet::new();
        let mut queue = VecDeque::from([init.clone()]);
        seen.insert(init);
        let mut diffs = Vec::new();
        let mut actions = Vec::new();
        let mut visited = 0;
        while let Some(state) = queue.pop_front() {
            visited += 1;
            for (i, timers) in state.timers.iter().enumerate() {
                let id = Id::from(i);
                for t in timers.iter() {
                    let (old, new) = (is_due(&sys, &state, id, t), sys.timer_is_due(&state, id, t));
                    if old != new && diffs.len() < 5 {
                        diffs.push(format!(
                            "{design}/{scenario}: {} {t:?}: before {old}, now {new}\n{state:?}",
                            sys.topology.name(id)
                        ));
                    }
                    if let Timer::RequestTimeout(key) = t {
                        let old = request_destination(&sys, &state, id, *key);
                        let new = sys.actors[i].request_destination(state.node(id), *key);
                        if old != new && diffs.len() < 5 {
                            diffs.push(format!(
                                "{design}/{scenario}: {} {key:?} went to {old:?}, now {new:?}",
                                sys.topology.name(id)
                            ));
                        }
                    }
                }
                let (old, new) = (fails_over(&sys, &state, id), sys.fails_over(&state, id));
                if old != new && diffs.len() < 5 {
                    diffs.push(format!(
                        "{design}/{scenario}: {} fails over {old}, now {new}",
                        sys.topology.name(id)
                    ));
                }
            }
            if seen.len() >= cap {
                continue;
            }
            actions.clear();
            sys.enabled(&state, &mut actions);
            for a in &actions {
                let next = sys.step(&state, a);
                if seen.len() < cap && seen.insert(next.clone()) {
                    queue.push_back(next);
                }
            }
        }
        (visited, diffs)
    }

    #[test]
    fn declared_waits_agree_with_the_rule_before() {
        let cap: usize = std::env::var("SHARETXN_WAIT_CAP")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(20_000);
        let mut all = Vec::new();
        for scenario in crate::world::scenario::SCENARIO_NAMES {
            for design in ["consumer-offsets", "seed", "draft", "proposed"] {
                let (n, diffs) = compare(design, scenario, cap);
                eprintln!(
                    "{design}/{scenario}: {n} states, {} differences",
                    diffs.len()
                );
                all.extend(diffs);
            }
        }
        assert!(all.is_empty(), "{}", all.join("\n\n"));
    }
}
