//! `no_duplicate_processing`: at most one committed transaction carries outputs derived
//! from an input record. The point of putting share acknowledgements inside the
//! transaction (KIP-1289) is exactly-once consume-transform-produce: once a transaction
//! that processed a record commits, its acknowledgement commits with it and the record is
//! never processed into another committed transaction. A redelivery after a lock expiry is
//! allowed (at-least-once delivery); a second committed output is not.
//!
//! What *processed* means depends on the client. For a consume-transform-produce client
//! it is a committed transaction with an output derived from the record (every client's
//! outputs are read from the output logs, so several clients are judged together). For a
//! Flink source reader it is a completed checkpoint that covers the record's emission: the
//! job's committed state includes its processing whether or not the acknowledgement ever
//! commits. Two completed checkpoints covering the same record, or one covering two of its
//! deliveries, are a duplicate. For a plain share consumer beside them (KIP-932, no
//! transaction) it is its ACCEPT applied to the record (the state write completed): its
//! application processed the record and settled it, so a committed transaction with an
//! output of the same record is a duplicate too. A KIP-1289 client's own plain ACCEPT (its
//! implicit acknowledgement, scenario `ctp-acks`) is not a processing of its own: its
//! processing is its transaction's. A transaction that RELEASEs or REJECTs its record writes
//! no output derived from it, so it is no processing either (docs/kafka-cases.md S21).
//!
//! After an admin's offset reset to offset 0 (docs/kafka-cases.md S20) the share group
//! delivers every record again, processed or not, by the reset's meaning: its
//! records are processed again. So outputs and checkpoints are judged only in runs
//! with no reset (docs/properties.md, "Offset resets").
//!
//! Twin `share_ack_committed`: a transaction's staged share acknowledgements were applied
//! by a COMMIT marker at the share coordinator.

use crate::view::{share_coordinator_txn_state, View};
use sharetxn_model::partition::partition_log::{Payload, RecordStatus};
use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::{PartitionIndex, TopicPartition, TxnTag};
use sharetxn_model::protocol::width::Offset;
use sharetxn_model::SystemState;
use std::collections::BTreeMap;

/// The violation, if any: two committed attempts with an output for the same input.
pub fn check(view: &View) -> Option<String> {
    let (sys, state) = (view.sys, view.state);
    if crate::view::share_group_reset(sys, state) {
        return None;
    }
    for (i, _) in sys.topology.partitions.iter().enumerate() {
        let tp = TopicPartition::Output(PartitionIndex(i as u8));
        let log = crate::view::log_of(sys, state, tp)?;
        let mut first: BTreeMap<Offset, Ghost<TxnTag>> = BTreeMap::new();
        for (_, _, payload, status) in log.data() {
            let Payload::Output(record) = payload else {
                continue;
            };
            if status != RecordStatus::Committed {
                continue;
            }
            match first.get(&record.input) {
                Some(tag) if *tag != record.tag => {
                    return Some(format!(
                        "input record {} was processed into committed transactions {tag} and {} on {tp:?}",
                        record.input, record.tag
                    ));
                }
                Some(_) => {}
                None => {
                    if state
                        .ghost
                        .share
                        .txn_acks
                        .plain_accepted
                        .contains(&record.input)
                    {
                        return Some(format!(
                            "input record {} was processed by a share consumer that ACCEPTed it and into committed transaction {} on {tp:?}",
                            record.input, record.tag
                        ));
                    }
                    first.insert(record.input, record.tag);
                }
            }
        }
    }
    checkpoints(state)
}

/// A record processed twice by completed checkpoints of a Flink source reader.
fn checkpoints(state: &SystemState) -> Option<String> {
    let plain = &state.ghost.share.txn_acks.plain_accepted;
    state
        .ghost
        .share
        .processed
        .iter()
        .find_map(|(offset, covered)| match covered.as_slice() {
            [(a, da), (b, db), ..] => Some(format!(
                "input record {offset} was processed into completed checkpoints {a:?} (delivery {da:?}) and {b:?} (delivery {db:?})"
            )),
            [(a, da)] if plain.contains(offset) => Some(format!(
                "input record {offset} was processed by a share consumer that ACCEPTed it and into completed checkpoint {a:?} (delivery {da:?})"
            )),
            _ => None,
        })
}

/// Twin: some transaction's share acknowledgements were committed.
pub fn witness(view: &View) -> bool {
    let (sys, state) = (view.sys, view.state);
    share_coordinator_txn_state(sys, state)
        .is_some_and(|sc| sc.resolved.open().iter().any(|r| r.commit && r.by_marker))
}
