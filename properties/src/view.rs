//! Read-only views of a `SystemState` that several properties share: where each write of a
//! client transaction attempt stands, and the partition logs.

use sharetxn_model::partition::partition_log::{PartitionLog, RecordStatus};
use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::{TopicPartition, TxnTag};
use sharetxn_model::protocol::msg::Msg;
use sharetxn_model::share::share_coordinator::ShareCoordinatorState;
use sharetxn_model::share::share_coordinator_txn::TxnAckStatus;
use sharetxn_model::world::node::NodeState;
use sharetxn_model::{System, SystemState};
use stateright::actor::Id;
use std::collections::BTreeSet;

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

/// The log of a transaction partition's leader.
pub fn log_of<'a>(
    sys: &System,
    state: &'a SystemState,
    tp: TopicPartition,
) -> Option<&'a PartitionLog> {
    leader_log(state.node(sys.topology.leader_of(tp)))
}

/// The log of a node that leads a transaction partition: an output partition or
/// `__consumer_offsets` (the group coordinator).
fn leader_log(node: &NodeState) -> Option<&PartitionLog> {
    node.data_partition()
        .map(|dp| &dp.log)
        .or_else(|| node.group_coordinator().map(|gc| &gc.log))
}

/// Every partition leader with its log, named.
pub fn logs<'a>(sys: &'a System, state: &'a SystemState) -> Vec<(String, Id, &'a PartitionLog)> {
    let mut out = Vec::new();
    let mut ids = vec![sys.topology.group_coordinator];
    ids.extend(sys.topology.partitions.iter().copied());
    for id in ids {
        if let Some(log) = leader_log(state.node(id)) {
            out.push((sys.topology.name(id), id, log));
        }
    }
    out
}

fn carries(msg: &Msg, tag: Ghost<TxnTag>, tp: TopicPartition) -> bool {
    match (msg, tp) {
        (Msg::Produce(p), TopicPartition::Output(i)) => p.record.tag == tag && p.partition == i,
        (Msg::TxnOffsetCommit(c), TopicPartition::ConsumerOffsets) => c.tag == tag,
        (Msg::TxnShareAcknowledge(c), TopicPartition::ShareGroupState) => c.tag == tag,
        _ => false,
    }
}

/// Whether a leader holds the write of attempt `tag` to `tp` parked for its KIP-890
/// verification.
fn parks(node: &NodeState, tag: Ghost<TxnTag>, tp: TopicPartition) -> bool {
    let data = node.data_partition().is_some_and(|dp| {
        dp.verifying
            .values()
            .any(|p| carries(&Msg::Produce(p.request.clone()), tag, tp))
    });
    let offsets = node.group_coordinator().is_some_and(|gc| {
        gc.verifying
            .values()
            .any(|p| carries(&Msg::TxnOffsetCommit(p.request.clone()), tag, tp))
    });
    let acks = node.share_coordinator().is_some_and(|sc| {
        sc.verifying
            .values()
            .any(|p| carries(&Msg::TxnShareAcknowledge(p.request.clone()), tag, tp))
    });
    data || offsets || acks
}

/// Every status the write of attempt `tag` to `tp` has (a record can be in a log more than
/// once only if deduplication failed; each copy counts).
pub fn write_statuses(
    sys: &System,
    state: &SystemState,
    tag: Ghost<TxnTag>,
    tp: TopicPartition,
) -> BTreeSet<WriteStatus> {
    let mut out = BTreeSet::new();
    if let Some(log) = log_of(sys, state, tp) {
        for (_, _, payload, status) in log.data() {
            if payload.tag() == tag {
                out.insert(match status {
                    RecordStatus::Committed => WriteStatus::Committed,
                    RecordStatus::Aborted => WriteStatus::Aborted,
                    RecordStatus::Pending => WriteStatus::Pending,
                });
            }
        }
    }
    if tp == TopicPartition::ShareGroupState {
        // KIP-1289: the share coordinator's pending and resolved acknowledgements stand in
        // for a partition log's records.
        if let Some(sc) = share_coordinator_txn_state(sys, state) {
            out.extend(
                sc.txn_ack_statuses(tag)
                    .into_iter()
                    .map(|status| match status {
                        TxnAckStatus::Committed => WriteStatus::Committed,
                        TxnAckStatus::Aborted => WriteStatus::Aborted,
                        TxnAckStatus::Pending => WriteStatus::Pending,
                    }),
            );
        }
    }
    if !out.is_empty() {
        return out;
    }
    let leader = sys.topology.leader_of(tp);
    let in_network = state.network.any(|_, _, msg| carries(msg, tag, tp));
    let parked = state.is_up(leader) && parks(state.node(leader), tag, tp);
    let held = sys.topology.txn_clients().any(|id| {
        state.is_up(id)
            && state
                .node(id)
                .txn_client()
                .is_some_and(|p| p.requests.values().any(|r| carries(&r.msg, tag, tp)))
    });
    out.insert(if in_network || parked || held {
        WriteStatus::InFlight
    } else {
        WriteStatus::Lost
    });
    out
}

/// The share coordinator's persisted share state, if the scenario has a share group.
pub fn share_coordinator_state<'a>(
    sys: &System,
    state: &'a SystemState,
) -> Option<&'a sharetxn_model::protocol::share_state::ShareState> {
    share_coordinator_txn_state(sys, state).map(|s| &s.state)
}

/// The persisted share state of the share partition that holds the model's offset
/// `offset` (`Scenario::share_offsets`), if the scenario has a share group.
pub fn share_coordinator_state_of<'a>(
    sys: &System,
    state: &'a SystemState,
    offset: sharetxn_model::protocol::width::Offset,
) -> Option<&'a sharetxn_model::protocol::share_state::ShareState> {
    share_coordinator_txn_state(sys, state)
        .map(|s| s.partition(sys.scenario.share_partition_of(offset)))
}

/// The state of the share-partition leader of the share partition that holds the model's
/// offset `offset`, if the scenario has a share group.
pub fn share_partition_state_of<'a>(
    sys: &System,
    state: &'a SystemState,
    offset: sharetxn_model::protocol::width::Offset,
) -> Option<&'a sharetxn_model::share::share_partition::SharePartitionState> {
    let partition = sys.scenario.share_partition_of(offset);
    let leader = current_leader(sys, state, partition)?;
    state.node(leader).share_partition()
}

/// The actor leading share partition `partition` now: in `spl-move`, the moved-in leader
/// (the metadata names it from the start), else the topology's leader.
pub fn current_leader(
    sys: &System,
    state: &SystemState,
    partition: u8,
) -> Option<stateright::actor::Id> {
    let moved = sys
        .topology
        .moved_share_partition
        .filter(|id| partition == 0 && state.node(*id).share_partition().is_some());
    moved.or_else(|| sys.topology.share_partition_leader(partition))
}

/// The share-partition leader's state, if the scenario has a share group.
pub fn share_partition_state<'a>(
    sys: &System,
    state: &'a SystemState,
) -> Option<&'a sharetxn_model::share::share_partition::SharePartitionState> {
    state.node(current_leader(sys, state, 0)?).share_partition()
}

/// The share coordinator's state, with its transactional (KIP-1289) part.
pub fn share_coordinator_txn_state<'a>(
    sys: &System,
    state: &'a SystemState,
) -> Option<&'a ShareCoordinatorState> {
    state
        .node(sys.topology.share_coordinator?)
        .share_coordinator()
}
