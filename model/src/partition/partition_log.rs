//! The log layer every transactional partition shares (`UnifiedLog`, `ProducerStateManager`,
//! `ProducerAppendInfo`): transactional appends with their epoch and sequence checks,
//! control markers with their epoch and coordinator-epoch checks, and the last stable
//! offset. Data partitions and the group coordinator's `__consumer_offsets` partition both
//! write through it, exactly as Kafka's coordinators write through the replica manager.

use crate::design::TransactionVersion;
use crate::protocol::error::ErrorCode;
use crate::protocol::ghost::Ghost;
use crate::protocol::ids::*;
use crate::protocol::msg::{OutputRecord, ProducerIdAndEpoch, WriteTxnMarkersRequest};
use crate::protocol::width::{Counter, Offset};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a data batch holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Payload {
    /// An output record (data partitions).
    Output(OutputRecord),
    /// An `OffsetCommit` record (the group coordinator): the next input to process.
    Offset {
        /// The committed offset.
        offset: Offset,
        /// Ghost: the client transaction attempt that wrote it.
        tag: Ghost<TxnTag>,
    },
}

impl Payload {
    /// The ghost tag of the attempt that wrote it.
    pub fn tag(&self) -> Ghost<TxnTag> {
        match self {
            Payload::Output(r) => r.tag,
            Payload::Offset { tag, .. } => *tag,
        }
    }
}

/// One log entry: a transactional batch or a control (marker) batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum LogEntry {
    /// A transactional data batch.
    Data {
        /// Producer id and epoch of the batch.
        producer: ProducerIdAndEpoch,
        /// Base sequence (`None` for coordinator writes, which are not idempotent).
        seq: Option<Counter>,
        /// The record.
        payload: Payload,
    },
    /// A COMMIT or ABORT control batch.
    Marker {
        /// Producer id and the marker's epoch.
        producer: ProducerIdAndEpoch,
        /// COMMIT (true) or ABORT (false).
        commit: bool,
        /// The coordinator epoch that wrote it.
        coordinator_epoch: CoordinatorEpoch,
    },
}

/// What the log knows of one producer id (`ProducerStateEntry`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ProducerStateEntry {
    /// The highest epoch seen (data or marker).
    pub epoch: ProducerEpoch,
    /// The last sequence appended in this epoch.
    pub last_seq: Option<Counter>,
    /// `currentTxnFirstOffset`: where the open transaction of this producer starts.
    pub ongoing_first_offset: Option<usize>,
    /// The highest coordinator epoch of a marker for this producer.
    pub coordinator_epoch: Option<CoordinatorEpoch>,
}

/// The outcome of a record as a `read_committed` reader will see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum RecordStatus {
    /// A COMMIT marker of its producer follows it.
    Committed,
    /// An ABORT marker of its producer follows it.
    Aborted,
    /// No marker yet: its transaction is open on this partition.
    Pending,
}

/// The result of checking a transactional append.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppendCheck {
    /// Append it.
    Append,
    /// The producer has no open transaction here: KIP-890 wants it verified first.
    NeedsVerification,
    /// A retry of a batch already in the log: answer success, append nothing.
    Duplicate,
    /// Rejected with this error.
    Reject(ErrorCode),
}

/// A partition's durable log with its producer state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PartitionLog {
    /// The entries, in offset order.
    pub entries: Vec<LogEntry>,
    /// Producer state, rebuilt from `entries` on load.
    pub producers: BTreeMap<ProducerId, ProducerStateEntry>,
}

impl PartitionLog {
    /// Rebuilds the producer state from the log, as a partition does when it loads.
    pub fn load(entries: Vec<LogEntry>) -> PartitionLog {
        let mut log = PartitionLog::default();
        for entry in entries {
            log.push(entry);
        }
        log
    }

    /// Whether `pid` has an open transaction on this partition.
    pub fn has_ongoing(&self, pid: ProducerId) -> bool {
        self.producers
            .get(&pid)
            .is_some_and(|e| e.ongoing_first_offset.is_some())
    }

    /// Checks a transactional batch (`ProducerAppendInfo`): epoch fencing, then KIP-890
    /// verification of a first write, then sequence order.
    pub fn check_append(
        &self,
        producer: ProducerIdAndEpoch,
        seq: Option<Counter>,
        tv: TransactionVersion,
        verification: bool,
        verified: bool,
    ) -> AppendCheck {
        let entry = self.producers.get(&producer.pid);
        if let Some(e) = entry {
            if producer.epoch < e.epoch {
                return AppendCheck::Reject(ErrorCode::InvalidProducerEpoch);
            }
        }
        // `hasOngoingTransaction(producerId, producerEpoch)`: a batch of a newer epoch than
        // the open transaction is a first write of a new transaction and is verified.
        let ongoing =
            entry.is_some_and(|e| e.ongoing_first_offset.is_some() && e.epoch == producer.epoch);
        if !ongoing && verification && !verified {
            return AppendCheck::NeedsVerification;
        }
        let Some(seq) = seq else {
            return AppendCheck::Append;
        };
        match entry {
            Some(e) if e.epoch == producer.epoch => match e.last_seq {
                Some(last) if seq <= last => AppendCheck::Duplicate,
                Some(last) if seq != last + 1 => {
                    AppendCheck::Reject(ErrorCode::OutOfOrderSequenceNumber)
                }
                // A marker with a bumped epoch reset the sequence: the next batch at that
                // epoch starts at 0, whatever the transaction version
                // (`ProducerAppendInfo.checkSequence`, `inSequence(NO_SEQUENCE, seq)`).
                None if seq != 0 => AppendCheck::Reject(ErrorCode::OutOfOrderSequenceNumber),
                _ => AppendCheck::Append,
            },
            // A new epoch starts its sequences at 0.
            Some(_) if seq != 0 => AppendCheck::Reject(ErrorCode::OutOfOrderSequenceNumber),
            // TV2 with verification: a producer with no state must start at 0. Older
            // versions accept the first batch of an unknown producer at any sequence.
            None if tv.bumps_epoch_per_txn() && verification && seq != 0 => {
                AppendCheck::Reject(ErrorCode::OutOfOrderSequenceNumber)
            }
            _ => AppendCheck::Append,
        }
    }

    /// Appends a transactional batch that passed `check_append`; returns its offset.
    pub fn append(
        &mut self,
        producer: ProducerIdAndEpoch,
        seq: Option<Counter>,
        payload: Payload,
    ) -> usize {
        let offset = self.entries.len();
        self.push(LogEntry::Data {
            producer,
            seq,
            payload,
        });
        offset
    }

    /// Writes a COMMIT or ABORT marker (`UnifiedLog.appendAsLeader` with a control batch).
    pub fn write_marker(&mut self, req: &WriteTxnMarkersRequest) -> ErrorCode {
        let pid = req.producer.pid;
        if let Some(e) = self.producers.get(&pid) {
            if e.coordinator_epoch
                .is_some_and(|ce| req.coordinator_epoch < ce)
            {
                return ErrorCode::TransactionCoordinatorFenced;
            }
            let ongoing = e.ongoing_first_offset.is_some();
            if req.tv >= 2 {
                // TV2: the marker's epoch is the bumped one, strictly above the data's;
                // the same epoch with nothing open is a retried marker (KAFKA-19999).
                if req.producer.epoch == e.epoch && !ongoing {
                    return ErrorCode::None;
                }
                if req.producer.epoch <= e.epoch {
                    return ErrorCode::InvalidProducerEpoch;
                }
            } else if req.producer.epoch < e.epoch {
                return ErrorCode::InvalidProducerEpoch;
            }
        }
        self.push(LogEntry::Marker {
            producer: req.producer,
            commit: req.commit,
            coordinator_epoch: req.coordinator_epoch,
        });
        ErrorCode::None
    }

    /// The producer's entry, moved on to `producer.epoch` if that is newer (sequences
    /// restart with a new epoch).
    fn entry_at(&mut self, producer: ProducerIdAndEpoch) -> &mut ProducerStateEntry {
        let e = self
            .producers
            .entry(producer.pid)
            .or_insert(ProducerStateEntry {
                epoch: producer.epoch,
                last_seq: None,
                ongoing_first_offset: None,
                coordinator_epoch: None,
            });
        if producer.epoch > e.epoch {
            e.epoch = producer.epoch;
            e.last_seq = None;
        }
        e
    }

    fn push(&mut self, entry: LogEntry) {
        let offset = self.entries.len();
        match entry {
            LogEntry::Data { producer, seq, .. } => {
                let e = self.entry_at(producer);
                if seq.is_some() {
                    e.last_seq = seq;
                }
                e.ongoing_first_offset.get_or_insert(offset);
            }
            LogEntry::Marker {
                producer,
                coordinator_epoch,
                ..
            } => {
                let e = self.entry_at(producer);
                e.ongoing_first_offset = None;
                e.coordinator_epoch = Some(coordinator_epoch);
            }
        }
        self.entries.push(entry);
    }

    /// How a `read_committed` reader sees the data entry at `offset`.
    pub fn status(&self, offset: usize) -> RecordStatus {
        let LogEntry::Data { producer, .. } = self.entries[offset] else {
            return RecordStatus::Committed;
        };
        for entry in &self.entries[offset + 1..] {
            if let LogEntry::Marker {
                producer: m,
                commit,
                ..
            } = entry
            {
                if m.pid == producer.pid {
                    return if *commit {
                        RecordStatus::Committed
                    } else {
                        RecordStatus::Aborted
                    };
                }
            }
        }
        RecordStatus::Pending
    }

    /// The last stable offset: the first offset of any open transaction, else the end.
    pub fn last_stable_offset(&self) -> usize {
        self.producers
            .values()
            .filter_map(|e| e.ongoing_first_offset)
            .min()
            .unwrap_or(self.entries.len())
    }

    /// The high watermark (every append is replicated in the model: acks=all).
    pub fn high_watermark(&self) -> usize {
        self.entries.len()
    }

    /// Data entries with their offsets and `read_committed` status.
    pub fn data(
        &self,
    ) -> impl Iterator<Item = (usize, ProducerIdAndEpoch, Payload, RecordStatus)> + '_ {
        self.entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match e {
                LogEntry::Data {
                    producer, payload, ..
                } => Some((i, *producer, *payload, self.status(i))),
                LogEntry::Marker { .. } => None,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pe(pid: u8, epoch: u8) -> ProducerIdAndEpoch {
        ProducerIdAndEpoch {
            pid: ProducerId(pid),
            epoch: ProducerEpoch(epoch.into()),
        }
    }

    fn rec(a: u8) -> Payload {
        Payload::Output(OutputRecord {
            input: 0,
            tag: Ghost::new(TxnTag {
                client: 0,
                incarnation: 0,
                attempt: a,
            }),
        })
    }

    fn marker(pid: u8, epoch: u8, commit: bool, tv: u8) -> WriteTxnMarkersRequest {
        WriteTxnMarkersRequest {
            producer: pe(pid, epoch),
            commit,
            coordinator_epoch: CoordinatorEpoch(0),
            partition: TopicPartition::Output(PartitionIndex(0)),
            tv,
        }
    }

    #[test]
    fn first_write_needs_verification_then_sequences_apply() {
        let mut log = PartitionLog::default();
        let tv2 = TransactionVersion(2);
        assert_eq!(
            log.check_append(pe(0, 0), Some(0), tv2, true, false),
            AppendCheck::NeedsVerification
        );
        assert_eq!(
            log.check_append(pe(0, 0), Some(0), tv2, true, true),
            AppendCheck::Append
        );
        log.append(pe(0, 0), Some(0), rec(0));
        assert_eq!(
            log.check_append(pe(0, 0), Some(0), tv2, true, false),
            AppendCheck::Duplicate
        );
        assert_eq!(
            log.check_append(pe(0, 0), Some(2), tv2, true, false),
            AppendCheck::Reject(ErrorCode::OutOfOrderSequenceNumber)
        );
        assert_eq!(log.last_stable_offset(), 0);
        assert_eq!(log.status(0), RecordStatus::Pending);
    }

    #[test]
    fn tv2_marker_needs_a_higher_epoch_and_fences_old_batches() {
        let mut log = PartitionLog::default();
        log.append(pe(0, 0), Some(0), rec(0));
        assert_eq!(
            log.write_marker(&marker(0, 0, true, 2)),
            ErrorCode::InvalidProducerEpoch
        );
        assert_eq!(log.write_marker(&marker(0, 1, true, 2)), ErrorCode::None);
        assert_eq!(log.status(0), RecordStatus::Committed);
        assert_eq!(
            log.write_marker(&marker(0, 1, true, 2)),
            ErrorCode::None,
            "retry"
        );
        assert_eq!(log.entries.len(), 2, "a retried TV2 marker writes nothing");
        assert_eq!(
            log.check_append(pe(0, 0), Some(1), TransactionVersion(2), true, true),
            AppendCheck::Reject(ErrorCode::InvalidProducerEpoch)
        );
        assert_eq!(log.last_stable_offset(), log.high_watermark());
    }

    #[test]
    fn tv1_marker_of_the_same_epoch_closes_whatever_is_open() {
        let mut log = PartitionLog::default();
        log.append(pe(0, 0), Some(0), rec(1));
        assert_eq!(log.write_marker(&marker(0, 0, false, 1)), ErrorCode::None);
        assert_eq!(log.status(0), RecordStatus::Aborted);
        let reloaded = PartitionLog::load(log.entries.clone());
        assert_eq!(reloaded, log);
    }
}
