//! Where every write of every client transaction attempt stands in one state: built once
//! per state by [`crate::view::View`] and read by every property that asks.

use super::{leader_log, share_coordinator_txn_state};
use sharetxn_model::partition::partition_log::{LogEntry, PartitionLog};
use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::{PartitionIndex, ProducerId, TopicPartition, TxnTag};
use sharetxn_model::protocol::msg::{Msg, ProduceRequest, TxnOffsetCommitRequest};
use sharetxn_model::protocol::txn_share_msg::TxnShareAcknowledgeRequest;
use sharetxn_model::share::share_coordinator::ShareCoordinatorState;
use sharetxn_model::world::node::NodeState;
use sharetxn_model::{System, SystemState};
use smallvec::SmallVec;
use std::cell::Cell;

/// Where one write (an attempt's record on one partition) stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum WriteStatus {
    /// In the log, followed by a COMMIT marker of its producer.
    Committed,
    /// In the log, followed by an ABORT marker.
    Aborted,
    /// In the log with no marker yet.
    Pending,
    /// Not in the log, but a copy is in flight, parked for verification, or the client
    /// still holds it for a resend.
    InFlight,
    /// Not in the log and nowhere else: it can never be written.
    Lost,
}

/// Every status one write has: a set of [`WriteStatus`] (a record can be in a log more than
/// once only if deduplication failed; each copy counts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteStatuses(u8);

impl WriteStatuses {
    /// Whether the write has status `status`.
    pub fn contains(&self, status: &WriteStatus) -> bool {
        self.0 & WriteStatuses::bit(*status) != 0
    }

    /// Whether the write has no status yet (only while the set is being built).
    fn is_empty(&self) -> bool {
        self.0 == 0
    }

    fn insert(&mut self, status: WriteStatus) {
        self.0 |= WriteStatuses::bit(status);
    }

    fn bit(status: WriteStatus) -> u8 {
        1 << status as u8
    }
}

/// The statuses of every write the history knows (`History::writes`), sorted by attempt and
/// partition as the history keeps them.
pub struct WriteIndex(Vec<(Ghost<TxnTag>, TopicPartition, WriteStatuses)>);

impl WriteIndex {
    /// Where every write of `state`'s history stands: each partition log is read once, back
    /// to front, for all the attempts that wrote to it.
    pub fn of(sys: &System, state: &SystemState) -> WriteIndex {
        let writes = &state.ghost.writes;
        let mut entries = Vec::with_capacity(writes.values().map(|tps| tps.len()).sum());
        for (tag, tps) in writes {
            entries.extend(tps.iter().map(|tp| (*tag, *tp, WriteStatuses(0))));
        }
        let mut index = WriteIndex(entries);
        let outputs = (0..sys.topology.partitions.len())
            .map(|i| TopicPartition::Output(PartitionIndex(i as u8)));
        let tps = [
            TopicPartition::ConsumerOffsets,
            TopicPartition::ShareGroupState,
        ];
        for tp in tps.into_iter().chain(outputs) {
            if index.0.iter().any(|(_, p, _)| *p == tp) {
                if let Some(log) = leader_log(state.node(sys.topology.leader_of(tp))) {
                    index.read_log(log, tp);
                }
            }
        }
        if let Some(sc) = share_coordinator_txn_state(sys, state) {
            index.read_share_coordinator(sc);
        }
        for (tag, tp, statuses) in &mut index.0 {
            if statuses.is_empty() {
                statuses.insert(if in_flight(sys, state, *tag, *tp) {
                    WriteStatus::InFlight
                } else {
                    WriteStatus::Lost
                });
            }
        }
        index
    }

    /// The write of attempt `tag` to `tp`, if the history has it.
    fn entry(&mut self, tag: Ghost<TxnTag>, tp: TopicPartition) -> Option<&mut WriteStatuses> {
        let i = self
            .0
            .binary_search_by(|(t, p, _)| (*t, *p).cmp(&(tag, tp)))
            .ok()?;
        Some(&mut self.0[i].2)
    }

    /// Adds the `read_committed` status of every record in `tp`'s log to the write it
    /// belongs to: the first marker of its producer after it (`PartitionLog::status`), found
    /// walking back from the end with the latest marker of each producer seen so far.
    fn read_log(&mut self, log: &PartitionLog, tp: TopicPartition) {
        // A log has markers of a producer or two: kept inline, not allocated per state.
        let mut next_marker: SmallVec<[(ProducerId, bool); 4]> = SmallVec::new();
        for entry in log.entries.iter().rev() {
            match entry {
                LogEntry::Marker {
                    producer, commit, ..
                } => match next_marker.iter_mut().find(|(pid, _)| *pid == producer.pid) {
                    Some(marker) => marker.1 = *commit,
                    None => next_marker.push((producer.pid, *commit)),
                },
                LogEntry::Data {
                    producer, payload, ..
                } => {
                    let status = match next_marker.iter().find(|(pid, _)| *pid == producer.pid) {
                        Some((_, true)) => WriteStatus::Committed,
                        Some((_, false)) => WriteStatus::Aborted,
                        None => WriteStatus::Pending,
                    };
                    if let Some(statuses) = self.entry(payload.tag(), tp) {
                        statuses.insert(status);
                    }
                }
            }
        }
    }

    /// KIP-1289: the share coordinator's resolved and pending acknowledgements stand in for
    /// a partition log's records (`ShareCoordinatorState::txn_ack_statuses`).
    fn read_share_coordinator(&mut self, sc: &ShareCoordinatorState) {
        let tp = TopicPartition::ShareGroupState;
        for r in sc.resolved.open() {
            if let Some(statuses) = self.entry(r.acks.tag, tp) {
                statuses.insert(if r.commit {
                    WriteStatus::Committed
                } else {
                    WriteStatus::Aborted
                });
            }
        }
        for p in sc.pending.values() {
            if let Some(statuses) = self.entry(p.tag, tp) {
                statuses.insert(WriteStatus::Pending);
            }
        }
    }

    /// The statuses of the write of attempt `tag` to `tp` (none if the history has no such
    /// write). `next` is where the last lookup left off: properties mostly ask in the
    /// history's order, so the write asked for is usually the one after the last.
    pub fn get(&self, tag: Ghost<TxnTag>, tp: TopicPartition, next: &Cell<usize>) -> WriteStatuses {
        let at = match self.0.get(next.get()) {
            Some((t, p, _)) if *t == tag && *p == tp => Some(next.get()),
            _ => self
                .0
                .binary_search_by(|(t, p, _)| (*t, *p).cmp(&(tag, tp)))
                .ok(),
        };
        at.map_or(WriteStatuses(0), |i| {
            next.set(i + 1);
            self.0[i].2
        })
    }
}

/// Whether the write of attempt `tag` to `tp`, in no log, is still somewhere it can be
/// written from: in flight, parked at its leader, or held by its client for a resend.
fn in_flight(sys: &System, state: &SystemState, tag: Ghost<TxnTag>, tp: TopicPartition) -> bool {
    let leader = sys.topology.leader_of(tp);
    state.network.any(|_, _, msg| carries(msg, tag, tp))
        || (state.is_up(leader) && parks(state.node(leader), tag, tp))
        || sys.topology.txn_clients().any(|id| {
            state.is_up(id)
                && state
                    .node(id)
                    .txn_client()
                    .is_some_and(|p| p.requests.values().any(|r| carries(&r.msg, tag, tp)))
        })
}

fn carries(msg: &Msg, tag: Ghost<TxnTag>, tp: TopicPartition) -> bool {
    match msg {
        Msg::Produce(p) => produce_carries(p, tag, tp),
        Msg::TxnOffsetCommit(c) => offsets_carry(c, tag, tp),
        Msg::TxnShareAcknowledge(c) => acks_carry(c, tag, tp),
        _ => false,
    }
}

fn produce_carries(p: &ProduceRequest, tag: Ghost<TxnTag>, tp: TopicPartition) -> bool {
    matches!(tp, TopicPartition::Output(i) if p.record.tag == tag && p.partition == i)
}

fn offsets_carry(c: &TxnOffsetCommitRequest, tag: Ghost<TxnTag>, tp: TopicPartition) -> bool {
    tp == TopicPartition::ConsumerOffsets && c.tag == tag
}

fn acks_carry(c: &TxnShareAcknowledgeRequest, tag: Ghost<TxnTag>, tp: TopicPartition) -> bool {
    tp == TopicPartition::ShareGroupState && c.tag == tag
}

/// Whether a leader holds the write of attempt `tag` to `tp` parked for its KIP-890
/// verification.
fn parks(node: &NodeState, tag: Ghost<TxnTag>, tp: TopicPartition) -> bool {
    let data = node.data_partition().is_some_and(|dp| {
        dp.verifying
            .values()
            .any(|p| produce_carries(&p.request, tag, tp))
    });
    let offsets = node.group_coordinator().is_some_and(|gc| {
        gc.verifying
            .values()
            .any(|p| offsets_carry(&p.request, tag, tp))
    });
    let acks = node.share_coordinator().is_some_and(|sc| {
        sc.verifying
            .values()
            .any(|p| acks_carry(&p.request, tag, tp))
    });
    data || offsets || acks
}
