//! `--set KEY=VALUE`: every design knob and scenario field by name, with validation.
//! Unknown keys and bad values are errors, never silent defaults.

use crate::design::knobs::{parse_bool, parse_range, Knob};
use crate::design::{Design, KNOBS};
use crate::protocol::record_state::AckType;
use crate::world::scenario::{AckMode, Role, Scenario};
use serde_json::{json, Value};

/// Every key `apply` accepts, with what it means and its range: the design knobs of
/// [`KNOBS`], then [`SCENARIO_SETTINGS`]. The ranges are the exhaustive checker's: they
/// keep a check within what it can explore (one past them and a check passes millions of
/// states), and they are shared by the simulator and trace loading. The simulator draws
/// larger workloads with its own `swarm_*` keys, up to what the model represents (see
/// [`crate::protocol::width`]).
pub fn keys() -> Vec<(&'static str, String)> {
    let design = KNOBS
        .iter()
        .map(|k| (k.name, format!("design: {}", k.help)));
    let scenario = SCENARIO_SETTINGS.iter().map(|(k, h)| (*k, h.to_string()));
    design.chain(scenario).collect()
}

/// The scenario fields `apply` accepts, with what each means and its range.
pub const SCENARIO_SETTINGS: &[(&str, &str)] = &[
    ("resume_scenario", "scenario: KIP-1310 resume, a writer prepares and a committer resumes, with an external participant, true|false"),
    ("inputs", "scenario: input records, 1..=64"),
    ("txns", "scenario: transactions per producer incarnation, 1..=64"),
    ("partitions", "scenario: output partitions, 0..=3 (0: no output, as the Flink source)"),
    ("drops", "scenario: messages lost in the whole run, 0..=255"),
    ("duplicates", "scenario: messages duplicated in the whole run, 0..=255"),
    ("crashes", "scenario: crashes in the whole run, 0..=255"),
    ("timeouts", "scenario: early timeouts (fired while the awaited answer is still in flight) in the whole run, 0..=255"),
    ("crashable", "scenario: comma-separated roles that may crash (txn-coordinator, group-coordinator, data-partition, producer, share-partition, share-coordinator, share-consumer, source-reader, committer, external-participant) or 'none'"),
    ("request_retries", "scenario: client resends after a request timeout, 0..=255"),
    ("marker_retries", "scenario: the transaction coordinator's marker resends after a lost marker or answer, 0..=255 or unbounded (the default: Kafka re-enqueues them without limit)"),
    ("read_retries", "scenario: a share-partition leader's resends of a refresh's ReadShareGroupState after its request timeout, before the read fails (- : 1, left out of reports and traces), 0..=255"),
    ("producers", "scenario: transactional producers, 0..=2"),
    ("records", "scenario: records in each share partition (0: no share group), 0..=8"),
    ("share_partitions", "scenario: share partitions of the input topic, each with its own share-partition leader (- : 1, left out of reports and traces), 1..=3"),
    ("share_groups", "scenario: share groups whose acks one KIP-1289 transaction carries, each with one share partition of its own (- : 1, left out of reports and traces), 1..=2"),
    ("consumers", "scenario: share consumers, 0..=3"),
    ("delivery_limit", "scenario: group.share.delivery.count.limit, 2..=10"),
    ("ack_mode", "scenario: share.acknowledgement.mode, implicit|explicit"),
    ("ack_types", "scenario: comma-separated types an explicit consumer chooses from (accept, release, reject)"),
    ("stalls", "scenario: times a share consumer, or the first KIP-1289 client, may stall past its acquisition locks, 0..=255"),
    ("max_records", "scenario: ShareFetch MaxRecords, 1..=8"),
    ("readers", "scenario: Flink source readers (a share consumer and a TransactionalShareAcknowledger each), 0..=1"),
    ("reader_members", "scenario: share-group members per Flink source reader, whose acks its one acknowledger commits (a shuffle; - : 1, left out of reports and traces), 1..=2"),
    ("txn_ack_types", "scenario: comma-separated types the KIP-1289 client stages in its transaction by choice (accept, release, reject; - : accept, left out of reports and traces)"),
    ("txn_plain_acks", "scenario: the KIP-1289 client's share consumer also acknowledges implicitly and on close() besides its transaction (- : false, left out of reports and traces), true|false"),
    ("share_add_choices", "scenario: the KIP-1289 client chooses per transaction to send no AddShareAcksToTxn or to stage before it is answered (- : false, left out of reports and traces), true|false"),
    ("session", "scenario: KIP-1310, the KIP-1289 clients run on a TransactionSession, true|false"),
    ("sink", "scenario: KIP-1302, each session client is a Connect WorkerShareSinkTask with a separate commit thread, true|false"),
    ("resets", "scenario: admin resets of the share group's start offset (AlterShareGroupOffsets, to the earliest or the latest offset by choice) the group coordinator carries out with InitializeShareGroupState at a new state epoch (- : 0, left out of reports and traces), 0..=1"),
    ("sc_prunes", "scenario: times each share coordinator incarnation writes a ShareSnapshot and prunes __share_group_state up to it (one share partition; - : 0, left out of reports and traces), 0..=3"),
];

fn parse_ack_types(key: &str, value: &str) -> Result<Vec<AckType>, String> {
    let mut types = Vec::new();
    for part in value.split(',') {
        // RENEW is not a consumer choice (see `share_consumer`).
        let t = AckType::ALL
            .iter()
            .copied()
            .filter(|t| *t != AckType::Renew)
            .find(|t| t.name() == part)
            .ok_or_else(|| format!("--set {key}={value}: unknown acknowledge type '{part}'"))?;
        if !types.contains(&t) {
            types.push(t);
        }
    }
    types.sort();
    Ok(types)
}

fn parse_roles(key: &str, value: &str) -> Result<Vec<Role>, String> {
    if value == "none" {
        return Ok(Vec::new());
    }
    let mut roles = Vec::new();
    for part in value.split(',') {
        let role = Role::ALL
            .iter()
            .copied()
            .find(|r| r.name() == part)
            .ok_or_else(|| format!("--set {key}={value}: unknown role '{part}'"))?;
        if !roles.contains(&role) {
            roles.push(role);
        }
    }
    roles.sort();
    Ok(roles)
}

/// Whose limits a setting is judged by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bounds {
    /// The exhaustive checker's: the ranges [`keys`] lists.
    Checker,
    /// What the model represents: the simulator's workloads (up to [`MAX_RECORDS`]
    /// records, [`MAX_CLIENTS`] producers and consumers, 255 transactions per producer
    /// incarnation) and the traces it writes.
    Model,
}

/// The most records the model's share partition holds (see [`crate::protocol::width::Offset`]);
/// enough for production-sized runs while a state stays small enough to step quickly.
pub const MAX_RECORDS: crate::protocol::width::Offset = 4096;

/// The most producers, and the most share consumers, in one scenario: with the other
/// actors they stay within the 32 actors a simulated network partition can split.
pub const MAX_CLIENTS: u8 = 8;

/// Applies one `KEY=VALUE` to a design and scenario, within the exhaustive checker's
/// ranges.
pub fn apply(design: &mut Design, scenario: &mut Scenario, setting: &str) -> Result<(), String> {
    apply_within(Bounds::Checker, design, scenario, setting)
}

/// Applies one `KEY=VALUE` to a design and scenario, within `bounds`: the workload's sizes
/// (`inputs`, `txns`, `records`, `producers`, `consumers`) may go up to what the model
/// represents under [`Bounds::Model`]; every other key has one range.
pub fn apply_within(
    bounds: Bounds,
    design: &mut Design,
    scenario: &mut Scenario,
    setting: &str,
) -> Result<(), String> {
    let (key, value) = setting
        .split_once('=')
        .ok_or_else(|| format!("--set {setting}: expected KEY=VALUE"))?;
    let (key, value) = (key.trim(), value.trim());
    match Knob::by_name(key) {
        Some(knob) => (knob.set)(design, key, value),
        None => apply_scenario(bounds == Bounds::Model, scenario, key, value),
    }
}

/// Sets the scenario field `key`; `model` lifts the workload sizes to what the model
/// represents.
fn apply_scenario(
    model: bool,
    scenario: &mut Scenario,
    key: &str,
    value: &str,
) -> Result<(), String> {
    match key {
        "inputs" => scenario.inputs = parse_range(key, value, 1, if model { u8::MAX } else { 64 })?,
        "txns" => scenario.txns = parse_range(key, value, 1, if model { u8::MAX } else { 64 })?,
        "partitions" => scenario.partitions = parse_range(key, value, 0, 3)?,
        "drops" => scenario.budget.drops = parse_range(key, value, 0, 255)?,
        "duplicates" => scenario.budget.duplicates = parse_range(key, value, 0, 255)?,
        "crashes" => scenario.budget.crashes = parse_range(key, value, 0, 255)?,
        "timeouts" => scenario.budget.timeouts = parse_range(key, value, 0, 255)?,
        "crashable" => scenario.crashable = parse_roles(key, value)?,
        "request_retries" => scenario.request_retries = parse_range(key, value, 0, 255)?,
        "marker_retries" => {
            scenario.marker_retries = match value {
                "unbounded" => None,
                _ => Some(parse_range(key, value, 0, 255)?),
            }
        }
        "read_retries" => scenario.read_retries = parse_range(key, value, 0, 255)?,
        "producers" => {
            scenario.producers = parse_range(key, value, 0, if model { MAX_CLIENTS } else { 2 })?
        }
        "records" => {
            scenario.records = parse_range(key, value, 0, if model { MAX_RECORDS } else { 8 })?
        }
        "share_partitions" => scenario.share_partitions = parse_range(key, value, 1, 3)?,
        "share_groups" => scenario.share_groups = parse_range(key, value, 1, 2)?,
        "consumers" => {
            scenario.consumers = parse_range(key, value, 0, if model { MAX_CLIENTS } else { 3 })?
        }
        "delivery_limit" => scenario.delivery_limit = parse_range(key, value, 2, 10)?,
        "ack_mode" => {
            scenario.ack_mode = match value {
                "implicit" => AckMode::Implicit,
                "explicit" => AckMode::Explicit,
                _ => {
                    return Err(format!(
                        "--set {key}={value}: expected implicit or explicit"
                    ))
                }
            }
        }
        "ack_types" => scenario.ack_types = parse_ack_types(key, value)?,
        "stalls" => scenario.stalls = parse_range(key, value, 0, 255)?,
        "max_records" => scenario.max_records = parse_range(key, value, 1, 8)?,
        "readers" => scenario.readers = parse_range(key, value, 0, 1)?,
        "reader_members" => scenario.reader_members = parse_range(key, value, 1, 2)?,
        "txn_ack_types" => scenario.txn_ack_types = parse_ack_types(key, value)?,
        "txn_plain_acks" => scenario.txn_plain_acks = parse_bool(key, value)?,
        "share_add_choices" => scenario.share_add_choices = parse_bool(key, value)?,
        "session" => scenario.session = parse_bool(key, value)?,
        "sink" => scenario.sink = parse_bool(key, value)?,
        "resume_scenario" => scenario.resume = parse_bool(key, value)?,
        "sc_prunes" => scenario.sc_prunes = parse_range(key, value, 0, 3)?,
        "resets" => scenario.resets = parse_range(key, value, 0, 1)?,
        _ => {
            let known: Vec<&str> = keys().into_iter().map(|(k, _)| k).collect();
            return Err(format!(
                "--set {key}: unknown key (known: {})",
                known.join(", ")
            ));
        }
    }
    Ok(())
}

/// Every knob and field as used, as one JSON object (for reports and traces).
pub fn as_json(design: &Design, scenario: &Scenario) -> Value {
    let roles: Vec<&str> = scenario.crashable.iter().map(|r| r.name()).collect();
    let mut out = json!({
        "inputs": scenario.inputs,
        "txns": scenario.txns,
        "partitions": scenario.partitions,
        "drops": scenario.budget.drops,
        "duplicates": scenario.budget.duplicates,
        "crashes": scenario.budget.crashes,
        "timeouts": scenario.budget.timeouts,
        "crashable": roles.join(","),
        "request_retries": scenario.request_retries,
        "marker_retries": scenario.marker_retries.map_or(json!("unbounded"), |n| json!(n)),
        "producers": scenario.producers,
        "records": scenario.records,
        "consumers": scenario.consumers,
        "delivery_limit": scenario.delivery_limit,
        "ack_mode": scenario.ack_mode.name(),
        "ack_types": scenario.ack_types.iter().map(|t| t.name()).collect::<Vec<_>>().join(","),
        "stalls": scenario.stalls,
        "max_records": scenario.max_records,
        "readers": scenario.readers,
        "session": scenario.session,
        "sink": scenario.sink,
        "resume_scenario": scenario.resume,
    });
    if let Value::Object(map) = &mut out {
        // Left out at one share partition, so every other scenario's output stays as it was.
        if scenario.share_partitions != 1 {
            map.insert("share_partitions".into(), json!(scenario.share_partitions));
        }
        if scenario.share_groups != 1 {
            map.insert("share_groups".into(), json!(scenario.share_groups));
        }
        if scenario.sc_prunes != 0 {
            map.insert("sc_prunes".into(), json!(scenario.sc_prunes));
        }
        if scenario.resets != 0 {
            map.insert("resets".into(), json!(scenario.resets));
        }
        if scenario.read_retries != 1 {
            map.insert("read_retries".into(), json!(scenario.read_retries));
        }
        if scenario.share_add_choices {
            map.insert("share_add_choices".into(), json!(true));
        }
        if scenario.txn_plain_acks {
            map.insert("txn_plain_acks".into(), json!(true));
        }
        if scenario.txn_ack_types != [AckType::Accept] {
            let names: Vec<&str> = scenario.txn_ack_types.iter().map(|t| t.name()).collect();
            map.insert("txn_ack_types".into(), json!(names.join(",")));
        }
        if scenario.reader_members != 1 {
            map.insert("reader_members".into(), json!(scenario.reader_members));
        }
        for knob in KNOBS {
            map.insert(knob.name.to_string(), (knob.json)(design));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::TransactionVersion;

    #[test]
    fn rejects_unknown_keys_and_bad_values() {
        let (mut d, mut s) = (Design::consumer_offsets(), Scenario::txn_basic());
        assert!(apply(&mut d, &mut s, "nope=1")
            .unwrap_err()
            .contains("unknown key"));
        assert!(apply(&mut d, &mut s, "tv=3")
            .unwrap_err()
            .contains("0 to 2"));
        assert!(apply(&mut d, &mut s, "verification=maybe").is_err());
        assert!(apply(&mut d, &mut s, "tv")
            .unwrap_err()
            .contains("KEY=VALUE"));
        assert!(apply(&mut d, &mut s, "leader_resolution=guess")
            .unwrap_err()
            .contains("none, refresh, notify"));
        assert!(apply(&mut d, &mut s, "stage_owner_check=x").is_err());
        apply(&mut d, &mut s, "tv=1").unwrap();
        apply(&mut d, &mut s, "crashable=producer,txn-coordinator").unwrap();
        assert_eq!(d.tv, TransactionVersion(1));
        assert_eq!(s.crashable, vec![Role::TxnCoordinator, Role::Producer]);
    }

    #[test]
    fn every_listed_key_is_accepted() {
        for (key, _) in keys() {
            let (mut d, mut s) = (Design::consumer_offsets(), Scenario::txn_basic());
            let value = match key {
                "verification"
                | "flush_before_end_txn"
                | "lock_timer_race"
                | "ack_member_check"
                | "stage_at_leader"
                | "rebuild_pending" => "true",
                "stage_owner_check" => "acquisition",
                "leader_resolution" => "notify",
                "sc_replay_pending" | "stage_verification" => "true",
                "two_phase_commit" | "txn_heartbeat" => "true",
                "acknowledger_commit" => "two-phase",
                "heartbeat_owner" => "producer",
                "session" | "session_commit_flush" | "sink" => "true",
                "sink_commit_scope" => "staged",
                "epoch_handoff" => "atomic",
                "resume" => "fence",
                "session_send_check" | "decide_after_resume" | "resume_scenario" => "true",
                "committer_recovery" | "recovery_retry" | "writer_failover" => "true",
                "vote_timeout" | "writer_keep_prepared" => "true",
                "marker_match" => "txn-epoch",
                "crashable" => "none",
                "ack_mode" => "explicit",
                "ack_types" | "txn_ack_types" => "accept,reject",
                "txn_plain_acks" | "share_add_choices" => "true",
                "delivery_limit" => "2",
                _ => "1",
            };
            apply(&mut d, &mut s, &format!("{key}={value}")).unwrap();
        }
    }
}
