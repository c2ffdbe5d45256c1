//! The summary of many seeds: how many ran, passed and violated, how much work and virtual
//! time they covered, and for each violated property how often and the first seed that
//! shows it. Seeds run on many machines merge by reading their JSON lines back
//! ([`Summary::merge`]): the summary is recomputed from the seed lines, never added up
//! from partial summaries, so overlapping shards are noticed instead of counted twice.

use crate::line::SeedLine;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// One violated property across the seeds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PropertyTally {
    /// Seeds that violated it.
    pub count: u64,
    /// The smallest such seed (the one to reproduce).
    pub first_seed: u64,
}

/// The summary of many seeds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Seeds run.
    pub seeds: u64,
    /// Seeds that violated nothing.
    pub passed: u64,
    /// Seeds that violated a property.
    pub violated: u64,
    /// Actions taken over all seeds.
    pub steps: u64,
    /// Virtual time over all seeds.
    pub virtual_ms: u64,
    /// Violated properties, by name.
    pub properties: BTreeMap<String, PropertyTally>,
    /// Seed lines seen more than once (overlapping shards), counted once.
    pub duplicates: u64,
    #[serde(skip)]
    seen: BTreeSet<u64>,
}

impl Summary {
    /// Counts one seed's line.
    pub fn add(&mut self, line: &SeedLine) {
        if !self.seen.insert(line.seed) {
            self.duplicates += 1;
            return;
        }
        self.seeds += 1;
        self.steps += line.steps;
        self.virtual_ms += line.virtual_ms;
        if line.violated() {
            self.violated += 1;
            let name = line.property.clone().unwrap_or_default();
            let tally = self.properties.entry(name).or_insert(PropertyTally {
                count: 0,
                first_seed: line.seed,
            });
            tally.count += 1;
            tally.first_seed = tally.first_seed.min(line.seed);
        } else {
            self.passed += 1;
        }
    }

    /// Reads JSON lines (`text` from `source`, for messages): seed lines are counted,
    /// summary lines skipped, blank lines ignored; anything else is an error.
    pub fn merge(&mut self, source: &str, text: &str) -> Result<(), String> {
        for (i, raw) in text.lines().enumerate() {
            let raw = raw.trim();
            if raw.is_empty() {
                continue;
            }
            let at = || format!("{source}:{}", i + 1);
            let value: Value =
                serde_json::from_str(raw).map_err(|e| format!("{}: not JSON: {e}", at()))?;
            if value.get("summary").is_some() {
                continue;
            }
            let line: SeedLine = serde_json::from_value(value)
                .map_err(|e| format!("{}: not a sharetxn sim seed line: {e}", at()))?;
            self.add(&line);
        }
        Ok(())
    }

    /// The summary as the one JSON line `--json` ends with.
    pub fn to_json_line(&self) -> String {
        serde_json::json!({ "summary": self }).to_string()
    }

    /// The summary for humans, one line.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "{} seeds: {} passed, {} violated; {} steps, {} virtual seconds",
            self.seeds,
            self.passed,
            self.violated,
            self.steps,
            self.virtual_ms / 1000
        );
        for (name, t) in &self.properties {
            out.push_str(&format!(
                "; {name}: {} (first seed {})",
                t.count, t.first_seed
            ));
        }
        if self.duplicates > 0 {
            out.push_str(&format!(
                "; {} duplicate seed lines ignored",
                self.duplicates
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line::{PASS, VIOLATED};

    fn line(seed: u64, property: Option<&str>) -> SeedLine {
        SeedLine {
            seed,
            steps: 10,
            virtual_ms: 1000,
            result: if property.is_some() { VIOLATED } else { PASS }.into(),
            property: property.map(String::from),
            message: property.map(|_| "m".into()),
            trace: None,
            heal_at_ms: None,
            faults: Vec::new(),
            swarm: None,
        }
    }

    #[test]
    fn merges_lines_from_many_files_counting_each_seed_once() {
        let a: String = [line(0, None), line(2, Some("p"))]
            .iter()
            .map(|l| serde_json::to_string(l).unwrap() + "\n")
            .collect();
        let mut first = Summary::default();
        first.merge("a", &a).unwrap();
        let b = format!(
            "{}\n\n{}\n{}\n",
            serde_json::to_string(&line(1, Some("p"))).unwrap(),
            serde_json::to_string(&line(2, Some("p"))).unwrap(),
            first.to_json_line()
        );
        let mut s = Summary::default();
        s.merge("a", &a).unwrap();
        s.merge("b", &b).unwrap();
        assert_eq!((s.seeds, s.passed, s.violated, s.duplicates), (3, 1, 2, 1));
        assert_eq!(
            s.properties["p"],
            PropertyTally {
                count: 2,
                first_seed: 1
            }
        );
        assert_eq!(s.steps, 30);
        assert!(
            s.to_text().contains("p: 2 (first seed 1)"),
            "{}",
            s.to_text()
        );
        assert!(s.merge("c", "{\"x\":1}\n").unwrap_err().starts_with("c:1"));
        assert!(s.merge("d", "nope\n").is_err());
    }
}
