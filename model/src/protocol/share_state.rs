//! The persisted share state of one share partition, as the share coordinator keeps it
//! (`ShareGroupOffset`), and Kafka's merge of a write into it
//! (`ShareCoordinatorShard` with `PersisterStateBatchCombiner`).
//!
//! The merge is not last-writer-wins: per offset, the batch with the higher delivery count
//! wins and ties go to the higher state id, so the result does not depend on the order
//! writes arrive in. The start offset never moves back, and batches below it are dropped.

use crate::protocol::record_state::RecordState;
use crate::protocol::width::{Epoch, Offset};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// One persisted offset: `PersisterStateBatch` for a single offset (the model's batches
/// are single records, so ranges add nothing).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct StateBatch {
    /// The offset.
    pub offset: Offset,
    /// Its delivery state (never ACQUIRED: acquisition is not persisted).
    pub state: RecordState,
    /// Its delivery count.
    pub delivery_count: u8,
}

impl fmt::Debug for StateBatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{:?}x{}",
            self.offset, self.state, self.delivery_count
        )
    }
}

/// The share state of a share partition: what ReadShareGroupState answers.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ShareState {
    /// The state epoch (bumped by offset resets, which the model does not do).
    pub state_epoch: Epoch,
    /// The leader epoch of the last share-partition leader that read or wrote.
    pub leader_epoch: Epoch,
    /// The share-partition start offset: every offset below it is terminal.
    pub start_offset: Offset,
    /// Persisted offsets at or above the start offset, by offset.
    pub batches: BTreeMap<Offset, (RecordState, u8)>,
}

impl ShareState {
    /// `PersisterStateBatchCombiner`: merges a write's start offset and batches.
    pub fn merge(&mut self, start_offset: Offset, batches: &[StateBatch]) {
        self.start_offset = self.start_offset.max(start_offset);
        for b in batches {
            let incoming = (b.delivery_count, b.state.id());
            let wins = match self.batches.get(&b.offset) {
                Some((state, count)) => incoming > (*count, state.id()),
                None => true,
            };
            if wins {
                self.batches.insert(b.offset, (b.state, b.delivery_count));
            }
        }
        let start = self.start_offset;
        self.batches.retain(|offset, _| *offset >= start);
    }

    /// `ShareCoordinatorShard.merge` as Kafka writes it (1eb7644 and 4.x): the write's start
    /// offset replaces the stored one, also when it is lower, and the batches below it are
    /// pruned. A resent or overtaken older write then moves the start offset back over
    /// offsets a newer write pruned, which read as never delivered (docs/fidelity.md, F1).
    pub fn merge_from_write(&mut self, start_offset: Offset, batches: &[StateBatch]) {
        self.start_offset = start_offset;
        self.merge(start_offset, batches);
    }

    /// The persisted state of `offset`: `None` when it was never written (AVAILABLE with
    /// no deliveries), terminal-by-position below the start offset.
    pub fn state_of(&self, offset: Offset) -> Option<(RecordState, u8)> {
        self.batches.get(&offset).copied()
    }

    /// Whether `offset` is terminal in the persisted state (ACKNOWLEDGED or ARCHIVED, or
    /// below the start offset).
    pub fn is_terminal(&self, offset: Offset) -> bool {
        offset < self.start_offset || self.state_of(offset).is_some_and(|(s, _)| s.is_terminal())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use RecordState::*;

    fn b(offset: Offset, state: RecordState, delivery_count: u8) -> StateBatch {
        StateBatch {
            offset,
            state,
            delivery_count,
        }
    }

    #[test]
    fn higher_count_wins_then_higher_state() {
        let mut s = ShareState::default();
        s.merge(0, &[b(0, Acknowledged, 1)]);
        s.merge(0, &[b(0, Available, 1)]);
        assert_eq!(
            s.state_of(0),
            Some((Acknowledged, 1)),
            "tie: higher state id"
        );
        s.merge(0, &[b(0, Available, 2)]);
        assert_eq!(
            s.state_of(0),
            Some((Available, 2)),
            "higher count overrides"
        );
    }

    #[test]
    fn order_does_not_matter() {
        let writes = [b(0, Available, 1), b(0, Archived, 2), b(0, Acknowledged, 1)];
        let mut a = ShareState::default();
        let mut z = ShareState::default();
        for w in writes {
            a.merge(0, &[w]);
        }
        for w in writes.iter().rev() {
            z.merge(0, &[*w]);
        }
        assert_eq!(a, z);
    }

    #[test]
    fn start_offset_never_regresses_and_drops_batches_below() {
        let mut s = ShareState::default();
        s.merge(0, &[b(0, Acknowledged, 1), b(1, Available, 1)]);
        s.merge(1, &[]);
        assert_eq!(s.state_of(0), None);
        assert!(s.is_terminal(0));
        s.merge(0, &[b(0, Available, 3)]);
        assert_eq!(s.start_offset, 1);
        assert_eq!(s.state_of(0), None, "below the start offset");
        assert!(!s.is_terminal(1));
    }
}
