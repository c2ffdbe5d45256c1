//! `PersisterStateBatchCombinerTest` (share-coordinator/src/test/java/org/apache/kafka/
//! coordinator/share, apache/kafka `1eb7644349cb`): how the share coordinator merges a
//! WriteShareGroupState's batches into the persisted ones. The model's batches are single
//! offsets, so each of Kafka's `PersisterStateBatch(first, last, state, count)` becomes one
//! batch per offset, and a case's expected batches are compared offset by offset: the merged
//! ranges Kafka returns are the same offsets with the same state and delivery count.
//!
//! Each of Kafka's four methods runs a list of named cases (`BatchTestHolder`); every case is
//! counted in `docs/conformance.md`. At `1eb7644` a case is asserted only when its
//! `shouldRun` flag is set, which only one case has; the others state the combiner's
//! intended answer, which is what the model is checked against.

use sharetxn_model::protocol::record_state::RecordState::{self, *};
use sharetxn_model::protocol::share_state::{ShareState, StateBatch};
use sharetxn_model::protocol::width::Offset;
use std::collections::BTreeMap;

/// Kafka's `PersisterStateBatch(firstOffset, lastOffset, deliveryState, deliveryCount)`.
type Range = (u8, u8, RecordState, u8);

/// One `BatchTestHolder`: its name, the persisted batches, the written ones, Kafka's
/// expected result and the write's start offset (`None` is Kafka's -1: no new start).
struct Case {
    name: &'static str,
    so_far: &'static [Range],
    written: &'static [Range],
    expected: &'static [Range],
    start: Option<u8>,
}

fn expand(ranges: &[Range]) -> Vec<StateBatch> {
    ranges
        .iter()
        .flat_map(|&(first, last, state, delivery_count)| {
            (first..=last).map(move |offset| StateBatch {
                offset: offset.into(),
                state,
                delivery_count,
            })
        })
        .collect()
}

/// `combineStateBatches`: the persisted state after the write, offset by offset.
fn combine(case: &Case) -> BTreeMap<Offset, (RecordState, u8)> {
    let mut state = ShareState::default();
    state.merge(0, &expand(case.so_far));
    let start = case.start.map_or(state.start_offset, Offset::from);
    state.merge(start, &expand(case.written));
    state.batches
}

fn expected(case: &Case) -> BTreeMap<Offset, (RecordState, u8)> {
    expand(case.expected)
        .into_iter()
        .map(|b| (b.offset, (b.state, b.delivery_count)))
        .collect()
}

fn check(cases: &[Case]) {
    for case in cases {
        assert_eq!(combine(case), expected(case), "{}", case.name);
    }
}

/// `testStateBatchCombineCornerCases` (`generatorCornerCases`, 3 cases): batches below the
/// write's start offset are pruned, old and new alike; two empty lists merge to nothing.
#[test]
fn batches_below_the_start_offset_are_pruned() {
    check(&[
        Case {
            name: "Current batches with start offset midway are pruned.",
            so_far: &[(100, 130, Available, 1)],
            written: &[],
            expected: &[(120, 130, Available, 1)],
            start: Some(120),
        },
        Case {
            name: "New batches with start offset midway are pruned.",
            so_far: &[],
            written: &[(100, 130, Available, 1)],
            expected: &[(120, 130, Available, 1)],
            start: Some(120),
        },
        Case {
            name: "Both current and new batches empty.",
            so_far: &[],
            written: &[],
            expected: &[],
            start: Some(120),
        },
    ]);
}

/// `testStateBatchCombineSameState` (`generatorSameState`, 7 cases): batches with the same
/// state and delivery count merge into their union, whatever their overlap.
#[test]
fn batches_with_the_same_state_merge_into_their_union() {
    const A: RecordState = Available;
    check(&[
        Case {
            name: "Same state. batchSoFar and newBatch have same first and last offset.",
            so_far: &[(100, 110, A, 1)],
            written: &[(100, 110, A, 1)],
            expected: &[(100, 110, A, 1)],
            start: None,
        },
        Case {
            name: "Same state. same first offset, newBatch last offset strictly smaller.",
            so_far: &[(100, 110, A, 1)],
            written: &[(100, 105, A, 1)],
            expected: &[(100, 110, A, 1)],
            start: None,
        },
        Case {
            name: "Same state. same first offset, newBatch last offset strictly larger.",
            so_far: &[(100, 110, A, 1)],
            written: &[(100, 115, A, 1)],
            expected: &[(100, 115, A, 1)],
            start: None,
        },
        Case {
            name:
                "Same state. newBatch first strictly larger and last strictly smaller (shouldRun).",
            so_far: &[(100, 110, A, 1)],
            written: &[(105, 108, A, 1)],
            expected: &[(100, 110, A, 1)],
            start: None,
        },
        Case {
            name: "Same state. newBatch first strictly larger and last equal.",
            so_far: &[(100, 110, A, 1)],
            written: &[(105, 110, A, 1)],
            expected: &[(100, 110, A, 1)],
            start: None,
        },
        Case {
            name: "Same state. newBatch first strictly larger and last strictly larger.",
            so_far: &[(100, 110, A, 1)],
            written: &[(105, 115, A, 1)],
            expected: &[(100, 115, A, 1)],
            start: None,
        },
        Case {
            name: "Same state. newBatch first offset is batchSoFar first offset + 1 (contiguous).",
            so_far: &[(100, 110, A, 1)],
            written: &[(111, 115, A, 1)],
            expected: &[(100, 115, A, 1)],
            start: None,
        },
    ]);
}

/// `testStateBatchCombineComplexCases` (`generatorComplex`, 4 cases, three of them here):
/// overlapping written batches, the higher priority (delivery count, then state id) winning
/// per offset, and pruning. Kafka's state 3 (ARCHIVING, not modelled) stands as ARCHIVED
/// (4): both rank above 1 and 2, which is all the case compares. The first case is
/// [`overlapping_written_batches_keep_the_persisted_offsets_they_do_not_cover`].
#[test]
fn overlapping_written_batches_merge_by_priority() {
    check(&[
        Case {
            name: "Handle overlapping batches in newBatches, different priority.",
            so_far: &[(100, 110, Available, 1)],
            written: &[
                (101, 105, Acquired, 2),
                (101, 115, Acknowledged, 2),
                (101, 120, Archived, 2),
            ],
            expected: &[(100, 100, Available, 1), (101, 120, Archived, 2)],
            start: None,
        },
        Case {
            name: "Handle overlapping batches in newBatches, with pruning.",
            so_far: &[(100, 110, Available, 1), (121, 130, Available, 1)],
            written: &[(111, 119, Acknowledged, 2), (116, 123, Acknowledged, 2)],
            expected: &[(120, 123, Acknowledged, 2), (124, 130, Available, 1)],
            start: Some(120),
        },
        Case {
            name: "Multiple higher state batch updates.",
            so_far: &[(111, 120, Available, 1)],
            written: &[
                (111, 113, Available, 2),
                (114, 114, Acknowledged, 1),
                (115, 119, Available, 2),
            ],
            expected: &[
                (111, 113, Available, 2),
                (114, 114, Acknowledged, 1),
                (115, 119, Available, 2),
                (120, 120, Available, 1),
            ],
            start: None,
        },
    ]);
}

/// `testStateBatchCombineComplexCases`, "Handle overlapping batches in newBatches, same
/// state". Kafka's expected list is `[(100-110, 0, 1), (111-123, 2, 2)]`: it drops 124-130,
/// which the persisted batches hold and nothing overwrites or prunes (no new start offset).
/// The case is not asserted at `1eb7644` (`shouldRun` is false), and its sibling "with
/// pruning" keeps the same 124-130. The model keeps them (`docs/conformance.md`, PSBC-1:
/// the expected list is incomplete, not the model).
#[test]
#[ignore = "disagrees: docs/conformance.md PSBC-1"]
fn overlapping_written_batches_keep_the_persisted_offsets_they_do_not_cover() {
    check(&[Case {
        name: "Handle overlapping batches in newBatches, same state",
        so_far: &[(100, 110, Available, 1), (121, 130, Available, 1)],
        written: &[(111, 119, Acknowledged, 2), (116, 123, Acknowledged, 2)],
        expected: &[(100, 110, Available, 1), (111, 123, Acknowledged, 2)],
        start: None,
    }]);
}

/// `testStateBatchCombineDifferentStates` (`generatorDifferentStates`, 12 cases): per
/// offset the batch with the higher delivery count (then the higher state id) wins, so an
/// overlap splits into the parts each batch wins.
#[test]
fn overlapping_batches_split_where_the_higher_priority_wins() {
    const A: RecordState = Available;
    check(&[
        Case {
            name: "newBatch higher state. first and last offset match.",
            so_far: &[(100, 110, A, 1)],
            written: &[(100, 110, A, 2)],
            expected: &[(100, 110, A, 2)],
            start: None,
        },
        Case {
            name: "newBatch lower state. first and last offset match.",
            so_far: &[(100, 110, A, 3)],
            written: &[(100, 110, A, 1)],
            expected: &[(100, 110, A, 3)],
            start: None,
        },
        Case {
            name: "newBatch higher state. same first offset, last offset smaller.",
            so_far: &[(100, 110, A, 1)],
            written: &[(100, 105, A, 2)],
            expected: &[(100, 105, A, 2), (106, 110, A, 1)],
            start: None,
        },
        Case {
            name: "newBatch lower state. same first offset, last offset smaller.",
            so_far: &[(100, 110, A, 3)],
            written: &[(100, 105, A, 1)],
            expected: &[(100, 110, A, 3)],
            start: None,
        },
        Case {
            name: "newBatch higher state. same first offset, last offset strictly larger.",
            so_far: &[(100, 110, A, 1)],
            written: &[(100, 115, A, 2)],
            expected: &[(100, 115, A, 2)],
            start: None,
        },
        Case {
            name: "newBatch lower state. same first offset, last offset strictly larger.",
            so_far: &[(100, 110, A, 3)],
            written: &[(100, 115, A, 1)],
            expected: &[(100, 110, A, 3), (111, 115, A, 1)],
            start: None,
        },
        Case {
            name: "newBatch higher state. first strictly larger, last strictly smaller.",
            so_far: &[(100, 115, A, 1)],
            written: &[(105, 110, Acquired, 1)],
            expected: &[(100, 104, A, 1), (105, 110, Acquired, 1), (111, 115, A, 1)],
            start: None,
        },
        Case {
            name: "newBatch lower state. first strictly larger, last strictly smaller.",
            so_far: &[(100, 115, Acquired, 1)],
            written: &[(105, 110, A, 1)],
            expected: &[(100, 115, Acquired, 1)],
            start: None,
        },
        Case {
            name: "newBatch higher state. first strictly larger, last same.",
            so_far: &[(100, 110, A, 1)],
            written: &[(105, 110, A, 2)],
            expected: &[(100, 104, A, 1), (105, 110, A, 2)],
            start: None,
        },
        Case {
            name: "newBatch lower state. first strictly larger, last same.",
            so_far: &[(100, 110, A, 2)],
            written: &[(105, 110, A, 1)],
            expected: &[(100, 110, A, 2)],
            start: None,
        },
        Case {
            name: "newBatch higher state. first and last strictly larger.",
            so_far: &[(100, 110, A, 1)],
            written: &[(105, 115, A, 2)],
            expected: &[(100, 104, A, 1), (105, 115, A, 2)],
            start: None,
        },
        Case {
            name: "newBatch lower state. first and last strictly larger.",
            so_far: &[(100, 110, A, 2)],
            written: &[(105, 115, A, 1)],
            expected: &[(100, 110, A, 2), (111, 115, A, 1)],
            start: None,
        },
    ]);
}
