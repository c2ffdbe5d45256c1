//! `Node`: one enum over every actor kind, implementing stateright's `Actor`. Stateright's
//! `Choice` combinator does not forward `on_random`, so roles are a hand-written enum.
//! `Node` is the host every handler's `Out` is over ([`crate::protocol::output`]), and
//! [`NodeStorage`] wraps what each actor saves, its own type.

use crate::clients::committer::{Committer, CommitterState, CommitterStorage};
use crate::clients::external_participant::{ExternalParticipant, ExternalState};
use crate::clients::producer::{Producer, ProducerState, ProducerStorage};
use crate::clients::resume_writer::{ResumeWriter, ResumeWriterState};
use crate::clients::share_consumer::{ShareConsumer, ShareConsumerState};
use crate::clients::source_reader::{ReaderStorage, SourceReader, SourceReaderState};
use crate::coordinator::group_coordinator::{GroupCoordinator, GroupCoordinatorState};
use crate::coordinator::txn_coordinator::{TxnCoordinator, TxnCoordinatorState, TxnLog};
use crate::partition::data_partition::{DataPartition, DataPartitionState};
use crate::partition::leader::LeaderStorage;
use crate::protocol::msg::{ClientChoice, Msg, RequestKey, Timer};
use crate::protocol::share_msg::AcquiredRecord;
use crate::protocol::wait::{Duty, Held, Holding, Wait};
use crate::protocol::width::Epoch;
use crate::share::share_coordinator::{ShareCoordinator, ShareCoordinatorState, ShareRecord};
use crate::share::share_partition::{SharePartition, SharePartitionState, SharePartitionStorage};
use crate::world::observation::{push_nonempty, Observation};
use serde::{Deserialize, Serialize};
use stateright::actor::{Actor, Id, Out};
use std::borrow::Cow;

/// An actor of the closed world.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // each variant is the actor it names
pub enum Node {
    TxnCoordinator(TxnCoordinator),
    GroupCoordinator(GroupCoordinator),
    DataPartition(DataPartition),
    Producer(Producer),
    SharePartition(SharePartition),
    ShareCoordinator(ShareCoordinator),
    ShareConsumer(ShareConsumer),
    SourceReader(SourceReader),
    ResumeWriter(ResumeWriter),
    Committer(Committer),
    ExternalParticipant(ExternalParticipant),
}

/// An actor's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum NodeState {
    TxnCoordinator(TxnCoordinatorState),
    GroupCoordinator(GroupCoordinatorState),
    DataPartition(DataPartitionState),
    Producer(ProducerState),
    SharePartition(SharePartitionState),
    ShareCoordinator(ShareCoordinatorState),
    ShareConsumer(ShareConsumerState),
    SourceReader(Box<SourceReaderState>),
    ResumeWriter(Box<ResumeWriterState>),
    Committer(Box<CommitterState>),
    ExternalParticipant(ExternalState),
}

/// What survives a crash.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum NodeStorage {
    /// The `__transaction_state` log.
    TxnCoordinator(TxnLog),
    /// A partition leader's log (data partitions and `__consumer_offsets`).
    Leader(LeaderStorage),
    /// A client's incarnation number (a modelling device; clients are volatile).
    Producer {
        /// Which start of the process.
        incarnation: Epoch,
    },
    /// The share-partition leader's leader epoch (the partition's metadata, durable).
    SharePartition {
        /// The last leader epoch.
        leader_epoch: Epoch,
    },
    /// The `__share_group_state` log for the share partition's key.
    ShareCoordinator(Vec<ShareRecord>),
    /// A Flink source reader's checkpoint storage.
    SourceReader(ReaderStorage),
    /// The 2PC coordinator application's decision log.
    Committer(CommitterStorage),
    /// The external participant's log.
    ExternalParticipant(ExternalState),
}

/// Each actor saves its own storage type (`Saves<S>` in its handlers' bounds); the world
/// keeps them all in one [`NodeStorage`].
macro_rules! wraps {
    ($($from:ty => |$s:ident| $to:expr),* $(,)?) => {
        $(impl From<$from> for NodeStorage {
            fn from($s: $from) -> NodeStorage {
                $to
            }
        })*
    };
}

wraps! {
    TxnLog => |log| NodeStorage::TxnCoordinator(log),
    LeaderStorage => |leader| NodeStorage::Leader(leader),
    ProducerStorage => |s| NodeStorage::Producer { incarnation: s.incarnation },
    SharePartitionStorage => |s| NodeStorage::SharePartition { leader_epoch: s.leader_epoch },
    Vec<ShareRecord> => |log| NodeStorage::ShareCoordinator(log),
    ReaderStorage => |checkpoint| NodeStorage::SourceReader(checkpoint),
    CommitterStorage => |log| NodeStorage::Committer(log),
    ExternalState => |log| NodeStorage::ExternalParticipant(log),
}

impl NodeState {
    /// Drains what the last handler recorded for the history: table moves, share-group
    /// events, completed checkpoints. Empty (and unallocated) for most handlers.
    pub fn drain_observations(&mut self) -> Vec<Observation> {
        let mut out = Vec::new();
        match self {
            NodeState::TxnCoordinator(s) => {
                push_nonempty(&mut out, &mut s.transitions, Observation::TxnMoves)
            }
            NodeState::Producer(s) => manager_moves(&mut out, s),
            NodeState::SourceReader(r) => {
                manager_moves(&mut out, &mut r.acknowledger);
                push_nonempty(&mut out, &mut r.processed, Observation::Processed);
            }
            NodeState::ResumeWriter(w) => manager_moves(&mut out, &mut w.session),
            NodeState::Committer(c) => {
                if let Some(s) = c.session.as_mut() {
                    manager_moves(&mut out, s);
                }
            }
            NodeState::SharePartition(s) => {
                push_nonempty(&mut out, &mut s.transitions, Observation::RecordMoves);
                push_nonempty(&mut out, &mut s.events, Observation::ShareEvents);
            }
            _ => {}
        }
        out
    }
}

macro_rules! dispatch {
    ($self:ident, $state:ident, |$a:ident, $s:ident| $body:expr) => {
        match ($self, $state.to_mut()) {
            (Node::TxnCoordinator($a), NodeState::TxnCoordinator($s)) => $body,
            (Node::GroupCoordinator($a), NodeState::GroupCoordinator($s)) => $body,
            (Node::DataPartition($a), NodeState::DataPartition($s)) => $body,
            (Node::Producer($a), NodeState::Producer($s)) => $body,
            (Node::SharePartition($a), NodeState::SharePartition($s)) => $body,
            (Node::ShareCoordinator($a), NodeState::ShareCoordinator($s)) => $body,
            (Node::ShareConsumer($a), NodeState::ShareConsumer($s)) => $body,
            (Node::SourceReader($a), NodeState::SourceReader($s)) => $body,
            (Node::ResumeWriter($a), NodeState::ResumeWriter($s)) => $body,
            (Node::Committer($a), NodeState::Committer($s)) => $body,
            (Node::ExternalParticipant($a), NodeState::ExternalParticipant($s)) => $body,
            _ => unreachable!("actor and state kinds always match"),
        }
    };
}

impl Actor for Node {
    type Msg = Msg;
    type Timer = Timer;
    type State = NodeState;
    type Storage = NodeStorage;
    type Random = ClientChoice;

    fn on_start(&self, _id: Id, storage: &Option<NodeStorage>, o: &mut Out<Self>) -> NodeState {
        match self {
            Node::TxnCoordinator(a) => {
                let log = match storage {
                    Some(NodeStorage::TxnCoordinator(l)) => Some(l),
                    _ => None,
                };
                NodeState::TxnCoordinator(a.on_start(log, o))
            }
            Node::GroupCoordinator(a) => {
                NodeState::GroupCoordinator(a.on_start(leader_storage(storage), o))
            }
            Node::DataPartition(a) => {
                NodeState::DataPartition(a.on_start(leader_storage(storage), o))
            }
            Node::Producer(a) => {
                let incarnation = match storage {
                    Some(NodeStorage::Producer { incarnation }) => Some(*incarnation),
                    _ => None,
                };
                NodeState::Producer(a.on_start(incarnation, o))
            }
            Node::SharePartition(a) => {
                let epoch = match storage {
                    Some(NodeStorage::SharePartition { leader_epoch }) => Some(*leader_epoch),
                    _ => None,
                };
                NodeState::SharePartition(a.on_start(epoch, o))
            }
            Node::ShareCoordinator(a) => {
                let log = match storage {
                    Some(NodeStorage::ShareCoordinator(l)) => Some(l),
                    _ => None,
                };
                NodeState::ShareCoordinator(a.on_start(log, o))
            }
            Node::ShareConsumer(a) => NodeState::ShareConsumer(a.on_start(o)),
            Node::SourceReader(a) => {
                let stored = match storage {
                    Some(NodeStorage::SourceReader(r)) => Some(r),
                    _ => None,
                };
                NodeState::SourceReader(Box::new(a.on_start(stored, o)))
            }
            Node::ResumeWriter(a) => NodeState::ResumeWriter(Box::new(a.on_start(o))),
            Node::Committer(a) => {
                let stored = match storage {
                    Some(NodeStorage::Committer(c)) => Some(c),
                    _ => None,
                };
                NodeState::Committer(Box::new(a.on_start(stored, o)))
            }
            Node::ExternalParticipant(a) => {
                let stored = match storage {
                    Some(NodeStorage::ExternalParticipant(x)) => Some(x),
                    _ => None,
                };
                NodeState::ExternalParticipant(a.on_start(stored))
            }
        }
    }

    fn on_msg(&self, _id: Id, state: &mut Cow<NodeState>, src: Id, msg: Msg, o: &mut Out<Self>) {
        dispatch!(self, state, |a, s| a.on_msg(s, src, msg, o))
    }

    fn on_timeout(&self, _id: Id, state: &mut Cow<NodeState>, timer: &Timer, o: &mut Out<Self>) {
        match (self, state.to_mut()) {
            (Node::TxnCoordinator(a), NodeState::TxnCoordinator(s)) => a.on_timeout(s, *timer, o),
            (Node::Producer(a), NodeState::Producer(s)) => a.on_timeout(s, *timer, o),
            (Node::SharePartition(a), NodeState::SharePartition(s)) => a.on_timeout(s, *timer, o),
            (Node::ShareCoordinator(a), NodeState::ShareCoordinator(s)) => {
                a.on_timeout(s, *timer, o)
            }
            (Node::ShareConsumer(a), NodeState::ShareConsumer(s)) => a.on_timeout(s, *timer, o),
            (Node::DataPartition(a), NodeState::DataPartition(s)) => a.on_timeout(s, *timer, o),
            (Node::GroupCoordinator(a), NodeState::GroupCoordinator(s)) => {
                a.on_timeout(s, *timer, o)
            }
            (Node::SourceReader(a), NodeState::SourceReader(s)) => a.on_timeout(s, *timer, o),
            (Node::ResumeWriter(a), NodeState::ResumeWriter(s)) => a.on_timeout(s, *timer, o),
            (Node::Committer(a), NodeState::Committer(s)) => a.on_timeout(s, *timer, o),
            _ => {}
        }
    }

    fn on_random(
        &self,
        _id: Id,
        state: &mut Cow<NodeState>,
        random: &ClientChoice,
        o: &mut Out<Self>,
    ) {
        match (self, state.to_mut()) {
            (Node::Producer(a), NodeState::Producer(s)) => a.on_choice(s, *random, o),
            (Node::ShareConsumer(a), NodeState::ShareConsumer(s)) => a.on_choice(s, *random, o),
            (Node::SourceReader(a), NodeState::SourceReader(s)) => a.on_choice(s, *random, o),
            (Node::ResumeWriter(a), NodeState::ResumeWriter(s)) => a.on_choice(s, *random, o),
            (Node::Committer(a), NodeState::Committer(s)) => a.on_choice(s, *random, o),
            (Node::GroupCoordinator(a), NodeState::GroupCoordinator(s)) => {
                a.on_choice(s, *random, o)
            }
            _ => {}
        }
    }
}

fn leader_storage(storage: &Option<NodeStorage>) -> Option<&LeaderStorage> {
    match storage {
        Some(NodeStorage::Leader(l)) => Some(l),
        _ => None,
    }
}

/// The `TransactionManager` moves the last handler of a transactional client recorded.
fn manager_moves(out: &mut Vec<Observation>, s: &mut ProducerState) {
    push_nonempty(out, &mut s.manager.transitions, Observation::ManagerMoves);
}

/// The waiting seam: what each actor declares about its timers, the requests it holds,
/// and its restart policy, in its own file; [`crate::world::timing`] judges from these.
impl Node {
    /// What `timer`, armed in `state`, waits for.
    pub fn wait(&self, state: &NodeState, timer: &Timer) -> Wait {
        match (self, state) {
            (Node::TxnCoordinator(a), NodeState::TxnCoordinator(s)) => a.wait(s, timer),
            (Node::GroupCoordinator(a), NodeState::GroupCoordinator(s)) => a.wait(s, timer),
            (Node::DataPartition(a), NodeState::DataPartition(s)) => a.wait(s, timer),
            (Node::Producer(a), NodeState::Producer(s)) => a.wait(s, timer),
            (Node::SharePartition(a), NodeState::SharePartition(s)) => a.wait(s, timer),
            (Node::ShareCoordinator(a), NodeState::ShareCoordinator(s)) => a.wait(s, timer),
            (Node::ShareConsumer(a), NodeState::ShareConsumer(s)) => a.wait(s, timer),
            (Node::SourceReader(a), NodeState::SourceReader(s)) => a.wait(s, timer),
            (Node::ResumeWriter(a), NodeState::ResumeWriter(s)) => {
                a.session.wait(&s.session, timer)
            }
            (Node::Committer(a), NodeState::Committer(s)) => a.wait(s, timer),
            _ => Wait::Always,
        }
    }

    /// Whether this actor holds `held` from `from` unanswered (parked, loading).
    pub fn holds(&self, state: &NodeState, from: Id, held: &Held) -> bool {
        match (self, state) {
            (Node::TxnCoordinator(a), NodeState::TxnCoordinator(s)) => a.holds(s, from, held),
            (Node::GroupCoordinator(a), NodeState::GroupCoordinator(s)) => a.holds(s, from, held),
            (Node::SharePartition(a), NodeState::SharePartition(s)) => a.holds(s, from, held),
            (Node::ResumeWriter(a), NodeState::ResumeWriter(s)) => a.holds(s, held),
            _ => false,
        }
    }

    /// The KIP-890 verifications this leader runs for writes from `client`, each as what
    /// its timeout waits for.
    pub fn verifications_from(&self, state: &NodeState, client: Id) -> Vec<Wait> {
        match (self, state) {
            (Node::DataPartition(a), NodeState::DataPartition(s)) => {
                a.verifications_from(s, client)
            }
            (Node::GroupCoordinator(a), NodeState::GroupCoordinator(s)) => {
                a.verifications_from(s, client)
            }
            (Node::ShareCoordinator(a), NodeState::ShareCoordinator(s)) => {
                a.verifications_from(s, client)
            }
            _ => Vec::new(),
        }
    }

    /// Whether this client holds the share-group delivery `record`, if it is one that
    /// acquires records.
    pub fn acquisition(&self, state: &NodeState, record: AcquiredRecord) -> Holding {
        match (self, state) {
            (Node::ShareConsumer(a), NodeState::ShareConsumer(s)) => a.acquisition(s, record),
            (Node::SourceReader(a), NodeState::SourceReader(s)) => a.acquisition(s, record),
            (Node::Producer(a), NodeState::Producer(s)) => a.acquisition(s, record),
            _ => Holding::No,
        }
    }

    /// Whether this transactional client has given up `duty` for good.
    pub fn gone(&self, state: &NodeState, duty: Duty) -> bool {
        match (self, state) {
            (Node::Producer(a), NodeState::Producer(s)) => a.gone(s, duty),
            (Node::SourceReader(a), NodeState::SourceReader(s)) => {
                a.acknowledger.producer.gone(&s.acknowledger, duty)
            }
            (Node::ResumeWriter(a), NodeState::ResumeWriter(s)) => a.session.gone(&s.session, duty),
            (Node::Committer(a), NodeState::Committer(s)) => {
                s.session.as_ref().is_some_and(|p| a.session.gone(p, duty))
            }
            _ => false,
        }
    }

    /// Where this client's outstanding request `key` went (`NetworkClient` closes that
    /// connection when the request times out).
    pub fn request_destination(&self, state: &NodeState, key: RequestKey) -> Option<Id> {
        match (self, state) {
            (Node::Producer(a), NodeState::Producer(s)) => a.request_destination(s, key),
            (Node::ShareConsumer(a), NodeState::ShareConsumer(s)) => a.request_destination(s),
            (Node::SourceReader(a), NodeState::SourceReader(s)) => a.request_destination(s, key),
            (Node::ResumeWriter(a), NodeState::ResumeWriter(s)) => {
                a.session.request_destination(&s.session, key)
            }
            (Node::Committer(a), NodeState::Committer(s)) => a.request_destination(s, key),
            _ => None,
        }
    }

    /// Whether this actor, up in `state`, is restarted now by its own supervisor (a
    /// failover that is the application's reaction to a failure, not a fault).
    pub fn fails_over(&self, state: &NodeState) -> bool {
        match (self, state) {
            (Node::SourceReader(a), NodeState::SourceReader(s)) => a.fails_over(s),
            _ => false,
        }
    }
}
