//! What a step changed, in Kafka's vocabulary: `SP0 record 0 ACQUIRED → TX_PENDING
//! (pid0/e0)`, `TC txn0 Ongoing → PrepareAbort`, `D0 LSO 0 → 2`, `P0 TransactionManager
//! IN_TRANSACTION → ABORTING_TRANSACTION`. One describer per actor kind reads the two states
//! through the model's types ([`brokers`] for the coordinators and partition leaders,
//! [`clients`] for the clients); the fault budget is named field by field, and the
//! checker's own history (the ghost state, no part of Kafka) keeps a short path.

mod brokers;
mod clients;

use super::label::detail;
use crate::diff;
use crate::digest::Snapshot;
use serde_json::Value;
use sharetxn_model::world::node::{NodeState, NodeStorage};
use sharetxn_model::world::shared::Shared;
use sharetxn_model::world::timer_set::TimerSet;
use sharetxn_model::{System, SystemState};
use std::collections::BTreeMap;
use std::fmt::Debug;

/// What one step changed at one actor (or in the fault budget or the history).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActorChanges {
    /// The actor's short name, `budget` or `history`.
    pub actor: String,
    /// Each change in one phrase that starts with the actor's name.
    pub changes: Vec<String>,
}

/// How many characters of a value a phrase shows.
const VALUE_WIDTH: usize = 40;

/// What the step from `before` to `after` changed, actor by actor in topology order, then
/// the fault budget and the history; actors the step left alone are left out.
pub fn step_changes(
    sys: &System,
    (before, after): (&SystemState, &SystemState),
    (old, new): (&Snapshot, &Snapshot),
) -> Vec<ActorChanges> {
    let mut all = Vec::new();
    for i in 0..sys.topology.len() {
        let who = sys.topology.name(i.into());
        let mut out = Vec::new();
        if before.up[i] != after.up[i] {
            let now = if after.up[i] { "restarts" } else { "crashes" };
            out.push(format!("{who} {now}"));
        }
        node(&who, &before.nodes[i], &after.nodes[i], &mut out);
        storage(&who, &before.storage[i], &after.storage[i], &mut out);
        timers(&who, &before.timers[i], &after.timers[i], &mut out);
        keyed(
            &mut out,
            &who,
            "offers the choice",
            &*before.choices[i],
            &*after.choices[i],
            |c| list(c.iter().map(detail)),
        );
        if !out.is_empty() {
            all.push(ActorChanges {
                actor: who,
                changes: out,
            });
        }
    }
    budget(before, after, &mut all);
    history(old, new, &mut all);
    all
}

/// The state describer of the actor's kind.
fn node(who: &str, a: &NodeState, b: &NodeState, out: &mut Vec<String>) {
    use NodeState as N;
    match (a, b) {
        (N::TxnCoordinator(a), N::TxnCoordinator(b)) => brokers::txn_coordinator(who, a, b, out),
        (N::GroupCoordinator(a), N::GroupCoordinator(b)) => brokers::leader(who, a, b, out),
        (N::DataPartition(a), N::DataPartition(b)) => brokers::leader(who, a, b, out),
        (N::SharePartition(a), N::SharePartition(b)) => brokers::share_partition(who, a, b, out),
        (N::ShareCoordinator(a), N::ShareCoordinator(b)) => {
            brokers::share_coordinator(who, a, b, out)
        }
        (N::Producer(a), N::Producer(b)) => clients::producer(who, a, b, out),
        (N::ShareConsumer(a), N::ShareConsumer(b)) => clients::share_consumer(who, a, b, out),
        (N::SourceReader(a), N::SourceReader(b)) => clients::source_reader(who, a, b, out),
        (N::ResumeWriter(a), N::ResumeWriter(b)) => clients::resume_writer(who, a, b, out),
        (N::Committer(a), N::Committer(b)) => clients::committer(who, a, b, out),
        (N::ExternalParticipant(a), N::ExternalParticipant(b)) => {
            flag(
                out,
                who,
                "prepares",
                "forgets its prepare",
                a.prepared,
                b.prepared,
            );
            changed(out, who, "decision", &a.decision, &b.decision, |d| {
                decision(*d)
            });
        }
        // An actor's kind never changes; should it, say so rather than hide it.
        _ => out.push(format!("{who} changes kind")),
    }
}

/// Durable storage where it is more than a copy of the state's log (the transaction
/// coordinator's, a leader's, the share coordinator's and the 2PC application's logs are
/// described with their state): a Flink reader's checkpoint, a client's incarnation.
fn storage(
    who: &str,
    a: &Option<Shared<NodeStorage>>,
    b: &Option<Shared<NodeStorage>>,
    out: &mut Vec<String>,
) {
    use NodeStorage as S;
    match (a.as_deref(), b.as_deref()) {
        (Some(S::SourceReader(x)), Some(S::SourceReader(y))) => {
            let acks = |v: &[sharetxn_model::clients::share_acknowledger::HandedAck]| {
                list(
                    v.iter()
                        .map(|h| format!("{} {}", h.offset, h.ack.name().to_uppercase())),
                )
            };
            changed(
                out,
                who,
                "checkpoint stores acks",
                &x.checkpoint,
                &y.checkpoint,
                |v| acks(v),
            );
            changed(
                out,
                who,
                "checkpoint stores prepared pair",
                &x.prepared,
                &y.prepared,
                opt,
            );
            changed(
                out,
                who,
                "checkpoint incarnation",
                &x.incarnation,
                &y.incarnation,
                short,
            );
        }
        (Some(S::Producer { incarnation: x }), Some(S::Producer { incarnation: y })) => {
            changed(out, who, "stored incarnation", x, y, short)
        }
        (None, Some(S::SourceReader(y))) if !y.checkpoint.is_empty() => out.push(format!(
            "{who} checkpoint stores {} acks",
            y.checkpoint.len()
        )),
        _ => {}
    }
}

/// Timers armed and disarmed (a timer that fired is disarmed).
fn timers(who: &str, a: &TimerSet, b: &TimerSet, out: &mut Vec<String>) {
    for t in b.difference(a) {
        out.push(format!("{who} arms {}", detail(t)));
    }
    for t in a.difference(b) {
        out.push(format!("{who} disarms {}", detail(t)));
    }
}

/// The fault budget, field by field.
fn budget(before: &SystemState, after: &SystemState, all: &mut Vec<ActorChanges>) {
    let (a, b) = (&before.budget, &after.budget);
    let mut out = Vec::new();
    let who = "fault budget";
    changed(&mut out, who, "drops", &a.drops, &b.drops, u8::to_string);
    changed(
        &mut out,
        who,
        "duplicates",
        &a.duplicates,
        &b.duplicates,
        u8::to_string,
    );
    changed(
        &mut out,
        who,
        "crashes",
        &a.crashes,
        &b.crashes,
        u8::to_string,
    );
    changed(
        &mut out,
        who,
        "timeouts",
        &a.timeouts,
        &b.timeouts,
        u8::to_string,
    );
    if out.is_empty() && a != b {
        out.push(format!("{who} changes"));
    }
    if !out.is_empty() {
        all.push(ActorChanges {
            actor: "budget".into(),
            changes: out,
        });
    }
}

/// The parts that are neither an actor, the network nor the budget: the checker's history
/// (the ghost state the properties read), by path, since it is no part of Kafka.
fn history(old: &Snapshot, new: &Snapshot, all: &mut Vec<ActorChanges>) {
    let actors = new.parts.len() - new.parts.iter().filter(|(n, _)| !is_actor(n)).count();
    for (name, value) in new.parts.iter().skip(actors) {
        if matches!(name.as_str(), "network" | "budget") {
            continue;
        }
        let before = old.part(name).cloned().unwrap_or(Value::Null);
        let (found, _) = diff::changes(&before, value, usize::MAX);
        let label = if name == "ghost" {
            "history"
        } else {
            name.as_str()
        };
        let changes: Vec<String> = found
            .iter()
            .map(|c| {
                let path: Vec<String> = c.path.iter().map(|s| segment_text(s)).collect();
                format!(
                    "{label} {}: {} → {}",
                    path.join("."),
                    value_text(c.before.as_ref()),
                    value_text(c.after.as_ref())
                )
            })
            .collect();
        if !changes.is_empty() {
            all.push(ActorChanges {
                actor: label.to_string(),
                changes,
            });
        }
    }
}

/// Whether a snapshot part is an actor's (actors come first and are named by the
/// topology; the other parts are the state's own field names, all lowercase).
fn is_actor(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase())
}

/// `who what a → b` when the values differ.
fn changed<T: PartialEq>(
    out: &mut Vec<String>,
    who: &str,
    what: &str,
    a: &T,
    b: &T,
    show: impl Fn(&T) -> String,
) {
    if a != b {
        out.push(format!("{who} {what} {} → {}", show(a), show(b)));
    }
}

/// `who on` or `who off` when a flag flips.
fn flag(out: &mut Vec<String>, who: &str, on: &str, off: &str, a: bool, b: bool) {
    if a != b {
        out.push(format!("{who} {}", if b { on } else { off }));
    }
}

/// A map's entries that came, went or changed: `who what key: value`, `who what key
/// gone`, `who what key: old → new`.
fn keyed<K: Ord + Debug, V: PartialEq>(
    out: &mut Vec<String>,
    who: &str,
    what: &str,
    a: &BTreeMap<K, V>,
    b: &BTreeMap<K, V>,
    show: impl Fn(&V) -> String,
) {
    for (k, v) in b {
        match a.get(k) {
            None => out.push(format!("{who} {what} {k:?}: {}", show(v))),
            Some(old) if old != v => {
                out.push(format!("{who} {what} {k:?}: {} → {}", show(old), show(v)))
            }
            Some(_) => {}
        }
    }
    for k in a.keys().filter(|k| !b.contains_key(k)) {
        out.push(format!("{who} {what} {k:?} gone"));
    }
}

/// A value's `Debug` text cut to a few characters.
fn short<T: Debug>(value: &T) -> String {
    let text = format!("{value:?}");
    if text.chars().count() <= VALUE_WIDTH {
        text
    } else {
        let cut: String = text.chars().take(VALUE_WIDTH - 1).collect();
        format!("{cut}…")
    }
}

/// An optional value: `-` for none.
fn opt<T: Debug>(value: &Option<T>) -> String {
    value.as_ref().map_or_else(|| "-".to_string(), short)
}

/// Items joined with commas, `none` for no item.
fn list(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

/// A transaction's outcome as Kafka's `TransactionResult` names it.
fn decision(commit: Option<bool>) -> String {
    match commit {
        Some(true) => "COMMIT".into(),
        Some(false) => "ABORT".into(),
        None => "-".into(),
    }
}

/// A value in a few characters: scalars as they are, an enum variant by its name (with a
/// scalar argument), any other structure as `{…}` or `[…]`: the path already says where.
fn value_text(value: Option<&Value>) -> String {
    match value {
        Some(Value::Object(m)) if m.len() == 1 => {
            let (k, inner) = m
                .iter()
                .next()
                .map(|(k, v)| (k.as_str(), v))
                .unwrap_or_default();
            match inner {
                Value::Null => k.to_string(),
                Value::Object(_) | Value::Array(_) => format!("{k}{{…}}"),
                scalar => format!("{k}({})", diff::short(Some(scalar), VALUE_WIDTH)),
            }
        }
        Some(Value::Object(_)) => "{…}".into(),
        Some(Value::Array(a)) if a.is_empty() => "[]".into(),
        Some(Value::Array(_)) => "[…]".into(),
        other => diff::short(other, VALUE_WIDTH),
    }
}

/// A path segment: a map key that is the JSON text of an enum (`{"Produce":0}`) reads as
/// the variant with its argument (`Produce(0)`).
fn segment_text(segment: &str) -> String {
    if !segment.starts_with('{') {
        return segment.to_string();
    }
    match serde_json::from_str::<Value>(segment) {
        Ok(v) => value_text(Some(&v)),
        Err(_) => segment.to_string(),
    }
}
