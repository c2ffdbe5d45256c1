//! `share-basic` lets only its first consumer stall: the two consumers differ only in their
//! member ids, so a run where the second one stalls is a run where the first one does, with
//! the names swapped. This checks that the reduction keeps every verdict: on small bounds,
//! each property's status is the same whether one consumer or both may stall, for the
//! fixed defaults and for the knobs that bring a share-group bug back.

use sharetxn_model::world::node::Node;
use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Status};

/// The system for `sets`, and the same system with every consumer allowed to stall.
fn with_and_without_reduction(sets: &[&str]) -> (System, System) {
    let mut design = Design::consumer_offsets();
    let mut scenario = Scenario::share_basic();
    for s in sets {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    let reduced = System::new(design, scenario);
    let mut full = reduced.clone();
    let mut stalling = 0;
    for actor in &mut full.actors {
        if let Node::ShareConsumer(c) = actor {
            c.stalls = full.scenario.stalls;
            stalling += 1;
        }
    }
    assert_eq!(stalling, 2, "share-basic has two consumers");
    (reduced, full)
}

fn verdicts(sys: &System) -> Vec<(String, Status)> {
    let report = check(sys, CheckOptions::default());
    assert!(report.exhaustive);
    report
        .properties
        .iter()
        .map(|p| (p.name.clone(), p.status))
        .collect()
}

fn assert_same_verdicts(sets: &[&str]) -> Vec<(String, Status)> {
    let (reduced, full) = with_and_without_reduction(sets);
    let one = verdicts(&reduced);
    assert_eq!(one, verdicts(&full), "{sets:?}");
    one
}

const SMALL: &[&str] = &["drops=0", "duplicates=0", "crashes=0", "stalls=1"];

#[test]
fn one_stalling_consumer_keeps_the_verdicts_of_two() {
    let fixed = assert_same_verdicts(SMALL);
    for twin in ["lock_redelivered", "late_ack_rejected", "limit_archived"] {
        assert!(
            fixed.contains(&(twin.to_string(), Status::Witnessed)),
            "{twin}: {fixed:?}"
        );
    }
}

#[test]
fn one_stalling_consumer_keeps_the_violations_of_two() {
    for knob in ["ack_member_check=false", "lock_timer_race=true"] {
        let mut sets = SMALL.to_vec();
        sets.push(knob);
        let found = assert_same_verdicts(&sets);
        assert!(
            found.iter().any(|(_, s)| *s == Status::Violated),
            "{knob}: {found:?}"
        );
    }
}
