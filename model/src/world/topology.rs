//! Which actor is which: the fixed layout of a scenario's actors and their short names.

use crate::coordinator::metadata_cache::{partition_leader, MetadataCache};
use crate::protocol::ids::{MemberId, TopicPartition, TransactionalId};
use crate::world::scenario::{Role, Scenario};
use serde::{Deserialize, Serialize};
use stateright::actor::Id;

/// The actors of a scenario, by role. Ids are indices in a fixed order: the transaction
/// coordinator, the group coordinator, the data partitions, the producers, then (only
/// when the scenario has a share group) the share-partition leader, the share coordinator,
/// the share consumers and the Flink source readers, so the transaction scenarios' ids
/// never move.
///
/// Transactional ids and share-group member ids are indices too: producer `i` has
/// transactional id `i`, reader `j` has `producers + j`; consumer `i` is member `i`, a
/// KIP-1289 producer `i` is member `consumers + i`, reader `j` is member
/// `consumers + producers + j`.
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
    /// The share-partition leader, if the scenario has a share group (of its first share
    /// partition, `SP0`, when it has several).
    pub share_partition: Option<Id>,
    /// The leaders of the share partitions after the first (`SP1`, ...), numbered right
    /// after `SP0`; empty with one share partition, as every scenario but `draft-itest`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more_share_partitions: Vec<Id>,
    /// The share coordinator, if the scenario has a share group.
    pub share_coordinator: Option<Id>,
    /// Share consumers, by member index.
    pub consumers: Vec<Id>,
    /// Flink source readers (KIP-1289's standalone acknowledger with its share consumer).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub readers: Vec<Id>,
    /// Scenario `session-resume`: the writer on a `TransactionSession` that prepares and
    /// hands its transaction over (transactional id as its place among the clients).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub writers: Vec<Id>,
    /// Scenario `session-resume`: the 2PC coordinator application whose committer resumes
    /// the writer's transaction (the writer's transactional id).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub committers: Vec<Id>,
    /// Scenario `session-resume`: the external participant of the 2PC.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub externals: Vec<Id>,
    /// Scenario `spl-move`: the share-partition leader on another broker that the first
    /// share partition's leadership moves to (`SP0b`), numbered after every other actor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved_share_partition: Option<Id>,
    /// Scenario `reader_members`: share-group members per reader beyond its first, numbered
    /// after every actor's member (reader `j`'s `k`-th further member is member
    /// `consumers + producers + readers + j * extra + k`); 0 in every other scenario.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub extra_reader_members: u8,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

impl Topology {
    /// The layout for a scenario.
    pub fn for_scenario(scenario: &Scenario) -> Topology {
        let n = usize::from(scenario.partitions);
        let p = usize::from(scenario.producers);
        let share = 2 + n + p;
        let c = usize::from(scenario.consumers);
        // The share-partition leaders after `SP0` (none with one share partition).
        let more = if scenario.has_share_group() {
            usize::from(scenario.share_keys()) - 1
        } else {
            0
        };
        let sc = share + 1 + more;
        let (share_partition, share_coordinator, consumers, readers) = if scenario.has_share_group()
        {
            (
                Some(Id::from(share)),
                Some(Id::from(sc)),
                (0..c).map(|i| Id::from(sc + 1 + i)).collect(),
                (0..usize::from(scenario.readers))
                    .map(|i| Id::from(sc + 1 + c + i))
                    .collect(),
            )
        } else {
            (None, None, Vec::new(), Vec::new())
        };
        let after_share = share
            + if scenario.has_share_group() {
                2 + more + c + usize::from(scenario.readers)
            } else {
                0
            };
        let (writers, committers, externals) = if scenario.resume {
            (
                vec![Id::from(after_share)],
                vec![Id::from(after_share + 1)],
                vec![Id::from(after_share + 2)],
            )
        } else {
            (Vec::new(), Vec::new(), Vec::new())
        };
        let last = after_share + if scenario.resume { 3 } else { 0 };
        let moved_share_partition =
            (scenario.spl_move && scenario.has_share_group()).then(|| Id::from(last));
        Topology {
            moved_share_partition,
            extra_reader_members: if scenario.readers > 0 {
                scenario.reader_members.saturating_sub(1)
            } else {
                0
            },
            txn_coordinator: Id::from(0),
            group_coordinator: Id::from(1),
            partitions: (0..n).map(|i| Id::from(2 + i)).collect(),
            producers: (0..p).map(|i| Id::from(2 + n + i)).collect(),
            share_partition,
            more_share_partitions: (1..=more).map(|i| Id::from(share + i)).collect(),
            share_coordinator,
            consumers,
            readers,
            writers,
            committers,
            externals,
        }
    }

    /// How many actors there are.
    pub fn len(&self) -> usize {
        2 + self.partitions.len()
            + self.producers.len()
            + usize::from(self.share_partition.is_some())
            + self.more_share_partitions.len()
            + usize::from(self.share_coordinator.is_some())
            + self.consumers.len()
            + self.readers.len()
            + self.writers.len()
            + self.committers.len()
            + self.externals.len()
            + usize::from(self.moved_share_partition.is_some())
    }

    /// Never empty: there is always a coordinator.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The leader of a transaction partition.
    pub fn leader_of(&self, tp: TopicPartition) -> Id {
        partition_leader(
            tp,
            &self.partitions,
            self.group_coordinator,
            self.share_coordinator,
        )
    }

    /// The transaction coordinator's copy of the cluster's metadata.
    pub fn metadata_cache(&self) -> MetadataCache {
        MetadataCache {
            partitions: self.partitions.clone(),
            group_coordinator: self.group_coordinator,
            share_coordinator: self.share_coordinator,
            txn_clients: self.txn_clients().collect(),
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
        } else if self.share_partition == Some(id)
            || self.more_share_partitions.contains(&id)
            || self.moved_share_partition == Some(id)
        {
            Role::SharePartition
        } else if self.share_coordinator == Some(id) {
            Role::ShareCoordinator
        } else if self.consumers.contains(&id) {
            Role::ShareConsumer
        } else if self.readers.contains(&id) {
            Role::SourceReader
        } else if self.committers.contains(&id) {
            Role::Committer
        } else if self.externals.contains(&id) {
            Role::ExternalParticipant
        } else {
            Role::Producer
        }
    }

    /// The short name traces use: `TC`, `GC`, `D0`, `P0`, `SP0`, `SC`, `C0`, `R0`.
    pub fn name(&self, id: Id) -> String {
        if id == self.txn_coordinator {
            "TC".into()
        } else if id == self.group_coordinator {
            "GC".into()
        } else if let Some(i) = self.partitions.iter().position(|p| *p == id) {
            format!("D{i}")
        } else if let Some(i) = self.producers.iter().position(|p| *p == id) {
            format!("P{i}")
        } else if let Some(i) = self.share_partition_index(id) {
            format!("SP{i}")
        } else if self.share_coordinator == Some(id) {
            "SC".into()
        } else if let Some(i) = self.consumers.iter().position(|c| *c == id) {
            format!("C{i}")
        } else if let Some(i) = self.readers.iter().position(|r| *r == id) {
            format!("R{i}")
        } else if let Some(i) = self.writers.iter().position(|r| *r == id) {
            format!("W{i}")
        } else if let Some(i) = self.committers.iter().position(|r| *r == id) {
            format!("K{i}")
        } else if self.externals.contains(&id) {
            "DB".into()
        } else if self.moved_share_partition == Some(id) {
            "SP0b".into()
        } else {
            format!("?{}", usize::from(id))
        }
    }

    /// The share-partition leaders, `SP0` first (empty without a share group).
    pub fn share_partitions(&self) -> impl Iterator<Item = Id> + '_ {
        self.share_partition
            .iter()
            .chain(&self.more_share_partitions)
            .copied()
    }

    /// Which share partition actor `id` leads, if it is a share-partition leader.
    pub fn share_partition_index(&self, id: Id) -> Option<usize> {
        self.share_partitions().position(|p| p == id)
    }

    /// The leader of share partition `index` (`SP0` for 0).
    pub fn share_partition_leader(&self, index: u8) -> Option<Id> {
        self.share_partitions().nth(usize::from(index))
    }

    /// Whether `id` is a client whose requests a new connection may resend (a producer, a
    /// share consumer or a source reader): a duplicate of its request stands for that.
    pub fn retries_requests(&self, id: Id) -> bool {
        self.producers.contains(&id) || self.consumers.contains(&id) || self.readers.contains(&id)
    }

    /// Every transactional client: the producers, then the readers' acknowledgers, then
    /// the resumed-session writers and committers.
    pub fn txn_clients(&self) -> impl Iterator<Item = Id> + '_ {
        self.producers
            .iter()
            .chain(&self.readers)
            .chain(&self.writers)
            .chain(&self.committers)
            .copied()
    }

    /// The transactional id of a transactional client.
    pub fn txn_id_of(&self, client: Id) -> Option<TransactionalId> {
        self.txn_clients()
            .position(|c| c == client)
            .map(|i| TransactionalId(i as u8))
    }

    /// The transactional client that owns a transactional id.
    pub fn client_of(&self, txn: TransactionalId) -> Option<Id> {
        self.txn_clients().nth(usize::from(txn.0))
    }

    /// The share-group member id of a consumer, a KIP-1289 producer or a reader.
    pub fn member_of(&self, id: Id) -> Option<MemberId> {
        self.consumers
            .iter()
            .chain(&self.producers)
            .chain(&self.readers)
            .position(|a| *a == id)
            .map(|i| MemberId(i as u8))
    }

    /// Every share-group member id of `id`: its one member, and a reader's further ones
    /// (`reader_members`).
    pub fn members_of(&self, id: Id) -> Vec<MemberId> {
        let first = self.member_of(id);
        let extra = usize::from(self.extra_reader_members);
        let more = self.readers.iter().position(|r| *r == id).map(|j| {
            let base = self.members_before_extra() + j * extra;
            (0..extra).map(move |k| MemberId((base + k) as u8))
        });
        first
            .into_iter()
            .chain(more.into_iter().flatten())
            .collect()
    }

    /// How many members the consumers, producers and readers have, one each.
    fn members_before_extra(&self) -> usize {
        self.consumers.len() + self.producers.len() + self.readers.len()
    }

    /// The actor that joined the share group as `member`.
    pub fn member_actor(&self, member: MemberId) -> Option<Id> {
        let i = usize::from(member.0);
        let base = self.members_before_extra();
        match (i.checked_sub(base), usize::from(self.extra_reader_members)) {
            (Some(k), extra) if extra > 0 => self.readers.get(k / extra).copied(),
            _ => self
                .consumers
                .iter()
                .chain(&self.producers)
                .chain(&self.readers)
                .nth(i)
                .copied(),
        }
    }

    /// The actor with a short name, if any.
    pub fn by_name(&self, name: &str) -> Option<Id> {
        (0..self.len())
            .map(Id::from)
            .find(|id| self.name(*id) == name)
    }
}
