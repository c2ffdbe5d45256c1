//! The shared view of a state changes no verdict: judging every property on one `View`
//! (what the checker and the simulator do) gives each the message and the witness a fresh
//! view of the same state gives it alone, in whatever order the properties ask.

use sharetxn_model::{Design, Scenario, System, SystemState};
use sharetxn_properties::{View, PROPERTIES};

/// The first `n` states of a depth-first walk from the initial state (actions in their
/// enabled order, every state once).
fn states(sys: &System, n: usize) -> Vec<SystemState> {
    let mut seen = vec![sys.init_state()];
    let mut stack = vec![0];
    while let Some(i) = stack.pop() {
        let mut actions = Vec::new();
        sys.enabled(&seen[i], &mut actions);
        for action in &actions {
            if seen.len() >= n {
                return seen;
            }
            let next = sys.step(&seen[i], action);
            if !seen.contains(&next) {
                stack.push(seen.len());
                seen.push(next);
            }
        }
    }
    seen
}

/// Every property's message and witness on `view`, asked in the table's order or reversed.
fn verdicts(view: &View, reversed: bool) -> Vec<(Option<String>, bool)> {
    let mut out: Vec<_> = PROPERTIES.iter().map(|_| (None, false)).collect();
    let mut order: Vec<usize> = (0..PROPERTIES.len()).collect();
    if reversed {
        order.reverse();
    }
    for i in order {
        out[i] = ((PROPERTIES[i].check)(view), (PROPERTIES[i].witness)(view));
    }
    out
}

/// How many of the first 400 states judge alike on a shared and on fresh views (all of
/// them, or an assertion fails), and in how many some property is violated or witnessed.
fn agree_on(design: Design, scenario: Scenario) -> (usize, usize) {
    let sys = System::new(design, scenario);
    let states = states(&sys, 400);
    let (mut judged, mut telling) = (0, 0);
    for state in &states {
        let alone: Vec<_> = PROPERTIES
            .iter()
            .map(|p| {
                let check = (p.check)(&View::new(&sys, state));
                (check, (p.witness)(&View::new(&sys, state)))
            })
            .collect();
        assert_eq!(verdicts(&View::new(&sys, state), false), alone);
        assert_eq!(verdicts(&View::new(&sys, state), true), alone);
        judged += 1;
        if alone
            .iter()
            .any(|(check, witness)| check.is_some() || *witness)
        {
            telling += 1;
        }
    }
    (judged, telling)
}

#[test]
fn a_shared_view_gives_every_property_the_verdict_it_gives_alone() {
    // `seed` violates on ctp, so some states carry messages, not only `None`.
    for (design, scenario) in [
        (Design::seed(), Scenario::ctp()),
        (Design::consumer_offsets(), Scenario::txn_basic()),
    ] {
        let (judged, telling) = agree_on(design, scenario);
        assert_eq!(judged, 400);
        assert!(telling > 0, "no state violates or witnesses anything");
    }
}
