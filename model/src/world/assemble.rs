//! Assembles the actors of a closed world from a design, a scenario and its topology, in
//! the order the topology numbers them: the transaction coordinator, the group
//! coordinator, the data partitions, the producers, the share group (its share-partition
//! leader, share coordinator, share consumers and Flink source readers), then the actors
//! of `session-resume` (`resume_system`). `System` itself knows no actor kind.

use crate::clients::client_role::ClientRole;
use crate::clients::producer::Producer;
use crate::clients::producer_share::{AckTypes, ShareSource};
use crate::clients::share_acknowledger::{AcknowledgerConfig, TransactionalShareAcknowledger};
use crate::clients::share_consumer::ShareConsumer;
use crate::clients::source_reader::SourceReader;
use crate::coordinator::group_coordinator::GroupCoordinator;
use crate::coordinator::share_group_admin::ShareGroupAdmin;
use crate::coordinator::txn_coordinator::TxnCoordinator;
use crate::design::Design;
use crate::partition::data_partition::DataPartition;
use crate::protocol::ids::{GroupId, MemberId, PartitionIndex};
use crate::protocol::msg::RequestKey;
use crate::protocol::width::Offset;
use crate::share::share_coordinator::ShareCoordinator;
use crate::share::share_partition::SharePartition;
use crate::world::node::Node;
use crate::world::scenario::{AckMode, Scenario};
use crate::world::system::TXN_ID;
use crate::world::topology::Topology;
use stateright::actor::Id;

/// Every actor of the world, indexed as the topology numbers them.
pub(crate) fn actors(design: &Design, scenario: &Scenario, topology: &Topology) -> Vec<Node> {
    let mut actors = coordinators(design, scenario, topology);
    for i in 0..scenario.partitions {
        actors.push(data_partition(design, topology, PartitionIndex(i)));
    }
    for id in &topology.producers {
        actors.push(producer(design, scenario, topology, *id));
    }
    push_share_group(&mut actors, design, scenario, topology);
    crate::world::resume_system::push_actors(&mut actors, topology, design, scenario);
    if let (Some(_), Some(sc)) = (topology.moved_share_partition, topology.share_coordinator) {
        // `spl-move`: the broker the first share partition's leadership moves to.
        actors.push(Node::SharePartition(SharePartition {
            design: design.clone(),
            share_coordinator: sc,
            records: scenario.records,
            index: 0,
            group: GroupId::default(),
            first_offset: 0,
            delivery_limit: scenario.delivery_limit,
            read_retries: scenario.read_retries,
            moves_in: true,
            moves_out: false,
        }));
    }
    debug_assert_eq!(actors.len(), topology.len());
    actors
}

/// The transaction coordinator and the group coordinator, always actors 0 and 1.
fn coordinators(design: &Design, scenario: &Scenario, topology: &Topology) -> Vec<Node> {
    vec![
        Node::TxnCoordinator(TxnCoordinator {
            design: design.clone(),
            topology: topology.metadata_cache(),
            marker_retries: scenario.marker_retries,
        }),
        Node::GroupCoordinator(GroupCoordinator {
            txn_coordinator: topology.txn_coordinator,
            design: design.clone(),
            share_admin: topology
                .share_coordinator
                .filter(|_| scenario.resets > 0)
                .map(|share_coordinator| ShareGroupAdmin {
                    share_coordinator,
                    log_end: scenario.records,
                    resets: scenario.resets,
                }),
        }),
    ]
}

/// The leader of data partition `index`.
fn data_partition(design: &Design, topology: &Topology, index: PartitionIndex) -> Node {
    Node::DataPartition(DataPartition {
        index,
        txn_coordinator: topology.txn_coordinator,
        design: design.clone(),
    })
}

/// The transactional producer `id`, in the roles the scenario gives it.
fn producer(design: &Design, scenario: &Scenario, topology: &Topology, id: Id) -> Node {
    Node::Producer(Producer {
        txn: topology.txn_id_of(id).unwrap_or(TXN_ID),
        txn_coordinator: topology.txn_coordinator,
        group_coordinator: topology.group_coordinator,
        partitions: topology.partitions.clone(),
        design: design.clone(),
        inputs: Offset::from(scenario.inputs),
        txns: scenario.txns,
        request_retries: scenario.request_retries,
        role: client_role(scenario, topology, id),
    })
}

/// The role the scenario gives producer `id`.
fn client_role(scenario: &Scenario, topology: &Topology, id: Id) -> ClientRole {
    match share_source(scenario, topology, id) {
        // Without a share group: the consumer-group loop.
        None => ClientRole::GroupLoop,
        // A sink task is a session client (KIP-1302 on KIP-1310).
        Some(src) if scenario.session && scenario.sink => ClientRole::SinkTask(src),
        // A session needs a share group to acknowledge to (KIP-1310 4.2, 4.6).
        Some(src) if scenario.session => ClientRole::Session(src),
        // A scenario with both a producer and a share group runs KIP-1289's loop.
        Some(src) => ClientRole::ShareLoop(src),
    }
}

/// Where producer `id` reads its inputs from, if the scenario has a share group.
fn share_source(scenario: &Scenario, topology: &Topology, id: Id) -> Option<ShareSource> {
    topology
        .share_partition
        .zip(topology.share_coordinator)
        .map(|(share_partition, share_coordinator)| ShareSource {
            share_partition: Some(share_partition),
            leader: share_partition,
            moved_leader: topology.moved_share_partition,
            share_partitions: scenario.share_keys(),
            share_coordinator,
            group: GroupId::default(),
            groups: scenario.share_groups.max(1),
            member: topology.member_of(id).unwrap_or_default(),
            // Only the first client stalls: the clients differ only in their ids,
            // so a run where another one stalls is such a run with the names
            // swapped (a symmetry reduction of the state space).
            stalls: if Some(&id) == topology.producers.first() {
                scenario.stalls
            } else {
                0
            },
            ack_types: AckTypes::of(&scenario.txn_ack_types),
            plain_acks: scenario.txn_plain_acks,
            add_choices: scenario.share_add_choices,
        })
}

/// The share-partition leader, the share coordinator, the share consumers and the Flink
/// source readers, if the scenario has a share group.
fn push_share_group(
    actors: &mut Vec<Node>,
    design: &Design,
    scenario: &Scenario,
    topology: &Topology,
) {
    let (Some(sp), Some(sc)) = (topology.share_partition, topology.share_coordinator) else {
        return;
    };
    for index in 0..=topology.more_share_partitions.len() {
        let index = u8::try_from(index).expect("at most 3 share partitions");
        actors.push(Node::SharePartition(SharePartition {
            design: design.clone(),
            share_coordinator: sc,
            records: scenario.records,
            index,
            group: scenario.group_of(index),
            first_offset: scenario.records * Offset::from(index),
            delivery_limit: scenario.delivery_limit,
            read_retries: scenario.read_retries,
            moves_in: false,
            moves_out: index == 0 && topology.moved_share_partition.is_some(),
        }));
    }
    actors.push(Node::ShareCoordinator(ShareCoordinator {
        design: design.clone(),
        txn_coordinator: topology.txn_coordinator,
        share_partitions: scenario.share_keys(),
        groups: scenario.share_groups.max(1),
        records: scenario.records,
        moved_leader: topology
            .moved_share_partition
            .map(|id| (id, crate::share::share_partition::MOVED_LEADER_EPOCH)),
        // Pruning writes one share partition's snapshot (`ShareRecord::Snapshot`).
        prunes: if scenario.share_keys() <= 1 {
            scenario.sc_prunes
        } else {
            0
        },
    }));
    for i in 0..topology.consumers.len() {
        actors.push(Node::ShareConsumer(share_consumer(scenario, sp, i)));
    }
    for id in &topology.readers {
        actors.push(source_reader(design, scenario, topology, *id, (sp, sc)));
    }
}

/// Share consumer `i` of the share group led by `share_partition`.
fn share_consumer(scenario: &Scenario, share_partition: Id, i: usize) -> ShareConsumer {
    ShareConsumer {
        member: MemberId(i as u8),
        share_partition,
        ack_mode: scenario.ack_mode,
        ack_types: scenario.ack_types.clone(),
        // Only the first consumer stalls: the consumers differ only in their
        // member ids, so a run where another one stalls is such a run with the
        // names swapped (the symmetry `ctp-race` uses for its clients). Runs
        // where both stall are outside the bound.
        stalls: if i == 0 { scenario.stalls } else { 0 },
        max_records: scenario.max_records,
        key: RequestKey::Share,
    }
}

/// The Flink source reader `id`, with the `TransactionalShareAcknowledger` it commits its
/// acknowledgements through; `(sp, sc)` are the share-partition leader and the share
/// coordinator.
fn source_reader(
    design: &Design,
    scenario: &Scenario,
    topology: &Topology,
    id: Id,
    (sp, sc): (Id, Id),
) -> Node {
    // The reader never acknowledges through the share session.
    let consumer = |member: MemberId, key: RequestKey| ShareConsumer {
        member,
        share_partition: sp,
        ack_mode: AckMode::Explicit,
        ack_types: Vec::new(),
        stalls: 0,
        max_records: scenario.max_records,
        key,
    };
    let members = topology.members_of(id);
    Node::SourceReader(SourceReader {
        consumer: consumer(
            members.first().copied().unwrap_or_default(),
            RequestKey::Share,
        ),
        more_consumers: members
            .iter()
            .skip(1)
            .zip(0u8..)
            .map(|(m, k)| consumer(*m, RequestKey::ShareOf(k)))
            .collect(),
        acknowledger: TransactionalShareAcknowledger::new(AcknowledgerConfig {
            txn: topology.txn_id_of(id).unwrap_or(TXN_ID),
            txn_coordinator: topology.txn_coordinator,
            group_coordinator: topology.group_coordinator,
            share_partition: sp,
            share_coordinator: sc,
            design: design.clone(),
            txns: scenario.txns,
            request_retries: scenario.request_retries,
        }),
        checkpoints: scenario.txns,
    })
}
