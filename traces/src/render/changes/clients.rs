//! The clients' describers: the transactional client (`TransactionManager` with its
//! share-consumer half), the share consumer, and the application roles built on them
//! (Flink's source reader, the resumed session's writer, the 2PC coordinator application).

use super::{changed, decision, flag, keyed, list, opt, short};
use crate::render::label::{kafka_name, message};
use sharetxn_model::clients::committer::CommitterState;
use sharetxn_model::clients::producer::ProducerState;
use sharetxn_model::clients::producer_share::ShareClientState;
use sharetxn_model::clients::resume_writer::ResumeWriterState;
use sharetxn_model::clients::share_acknowledger::HandedAck;
use sharetxn_model::clients::share_consumer::ShareConsumerState;
use sharetxn_model::clients::source_reader::SourceReaderState;
use sharetxn_model::clients::transaction_manager::{CurrentTxn, Outstanding};
use sharetxn_model::protocol::width::Counter;

/// The transactional client (`KafkaProducer` with its `TransactionManager`, Kafka 4.1):
/// the manager's state first, then the identity, the transaction, the requests in flight.
pub(super) fn producer(who: &str, x: &ProducerState, y: &ProducerState, out: &mut Vec<String>) {
    let (a, b) = (&x.manager, &y.manager);
    let tm = |s: &sharetxn_model::coordinator::txn_state::TxnManagerState| kafka_name(&short(s));
    changed(out, who, "TransactionManager", &a.tm, &b.tm, tm);
    changed(
        out,
        who,
        "producer id and epoch",
        &a.identity,
        &b.identity,
        opt,
    );
    changed(out, who, "prepared pair", &a.prepared, &b.prepared, opt);
    changed(
        out,
        who,
        "incarnation",
        &a.incarnation,
        &b.incarnation,
        short,
    );
    transaction(who, a.txn.as_ref(), b.txn.as_ref(), out);
    if let (Some(p), Some(q)) = (x.role.share(), y.role.share()) {
        share_client(who, p, q, out);
    }
    let view = |s: &ProducerState| s.role.session().and_then(|s| s.view);
    changed(out, who, "session view", &view(x), &view(y), opt);
    let held = |s: &ProducerState| {
        s.role
            .sink()
            .and_then(|s| s.held.as_ref().map(|h| h.record.offset))
    };
    changed(out, who, "sink task holds record", &held(x), &held(y), opt);
    let ended = |s: &ProducerState| s.role.sink().is_some_and(|s| s.polls_ended);
    flag(
        out,
        who,
        "sink task stops polling",
        "sink task polls again",
        ended(x),
        ended(y),
    );
    for (k, o) in &b.requests {
        request(who, a.requests.get(k), Some(o), out);
    }
    for (_, o) in a
        .requests
        .iter()
        .filter(|(k, _)| !b.requests.contains_key(k))
    {
        request(who, Some(o), None, out);
    }
    if a.coordinator != b.coordinator {
        request(who, a.coordinator.as_ref(), b.coordinator.as_ref(), out);
    }
    keyed(out, who, "next sequence for", &a.seqs, &b.seqs, short);
    changed(out, who, "next input", &x.next_input, &y.next_input, short);
    changed(out, who, "attempts", &a.attempts, &b.attempts, short);
    flag(out, who, "is done", "is not done", a.done, b.done);
}

/// A request in flight that was sent, answered, replaced or resent.
fn request(who: &str, a: Option<&Outstanding>, b: Option<&Outstanding>, out: &mut Vec<String>) {
    match (a, b) {
        (None, Some(o)) => out.push(format!("{who} sends {}", message(&o.msg))),
        (Some(o), None) => out.push(format!("{who} stops waiting for {}", message(&o.msg))),
        (Some(x), Some(y)) if x.msg != y.msg => out.push(format!(
            "{who} stops waiting for {}, sends {}",
            message(&x.msg),
            message(&y.msg)
        )),
        (Some(x), Some(y)) if x != y => out.push(format!(
            "{who} resends {} ({} retries left)",
            message(&y.msg),
            y.retries_left
        )),
        _ => {}
    }
}

/// The transaction the client is in: which attempt, which input, the decision.
fn transaction(who: &str, a: Option<&CurrentTxn>, b: Option<&CurrentTxn>, out: &mut Vec<String>) {
    match (a, b) {
        (None, Some(t)) => out.push(format!(
            "{who} begins attempt {:?} on input {}",
            t.tag.open(),
            t.input
        )),
        (Some(t), None) => out.push(format!("{who} ends attempt {:?}", t.tag.open())),
        (Some(x), Some(y)) => {
            if x.tag != y.tag {
                out.push(format!(
                    "{who} attempt {:?} → {:?}",
                    x.tag.open(),
                    y.tag.open()
                ));
            }
            changed(out, who, "input", &x.input, &y.input, short);
            flag(
                out,
                who,
                "transaction can only abort",
                "transaction may commit",
                x.failed,
                y.failed,
            );
            changed(out, who, "decides", &x.decision, &y.decision, |d| {
                decision(*d)
            });
            flag(
                out,
                who,
                "issues its writes",
                "withdraws its writes",
                x.writes_issued,
                y.writes_issued,
            );
            flag(
                out,
                who,
                "calls prepareTransaction()",
                "leaves prepare",
                x.prepare,
                y.prepare,
            );
        }
        (None, None) => {}
    }
}

/// The client's share-consumer half: the record it acquired, the acks it was handed.
fn share_client(who: &str, a: &ShareClientState, b: &ShareClientState, out: &mut Vec<String>) {
    match (a.fetched, b.fetched) {
        (x, Some(r)) if x != Some(r) => out.push(format!(
            "{who} acquires record {} (delivery {})",
            r.offset, r.delivery_count
        )),
        (Some(r), None) => out.push(format!("{who} lets go of record {}", r.offset)),
        _ => {}
    }
    changed(out, who, "acks handed", &a.acks, &b.acks, |v| acks(v));
    session_and_stalls(
        who,
        (a.session_epoch, a.stalled, a.stalls_left),
        (b.session_epoch, b.stalled, b.stalls_left),
        out,
    );
}

/// What every share consumer kind has: the share session epoch, whether it stalls past its
/// acquisition lock, and how many stalls it has left (each as `(epoch, stalled, left)`).
fn session_and_stalls(
    who: &str,
    a: (Counter, bool, u8),
    b: (Counter, bool, u8),
    out: &mut Vec<String>,
) {
    changed(out, who, "share session epoch", &a.0, &b.0, short);
    flag(out, who, "stalls past its lock", "resumes", a.1, b.1);
    changed(out, who, "stalls left", &a.2, &b.2, short);
}

/// Acknowledgements: `0 ACCEPT`.
fn acks(v: &[HandedAck]) -> String {
    list(
        v.iter()
            .map(|h| format!("{} {}", h.offset, h.ack.name().to_uppercase())),
    )
}

/// The share consumer (`KafkaShareConsumer`, KIP-932): the request in flight, the records
/// delivered and acknowledged.
pub(super) fn share_consumer(
    who: &str,
    a: &ShareConsumerState,
    b: &ShareConsumerState,
    out: &mut Vec<String>,
) {
    changed(out, who, "in flight", &a.in_flight, &b.in_flight, |m| {
        m.as_ref().map_or_else(|| "-".into(), message)
    });
    let delivered = |s: &ShareConsumerState| {
        list(s.delivered.iter().map(|d| {
            let ack = d
                .ack
                .map_or_else(|| "unacked".into(), |a| a.name().to_uppercase());
            format!("{} x{} {ack}", d.offset, d.delivery_count)
        }))
    };
    changed(
        out,
        who,
        "delivered",
        &delivered(a),
        &delivered(b),
        String::clone,
    );
    session_and_stalls(
        who,
        (a.session_epoch, a.stalled, a.stalls_left),
        (b.session_epoch, b.stalled, b.stalls_left),
        out,
    );
}

/// Flink's share-group source reader (KIP-1310): its acknowledger, its consumer, the
/// acknowledgements per checkpoint.
pub(super) fn source_reader(
    who: &str,
    a: &SourceReaderState,
    b: &SourceReaderState,
    out: &mut Vec<String>,
) {
    producer(who, &a.acknowledger, &b.acknowledger, out);
    share_consumer(who, &a.consumer, &b.consumer, out);
    changed(out, who, "acks pending", &a.pending, &b.pending, |v| {
        acks(v)
    });
    changed(
        out,
        who,
        "acks committing",
        &a.committing,
        &b.committing,
        |v| acks(v),
    );
    changed(out, who, "acks restored", &a.restored, &b.restored, |v| {
        acks(v)
    });
    changed(
        out,
        who,
        "acks snapshotting",
        &a.snapshotting,
        &b.snapshotting,
        |v| acks(v),
    );
    changed(
        out,
        who,
        "checkpoints",
        &a.checkpoints,
        &b.checkpoints,
        short,
    );
    changed(out, who, "recovers", &a.recovering, &b.recovering, opt);
    changed(
        out,
        who,
        "incarnation",
        &a.incarnation,
        &b.incarnation,
        short,
    );
}

/// The resumed session's writer: its transaction session, whether it handed the session
/// over, and its fate.
pub(super) fn resume_writer(
    who: &str,
    a: &ResumeWriterState,
    b: &ResumeWriterState,
    out: &mut Vec<String>,
) {
    producer(who, &a.session, &b.session, out);
    flag(
        out,
        who,
        "hands the session over",
        "takes the session back",
        a.handed,
        b.handed,
    );
    changed(out, who, "writer", &a.fate, &b.fate, short);
}

/// The 2PC coordinator application (KIP-939): its decision log, its vote, its external
/// participant, its transaction session.
pub(super) fn committer(who: &str, a: &CommitterState, b: &CommitterState, out: &mut Vec<String>) {
    changed(
        out,
        who,
        "logs decision",
        &a.log.decision,
        &b.log.decision,
        |d| decision(*d),
    );
    changed(
        out,
        who,
        "logs committable",
        &a.log.committable,
        &b.log.committable,
        opt,
    );
    changed(
        out,
        who,
        "incarnation",
        &a.log.incarnation,
        &b.log.incarnation,
        short,
    );
    flag(out, who, "votes", "withdraws its vote", a.voted, b.voted);
    changed(out, who, "external call", &a.external, &b.external, opt);
    flag(
        out,
        who,
        "hears the external participant",
        "waits for the external participant",
        a.external_done,
        b.external_done,
    );
    match (&a.session, &b.session) {
        (Some(x), Some(y)) => producer(who, x, y, out),
        (None, Some(_)) => out.push(format!("{who} opens its transaction session")),
        (Some(_), None) => out.push(format!("{who} closes its transaction session")),
        (None, None) => {}
    }
    flag(
        out,
        who,
        "resumes the prepared transaction",
        "starts afresh",
        a.resumed,
        b.resumed,
    );
    flag(
        out,
        who,
        "completes the transaction",
        "stops completing",
        a.completing,
        b.completing,
    );
    flag(
        out,
        who,
        "presumes abort",
        "stops presuming abort",
        a.presumed_abort,
        b.presumed_abort,
    );
}
