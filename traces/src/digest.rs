//! State digests that mean the same on every run, process and machine: the canonical JSON
//! text of the state (see [`crate::canonical`]) hashed with FNV-1a 64, printed as 16 hex
//! digits. stateright's fingerprints and `DefaultHasher` are not used because their seeds
//! and algorithms may change between Rust releases, and a trace outlives both.
//!
//! Besides the whole state, every part of it gets its own digest: one part per actor (its
//! state, storage, liveness, timers and pending choices) and one per other top-level field
//! (the network, the fault budget, the ghost state). When a replay's digest differs from
//! the recorded one, the parts say where, although the recorded state itself is not kept.

use crate::canonical::{self, CanonicalError};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sharetxn_model::{System, SystemState};
use stateright::actor::Id;
use std::collections::BTreeMap;

/// FNV-1a, 64 bits: fixed, simple, and the same everywhere.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes
        .iter()
        .fold(OFFSET, |h, b| (h ^ u64::from(*b)).wrapping_mul(PRIME))
}

/// The 16-hex-digit digest of a JSON value's canonical text.
pub fn of_value(value: &Value) -> String {
    let mut text = String::new();
    canonical_text(value, &mut text);
    format!("{:016x}", fnv1a64(text.as_bytes()))
}

/// Compact JSON with object keys sorted here rather than by `serde_json::Map`, whose order
/// follows insertion if any crate in the build turns on serde_json's `preserve_order`.
fn canonical_text(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical_text(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical_text(v, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// Whether `text` looks like a digest this crate writes.
pub fn is_digest(text: &str) -> bool {
    text.len() == 16
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A state's digest and the digests of its parts, as a trace records them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateDigest {
    /// The whole state.
    pub digest: String,
    /// Each part, by name: actors by their short names (`TC`, `P0`), then the other
    /// top-level fields of the state (`network`, `budget`, `ghost`).
    pub parts: BTreeMap<String, String>,
}

/// A state in canonical form, split into named parts.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// The whole state.
    pub whole: Value,
    /// The parts, actors first in topology order, then the other fields.
    pub parts: Vec<(String, Value)>,
}

impl Snapshot {
    /// Takes a state apart. A top-level field is per actor when it is a list with one
    /// entry per actor; fields the model adds later are split the same way without a
    /// change here.
    pub fn of(sys: &System, state: &SystemState) -> Result<Snapshot, CanonicalError> {
        let whole = canonical::to_value(state)?;
        let n = sys.topology.len();
        let mut actors: Vec<Map<String, Value>> = vec![Map::new(); n];
        let mut others = Vec::new();
        if let Value::Object(fields) = &whole {
            for (name, value) in fields {
                match value {
                    Value::Array(items) if items.len() == n => {
                        for (actor, item) in actors.iter_mut().zip(items) {
                            actor.insert(name.clone(), item.clone());
                        }
                    }
                    _ => others.push((name.clone(), value.clone())),
                }
            }
        }
        let mut parts: Vec<(String, Value)> = actors
            .into_iter()
            .enumerate()
            .map(|(i, fields)| (sys.topology.name(Id::from(i)), Value::Object(fields)))
            .collect();
        parts.extend(others);
        Ok(Snapshot { whole, parts })
    }

    /// The digests a trace records for this state.
    pub fn digest(&self) -> StateDigest {
        StateDigest {
            digest: of_value(&self.whole),
            parts: self
                .parts
                .iter()
                .map(|(name, value)| (name.clone(), of_value(value)))
                .collect(),
        }
    }

    /// A part by name.
    pub fn part(&self, name: &str) -> Option<&Value> {
        self.parts.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// The digests of a state (what a trace records after each step).
pub fn of_state(sys: &System, state: &SystemState) -> Result<StateDigest, CanonicalError> {
    Ok(Snapshot::of(sys, state)?.digest())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sharetxn_model::{Design, Scenario};

    #[test]
    fn fnv1a64_matches_the_reference_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn canonical_text_is_compact_json_with_sorted_keys() {
        let v = serde_json::json!({"b": [1, "x"], "a": {"d": null, "c": true}});
        let mut text = String::new();
        canonical_text(&v, &mut text);
        assert_eq!(text, r#"{"a":{"c":true,"d":null},"b":[1,"x"]}"#);
        assert_eq!(of_value(&v), format!("{:016x}", fnv1a64(text.as_bytes())));
    }

    #[test]
    fn the_initial_state_splits_into_actors_and_shared_parts() {
        let sys = System::new(Design::consumer_offsets(), Scenario::txn_basic());
        let snap = Snapshot::of(&sys, &sys.init_state()).unwrap();
        let names: Vec<&str> = snap.parts.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(&names[..4], &["TC", "GC", "D0", "P0"]);
        for shared in ["network", "budget", "ghost"] {
            assert!(names.contains(&shared), "{names:?}");
        }
        let d = snap.digest();
        assert!(is_digest(&d.digest));
        assert_eq!(d, of_state(&sys, &sys.init_state()).unwrap());
    }
}
