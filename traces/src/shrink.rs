//! Shrinking: a trace cut down to a short one with the same outcome, in passes that all
//! ask one [`Oracle`] (the model's own transition function and property table):
//!
//! 1. **cut**: the run ends at the first state that shows the outcome;
//! 2. **ddmin**: delta debugging over the actions (an action that is not enabled at its
//!    turn is skipped) down to a 1-minimal run;
//! 3. **scenario**: the scenario's fields and budgets are lowered while the run still
//!    shows the outcome (the trace then records the smaller scenario, in full), then ddmin
//!    runs again with actions matched by shape (so a whole transaction can go although
//!    every later message carries another epoch), and once more exactly;
//! 4. **search**: a breadth-first search for a shorter trace of the same outcome, bounded
//!    by the current length and a state count, in that scenario or a smaller one (its
//!    budgets, retries and transactions capped: [`crate::search::ladder`]).
//!
//! Passes 3 and 4 repeat while they shorten the trace. Everything is deterministic: the
//! same trace shrinks to the same bytes on any machine and any thread count.

use crate::ddmin::{ddmin, Matching};
use crate::format::{Origin, Outcome, Trace};
use crate::judge;
use crate::oracle::Oracle;
use crate::record;
use crate::reduce::reduce;
use crate::search::search_ladder;
use sharetxn_model::{Action, Scenario};
use sharetxn_properties::View;

/// How hard to shrink.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShrinkOptions {
    /// Lower the scenario's fields and budgets (pass 3).
    pub reduce_scenario: bool,
    /// The breadth-first search's bound in distinct states (pass 4); 0 turns it off.
    pub search_states: u64,
    /// Threads for the search (its result does not depend on them).
    pub threads: usize,
}

/// The default search bound, per rung of the ladder: a few seconds a rung on `ctp`.
pub const DEFAULT_SEARCH_STATES: u64 = 100_000;

/// Runs longer than this are reduced to a smaller scenario before the first ddmin.
pub const LONG_RUN: usize = 200;

impl Default for ShrinkOptions {
    fn default() -> Self {
        ShrinkOptions {
            reduce_scenario: true,
            search_states: DEFAULT_SEARCH_STATES,
            threads: 1,
        }
    }
}

impl ShrinkOptions {
    /// ddmin alone, over the trace's own scenario.
    pub fn ddmin_only() -> Self {
        ShrinkOptions {
            reduce_scenario: false,
            search_states: 0,
            threads: 1,
        }
    }
}

/// What one pass did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pass {
    /// `cut`, `ddmin`, `scenario`, `search`, or `heal` (a heal-phase verdict's own
    /// shrink).
    pub name: &'static str,
    /// Steps after it.
    pub steps: usize,
    /// What it changed, for `scenario`: `field: before -> after`, ...
    pub detail: String,
}

/// A shrunk trace and what it took.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The shrunk trace, digested afresh, its origin marked as shrunk.
    pub trace: Trace,
    /// Steps before.
    pub before: usize,
    /// Steps after.
    pub after: usize,
    /// Candidates run (ddmin and scenario candidates; a search counts as one).
    pub candidates: usize,
    /// The passes that changed something, in order.
    pub passes: Vec<Pass>,
}

/// Shrinks `trace` with every pass ([`ShrinkOptions::default`]).
pub fn shrink(trace: &Trace) -> Result<Shrunk, String> {
    shrink_with(trace, &ShrinkOptions::default())
}

/// Shrinks `trace` to a 1-minimal trace with the same outcome, with the passes `options`
/// turns on.
pub fn shrink_with(trace: &Trace, options: &ShrinkOptions) -> Result<Shrunk, String> {
    if crate::heal::is_heal(&trace.outcome) {
        return shrink_heal(trace);
    }
    let def = judge::definition(&trace.outcome)
        .ok_or_else(|| format!("unknown property '{}'", trace.outcome.property()))?;
    let mut oracle = Oracle::new(&trace.design, &trace.scenario, def, &trace.outcome);
    // The input must run as recorded: skipping is for candidates, not for the evidence.
    crate::walk::states(&oracle.sys, &trace.actions())?;
    let Some(start) = oracle.run(&trace.actions()) else {
        return Err(format!(
            "{} does not show when the trace runs on the current model (replay it to see where it goes elsewhere)",
            trace.outcome.property()
        ));
    };
    let mut s = Shrinking {
        trace,
        def,
        scenario: trace.scenario.clone(),
        current: start,
        candidates: 0,
        passes: Vec::new(),
    };
    if s.current.len() < trace.steps.len() {
        s.note("cut", String::new());
    }
    s.first_ddmin(options);
    loop {
        let (len, reduced_before) = (s.current.len(), s.scenario.clone());
        if options.reduce_scenario {
            s.scenario_pass();
        }
        s.search_pass(options)?;
        if s.current.len() >= len && s.scenario == reduced_before {
            break;
        }
    }
    finish(trace, &s.scenario, def, s.current, s.candidates, s.passes)
}

/// The heal phase's verdict has its own test (a fair cycle after the last fault), which
/// neither the scenario reduction nor the checker's search can ask: its own shrink.
fn shrink_heal(trace: &Trace) -> Result<Shrunk, String> {
    let (shrunk, candidates) = crate::heal::shrink(trace)?;
    let after = shrunk.steps.len();
    let heal_after = shrunk.heal.as_ref().map_or(0, |h| h.after_step);
    Ok(Shrunk {
        before: trace.steps.len(),
        after,
        candidates,
        passes: vec![Pass {
            name: "heal",
            steps: after,
            detail: format!("a fair cycle after the heal at step {heal_after}"),
        }],
        trace: shrunk,
    })
}

/// A shrink under way: the run so far, in the scenario so far.
struct Shrinking<'a> {
    trace: &'a Trace,
    def: &'static sharetxn_properties::PropertyDef,
    scenario: Scenario,
    current: Vec<Action>,
    candidates: usize,
    passes: Vec<Pass>,
}

impl<'a> Shrinking<'a> {
    /// Records that pass `name` left the run at its current length.
    fn note(&mut self, name: &'static str, detail: String) {
        self.passes.push(Pass {
            name,
            steps: self.current.len(),
            detail,
        });
    }

    /// The oracle for the scenario so far.
    fn oracle(&self) -> Oracle<'a> {
        let trace: &'a Trace = self.trace;
        Oracle::new(&trace.design, &self.scenario, self.def, &trace.outcome)
    }

    /// Lowers the scenario's fields and budgets while the run still shows the outcome.
    fn reduce_scenario(&mut self) {
        let trace = self.trace;
        let r = reduce(
            &trace.design,
            &self.scenario,
            &self.current,
            self.def,
            &trace.outcome,
        );
        if let Some(r) = r {
            self.candidates += r.runs;
            self.scenario = r.scenario;
            self.current = r.actions;
            self.note("scenario", r.changes.join(", "));
        }
    }

    /// The first ddmin, after a long run went to a smaller world.
    fn first_ddmin(&mut self, options: &ShrinkOptions) {
        // A long run (the simulator's, at production sizes) first goes to a smaller world:
        // a scenario candidate costs one run where ddmin's first rounds cost hundreds, and
        // the actions on records and transactions the outcome does not need stop being
        // enabled, so the carried run is already short when ddmin starts.
        if options.reduce_scenario && self.current.len() > LONG_RUN {
            self.reduce_scenario();
        }
        let start = self.current.len();
        let mut oracle = self.oracle();
        // On a long run, exact ddmin spends thousands of candidates of hundreds of steps to
        // drop a handful (every later message carries the epochs and sequences of the
        // transactions before it); matching by shape first drops whole transactions at
        // once.
        let first = if options.reduce_scenario && self.trace.steps.len() > LONG_RUN {
            ddmin(&mut oracle, self.current.clone(), Matching::Shape)
        } else {
            self.current.clone()
        };
        self.current = ddmin(&mut oracle, first, Matching::Exact);
        self.candidates += oracle.runs;
        if self.current.len() < start {
            self.note("ddmin", String::new());
        }
    }

    /// Pass 3: the scenario lowered, then ddmin by shape and exactly.
    fn scenario_pass(&mut self) {
        self.reduce_scenario();
        // Messages matched by shape let whole transactions go, then exact matching makes
        // the result 1-minimal as recorded.
        let mut oracle = self.oracle();
        let loose = ddmin(&mut oracle, self.current.clone(), Matching::Shape);
        let exact = ddmin(&mut oracle, loose, Matching::Exact);
        self.candidates += oracle.runs;
        if exact.len() < self.current.len() {
            self.current = exact;
            self.note("ddmin", "by shape".into());
        }
    }

    /// Pass 4: a bounded breadth-first search for a shorter run, on the ladder of
    /// smaller scenarios.
    fn search_pass(&mut self, options: &ShrinkOptions) -> Result<(), String> {
        let trace = self.trace;
        let Some((rung, found)) = search_ladder(
            &trace.design,
            &self.scenario,
            trace.outcome.property(),
            self.current.len(),
            options.search_states,
            options.threads,
        ) else {
            return Ok(());
        };
        self.candidates += 1;
        let detail = if rung == self.scenario {
            String::new()
        } else {
            rung_detail(&rung)
        };
        self.scenario = rung;
        self.current = confirmed(
            &trace.design,
            &self.scenario,
            self.def,
            &trace.outcome,
            found,
        )?;
        self.note("search", detail);
        Ok(())
    }
}

/// The fields a search rung lowers, for a pass's detail.
fn rung_detail(rung: &Scenario) -> String {
    format!(
        "txns={} records={} request_retries={} marker_retries={} drops={} duplicates={} crashes={} timeouts={}",
        rung.txns,
        rung.records,
        rung.request_retries,
        rung.marker_retries_text(),
        rung.budget.drops,
        rung.budget.duplicates,
        rung.budget.crashes,
        rung.budget.timeouts
    )
}

/// A searched trace, run through the oracle once more: the checker and the shrinker judge
/// with the same table, so it shows the outcome at its last step.
fn confirmed(
    design: &sharetxn_model::Design,
    scenario: &sharetxn_model::Scenario,
    def: &'static sharetxn_properties::PropertyDef,
    outcome: &Outcome,
    found: Vec<Action>,
) -> Result<Vec<Action>, String> {
    let mut oracle = Oracle::new(design, scenario, def, outcome);
    match oracle.run(&found) {
        Some(run) if run.len() == found.len() => Ok(run),
        _ => Err(format!(
            "the search's trace for {} does not show it when run (a checker and shrinker disagreement)",
            outcome.property()
        )),
    }
}

/// The shrunk trace: re-digested on the final scenario, its message judged afresh,
/// its origin marked shrunk (keeping the engine's origin and the first length).
fn finish(
    trace: &Trace,
    scenario: &sharetxn_model::Scenario,
    def: &'static sharetxn_properties::PropertyDef,
    minimal: Vec<Action>,
    candidates: usize,
    passes: Vec<Pass>,
) -> Result<Shrunk, String> {
    let sys = sharetxn_model::System::new(trace.design.clone(), scenario.clone());
    let state = crate::walk::states(&sys, &minimal)?
        .pop()
        .ok_or("a run has at least its initial state")?;
    let outcome = match &trace.outcome {
        Outcome::Violation { property, kind, .. } => Outcome::Violation {
            property: property.clone(),
            kind: *kind,
            message: (def.check)(&View::new(&sys, &state)).unwrap_or_default(),
        },
        witness => witness.clone(),
    };
    let origin = Origin::Shrunk {
        from_steps: trace.steps.len(),
        original: Box::new(match &trace.origin {
            // Shrinking twice keeps the engine's origin and the first length.
            Origin::Shrunk { original, .. } => (**original).clone(),
            other => other.clone(),
        }),
    };
    // Virtual times are dropped: a shorter run has no honest timing.
    let shrunk = record::record(&sys, origin, outcome, &minimal, &[])?;
    Ok(Shrunk {
        before: trace.steps.len(),
        after: shrunk.steps.len(),
        candidates,
        passes,
        trace: shrunk,
    })
}
