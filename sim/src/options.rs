//! The simulator's options: Kafka's durations, the network's latency, the shape of a run
//! and the ranges the swarm draws from. Every one can be changed with `--set KEY=VALUE`
//! (the keys are listed in [`SIM_SETTINGS`]); what a key does not name keeps Kafka's
//! default, so a run means "today's Kafka configuration" unless told otherwise.

use crate::faults::FaultKind;
use crate::trace_limit::TraceLimit;
use serde::{Deserialize, Serialize};
use sharetxn_model::protocol::width::Offset;
use sharetxn_model::world::settings::{MAX_CLIENTS, MAX_RECORDS};
use sharetxn_properties::PROPERTIES;
use std::ops::RangeInclusive;

/// Every `--set` key the simulator accepts, with what it means.
pub const SIM_SETTINGS: &[(&str, &str)] = &[
    ("request_timeout_ms", "sim: client request.timeout.ms (default 30000)"),
    ("delivery_timeout_ms", "sim: client delivery.timeout.ms; a request is resent after each request timeout until this runs out (default 120000)"),
    ("txn_timeout_ms", "sim: transaction.timeout.ms, the coordinator's abort deadline (default 60000)"),
    ("retry_backoff_ms", "sim: retry.backoff.ms; a marker is resent request_timeout_ms + retry_backoff_ms after it was sent (default 100)"),
    ("acquisition_lock_ms", "sim: share group record acquisition lock (group.share.record.lock.duration.ms, default 30000)"),
    ("session_timeout_ms", "sim: share group member session timeout (group.share.session.timeout.ms, default 45000)"),
    ("latency_ms", "sim: typical one-way latency of a link; each link draws its own around it, with a long tail (default 2)"),
    ("think_ms", "sim: longest time a client takes to decide (commit or abort) (default 20)"),
    ("fault_ms", "sim: virtual length of the fault phase (default 600000)"),
    ("heal_deadline_ms", "sim: after the heal begins, liveness must be reached within this (default 600000)"),
    ("swarm_inputs", "sim: input records a seed draws from, LO..=HI (default 1..=8)"),
    ("swarm_txns", "sim: transactions per producer incarnation a seed draws from, LO..=HI (default 1..=8)"),
    ("swarm_partitions", "sim: output partitions a seed draws from, LO..=HI (default 1..=2)"),
    ("swarm_records", "sim: records in the share partition a seed draws from, LO..=HI up to 4096, for a scenario with a share group (default: the scenario's)"),
    ("swarm_producers", "sim: transactional producers (KIP-1289 clients in ctp) a seed draws from, LO..=HI up to 8, for a scenario with producers (default: the scenario's)"),
    ("swarm_consumers", "sim: share consumers a seed draws from, LO..=HI up to 8, for a scenario with share consumers (default: the scenario's)"),
    ("properties", "sim: the properties a run judges, a comma list of names or 'all'; a run that judges one property goes on past the others' violations, so it finds that one's later, longer runs (default all)"),
    ("faults", "sim: fault kinds the swarm may turn on: all, none, or a comma list of loss, duplication, spike, partition, crash, stall (default all)"),
];

/// How a run is simulated. Durations are virtual milliseconds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimOptions {
    /// `request.timeout.ms`: a client request's timeout.
    pub request_timeout_ms: u64,
    /// `delivery.timeout.ms`: how long a client keeps resending a request.
    pub delivery_timeout_ms: u64,
    /// `transaction.timeout.ms`: the coordinator aborts a transaction ongoing this long.
    pub txn_timeout_ms: u64,
    /// `retry.backoff.ms`: the wait before an unanswered marker is resent, after its
    /// (inter-broker) request timeout.
    pub retry_backoff_ms: u64,
    /// `group.share.record.lock.duration.ms`: a share group record acquisition lock.
    pub acquisition_lock_ms: u64,
    /// `group.share.session.timeout.ms`: a share group member's session timeout.
    pub session_timeout_ms: u64,
    /// The typical one-way latency of a link.
    pub latency_ms: u64,
    /// The longest a client takes to decide.
    pub think_ms: u64,
    /// Steps after which the fault phase ends (the `--steps` flag).
    pub steps: u64,
    /// Virtual time after which the fault phase ends.
    pub fault_ms: u64,
    /// Virtual time the heal phase has to reach liveness.
    pub heal_deadline_ms: u64,
    /// Input records a seed draws from.
    pub swarm_inputs: RangeInclusive<u8>,
    /// Transactions per producer incarnation a seed draws from.
    pub swarm_txns: RangeInclusive<u8>,
    /// Output partitions a seed draws from.
    pub swarm_partitions: RangeInclusive<u8>,
    /// Records in the share partition a seed draws from (`None`: the scenario's). Left
    /// out of traces while `None`, as are the two below, so traces written before these
    /// existed read and write back byte for byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swarm_records: Option<RangeInclusive<Offset>>,
    /// Transactional producers a seed draws from (`None`: the scenario's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swarm_producers: Option<RangeInclusive<u8>>,
    /// Share consumers a seed draws from (`None`: the scenario's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swarm_consumers: Option<RangeInclusive<u8>>,
    /// The fault kinds the swarm may turn on.
    pub faults: Vec<FaultKind>,
    /// The properties a run judges (`None`: every one; left out of traces while `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<Vec<String>>,
    /// How many violating seeds write a trace file, per violated property, in seed order
    /// (the `--max-traces` flag; default the first one of each property). It decides what
    /// is written, never what a run does, so it is not recorded in a trace's options
    /// (traces stay byte for byte what they were) and one read back takes the default.
    #[serde(skip)]
    pub max_traces: TraceLimit,
}

/// Steps in a fault phase unless `--steps` says otherwise.
pub const DEFAULT_STEPS: u64 = 5_000;

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            request_timeout_ms: 30_000,
            delivery_timeout_ms: 120_000,
            txn_timeout_ms: 60_000,
            retry_backoff_ms: 100,
            acquisition_lock_ms: 30_000,
            session_timeout_ms: 45_000,
            latency_ms: 2,
            think_ms: 20,
            steps: DEFAULT_STEPS,
            fault_ms: 600_000,
            heal_deadline_ms: 600_000,
            swarm_inputs: 1..=8,
            swarm_txns: 1..=8,
            swarm_partitions: 1..=2,
            swarm_records: None,
            swarm_producers: None,
            swarm_consumers: None,
            faults: FaultKind::ALL.to_vec(),
            properties: None,
            max_traces: TraceLimit::default(),
        }
    }
}

/// The most virtual time a duration option may take (a day), so sums never overflow.
const MAX_MS: u64 = 86_400_000;

fn millis(key: &str, value: &str, lo: u64) -> Result<u64, String> {
    match value.parse::<u64>() {
        Ok(n) if (lo..=MAX_MS).contains(&n) => Ok(n),
        _ => Err(format!(
            "--set {key}={value}: expected milliseconds from {lo} to {MAX_MS}"
        )),
    }
}

fn range<T>(key: &str, value: &str, lo: T, hi: T) -> Result<RangeInclusive<T>, String>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy,
{
    let bad =
        || format!("--set {key}={value}: expected N or LO..=HI with {lo} <= LO <= HI <= {hi}");
    let (a, b) = match value.split_once("..=") {
        Some((a, b)) => (a, b),
        None => (value, value),
    };
    let (a, b): (T, T) = (
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
    );
    if a < lo || b > hi || a > b {
        return Err(bad());
    }
    Ok(a..=b)
}

fn fault_kinds(key: &str, value: &str) -> Result<Vec<FaultKind>, String> {
    match value {
        "all" => return Ok(FaultKind::ALL.to_vec()),
        "none" => return Ok(Vec::new()),
        _ => {}
    }
    let mut kinds = Vec::new();
    for part in value.split(',') {
        let kind = FaultKind::ALL
            .iter()
            .copied()
            .find(|k| k.name() == part.trim())
            .ok_or_else(|| format!("--set {key}={value}: unknown fault kind '{part}'"))?;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    kinds.sort();
    Ok(kinds)
}

fn property_names(key: &str, value: &str) -> Result<Option<Vec<String>>, String> {
    if value == "all" {
        return Ok(None);
    }
    let mut names: Vec<String> = Vec::new();
    for part in value.split(',').map(str::trim) {
        let def = PROPERTIES
            .iter()
            .find(|p| p.name == part)
            .ok_or_else(|| format!("--set {key}={value}: unknown property '{part}'"))?;
        if !names.iter().any(|n| n == def.name) {
            names.push(def.name.to_string());
        }
    }
    Ok(Some(names))
}

impl SimOptions {
    /// Applies one `KEY=VALUE` if the key is the simulator's: `None` when it is not (so
    /// the caller hands it to the model's settings), else whether it was accepted.
    pub fn apply(&mut self, setting: &str) -> Option<Result<(), String>> {
        let (key, value) = setting.split_once('=')?;
        let (key, value) = (key.trim(), value.trim());
        let result = match key {
            "request_timeout_ms" => millis(key, value, 1).map(|v| self.request_timeout_ms = v),
            "delivery_timeout_ms" => millis(key, value, 1).map(|v| self.delivery_timeout_ms = v),
            "txn_timeout_ms" => millis(key, value, 1).map(|v| self.txn_timeout_ms = v),
            "retry_backoff_ms" => millis(key, value, 0).map(|v| self.retry_backoff_ms = v),
            "acquisition_lock_ms" => millis(key, value, 1).map(|v| self.acquisition_lock_ms = v),
            "session_timeout_ms" => millis(key, value, 1).map(|v| self.session_timeout_ms = v),
            "latency_ms" => millis(key, value, 1).map(|v| self.latency_ms = v),
            "think_ms" => millis(key, value, 0).map(|v| self.think_ms = v),
            "fault_ms" => millis(key, value, 0).map(|v| self.fault_ms = v),
            "heal_deadline_ms" => millis(key, value, 1).map(|v| self.heal_deadline_ms = v),
            // Up to what the model represents (`settings::Bounds::Model`).
            "swarm_inputs" => range(key, value, 1, u8::MAX).map(|v| self.swarm_inputs = v),
            "swarm_txns" => range(key, value, 1, u8::MAX).map(|v| self.swarm_txns = v),
            "swarm_partitions" => range(key, value, 1, 3).map(|v| self.swarm_partitions = v),
            "swarm_records" => {
                range(key, value, 1, MAX_RECORDS).map(|v| self.swarm_records = Some(v))
            }
            "swarm_producers" => {
                range(key, value, 1, MAX_CLIENTS).map(|v| self.swarm_producers = Some(v))
            }
            "swarm_consumers" => {
                range(key, value, 1, MAX_CLIENTS).map(|v| self.swarm_consumers = Some(v))
            }
            "faults" => fault_kinds(key, value).map(|v| self.faults = v),
            "properties" => property_names(key, value).map(|v| self.properties = v),
            _ => return None,
        };
        Some(result)
    }

    /// How often a client resends a request after a request timeout before it gives up:
    /// as many whole request timeouts as fit in the delivery timeout, less the first send.
    pub fn request_retries(&self) -> u8 {
        let sends = self.delivery_timeout_ms / self.request_timeout_ms.max(1);
        u8::try_from(sends.saturating_sub(1)).unwrap_or(u8::MAX)
    }

    /// When an unanswered marker is resent: Kafka's inter-broker request timeout, then the
    /// retry backoff.
    pub fn marker_retry_ms(&self) -> u64 {
        self.request_timeout_ms + self.retry_backoff_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sim_keys_apply_and_others_pass_through() {
        let mut o = SimOptions::default();
        assert_eq!(o.apply("tv=1"), None);
        assert_eq!(o.apply("request_timeout_ms=5000"), Some(Ok(())));
        assert_eq!(o.request_timeout_ms, 5000);
        assert_eq!(o.marker_retry_ms(), 5100);
        assert_eq!(o.request_retries(), 23);
        assert_eq!(SimOptions::default().request_retries(), 3);
        assert_eq!(o.apply("swarm_inputs=2..=4"), Some(Ok(())));
        assert_eq!(o.swarm_inputs, 2..=4);
        assert_eq!(o.apply("swarm_txns=3"), Some(Ok(())));
        assert_eq!(o.swarm_txns, 3..=3);
        assert_eq!(o.apply("faults=crash,loss"), Some(Ok(())));
        assert_eq!(o.faults, vec![FaultKind::Loss, FaultKind::Crash]);
        assert!(o.apply("swarm_inputs=4..=2").unwrap().is_err());
        assert!(o.apply("swarm_partitions=9").unwrap().is_err());
        assert_eq!(o.apply("swarm_records=1000"), Some(Ok(())));
        assert_eq!(o.swarm_records, Some(1000..=1000));
        assert_eq!(o.apply("swarm_producers=2..=4"), Some(Ok(())));
        assert_eq!(o.swarm_producers, Some(2..=4));
        assert!(o.apply("swarm_records=5000").unwrap().is_err());
        assert!(o.apply("swarm_consumers=9").unwrap().is_err());
        assert!(o.apply("swarm_txns=256").unwrap().is_err());
        assert_eq!(o.apply("properties=txn_atomicity"), Some(Ok(())));
        assert_eq!(o.properties, Some(vec!["txn_atomicity".to_string()]));
        assert!(o.apply("properties=nope").unwrap().is_err());
        assert_eq!(o.apply("properties=all"), Some(Ok(())));
        assert_eq!(o.properties, None);
        assert!(o.apply("request_timeout_ms=0").unwrap().is_err());
        assert!(o.apply("faults=meteor").unwrap().is_err());
    }

    #[test]
    fn every_listed_key_is_accepted() {
        for (key, _) in SIM_SETTINGS {
            let value = match *key {
                "faults" | "properties" => "all",
                _ => "1",
            };
            let mut o = SimOptions::default();
            assert_eq!(o.apply(&format!("{key}={value}")), Some(Ok(())), "{key}");
        }
    }
}
