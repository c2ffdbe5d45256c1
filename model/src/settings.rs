//! `--set KEY=VALUE`: every design knob and scenario field by name, with validation.
//! Unknown keys and bad values are errors, never silent defaults.

use crate::design::{Design, TransactionVersion};
use crate::scenario::{Role, Scenario};
use serde_json::{json, Value};

/// Every key `apply` accepts, with what it means and its range. The ranges are what the
/// model represents (its counters are 8-bit), shared by the checker, the simulator and
/// trace loading; an exhaustive check with large bounds stops at `--max-states` instead.
pub const SETTINGS: &[(&str, &str)] = &[
    ("tv", "design: transaction.version, 0..=2"),
    ("verification", "design: KIP-890 partition verification, true|false"),
    ("flush_before_end_txn", "design: EndTxn waits for every write, true|false"),
    ("inputs", "scenario: input records, 1..=64"),
    ("txns", "scenario: transactions per producer incarnation, 1..=64"),
    ("partitions", "scenario: output partitions, 1..=3"),
    ("drops", "scenario: messages lost in the whole run, 0..=255"),
    ("duplicates", "scenario: messages duplicated in the whole run, 0..=255"),
    ("crashes", "scenario: crashes in the whole run, 0..=255"),
    ("timeouts", "scenario: early timeouts (fired while the awaited answer is still in flight) in the whole run, 0..=255"),
    ("crashable", "scenario: comma-separated roles that may crash (txn-coordinator, group-coordinator, data-partition, producer) or 'none'"),
    ("request_retries", "scenario: client resends after a request timeout, 0..=255"),
    ("marker_retries", "scenario: coordinator marker resends after a timeout, 0..=255"),
];

fn parse_bool(key: &str, value: &str) -> Result<bool, String> {
    match value {
        "true" | "on" | "1" => Ok(true),
        "false" | "off" | "0" => Ok(false),
        _ => Err(format!("--set {key}={value}: expected true or false")),
    }
}

fn parse_range(key: &str, value: &str, lo: u8, hi: u8) -> Result<u8, String> {
    match value.parse::<u8>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(format!(
            "--set {key}={value}: expected a whole number from {lo} to {hi}"
        )),
    }
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

/// Applies one `KEY=VALUE` to a design and scenario.
pub fn apply(design: &mut Design, scenario: &mut Scenario, setting: &str) -> Result<(), String> {
    let (key, value) = setting
        .split_once('=')
        .ok_or_else(|| format!("--set {setting}: expected KEY=VALUE"))?;
    let (key, value) = (key.trim(), value.trim());
    match key {
        "tv" => design.tv = TransactionVersion(parse_range(key, value, 0, 2)?),
        "verification" => design.verification = parse_bool(key, value)?,
        "flush_before_end_txn" => design.flush_before_end_txn = parse_bool(key, value)?,
        "inputs" => scenario.inputs = parse_range(key, value, 1, 64)?,
        "txns" => scenario.txns = parse_range(key, value, 1, 64)?,
        "partitions" => scenario.partitions = parse_range(key, value, 1, 3)?,
        "drops" => scenario.budget.drops = parse_range(key, value, 0, 255)?,
        "duplicates" => scenario.budget.duplicates = parse_range(key, value, 0, 255)?,
        "crashes" => scenario.budget.crashes = parse_range(key, value, 0, 255)?,
        "timeouts" => scenario.budget.timeouts = parse_range(key, value, 0, 255)?,
        "crashable" => scenario.crashable = parse_roles(key, value)?,
        "request_retries" => scenario.request_retries = parse_range(key, value, 0, 255)?,
        "marker_retries" => scenario.marker_retries = parse_range(key, value, 0, 255)?,
        _ => {
            let known: Vec<&str> = SETTINGS.iter().map(|(k, _)| *k).collect();
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
    json!({
        "tv": design.tv.0,
        "verification": design.verification,
        "flush_before_end_txn": design.flush_before_end_txn,
        "inputs": scenario.inputs,
        "txns": scenario.txns,
        "partitions": scenario.partitions,
        "drops": scenario.budget.drops,
        "duplicates": scenario.budget.duplicates,
        "crashes": scenario.budget.crashes,
        "timeouts": scenario.budget.timeouts,
        "crashable": roles.join(","),
        "request_retries": scenario.request_retries,
        "marker_retries": scenario.marker_retries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        apply(&mut d, &mut s, "tv=1").unwrap();
        apply(&mut d, &mut s, "crashable=producer,txn-coordinator").unwrap();
        assert_eq!(d.tv, TransactionVersion(1));
        assert_eq!(s.crashable, vec![Role::TxnCoordinator, Role::Producer]);
    }

    #[test]
    fn every_listed_key_is_accepted() {
        for (key, _) in SETTINGS {
            let (mut d, mut s) = (Design::consumer_offsets(), Scenario::txn_basic());
            let value = match *key {
                "verification" | "flush_before_end_txn" => "true",
                "crashable" => "none",
                _ => "1",
            };
            apply(&mut d, &mut s, &format!("{key}={value}")).unwrap();
        }
    }
}
