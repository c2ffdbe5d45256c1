//! Which actor is which: the fixed layout of a scenario's actors and their short names.

use crate::ids::{PartitionIndex, TopicPartition};
use crate::scenario::{Role, Scenario};
use serde::{Deserialize, Serialize};
use stateright::actor::Id;

/// The actors of a scenario, by role. Ids are indices in a fixed order: the transaction
/// coordinator, the group coordinator, the data partitions, the producers, then (only
/// when the scenario has a share group) the share-partition leader, the share coordinator
/// and the share consumers, so the transaction scenarios' ids never move.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Topology {
    /// The transaction coordinator.
    pub txn_coordinator: Id,
    /// The group coordinator holding `__consumer_offsets`.
    pub group_coordinator: Id,
    /// Output partition leaders, by partition index.
    pub partitions: Vec<Id>,
    /// Transactional producers.
    pub producers: Vec<Id>,
    /// The share-partition leader, if the scenario has a share group.
    pub share_partition: Option<Id>,
    /// The share coordinator, if the scenario has a share group.
    pub share_coordinator: Option<Id>,
    /// Share consumers, by member index.
    pub consumers: Vec<Id>,
}

impl Topology {
    /// The layout for a scenario.
    pub fn for_scenario(scenario: &Scenario) -> Topology {
        let n = usize::from(scenario.partitions);
        let p = usize::from(scenario.producers);
        let share = 2 + n + p;
        let (share_partition, share_coordinator, consumers) = if scenario.has_share_group() {
            (
                Some(Id::from(share)),
                Some(Id::from(share + 1)),
                (0..usize::from(scenario.consumers))
                    .map(|i| Id::from(share + 2 + i))
                    .collect(),
            )
        } else {
            (None, None, Vec::new())
        };
        Topology {
            txn_coordinator: Id::from(0),
            group_coordinator: Id::from(1),
            partitions: (0..n).map(|i| Id::from(2 + i)).collect(),
            producers: (0..p).map(|i| Id::from(2 + n + i)).collect(),
            share_partition,
            share_coordinator,
            consumers,
        }
    }

    /// How many actors there are.
    pub fn len(&self) -> usize {
        2 + self.partitions.len()
            + self.producers.len()
            + usize::from(self.share_partition.is_some())
            + usize::from(self.share_coordinator.is_some())
            + self.consumers.len()
    }

    /// Never empty: there is always a coordinator.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The leader of a transaction partition.
    pub fn leader_of(&self, tp: TopicPartition) -> Id {
        match tp {
            TopicPartition::Output(PartitionIndex(i)) => self.partitions[usize::from(i)],
            TopicPartition::ConsumerOffsets => self.group_coordinator,
            TopicPartition::ShareGroupState => self
                .share_coordinator
                .expect("__share_group_state is only added when the scenario has a share group"),
        }
    }

    /// The role of an actor.
    pub fn role(&self, id: Id) -> Role {
        if id == self.txn_coordinator {
            Role::TxnCoordinator
        } else if id == self.group_coordinator {
            Role::GroupCoordinator
        } else if self.partitions.contains(&id) {
            Role::DataPartition
        } else if self.share_partition == Some(id) {
            Role::SharePartition
        } else if self.share_coordinator == Some(id) {
            Role::ShareCoordinator
        } else if self.consumers.contains(&id) {
            Role::ShareConsumer
        } else {
            Role::Producer
        }
    }

    /// The short name traces use: `TC`, `GC`, `D0`, `P0`, `SP0`, `SC`, `C0`.
    pub fn name(&self, id: Id) -> String {
        if id == self.txn_coordinator {
            "TC".into()
        } else if id == self.group_coordinator {
            "GC".into()
        } else if let Some(i) = self.partitions.iter().position(|p| *p == id) {
            format!("D{i}")
        } else if let Some(i) = self.producers.iter().position(|p| *p == id) {
            format!("P{i}")
        } else if self.share_partition == Some(id) {
            "SP0".into()
        } else if self.share_coordinator == Some(id) {
            "SC".into()
        } else if let Some(i) = self.consumers.iter().position(|c| *c == id) {
            format!("C{i}")
        } else {
            format!("?{}", usize::from(id))
        }
    }

    /// The actor with a short name, if any.
    pub fn by_name(&self, name: &str) -> Option<Id> {
        (0..self.len())
            .map(Id::from)
            .find(|id| self.name(*id) == name)
    }
}
