//! A read-only view of one `SystemState` that every property judging it shares: the
//! parts several properties read (the partition logs, where each write of a client
//! transaction attempt stands, the applied transactional acknowledgements, quiescence) are
//! built once per state, on first use, instead of once per property; and lookups of the
//! share-group actors' states.

mod writes;

pub use writes::{WriteStatus, WriteStatuses};

use sharetxn_model::history::txn_acks::{applied_acks, AppliedAck};
use sharetxn_model::partition::partition_log::PartitionLog;
use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::{TopicPartition, TxnTag};
use sharetxn_model::share::share_coordinator::ShareCoordinatorState;
use sharetxn_model::world::node::NodeState;
use sharetxn_model::{System, SystemState};
use stateright::actor::Id;
use std::cell::{Cell, OnceCell};
use writes::WriteIndex;

/// One state as the properties judge it: the system and the state, with the parts several
/// properties read built at most once. A caller builds one per state and passes it to every
/// property it judges there; a property reads `sys` and `state` directly, and the shared
/// parts through the methods.
pub struct View<'a> {
    /// The closed world the state belongs to.
    pub sys: &'a System,
    /// The state judged.
    pub state: &'a SystemState,
    logs: OnceCell<Vec<(Id, &'a PartitionLog)>>,
    writes: OnceCell<WriteIndex>,
    /// Where the last lookup in `writes` left off.
    next_write: Cell<usize>,
    applied: OnceCell<Vec<(Id, AppliedAck)>>,
    quiescent: OnceCell<bool>,
}

impl<'a> View<'a> {
    /// A view of `state`; nothing is built until a property asks.
    pub fn new(sys: &'a System, state: &'a SystemState) -> View<'a> {
        View {
            sys,
            state,
            logs: OnceCell::new(),
            writes: OnceCell::new(),
            next_write: Cell::new(0),
            applied: OnceCell::new(),
            quiescent: OnceCell::new(),
        }
    }

    /// Every partition leader with its log: the group coordinator's `__consumer_offsets`
    /// first, then the output partitions. Name one with [`View::name`].
    pub fn logs(&self) -> &[(Id, &'a PartitionLog)] {
        self.logs.get_or_init(|| {
            let (sys, state) = (self.sys, self.state);
            std::iter::once(sys.topology.group_coordinator)
                .chain(sys.topology.partitions.iter().copied())
                .filter_map(|id| leader_log(state.node(id)).map(|log| (id, log)))
                .collect()
        })
    }

    /// An actor's name, for a violation's message (built only when one is written).
    pub fn name(&self, id: Id) -> String {
        self.sys.topology.name(id)
    }

    /// Every status the write of attempt `tag` to `tp` has, for a write the history
    /// records (`History::writes`); the statuses of every such write are found together,
    /// on the first call.
    pub fn write_statuses(&self, tag: Ghost<TxnTag>, tp: TopicPartition) -> WriteStatuses {
        self.writes
            .get_or_init(|| WriteIndex::of(self.sys, self.state))
            .get(tag, tp, &self.next_write)
    }

    /// Every transactional acknowledgement applied to share state, with the actor that
    /// applied it (`txn_acks::applied_acks`).
    pub fn applied_acks(&self) -> &[(Id, AppliedAck)] {
        self.applied
            .get_or_init(|| applied_acks(self.sys, self.state))
    }

    /// Whether the state is quiescent (`System::is_quiescent`), where the liveness
    /// properties are judged.
    pub fn is_quiescent(&self) -> bool {
        *self
            .quiescent
            .get_or_init(|| self.sys.is_quiescent(self.state))
    }
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

/// Whether an admin has reset the share group's start offset (scenario field `resets`,
/// docs/kafka-cases.md S20): the group coordinator's share state epoch moved on from 0,
/// where every run starts. A reset forgets the share state by its meaning (to offset 0 it
/// delivers processed records again, to the log end it skips unprocessed ones), so the
/// properties whose promise it withdraws are scoped to runs without one (docs/properties.md,
/// "Offset resets"); `stale_acks_fenced` judges what a reset must not do.
pub fn share_group_reset(sys: &System, state: &SystemState) -> bool {
    state
        .node(sys.topology.group_coordinator)
        .group_coordinator()
        .is_some_and(|g| g.share_state_epoch > 0)
}
