//! The share coordinator: leader of the `__share_group_state` partition that holds the
//! share partition's state (`ShareCoordinatorShard`).
//!
//! Its durable log holds share records: the initial `ShareSnapshot` (what
//! InitializeShareGroupState writes; the model starts with the key initialised), then a
//! `ShareUpdate` per accepted write and per leader-epoch bump. A restart replays the log
//! through the same merge, so the state it serves again is exactly what it served before.
//! Kafka writes a fresh snapshot every 500 updates; the model's runs are far shorter, so
//! its log is the snapshot and its updates.
//!
//! ReadShareGroupState carries the reading leader's epoch: an older epoch than the stored
//! one is FENCED_LEADER_EPOCH; a newer one is stored (a log record), which fences every
//! write of older leaders. WriteShareGroupState is fenced by the leader epoch and the
//! state epoch, then merged (`PersisterStateBatchCombiner`, see [`crate::protocol::share_state`]).

use crate::design::Design;
use crate::protocol::error::ErrorCode;
use crate::protocol::ghost::Ghost;
use crate::protocol::ids::{ProducerEpoch, ProducerId};
use crate::protocol::msg::Msg;
use crate::protocol::msg::ProducerIdAndEpoch;
use crate::protocol::share_msg::*;
use crate::protocol::share_state::{ShareState, StateBatch};
use crate::protocol::width::{Epoch, Offset};
use crate::share::share_coordinator_txn::{ParkedStaging, PendingAcks, ReplayMode, Resolution};
use crate::world::node::{Node, NodeStorage};
use serde::{Deserialize, Serialize};
use stateright::actor::{Id, Out};
use std::collections::BTreeMap;

/// A record of the `__share_group_state` log for the share partition's key.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ShareRecord {
    /// `ShareSnapshot`: the whole state.
    Snapshot(ShareState),
    /// `ShareUpdate`: a leader epoch and a delta merged into the state.
    Update {
        /// The writer's (or reader's) leader epoch.
        leader_epoch: Epoch,
        /// The writer's start offset.
        start_offset: Offset,
        /// The changed offsets.
        batches: Vec<StateBatch>,
    },
    /// KIP-1289: acknowledgements staged within a transaction, written with the
    /// producer id and epoch.
    TxnAcks(PendingAcks),
    /// KIP-1289: the transaction marker for the producer's staged acknowledgements.
    TxnMarker {
        /// The marker's producer id and epoch.
        producer: ProducerIdAndEpoch,
        /// COMMIT (apply) or ABORT (discard).
        commit: bool,
    },
}

impl ShareRecord {
    /// Applies the record to `state` (replay and live writes take the same path).
    pub fn apply(&self, state: &mut ShareState) {
        match self {
            ShareRecord::Snapshot(s) => *state = s.clone(),
            ShareRecord::Update {
                leader_epoch,
                start_offset,
                batches,
            } => {
                state.leader_epoch = state.leader_epoch.max(*leader_epoch);
                state.merge(*start_offset, batches);
            }
            // Transactional records change the served state only through the marker
            // (`ShareCoordinator::replay_txn`), which needs the pending acks as well.
            ShareRecord::TxnAcks(_) | ShareRecord::TxnMarker { .. } => {}
        }
    }
}

/// The share coordinator's state: the merged share state (its log is its storage).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShareCoordinatorState {
    /// The share state, the log replayed.
    pub state: ShareState,
    /// The log (what a restart replays).
    pub log: Vec<ShareRecord>,
    /// KIP-1289: acknowledgements pending in a transaction, by the producer id and epoch
    /// they were written with.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pending: BTreeMap<ProducerIdAndEpoch, PendingAcks>,
    /// Ghost: how staged acknowledgements left the pending store, in log order.
    #[serde(default, skip_serializing_if = "Ghost::is_empty")]
    pub resolved: Ghost<Vec<Resolution>>,
    /// KIP-1289: the newest producer epoch the log holds per producer id (the log's
    /// producer state, rebuilt by replay).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub producer_epochs: BTreeMap<ProducerId, ProducerEpoch>,
    /// KIP-1289: stagings parked while the transaction coordinator verifies them
    /// (volatile: lost with the incarnation).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub verifying: BTreeMap<ProducerId, ParkedStaging>,
    /// KIP-1289 `notify`: outcomes not yet acknowledged by the leader that staged them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub outbox: BTreeMap<ProducerId, crate::share::share_coordinator_notify::Resolution>,
}

/// The share coordinator's configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShareCoordinator {
    /// The design (KIP-1289's share-coordinator knobs, the transaction version).
    pub design: Design,
    /// The transaction coordinator (for KIP-890 verification of stagings).
    pub txn_coordinator: Id,
}

impl ShareCoordinator {
    /// Loads the coordinator: replays its log, or writes the initial snapshot.
    pub fn on_start(
        &self,
        log: Option<&Vec<ShareRecord>>,
        o: &mut Out<Node>,
    ) -> ShareCoordinatorState {
        let log = match log {
            Some(l) => l.clone(),
            None => {
                let log = vec![ShareRecord::Snapshot(ShareState::default())];
                o.save(NodeStorage::ShareCoordinator(log.clone()));
                log
            }
        };
        let mut s = ShareCoordinatorState {
            state: ShareState::default(),
            log: Vec::new(),
            pending: BTreeMap::new(),
            resolved: Ghost::default(),
            producer_epochs: BTreeMap::new(),
            verifying: BTreeMap::new(),
            outbox: BTreeMap::new(),
        };
        for record in &log {
            record.apply(&mut s.state);
            self.replay_txn(record, &mut s, ReplayMode::Load);
        }
        s.log = log;
        self.resend_outcomes(&s, o);
        s
    }

    pub(crate) fn append(
        &self,
        s: &mut ShareCoordinatorState,
        record: ShareRecord,
        o: &mut Out<Node>,
    ) {
        record.apply(&mut s.state);
        self.replay_txn(&record, s, ReplayMode::Live);
        s.log.push(record);
        o.save(NodeStorage::ShareCoordinator(s.log.clone()));
    }

    /// Handles ReadShareGroupState and WriteShareGroupState.
    pub fn on_msg(&self, s: &mut ShareCoordinatorState, src: Id, msg: Msg, o: &mut Out<Node>) {
        match msg {
            Msg::ReadShareGroupState(req) => {
                let stored = s.state.leader_epoch;
                let error = if stored > req.leader_epoch {
                    ErrorCode::FencedLeaderEpoch
                } else {
                    if req.leader_epoch > stored {
                        let bump = ShareRecord::Update {
                            leader_epoch: req.leader_epoch,
                            start_offset: s.state.start_offset,
                            batches: Vec::new(),
                        };
                        self.append(s, bump, o);
                    }
                    ErrorCode::None
                };
                o.send(
                    src,
                    Msg::ReadShareGroupStateResponse(ReadShareGroupStateResponse {
                        leader_epoch: req.leader_epoch,
                        error,
                        state: (error == ErrorCode::None).then(|| s.state.clone()),
                        pending: if req.pending && error == ErrorCode::None {
                            s.pending.values().cloned().collect()
                        } else {
                            Vec::new()
                        },
                        refresh: req.refresh,
                    }),
                );
            }
            Msg::WriteShareGroupState(req) => {
                let error = if s.state.leader_epoch > req.leader_epoch {
                    ErrorCode::FencedLeaderEpoch
                } else if s.state.state_epoch > req.state_epoch {
                    ErrorCode::FencedStateEpoch
                } else {
                    let update = ShareRecord::Update {
                        leader_epoch: req.leader_epoch,
                        start_offset: req.start_offset,
                        batches: req.batches.clone(),
                    };
                    self.append(s, update, o);
                    ErrorCode::None
                };
                o.send(
                    src,
                    Msg::WriteShareGroupStateResponse(WriteShareGroupStateResponse {
                        leader_epoch: req.leader_epoch,
                        write: req.write,
                        error,
                    }),
                );
            }
            Msg::TxnShareAcknowledge(req) => self.on_txn_share_acknowledge(s, src, req, false, o),
            Msg::AddPartitionsToTxnResponse(resp) => self.on_verified(s, resp, o),
            Msg::WriteTxnMarkers(req) => self.on_txn_marker(s, src, req, o),
            Msg::TxnShareAcksResolvedResponse(r) => self.on_outcome_answered(s, r, o),
            _ => {}
        }
    }
}
