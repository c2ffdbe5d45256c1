//! KIP-1289's transactional path at the share coordinator: acknowledgements staged by
//! TxnShareAcknowledge are written to `__share_group_state` with the producer id and epoch,
//! pending until the transaction's marker; a COMMIT marker applies them through the same
//! merge as WriteShareGroupState (`applyPendingAcknowledgements`), an ABORT discards them
//! (`discardPendingAcknowledgements`). Both are log records, so a restart replays pending
//! acks and markers to the same state (`replayEndTransactionMarker`).
//!
//! The seed says `completeTransaction` "mirrors GroupCoordinator.completeTransaction()",
//! which finds a producer's pending offsets by producer id; the model does the same and
//! keeps the staged epoch only to fence markers and stagings older than it.

use crate::error::ErrorCode;
use crate::ids::{ProducerId, TxnTag};
use crate::msg::{Msg, ProducerIdAndEpoch, WriteTxnMarkersRequest};
use crate::node::Node;
use crate::share_coordinator::{ShareCoordinator, ShareCoordinatorState, ShareRecord};
use crate::share_msg::Acknowledgement;
use crate::share_state::StateBatch;
use crate::txn_share_msg::{TxnShareAcknowledgeRequest, TxnShareAcknowledgeResponse};
use serde::{Deserialize, Serialize};
use stateright::actor::{Id, Out};

/// Acknowledgements staged within a transaction, not yet resolved by a marker.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PendingAcks {
    /// The producer id and epoch they were written with.
    pub producer: ProducerIdAndEpoch,
    /// Ghost: the client attempt that staged them.
    pub tag: TxnTag,
    /// The state batches a COMMIT applies.
    pub batches: Vec<StateBatch>,
    /// KIP-1289 `notify`: the share-partition leader that staged them and asked to be
    /// told their outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notify: Option<Id>,
}

/// Where a transaction's staged acknowledgements stand at the share coordinator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TxnAckStatus {
    /// Staged, waiting for the marker.
    Pending,
    /// Applied by a COMMIT marker.
    Committed,
    /// Discarded by an ABORT marker.
    Aborted,
}

/// The state batch an acknowledgement becomes. The share coordinator does not know the
/// delivery count limit: a released record is stored AVAILABLE and the share-partition
/// leader archives it at load when it is at the limit (`SharePartition::load`).
pub fn ack_batch(ack: &Acknowledgement) -> Option<StateBatch> {
    ack.ack
        .target(ack.tag.delivery_count, u8::MAX)
        .map(|state| StateBatch {
            offset: ack.offset,
            state,
            delivery_count: ack.tag.delivery_count,
        })
}

impl ShareCoordinatorState {
    /// Where the acknowledgements staged by attempt `tag` stand, if any were staged.
    pub fn txn_ack_status(&self, tag: TxnTag) -> Option<TxnAckStatus> {
        if let Some(commit) = self.resolved.get(&tag) {
            return Some(if *commit {
                TxnAckStatus::Committed
            } else {
                TxnAckStatus::Aborted
            });
        }
        self.pending
            .values()
            .any(|p| p.tag == tag)
            .then_some(TxnAckStatus::Pending)
    }

    /// The pending acknowledgements of a producer id.
    pub fn pending_of(&self, pid: ProducerId) -> Option<&PendingAcks> {
        self.pending.get(&pid)
    }
}

impl ShareCoordinator {
    /// TxnShareAcknowledge: stage the acks as a pending record of the transaction. A
    /// staging from an epoch older than the one already pending for the producer id is
    /// fenced; a newer one replaces it (the older transaction was aborted by the bump).
    pub fn on_txn_share_acknowledge(
        &self,
        s: &mut ShareCoordinatorState,
        src: Id,
        req: TxnShareAcknowledgeRequest,
        o: &mut Out<Node>,
    ) {
        let stale = s
            .pending_of(req.producer.pid)
            .is_some_and(|p| p.producer.epoch > req.producer.epoch);
        let error = if stale {
            ErrorCode::InvalidProducerEpoch
        } else {
            let batches = req.acks.iter().filter_map(ack_batch).collect();
            let record = ShareRecord::TxnAcks(PendingAcks {
                producer: req.producer,
                tag: req.tag,
                batches,
                notify: req.notify.then_some(src),
            });
            self.append(s, record, o);
            ErrorCode::None
        };
        o.send(
            src,
            Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
                producer: req.producer,
                error,
            }),
        );
    }

    /// WriteTxnMarkers for `__share_group_state`, answered like a partition leader: a
    /// marker older than the staged epoch is INVALID_PRODUCER_EPOCH; otherwise the marker
    /// is written (applying or discarding the pending acks). With nothing pending there is
    /// nothing to write (a retried marker).
    pub fn on_txn_marker(
        &self,
        s: &mut ShareCoordinatorState,
        src: Id,
        req: WriteTxnMarkersRequest,
        o: &mut Out<Node>,
    ) {
        let error = match s.pending_of(req.producer.pid) {
            Some(p) if p.producer.epoch > req.producer.epoch => ErrorCode::InvalidProducerEpoch,
            Some(_) => {
                let record = ShareRecord::TxnMarker {
                    producer: req.producer,
                    commit: req.commit,
                };
                self.append(s, record, o);
                self.notify_leader(s, req.producer.pid, o);
                ErrorCode::None
            }
            None => ErrorCode::None,
        };
        o.send(src, req.response(error));
    }
}

/// Replays a transactional record (live or at load): pending acks are kept by producer
/// id; a marker applies (COMMIT) or discards (ABORT) them.
pub fn replay_txn(record: &ShareRecord, s: &mut ShareCoordinatorState) {
    match record {
        ShareRecord::TxnAcks(p) => {
            s.pending.insert(p.producer.pid, p.clone());
        }
        ShareRecord::TxnMarker { producer, commit } => {
            if let Some(p) = s.pending.remove(&producer.pid) {
                if *commit {
                    let start = s.state.start_offset;
                    s.state.merge(start, &p.batches);
                }
                s.resolved.insert(p.tag, *commit);
                crate::share_coordinator_notify::resolved(s, &p, *commit);
            }
        }
        ShareRecord::Snapshot(_) | ShareRecord::Update { .. } => {}
    }
}
