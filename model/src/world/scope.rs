//! Which design means something on which scenario, and which designs this project claims
//! are safe. It exists so that `check`, `sim`, `explore` and `matrix` judge a (design,
//! scenario) pair by one rule: a pair that does not apply is refused (or shown as `n/a`)
//! instead of spending a check on a run that is meaningless or a copy of another.
//!
//! The rule rests on what a design changes. The baseline, `consumer-offsets`, is today's
//! Kafka: it commits consumer-group offsets in a transaction and has no share
//! acknowledgements in transactions. Every other design is a KIP-1289 design: it differs
//! from the baseline only in how share acknowledgements are committed inside a
//! transaction. So
//! - on a scenario with share acknowledgements in transactions
//!   ([`Scenario::has_share_transactions`]: `ctp` and its kin), the
//!   baseline does not apply: it has nothing to say about them;
//! - on a scenario without them (`txn-basic`, `share-basic`), a KIP-1289 design does not
//!   apply: its run is the baseline's run under another name.
//!
//! A design added to [`DESIGN_NAMES`](crate::design::DESIGN_NAMES) is a KIP-1289 design
//! unless it is the baseline, so new designs need no change here.

use crate::design::Design;
use crate::world::scenario::Scenario;

/// The design that stands for today's Kafka (consumer-group offsets in transactions).
pub const BASELINE_DESIGN: &str = "consumer-offsets";

/// The designs this project claims hold every property, with every twin witnessed, on
/// every scenario they apply to, at their own knobs (any scenario bounds). `matrix` exits 1
/// when one of them does not pass; a name here that is not a design yet claims nothing.
pub const SAFE_DESIGNS: &[&str] = &[BASELINE_DESIGN, "proposed"];

impl Design {
    /// Whether this is the baseline design (no share acknowledgements in transactions).
    pub fn is_baseline(&self) -> bool {
        self.name == BASELINE_DESIGN
    }

    /// `Ok` when checking this design on `scenario` means something; otherwise why not,
    /// in one line.
    pub fn applies_to(&self, scenario: &Scenario) -> Result<(), String> {
        // A resumed `TransactionSession` (KIP-1310) exists only in the KIP designs.
        let kip = scenario.has_share_transactions() || scenario.resume;
        match (self.is_baseline(), kip) {
            (true, true) => Err(format!(
                "{} has no share acknowledgements in transactions, which {} is about",
                self.name, scenario.name
            )),
            (false, false) => Err(format!(
                "{} has no share acknowledgements in transactions, so {} there is the \
                 same run as {BASELINE_DESIGN}",
                scenario.name, self.name
            )),
            _ => Ok(()),
        }
    }

    /// Whether this project claims the design safe: it is named in [`SAFE_DESIGNS`] and
    /// its knobs are that design's own (a `--set` that moves a knob makes it another
    /// design, which claims nothing).
    pub fn claims_safety(&self) -> bool {
        SAFE_DESIGNS.contains(&self.name.as_str())
            && Design::by_name(&self.name).is_ok_and(|own| own == *self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::DESIGN_NAMES;
    use crate::world::scenario::SCENARIO_NAMES;
    use crate::world::settings;

    fn pair(design: &str, scenario: &str) -> Result<(), String> {
        let design = Design::by_name(design).unwrap();
        design.applies_to(&Scenario::by_name(scenario).unwrap())
    }

    #[test]
    fn the_baseline_applies_where_kip_1289_designs_do_not() {
        assert_eq!(pair("consumer-offsets", "txn-basic"), Ok(()));
        assert_eq!(pair("consumer-offsets", "share-basic"), Ok(()));
        assert_eq!(pair("seed", "ctp"), Ok(()));
        let why = pair("consumer-offsets", "ctp").unwrap_err();
        assert!(why.contains("no share acknowledgements"), "{why}");
        let why = pair("seed", "txn-basic").unwrap_err();
        assert!(why.contains("same run as consumer-offsets"), "{why}");
        assert!(!why.contains('\n'));
    }

    #[test]
    fn every_scenario_has_a_design_and_exactly_one_family_applies() {
        for scenario in SCENARIO_NAMES {
            let scenario = Scenario::by_name(scenario).unwrap();
            let applying: Vec<&str> = DESIGN_NAMES
                .iter()
                .copied()
                .filter(|d| Design::by_name(d).unwrap().applies_to(&scenario).is_ok())
                .collect();
            assert!(!applying.is_empty(), "{}", scenario.name);
            let baseline = applying.contains(&BASELINE_DESIGN);
            assert!(!baseline || applying.len() == 1, "{applying:?}");
        }
    }

    #[test]
    fn a_moved_knob_drops_the_safety_claim() {
        let (mut design, mut scenario) = (Design::consumer_offsets(), Scenario::txn_basic());
        assert!(design.claims_safety());
        assert!(!Design::seed().claims_safety());
        settings::apply(&mut design, &mut scenario, "crashes=0").unwrap();
        assert!(design.claims_safety(), "scenario bounds keep the claim");
        settings::apply(&mut design, &mut scenario, "tv=1").unwrap();
        assert!(!design.claims_safety());
    }
}
