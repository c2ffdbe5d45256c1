//! KIP-1289 facts wherever they are held, read through one place by the history and the properties: which transactional
//! acknowledgements are pending (staged, unresolved) and which were applied to share
//! state. Today only the share coordinator holds them. A design that also keeps pending
//! acknowledgements at the share-partition leader (a TX_PENDING record state) extends
//! [`NodeState::pending_acks`] and [`NodeState::applied_acks`] with its accessor, and every
//! property and ghost observer that reads them follows.

use crate::protocol::ghost::Ghost;
use crate::protocol::ids::TxnTag;
use crate::protocol::msg::ProducerIdAndEpoch;
use crate::protocol::width::Offset;
use crate::world::node::NodeState;
use crate::{System, SystemState};
use stateright::actor::Id;

/// One staged, unresolved acknowledgement of one record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PendingAck {
    /// The producer id and epoch it was staged with.
    pub producer: ProducerIdAndEpoch,
    /// Ghost: the client attempt that staged it.
    pub tag: Ghost<TxnTag>,
    /// The record's offset.
    pub offset: Offset,
    /// The delivery it acknowledges.
    pub delivery_count: u8,
}

/// One transactional acknowledgement applied to the share state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AppliedAck {
    /// The acknowledgement.
    pub ack: PendingAck,
    /// Applied by a COMMIT marker (true), or by something else (a load that ignored the
    /// producer id).
    pub by_marker: bool,
}

impl NodeState {
    /// The transactional acknowledgements this actor holds pending.
    pub fn pending_acks(&self) -> Vec<PendingAck> {
        let Some(s) = self.share_coordinator() else {
            return Vec::new();
        };
        s.pending_entries()
            .flat_map(|p| {
                p.batches.iter().map(|b| PendingAck {
                    producer: p.producer,
                    tag: p.tag,
                    offset: b.offset,
                    delivery_count: b.delivery_count,
                })
            })
            .collect()
    }

    /// The transactional acknowledgements this actor's state reflects as applied.
    pub fn applied_acks(&self) -> Vec<AppliedAck> {
        let Some(s) = self.share_coordinator() else {
            return Vec::new();
        };
        s.committed_entries()
            .flat_map(|r| {
                r.acks.batches.iter().map(|b| AppliedAck {
                    ack: PendingAck {
                        producer: r.acks.producer,
                        tag: r.acks.tag,
                        offset: b.offset,
                        delivery_count: b.delivery_count,
                    },
                    by_marker: r.by_marker,
                })
            })
            .collect()
    }
}

/// The actors that can hold transactional acknowledgements (walked, not collected: the
/// properties ask after every state).
fn holders(sys: &System) -> impl Iterator<Item = Id> + '_ {
    sys.topology
        .share_coordinator
        .into_iter()
        .chain(sys.topology.share_partitions())
}

/// Every pending transactional acknowledgement, with the actor holding it.
pub fn pending_acks(sys: &System, state: &SystemState) -> Vec<(Id, PendingAck)> {
    holders(sys)
        .flat_map(|id| {
            state
                .node(id)
                .pending_acks()
                .into_iter()
                .map(move |a| (id, a))
        })
        .collect()
}

/// Every transactional acknowledgement applied to share state, with the actor.
pub fn applied_acks(sys: &System, state: &SystemState) -> Vec<(Id, AppliedAck)> {
    holders(sys)
        .flat_map(|id| {
            state
                .node(id)
                .applied_acks()
                .into_iter()
                .map(move |a| (id, a))
        })
        .collect()
}
