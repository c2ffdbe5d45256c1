//! `producer_fencing`: no partition accepts a write from an epoch older than one it has
//! already seen for that producer id (KIP-98 zombie fencing; KAFKA-14053/KIP-360). In each
//! log, a producer's data batches never go back in epoch behind its earlier batches or
//! markers.
//!
//! Twin `zombie_fenced`: a request was rejected with PRODUCER_FENCED or
//! INVALID_PRODUCER_EPOCH.

use crate::view::View;
use sharetxn_model::partition::partition_log::LogEntry;
use std::collections::BTreeMap;

/// The violation, if any.
pub fn check(view: &View) -> Option<String> {
    for (id, log) in view.logs() {
        let mut seen = BTreeMap::new();
        for entry in &log.entries {
            let (producer, is_data) = match entry {
                LogEntry::Data { producer, .. } => (producer, true),
                LogEntry::Marker { producer, .. } => (producer, false),
            };
            let max = seen.entry(producer.pid).or_insert(producer.epoch);
            if is_data && producer.epoch < *max {
                return Some(format!(
                    "{} accepted a write from {:?} after it had seen epoch {:?}",
                    view.name(*id),
                    producer,
                    max
                ));
            }
            if producer.epoch > *max {
                *max = producer.epoch;
            }
        }
    }
    None
}

/// Twin: a zombie's request was fenced.
pub fn witness(view: &View) -> bool {
    let state = view.state;
    state.ghost.zombie_fenced
}
