//! The world's view into each actor's state: one accessor per actor kind, so the history,
//! the properties and the tests read an actor's state without matching [`NodeState`]'s
//! variants (only the world, which defines the enum, does).

use crate::clients::committer::CommitterState;
use crate::clients::external_participant::ExternalState;
use crate::clients::producer::ProducerState;
use crate::clients::resume_writer::ResumeWriterState;
use crate::clients::share_consumer::ShareConsumerState;
use crate::clients::source_reader::SourceReaderState;
use crate::clients::transaction_manager::TransactionManager;
use crate::coordinator::group_coordinator::GroupCoordinatorState;
use crate::coordinator::txn_coordinator::TxnCoordinatorState;
use crate::partition::data_partition::DataPartitionState;
use crate::share::share_coordinator::ShareCoordinatorState;
use crate::share::share_partition::SharePartitionState;
use crate::world::node::NodeState;

/// Output partition leaders ([`crate::partition`]).
impl NodeState {
    /// The state of an output partition's leader.
    pub fn data_partition(&self) -> Option<&DataPartitionState> {
        match self {
            NodeState::DataPartition(dp) => Some(dp),
            _ => None,
        }
    }

    /// The state of an output partition's leader, to change (a test planting a broken
    /// leader's log).
    pub fn data_partition_mut(&mut self) -> Option<&mut DataPartitionState> {
        match self {
            NodeState::DataPartition(dp) => Some(dp),
            _ => None,
        }
    }
}

/// The coordinators ([`crate::coordinator`]).
impl NodeState {
    /// The state of the transaction coordinator.
    pub fn txn_coordinator(&self) -> Option<&TxnCoordinatorState> {
        match self {
            NodeState::TxnCoordinator(tc) => Some(tc),
            _ => None,
        }
    }

    /// The state of the transaction coordinator, to change (a test planting a broken
    /// coordinator's table).
    pub fn txn_coordinator_mut(&mut self) -> Option<&mut TxnCoordinatorState> {
        match self {
            NodeState::TxnCoordinator(tc) => Some(tc),
            _ => None,
        }
    }

    /// The state of the group coordinator (the `__consumer_offsets` partition's leader).
    pub fn group_coordinator(&self) -> Option<&GroupCoordinatorState> {
        match self {
            NodeState::GroupCoordinator(gc) => Some(gc),
            _ => None,
        }
    }

    /// The state of the group coordinator, to change (a test planting a pending
    /// transactional offset commit in its log).
    pub fn group_coordinator_mut(&mut self) -> Option<&mut GroupCoordinatorState> {
        match self {
            NodeState::GroupCoordinator(gc) => Some(gc),
            _ => None,
        }
    }
}

/// The share group's leader and coordinator ([`crate::share`]).
impl NodeState {
    /// The state of the share coordinator.
    pub fn share_coordinator(&self) -> Option<&ShareCoordinatorState> {
        match self {
            NodeState::ShareCoordinator(sc) => Some(sc),
            _ => None,
        }
    }

    /// The state of the share coordinator, to change (a test planting a stored state).
    pub fn share_coordinator_mut(&mut self) -> Option<&mut ShareCoordinatorState> {
        match self {
            NodeState::ShareCoordinator(sc) => Some(sc),
            _ => None,
        }
    }

    /// The state of the share-partition leader.
    pub fn share_partition(&self) -> Option<&SharePartitionState> {
        match self {
            NodeState::SharePartition(sp) => Some(sp),
            _ => None,
        }
    }
}

/// The clients ([`crate::clients`]).
impl NodeState {
    /// The `TransactionManager` of a transactional client: a producer, the acknowledger
    /// inside a source reader, the 2PC writer's or the committer's session.
    pub fn txn_client(&self) -> Option<&TransactionManager> {
        self.txn_client_state().map(|p| &p.manager)
    }

    /// The `TransactionManager` of a client on a KIP-1310 `TransactionSession`.
    pub fn session_client(&self) -> Option<&TransactionManager> {
        self.txn_client_state()
            .filter(|p| p.role.session().is_some())
            .map(|p| &p.manager)
    }

    fn txn_client_state(&self) -> Option<&ProducerState> {
        match self {
            NodeState::Producer(p) => Some(p),
            NodeState::SourceReader(r) => Some(&r.acknowledger),
            NodeState::ResumeWriter(w) => Some(&w.session),
            NodeState::Committer(c) => c.session.as_ref(),
            _ => None,
        }
    }

    /// The state of a `ShareConsumer`: a share consumer's, or a source reader's.
    pub fn share_consumer(&self) -> Option<&ShareConsumerState> {
        match self {
            NodeState::ShareConsumer(c) => Some(c),
            NodeState::SourceReader(r) => Some(&r.consumer),
            _ => None,
        }
    }

    /// The state of a plain transactional producer (not a client embedding one).
    pub fn producer(&self) -> Option<&ProducerState> {
        match self {
            NodeState::Producer(p) => Some(p),
            _ => None,
        }
    }

    /// The state of a Flink source reader.
    pub fn source_reader(&self) -> Option<&SourceReaderState> {
        match self {
            NodeState::SourceReader(r) => Some(r),
            _ => None,
        }
    }

    /// The state of the 2PC writer of scenario `session-resume`.
    pub fn resume_writer(&self) -> Option<&ResumeWriterState> {
        match self {
            NodeState::ResumeWriter(w) => Some(w),
            _ => None,
        }
    }

    /// The state of KIP-939's 2PC committer application.
    pub fn committer(&self) -> Option<&CommitterState> {
        match self {
            NodeState::Committer(c) => Some(c),
            _ => None,
        }
    }

    /// The state of KIP-939's external participant (the database).
    pub fn external_participant(&self) -> Option<&ExternalState> {
        match self {
            NodeState::ExternalParticipant(x) => Some(x),
            _ => None,
        }
    }
}
