//! The brokers' describers: the transaction coordinator's transaction metadata and
//! markers, a partition leader's log (data partitions and `__consumer_offsets`), the
//! share-partition leader's in-flight records and the share coordinator's share state and
//! `__share_group_state` log.

use super::{changed, decision, flag, keyed, list, opt, short};
use crate::render::label::message;
use sharetxn_model::coordinator::txn_coordinator::{TransactionMetadata, TxnCoordinatorState};
use sharetxn_model::partition::leader::LeaderState;
use sharetxn_model::partition::partition_log::{LogEntry, Payload, ProducerStateEntry};
use sharetxn_model::protocol::ids::{ProducerId, TransactionalId};
use sharetxn_model::protocol::share_state::{ShareState, StateBatch};
use sharetxn_model::protocol::width::Offset;
use sharetxn_model::share::share_coordinator::{ShareCoordinatorState, ShareRecord};
use sharetxn_model::share::share_partition::{InFlightRecord, SharePartitionState};
use sharetxn_model::world::scenario::resends_text;
use std::collections::BTreeSet;

/// `TransactionCoordinator` (Kafka 4.1): each transaction's state, epoch and partitions,
/// the markers it sends, the requests it parks.
pub(super) fn txn_coordinator(
    who: &str,
    a: &TxnCoordinatorState,
    b: &TxnCoordinatorState,
    out: &mut Vec<String>,
) {
    for (t, m) in &b.txns {
        match a.txns.get(t) {
            None => out.push(format!(
                "{who} {t:?} registered for {:?}/{:?} ({:?})",
                m.pid, m.epoch, m.state
            )),
            Some(old) => txn_metadata(who, *t, old, m, out),
        }
    }
    for t in a.txns.keys().filter(|t| !b.txns.contains_key(t)) {
        out.push(format!("{who} {t:?} removed"));
    }
    for (t, m) in &b.markers {
        let to = list(m.partitions.iter().map(short));
        match a.markers.get(t) {
            None => out.push(format!(
                "{who} sends WriteTxnMarkers({}, {:?}) to {to}",
                decision(Some(m.commit)),
                m.producer
            )),
            Some(old) if old.partitions != m.partitions => {
                out.push(format!("{who} {t:?} markers still owed by {to}"))
            }
            Some(old) if old != m => out.push(format!(
                "{who} {t:?} marker retries {} → {}",
                resends_text(old.retries_left),
                resends_text(m.retries_left)
            )),
            Some(_) => {}
        }
    }
    for t in a.markers.keys().filter(|t| !b.markers.contains_key(t)) {
        out.push(format!("{who} {t:?} markers all written"));
    }
    changed(
        out,
        who,
        "coordinator epoch",
        &a.coordinator_epoch,
        &b.coordinator_epoch,
        short,
    );
    changed(
        out,
        who,
        "next producer id",
        &a.next_pid,
        &b.next_pid,
        short,
    );
    parked(who, &a.parked, &b.parked, out);
}

/// One transaction's metadata (`TransactionMetadata`): state first, the rest after.
fn txn_metadata(
    who: &str,
    t: TransactionalId,
    a: &TransactionMetadata,
    b: &TransactionMetadata,
    out: &mut Vec<String>,
) {
    let txn = format!("{t:?}");
    changed(out, who, &txn, &a.state, &b.state, short);
    changed(
        out,
        who,
        &format!("{txn} producer id"),
        &a.pid,
        &b.pid,
        short,
    );
    changed(out, who, &format!("{txn} epoch"), &a.epoch, &b.epoch, short);
    changed(
        out,
        who,
        &format!("{txn} last epoch"),
        &a.last_epoch,
        &b.last_epoch,
        opt,
    );
    partitions(out, who, &txn, &a.partitions, &b.partitions);
    flag(
        out,
        who,
        &format!("{txn} enables 2PC"),
        &format!("{txn} drops 2PC"),
        a.two_phase,
        b.two_phase,
    );
    changed(
        out,
        who,
        &format!("{txn} kept prepared pair"),
        &a.kept,
        &b.kept,
        opt,
    );
}

/// Partitions that joined or left a transaction.
fn partitions<T: Ord + std::fmt::Debug>(
    out: &mut Vec<String>,
    who: &str,
    txn: &str,
    a: &BTreeSet<T>,
    b: &BTreeSet<T>,
) {
    let added: Vec<String> = b.difference(a).map(short).collect();
    let gone: Vec<String> = a.difference(b).map(short).collect();
    if !added.is_empty() {
        out.push(format!("{who} {txn} adds {}", added.join(", ")));
    }
    if !gone.is_empty() {
        out.push(format!("{who} {txn} clears {}", gone.join(", ")));
    }
}

/// Requests parked (answered later) and released.
fn parked<T: PartialEq>(
    who: &str,
    a: &[(T, sharetxn_model::protocol::msg::Msg)],
    b: &[(T, sharetxn_model::protocol::msg::Msg)],
    out: &mut Vec<String>,
) {
    for (_, m) in b.iter().filter(|p| !a.contains(p)) {
        out.push(format!(
            "{who} parks {} until the transaction completes",
            message(m)
        ));
    }
    for (_, m) in a.iter().filter(|p| !b.contains(p)) {
        out.push(format!("{who} takes up the parked {}", message(m)));
    }
}

/// A partition leader (`UnifiedLog` with `ProducerStateManager`): appends, the last
/// stable offset, producer state, KIP-890 verifications in progress.
pub(super) fn leader<R: PartialEq>(
    who: &str,
    a: &LeaderState<R>,
    b: &LeaderState<R>,
    out: &mut Vec<String>,
) {
    let (x, y) = (&a.log, &b.log);
    if y.entries.starts_with(&x.entries) {
        for (offset, entry) in y.entries.iter().enumerate().skip(x.entries.len()) {
            out.push(format!(
                "{who} appends {} at offset {offset}",
                entry_text(entry)
            ));
        }
    } else if x.entries != y.entries {
        out.push(format!(
            "{who} log {} → {} entries",
            x.entries.len(),
            y.entries.len()
        ));
    }
    let lso = (x.last_stable_offset(), y.last_stable_offset());
    changed(out, who, "LSO", &lso.0, &lso.1, usize::to_string);
    for (pid, e) in &y.producers {
        producer_entry(who, *pid, x.producers.get(pid), e, out);
    }
    for (pid, p) in &b.verifying {
        match a.verifying.get(pid) {
            Some(old) if old.guard == p.guard && old.valid != p.valid => out.push(format!(
                "{who} verification of {:?} {}",
                p.producer,
                if p.valid { "valid again" } else { "no longer valid" }
            )),
            Some(old) if old.guard == p.guard => {}
            _ => out.push(format!(
                "{who} asks the transaction coordinator to verify {:?} (AddPartitionsToTxn) and parks its write",
                p.producer
            )),
        }
    }
    for pid in a.verifying.keys().filter(|p| !b.verifying.contains_key(p)) {
        out.push(format!("{who} ends the verification of {pid:?}"));
    }
    let waiting = (a.waiting_fetches.len(), b.waiting_fetches.len());
    changed(
        out,
        who,
        "OffsetFetch(RequireStable) waiting",
        &waiting.0,
        &waiting.1,
        usize::to_string,
    );
    changed(
        out,
        who,
        "leader generation",
        &a.generation,
        &b.generation,
        short,
    );
}

/// A log entry: `ABORT marker pid0/e1`, `data pid0/e0 seq 0`, `offset commit 1 (pid0/e0)`.
fn entry_text(entry: &LogEntry) -> String {
    match entry {
        LogEntry::Data {
            producer,
            seq,
            payload: Payload::Output(_),
        } => format!("data {producer:?} seq {}", opt(seq)),
        LogEntry::Data {
            producer,
            payload: Payload::Offset { offset, .. },
            ..
        } => format!("offset commit {offset} ({producer:?})"),
        LogEntry::Marker {
            producer,
            commit,
            coordinator_epoch,
        } => format!(
            "{} marker {producer:?} ({coordinator_epoch:?})",
            decision(Some(*commit))
        ),
    }
}

/// One producer's entry in the producer state (`ProducerStateEntry`).
fn producer_entry(
    who: &str,
    pid: ProducerId,
    a: Option<&ProducerStateEntry>,
    b: &ProducerStateEntry,
    out: &mut Vec<String>,
) {
    let Some(a) = a else {
        out.push(format!("{who} producer state {pid:?}: epoch {:?}", b.epoch));
        return;
    };
    match (a.ongoing_first_offset, b.ongoing_first_offset) {
        (None, Some(first)) => out.push(format!(
            "{who} {pid:?} transaction open from offset {first}"
        )),
        (Some(_), None) => out.push(format!("{who} {pid:?} transaction closed")),
        _ => {}
    }
    changed(
        out,
        who,
        &format!("{pid:?} epoch"),
        &a.epoch,
        &b.epoch,
        short,
    );
    changed(
        out,
        who,
        &format!("{pid:?} last sequence"),
        &a.last_seq,
        &b.last_seq,
        opt,
    );
    let ce = &format!("{pid:?} coordinator epoch");
    changed(
        out,
        who,
        ce,
        &a.coordinator_epoch,
        &b.coordinator_epoch,
        opt,
    );
}

/// `SharePartition` (Kafka 4.1; KIP-932, KIP-1289): the in-flight records, the share
/// state's load, the persister writes.
pub(super) fn share_partition(
    who: &str,
    a: &SharePartitionState,
    b: &SharePartitionState,
    out: &mut Vec<String>,
) {
    flag(
        out,
        who,
        "loads the share state",
        "drops the share state",
        a.loaded,
        b.loaded,
    );
    for (offset, r) in &b.records {
        match a.records.get(offset) {
            None => out.push(format!(
                "{who} record {offset} {:?} (delivery {}{})",
                r.state,
                r.delivery_count,
                r.member.map_or_else(String::new, |m| format!(", {m:?}"))
            )),
            Some(old) => record(who, *offset, old, r, out),
        }
    }
    for offset in a.records.keys().filter(|o| !b.records.contains_key(o)) {
        out.push(format!("{who} record {offset} leaves the in-flight window"));
    }
    changed(out, who, "SPSO", &a.start_offset, &b.start_offset, short);
    changed(
        out,
        who,
        "leader epoch",
        &a.leader_epoch,
        &b.leader_epoch,
        short,
    );
    writes(who, a, b, out);
    keyed(out, who, "share session", &a.sessions, &b.sessions, |e| {
        format!("epoch {e}")
    });
    let held = |s: &SharePartitionState| s.loading.len() + s.parked.len();
    changed(
        out,
        who,
        "requests held for the share state",
        &held(a),
        &held(b),
        usize::to_string,
    );
    flag(
        out,
        who,
        "re-reads the share state",
        "has re-read the share state",
        a.refreshing,
        b.refreshing,
    );
}

/// One in-flight record (`InFlightState`): its state with the transaction that staged an
/// acknowledgement on it, its delivery count, its holder, a write in progress.
fn record(
    who: &str,
    offset: Offset,
    a: &InFlightRecord,
    b: &InFlightRecord,
    out: &mut Vec<String>,
) {
    let rec = format!("record {offset}");
    if a.state != b.state {
        let by = b
            .staged
            .as_ref()
            .or(a.staged.as_ref())
            .map_or_else(String::new, |s| format!(" ({:?})", s.producer));
        out.push(format!("{who} {rec} {:?} → {:?}{by}", a.state, b.state));
    }
    changed(
        out,
        who,
        &format!("{rec} delivery count"),
        &a.delivery_count,
        &b.delivery_count,
        short,
    );
    changed(
        out,
        who,
        &format!("{rec} held by"),
        &a.member,
        &b.member,
        opt,
    );
    match (&a.ongoing, &b.ongoing) {
        (None, Some(o)) => out.push(format!(
            "{who} {rec} persists {:?} ({})",
            o.target,
            o.ack.name().to_uppercase()
        )),
        (Some(_), None) => out.push(format!("{who} {rec} state write settled")),
        (Some(x), Some(y)) if x != y => out.push(format!(
            "{who} {rec} state write {} → {}",
            short(x),
            short(y)
        )),
        _ => {}
    }
    match (&a.staged, &b.staged) {
        (None, Some(s)) => out.push(format!(
            "{who} {rec} stages {} for {:?}",
            s.ack.name().to_uppercase(),
            s.producer
        )),
        (Some(s), None) => out.push(format!(
            "{who} {rec} staged ack of {:?} resolved",
            s.producer
        )),
        (Some(x), Some(y)) if x != y => out.push(format!(
            "{who} {rec} staged ack {} → {}",
            short(x),
            short(y)
        )),
        _ => {}
    }
}

/// A persisted offset: `0 ACKNOWLEDGED x1`.
fn batch(b: &StateBatch) -> String {
    format!("{} {:?} x{}", b.offset, b.state, b.delivery_count)
}

/// `ShareCoordinatorShard` (Kafka 4.1; KIP-1289): what it writes to
/// `__share_group_state`, the staged acknowledgements and how they resolve, the share state.
pub(super) fn share_coordinator(
    who: &str,
    a: &ShareCoordinatorState,
    b: &ShareCoordinatorState,
    out: &mut Vec<String>,
) {
    if b.log.starts_with(&a.log) {
        for r in &b.log[a.log.len()..] {
            out.push(format!(
                "{who} writes {} to __share_group_state",
                share_record(r)
            ));
        }
    } else if a.log != b.log {
        out.push(format!(
            "{who} replays __share_group_state ({} records)",
            b.log.len()
        ));
    }
    let before = a.resolved.open();
    for r in b.resolved.open().iter().filter(|r| !before.contains(r)) {
        let how = match (r.commit, r.by_marker) {
            // `sc_state_epoch_fence`: staged before an offset reset, so not applied.
            (true, true) if r.fenced => {
                "fences the staged acks of {p} (COMMIT marker): staged under an older state epoch, not applied"
            }
            (true, true) => "applies the staged acks of {p} (COMMIT marker)",
            (false, true) => "discards the staged acks of {p} (ABORT marker)",
            (true, false) => {
                "replays the staged acks of {p} as committed, the producer id unchecked"
            }
            (false, false) => "drops the staged acks of {p} on load",
        };
        out.push(format!(
            "{who} {}",
            how.replace("{p}", &short(&r.acks.producer))
        ));
    }
    for (p, acks) in &b.pending {
        if !a.pending.contains_key(p) {
            let offsets = list(acks.batches.iter().map(batch));
            out.push(format!("{who} stages acks of {p:?} ({offsets})"));
        }
    }
    for p in a.pending.keys().filter(|p| !b.pending.contains_key(p)) {
        out.push(format!("{who} no longer holds staged acks of {p:?}"));
    }
    share_state(who, &a.state, &b.state, out);
    keyed(
        out,
        who,
        "producer epoch of",
        &a.producer_epochs,
        &b.producer_epochs,
        short,
    );
    staging_verifications(who, a, b, out);
    keyed(
        out,
        who,
        "owes TxnShareAcksResolved for",
        &a.outbox,
        &b.outbox,
        |r| short(&r.request),
    );
}

/// A `__share_group_state` record: `ShareUpdate(0 ACKNOWLEDGED x1)`, `TxnAcks(pid0/e0: 0
/// ACKNOWLEDGED x1)`, `ABORT TxnMarker pid0/e1`.
fn share_record(r: &ShareRecord) -> String {
    match r {
        ShareRecord::Snapshot(s) => format!("ShareSnapshot(SPSO {})", s.start_offset),
        ShareRecord::PruneSnapshot { state, .. } => {
            format!(
                "ShareSnapshot(SPSO {}), log pruned to it",
                state.start_offset
            )
        }
        ShareRecord::Update {
            leader_epoch,
            batches,
            ..
        } => format!(
            "ShareUpdate(leader epoch {leader_epoch}: {})",
            list(batches.iter().map(batch))
        ),
        ShareRecord::TxnAcks(p) => format!(
            "TxnAcks({:?}: {})",
            p.producer,
            list(p.batches.iter().map(batch))
        ),
        ShareRecord::TxnMarker {
            producer, commit, ..
        } => {
            format!("{} TxnMarker {producer:?}", decision(Some(*commit)))
        }
        ShareRecord::Initialize {
            state_epoch,
            start_offset,
            ..
        } => format!("ShareSnapshot(state epoch {state_epoch}, SPSO {start_offset}), by a reset"),
    }
}

/// The share state the coordinator serves (`ShareGroupOffset`).
fn share_state(who: &str, a: &ShareState, b: &ShareState, out: &mut Vec<String>) {
    let show = |(state, count): &(sharetxn_model::protocol::record_state::RecordState, u8)| {
        format!("{state:?} x{count}")
    };
    keyed(out, who, "share state offset", &a.batches, &b.batches, show);
    changed(
        out,
        who,
        "share state SPSO",
        &a.start_offset,
        &b.start_offset,
        short,
    );
    changed(
        out,
        who,
        "share state leader epoch",
        &a.leader_epoch,
        &b.leader_epoch,
        short,
    );
    changed(
        out,
        who,
        "state epoch",
        &a.state_epoch,
        &b.state_epoch,
        short,
    );
}

/// The persister writes (`WriteShareGroupState`) sent, answered and done.
fn writes(who: &str, a: &SharePartitionState, b: &SharePartitionState, out: &mut Vec<String>) {
    for (k, w) in &b.writes {
        match a.writes.get(k) {
            None => out.push(format!(
                "{who} sends WriteShareGroupState #{k} ({})",
                list(w.request.batches.iter().map(batch))
            )),
            Some(old) if old != w => out.push(format!("{who} WriteShareGroupState #{k} answered")),
            Some(_) => {}
        }
    }
    for k in a.writes.keys().filter(|k| !b.writes.contains_key(k)) {
        out.push(format!("{who} WriteShareGroupState #{k} done"));
    }
}

/// The TxnShareAcknowledge requests parked while the transaction coordinator verifies them.
fn staging_verifications(
    who: &str,
    a: &ShareCoordinatorState,
    b: &ShareCoordinatorState,
    out: &mut Vec<String>,
) {
    for (pid, p) in &b.verifying {
        if a.verifying.get(pid).is_none_or(|old| old.guard != p.guard) {
            out.push(format!(
                "{who} asks the transaction coordinator to verify {:?} and parks its TxnShareAcknowledge",
                p.producer
            ));
        }
    }
    for pid in a.verifying.keys().filter(|p| !b.verifying.contains_key(p)) {
        out.push(format!("{who} ends the verification of {pid:?}"));
    }
}
