//! Scenario reduction: a smaller world in which the same actions still show the same
//! outcome. A simulator run carries the simulator's scenario (budgets of 255, many
//! transactions, Kafka's retry counts); most of it is never used by the violation, and a
//! smaller scenario both lets ddmin drop more (fewer actions are enabled, so more are
//! skipped) and keeps the breadth-first search after it small.
//!
//! Each candidate changes one field through the model's own `--set` parser (so it is a
//! scenario the command line could build), and the actions are carried over by actor name
//! (`P0` stays `P0` when a partition, and so every later id, goes away) and by shape (a
//! message whose contents name the sizes is matched by its name: [`Oracle::run_carried`]).
//! A candidate is kept when the [`Oracle`] of the smaller scenario still shows the outcome.

use crate::format::Outcome;
use crate::oracle::Oracle;
use crate::walk;
use serde_json::Value;
use sharetxn_model::world::scenario::FaultBudget;
use sharetxn_model::world::topology::Topology;
use sharetxn_model::{world::settings, Action, Design, Scenario};
use sharetxn_properties::PropertyDef;
use stateright::actor::Id;

/// The scenario fields the reduction lowers, in the order it tries them: the share
/// group's size, the workload, the client and coordinator retries, then the budgets.
const FIELDS: &[&str] = &[
    "records",
    "consumers",
    "max_records",
    "stalls",
    "inputs",
    "txns",
    "partitions",
    "request_retries",
    "marker_retries",
    "read_retries",
    "drops",
    "duplicates",
    "crashes",
    "timeouts",
];

/// A smaller scenario that still shows the outcome, with the run in it.
pub struct Reduced {
    /// The scenario.
    pub scenario: Scenario,
    /// The run (already cut at the outcome).
    pub actions: Vec<Action>,
    /// What changed, `field: before -> after`, in the order it changed.
    pub changes: Vec<String>,
    /// Candidates run.
    pub runs: usize,
}

/// Lowers `scenario`'s fields one at a time while `actions` still show the outcome;
/// `None` when nothing could be lowered.
pub fn reduce(
    design: &Design,
    scenario: &Scenario,
    actions: &[Action],
    def: &'static PropertyDef,
    outcome: &Outcome,
) -> Option<Reduced> {
    let mut r = Reducer {
        design,
        def,
        outcome,
        current: (scenario.clone(), actions.to_vec()),
        changes: Vec::new(),
        runs: 0,
    };
    r.lower_budget();
    while r.lower_fields() | r.clear_crashable() {}
    (!r.changes.is_empty()).then_some(Reduced {
        scenario: r.current.0,
        actions: r.current.1,
        changes: r.changes,
        runs: r.runs,
    })
}

/// A reduction under way: the smallest scenario found so far with the run that still
/// shows the outcome in it.
struct Reducer<'a> {
    design: &'a Design,
    def: &'static PropertyDef,
    outcome: &'a Outcome,
    current: (Scenario, Vec<Action>),
    changes: Vec<String>,
    runs: usize,
}

impl Reducer<'_> {
    /// Takes `scenario` if the current run, carried into it, still shows the outcome,
    /// and records `change`; true if taken.
    fn attempt(&mut self, scenario: Scenario, change: String) -> bool {
        let carried = carry(&self.current.0, &scenario, &self.current.1);
        let mut oracle = Oracle::new(self.design, &scenario, self.def, self.outcome);
        let run = oracle.run_carried(&carried);
        self.runs += oracle.runs;
        let Some(run) = run else {
            return false;
        };
        self.current = (scenario, run);
        self.changes.push(change);
        true
    }

    /// The budgets the run spends are all it needs: one candidate instead of a descent
    /// from 255.
    fn lower_budget(&mut self) {
        let scenario = &self.current.0;
        let Some(used) = spent(self.design, scenario, &self.current.1) else {
            return;
        };
        if used != scenario.budget {
            let change = format!(
                "budget: {} -> {}",
                budget_text(&scenario.budget),
                budget_text(&used)
            );
            let mut smaller = scenario.clone();
            smaller.budget = used;
            self.attempt(smaller, change);
        }
    }

    /// Lowers each field to the first lower value that keeps the outcome; true if any
    /// was lowered.
    fn lower_fields(&mut self) -> bool {
        let mut changed = false;
        for field in FIELDS {
            let Some(now) = value(self.design, &self.current.0, field) else {
                continue;
            };
            for lower in lower_values(now) {
                let (mut d, mut s) = (self.design.clone(), self.current.0.clone());
                let set = format!("{field}={lower}");
                if settings::apply_within(settings::Bounds::Model, &mut d, &mut s, &set).is_err() {
                    continue;
                }
                if self.attempt(s, format!("{field}: {now} -> {lower}")) {
                    changed = true;
                    break;
                }
            }
        }
        changed
    }

    /// Makes no role crashable if the outcome still shows; true if it did.
    fn clear_crashable(&mut self) -> bool {
        if self.current.0.crashable.is_empty() {
            return false;
        }
        let mut s = self.current.0.clone();
        s.crashable.clear();
        self.attempt(s, "crashable: none".into())
    }
}

/// A field's value, from the model's own settings view.
fn value(design: &Design, scenario: &Scenario, field: &str) -> Option<u64> {
    match settings::as_json(design, scenario) {
        Value::Object(map) => map.get(field).and_then(Value::as_u64),
        _ => None,
    }
}

/// The values below `now` worth trying, smallest first: the few smallest, then halving
/// toward `now` (so a retry count of 255 comes down in a handful of runs).
fn lower_values(now: u64) -> Vec<u64> {
    let mut out: Vec<u64> = (0..now.min(4)).collect();
    let mut step = now / 2;
    while step > 0 {
        out.push(now - step);
        step /= 2;
    }
    out.sort_unstable();
    out.dedup();
    out.retain(|v| *v < now);
    out
}

/// The budget `actions` spend on `scenario`: what they start with less what is left.
fn spent(design: &Design, scenario: &Scenario, actions: &[Action]) -> Option<FaultBudget> {
    let sys = sharetxn_model::System::new(design.clone(), scenario.clone());
    let last = walk::states(&sys, actions).ok()?.pop()?;
    let (start, left) = (scenario.budget, last.budget);
    Some(FaultBudget {
        drops: start.drops - left.drops,
        duplicates: start.duplicates - left.duplicates,
        crashes: start.crashes - left.crashes,
        timeouts: start.timeouts - left.timeouts,
    })
}

fn budget_text(b: &FaultBudget) -> String {
    format!(
        "drops={} duplicates={} crashes={} timeouts={}",
        b.drops, b.duplicates, b.crashes, b.timeouts
    )
}

/// `actions` of `from` carried into `to` by actor name. An actor `to` has fewer of (`D1`
/// when one partition is left) becomes the last one it has of that kind (`D0`): the
/// violation that showed on the second output partition shows on the first when there
/// is only one. An action naming a kind of actor `to` does not have is left out.
pub fn carry(from: &Scenario, to: &Scenario, actions: &[Action]) -> Vec<Action> {
    let (old, new) = (Topology::for_scenario(from), Topology::for_scenario(to));
    if old == new {
        return actions.to_vec();
    }
    let map = |id: Id| {
        let name = old.name(id);
        let kind = name.trim_end_matches(|c: char| c.is_ascii_digit());
        match name[kind.len()..].parse::<usize>() {
            Ok(index) => (0..=index)
                .rev()
                .find_map(|i| new.by_name(&format!("{kind}{i}"))),
            Err(_) => new.by_name(&name),
        }
    };
    actions
        .iter()
        .filter_map(|action| {
            Some(match action {
                Action::Deliver(e) | Action::Drop(e) | Action::Duplicate(e) => {
                    let mut e = e.clone();
                    e.src = map(e.src)?;
                    e.dst = map(e.dst)?;
                    match action {
                        Action::Deliver(_) => Action::Deliver(e),
                        Action::Drop(_) => Action::Drop(e),
                        _ => Action::Duplicate(e),
                    }
                }
                Action::Fire { actor, timer } => Action::Fire {
                    actor: map(*actor)?,
                    timer: *timer,
                },
                Action::Choose { actor, choice } => Action::Choose {
                    actor: map(*actor)?,
                    choice: *choice,
                },
                Action::Crash(id) => Action::Crash(map(*id)?),
                Action::Restart(id) => Action::Restart(map(*id)?),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lower_values_start_small_and_halve_toward_the_value() {
        assert_eq!(lower_values(0), Vec::<u64>::new());
        assert_eq!(lower_values(1), vec![0]);
        assert_eq!(lower_values(3), vec![0, 1, 2]);
        assert_eq!(
            lower_values(255),
            vec![0, 1, 2, 3, 128, 192, 224, 240, 248, 252, 254]
        );
    }

    #[test]
    fn actions_follow_their_actor_across_topologies() {
        let mut two = Scenario::ctp();
        two.partitions = 2;
        let one = Scenario::ctp();
        let (t2, t1) = (Topology::for_scenario(&two), Topology::for_scenario(&one));
        let p0 = t2.by_name("P0").unwrap();
        let d1 = t2.by_name("D1").unwrap();
        let carried = carry(
            &two,
            &one,
            &[Action::Crash(p0), Action::Crash(d1), Action::Restart(p0)],
        );
        let (p0_now, d0) = (t1.by_name("P0").unwrap(), t1.by_name("D0").unwrap());
        assert_ne!(
            p0, p0_now,
            "the producer's id moves with one partition fewer"
        );
        assert_eq!(
            carried,
            vec![
                Action::Crash(p0_now),
                Action::Crash(d0),
                Action::Restart(p0_now)
            ]
        );
        let no_share = Scenario::txn_basic();
        let sp0 = t2.by_name("SP0").unwrap();
        assert_eq!(carry(&two, &no_share, &[Action::Crash(sp0)]), vec![]);
    }
}
