//! When the share group's timers are due (see [`crate::world::timing`]): what each waits for can
//! no longer arrive. Otherwise a firing is early and costs the `timeouts` budget.

use crate::protocol::msg::Msg;
use crate::protocol::share_msg::Acknowledgement;
use crate::protocol::width::{Counter, Offset};
use crate::world::node::NodeState;
use crate::world::system::{System, SystemState};
use crate::world::timing::talking;
use stateright::actor::Id;

/// An acquisition lock is due when no acknowledgement of that acquisition can still reach
/// the leader: the holder crashed, stalled past its lock (a client choice), or holds the
/// record nowhere (its delivery or its acknowledgement was lost, or its session was reset).
/// While the acknowledgement's write is in progress the lock is not due: that race is the
/// write's timing against a 30 s lock. A lock on a record that is no longer ACQUIRED (the
/// KAFKA-19476 timer that was not cancelled) is due: nothing stops it.
pub fn lock_is_due(sys: &System, state: &SystemState, spl: Id, offset: Offset) -> bool {
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
        if let Some(reader) = crate::clients::source_reader::reader_of(sys, member) {
            let record = crate::protocol::share_msg::AcquiredRecord {
                offset,
                delivery_count: rec.delivery_count,
            };
            return crate::clients::source_reader::lock_is_due(state, spl, reader, record);
        }
        return ctp_lock_is_due(sys, state, spl, offset, rec.delivery_count);
    };
    if !state.is_up(consumer) {
        return true;
    }
    let count = rec.delivery_count;
    let acks_it = |acks: &[Acknowledgement]| {
        crate::history::deliveries::acknowledges_delivery(acks, offset, count)
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

/// A persister write is lost when the share coordinator is up and neither the write nor
/// its answer is in flight. While the coordinator is down the write waits for its restart
/// (the persister finds the new coordinator).
pub fn write_is_lost(sys: &System, state: &SystemState, spl: Id, write: Counter) -> bool {
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

/// A state read is lost when the share coordinator is up and neither the read nor its
/// answer is in flight.
pub fn read_is_lost(sys: &System, state: &SystemState, spl: Id) -> bool {
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

/// A consumer's request is lost when nothing is in flight between it and the leader and
/// the leader does not hold the request (waiting for its state, for records, or for the
/// write of the request's acknowledgements).
pub fn share_request_is_lost(sys: &System, state: &SystemState, consumer: Id) -> bool {
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

/// KIP-1289's consume-transform-produce client holds the record from the poll that
/// acquired it until its transaction ends: while it does (or the fetch answer is on its
/// way), the lock expiring is early (the client is slow: a `timeouts` fault); once the
/// transaction ended, the client stalled past the lock (a `stalls` choice), or it crashed
/// or gave up, nothing will acknowledge at the leader in time and expiry is due.
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
