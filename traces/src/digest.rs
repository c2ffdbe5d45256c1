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
    bytes.iter().fold(OFFSET, |h, b| (h ^ u64::from(*b)).wrapping_mul(PRIME))
}

/// The 16-hex-digit digest of a JSON value's compact text.
pub fn of_value(value: &Value) -> String {
    format!("{:016x}", fnv1a64(value.to_string().as_bytes()))
}

/// Whether `text` looks like a digest this crate writes.
pub fn is_digest(text: &str) -> bool {
    text.len() == 16 && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
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
