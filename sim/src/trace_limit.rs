//! Which violating seeds get a trace file. Writing a trace means recording a digest of the
//! state after every step and encoding it as canonical JSON, which costs far more than the
//! run itself; when most seeds violate (as on ctp/seed), writing every trace
//! is nearly all the work and fills the disk with copies of the same bug. So by default
//! only the first violating seed of each property writes one. The seed lines and the
//! summary still count every violating seed.
//!
//! "First" is in the order seeds are reported, which is seed order for any thread count
//! ([`crate::parallel::run_seeds`]), so which seeds write a trace is a pure function of
//! the seeds and the limit. Each shard counts its own seeds: `N` shards write up to `N`
//! times the limit in all.

use crate::outcome::Outcome;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// How many trace files the violating seeds write, per violated property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceLimit {
    /// Every violating seed writes its trace (`all`).
    All,
    /// The first `n` violating seeds of each property write theirs; `0` writes none.
    PerProperty(u64),
}

/// The default: the first violating seed of each property writes a trace.
pub const DEFAULT_TRACE_LIMIT: TraceLimit = TraceLimit::PerProperty(1);

impl Default for TraceLimit {
    fn default() -> Self {
        DEFAULT_TRACE_LIMIT
    }
}

impl FromStr for TraceLimit {
    type Err = String;

    /// `all`, or a count of traces per property (`0`: none).
    fn from_str(value: &str) -> Result<Self, Self::Err> {
        match value.trim() {
            "all" => Ok(TraceLimit::All),
            n => n.parse::<u64>().map(TraceLimit::PerProperty).map_err(|_| {
                format!(
                    "expected a number of traces per property (0: none) or 'all', not '{value}'"
                )
            }),
        }
    }
}

impl fmt::Display for TraceLimit {
    /// What [`TraceLimit::from_str`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceLimit::All => f.write_str("all"),
            TraceLimit::PerProperty(n) => write!(f, "{n}"),
        }
    }
}

/// Counts the traces written per property while the seeds are reported in order.
#[derive(Clone, Debug, Default)]
pub struct TraceQuota {
    limit: TraceLimit,
    written: BTreeMap<String, u64>,
}

impl TraceQuota {
    /// A quota with nothing written yet.
    pub fn new(limit: TraceLimit) -> TraceQuota {
        TraceQuota {
            limit,
            written: BTreeMap::new(),
        }
    }

    /// Whether `outcome`, the next seed in report order, writes its trace; a violation
    /// that does is counted against its property. A passing seed never does.
    pub fn claim(&mut self, outcome: &Outcome) -> bool {
        let Some(violation) = &outcome.violation else {
            return false;
        };
        let max = match self.limit {
            TraceLimit::All => return true,
            TraceLimit::PerProperty(max) => max,
        };
        // Looked up by reference first so that a property past its limit costs no String.
        match self.written.get_mut(violation.property.as_str()) {
            Some(n) if *n >= max => false,
            Some(n) => {
                *n += 1;
                true
            }
            None if max == 0 => false,
            None => {
                self.written.insert(violation.property.clone(), 1);
                true
            }
        }
    }

    /// The limit this quota applies.
    pub fn limit(&self) -> TraceLimit {
        self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sharetxn_model::Scenario;
    use sharetxn_properties::Violation;

    fn outcome(seed: u64, property: Option<&str>) -> Outcome {
        Outcome {
            seed,
            swarm: None,
            scenario: Scenario::ctp(),
            steps: 1,
            virtual_ms: 1,
            heal_at_ms: None,
            heal_at_step: None,
            late_due_ms: None,
            violation: property.map(|p| Violation {
                property: p.to_string(),
                message: "m".to_string(),
            }),
            trace: Vec::new(),
        }
    }

    fn claimed(limit: TraceLimit) -> Vec<u64> {
        let runs = [
            outcome(0, Some("a")),
            outcome(1, None),
            outcome(2, Some("b")),
            outcome(3, Some("a")),
            outcome(4, Some("a")),
            outcome(5, Some("b")),
        ];
        let mut quota = TraceQuota::new(limit);
        runs.iter()
            .filter(|o| quota.claim(o))
            .map(|o| o.seed)
            .collect()
    }

    #[test]
    fn the_first_n_violations_of_each_property_write_a_trace() {
        assert_eq!(claimed(TraceLimit::default()), vec![0, 2]);
        assert_eq!(claimed(TraceLimit::PerProperty(2)), vec![0, 2, 3, 5]);
        assert_eq!(claimed(TraceLimit::PerProperty(0)), Vec::<u64>::new());
        assert_eq!(claimed(TraceLimit::All), vec![0, 2, 3, 4, 5]);
    }

    #[test]
    fn limits_read_back_what_they_print_and_reject_the_rest() {
        for limit in [
            TraceLimit::All,
            TraceLimit::PerProperty(0),
            TraceLimit::PerProperty(7),
        ] {
            assert_eq!(limit.to_string().parse::<TraceLimit>(), Ok(limit));
        }
        assert_eq!(" 3 ".parse::<TraceLimit>(), Ok(TraceLimit::PerProperty(3)));
        for bad in ["", "-1", "some", "1.5"] {
            let err = bad.parse::<TraceLimit>().unwrap_err();
            assert!(err.starts_with("expected a number"), "{err}");
        }
    }
}
