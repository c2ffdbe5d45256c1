//! The incremental fingerprint (`world::fingerprint`): on random walks over several
//! scenarios, with every kind of fault, the fingerprint moved from the parent's along a step
//! (`after_step`) is the one computed from the whole successor (`of`) at every step, and a
//! step into a reused scratch state (`System::step_memo_into`) gives the state `System::step`
//! gives; and over a small space explored exhaustively, distinct states have distinct
//! fingerprints.

use sharetxn_model::world::fingerprint::{after_step, of};
use sharetxn_model::world::memo::HandlerMemo;
use sharetxn_model::world::settings::apply;
use sharetxn_model::world::shared::fixed_hash;
use sharetxn_model::{Design, Scenario, System, SystemState};
use std::collections::BTreeMap;

fn system(design: &str, scenario: &str, settings: &[&str]) -> System {
    let mut design = Design::by_name(design).expect("a design");
    let mut scenario = Scenario::by_name(scenario).expect("a scenario");
    for setting in settings {
        apply(&mut design, &mut scenario, setting).expect("a valid setting");
    }
    System::new(design, scenario)
}

/// Scenarios whose walks meet strays, disconnections, crashes, restarts and early timers.
const WALKED: &[(&str, &str, &[&str])] = &[
    ("proposed", "ctp", &[]),
    ("seed", "ctp", &[]),
    ("proposed", "share-basic", &["drops=1", "duplicates=1"]),
    ("proposed", "session", &[]),
    ("proposed", "flink-acknowledger", &[]),
    (
        "proposed",
        "txn-basic",
        &["drops=1", "duplicates=1", "timeouts=1"],
    ),
];

const WALKS: u64 = 40;
const WALK_LEN: usize = 200;

/// One walk: returns how many steps it took.
fn walk(sys: &System, seed: u64, memo: &mut HandlerMemo, scratch: &mut SystemState) -> usize {
    let init = sys.init_state();
    let init_fp = of(&init);
    let (mut state, mut fp) = (init.clone(), init_fp);
    // A fixed linear congruential sequence per walk: the same walks on every run.
    let mut rng = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    let mut actions = Vec::new();
    for step in 0..WALK_LEN {
        actions.clear();
        sys.enabled(&state, &mut actions);
        if actions.is_empty() {
            return step;
        }
        rng = rng
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let action = &actions[usize::try_from(rng >> 33).expect("31 bits") % actions.len()];
        let next = sys.step(&state, action);
        sys.step_memo_into(&state, action.as_ref(), memo, scratch);
        assert_eq!(
            *scratch, next,
            "a step into scratch is the step, {action:?}"
        );
        assert_eq!(
            next.network.terms(),
            next.network.sum_terms(),
            "the network's kept terms after {action:?}"
        );
        let moved = after_step(fp, &state, &next);
        assert_eq!(moved, of(&next), "incremental is full after {action:?}");
        assert_eq!(after_step(fp, &state, scratch), moved);
        // Any two states of one System, not only a step's: from the initial state.
        assert_eq!(after_step(init_fp, &init, &next), moved);
        (state, fp) = (next, moved);
    }
    WALK_LEN
}

#[test]
fn incremental_fingerprints_are_the_full_ones_along_random_walks() {
    for (design, scenario, settings) in WALKED {
        let sys = system(design, scenario, settings);
        let mut memo = HandlerMemo::new();
        let mut scratch = SystemState::default();
        let steps: usize = (0..WALKS)
            .map(|seed| walk(&sys, seed, &mut memo, &mut scratch))
            .sum();
        // The walks go somewhere: more than a step or two each.
        assert!(
            steps > 4 * WALKS as usize,
            "{design} on {scenario}: {steps} steps"
        );
    }
}

/// A network whose terms are not kept (read back from a trace, or forgotten by the
/// simulator) fingerprints as the same network with its terms kept, and steps from it are
/// the same steps.
#[test]
fn networks_without_kept_terms_fingerprint_the_same() {
    let sys = system("proposed", "ctp", &[]);
    let mut state = sys.init_state();
    let mut actions = Vec::new();
    for step in 0..60 {
        actions.clear();
        sys.enabled(&state, &mut actions);
        let Some(action) = actions.get(step % actions.len().max(1)).cloned() else {
            break;
        };
        let next = sys.step(&state, &action);
        let mut forgotten = state.clone();
        forgotten.network.forget_terms();
        let from_forgotten = sys.step(&forgotten, &action);
        assert_eq!(from_forgotten, next, "the same step after {action:?}");
        assert_eq!(of(&from_forgotten), of(&next));
        assert_eq!(from_forgotten.network.terms(), next.network.terms());
        let json = serde_json::to_string(&next.network).expect("a network serializes");
        let read: sharetxn_model::world::network::Network =
            serde_json::from_str(&json).expect("and reads back");
        assert_eq!(
            read.terms(),
            next.network.terms(),
            "read back after {action:?}"
        );
        assert_eq!(next.network.terms(), next.network.sum_terms());
        state = next;
    }
}

/// Every state reachable in `sys`, each once (compared by value, not by fingerprint).
fn every_state(sys: &System, cap: usize) -> Vec<SystemState> {
    let mut by_hash: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    let mut states = vec![sys.init_state()];
    by_hash.insert(fixed_hash(&states[0]), vec![0]);
    let (mut next, mut actions) = (0, Vec::new());
    while next < states.len() {
        assert!(states.len() <= cap, "the space is meant to be small");
        actions.clear();
        sys.enabled(&states[next], &mut actions);
        for action in &actions {
            let succ = sys.step(&states[next], action);
            let same = by_hash.entry(fixed_hash(&succ)).or_default();
            if !same.iter().any(|&k| states[k] == succ) {
                same.push(states.len());
                states.push(succ);
            }
        }
        next += 1;
    }
    states
}

#[test]
fn distinct_states_have_distinct_fingerprints_in_a_small_space() {
    let spaces: &[(&str, &str, &[&str])] = &[
        // One loss in flight or not, one coordinator; and ctp's one transaction.
        ("proposed", "txn-basic", &["duplicates=0", "crashes=0"]),
        ("proposed", "ctp", &["txns=1", "crashes=0"]),
    ];
    for (design, scenario, settings) in spaces {
        let sys = system(design, scenario, settings);
        let states = every_state(&sys, 20_000);
        let mut seen: BTreeMap<u64, usize> = BTreeMap::new();
        for (k, state) in states.iter().enumerate() {
            if let Some(other) = seen.insert(of(state), k) {
                panic!("{scenario}: states {other} and {k} differ but share a fingerprint");
            }
        }
        assert!(states.len() > 500, "{scenario}: {} states", states.len());
        assert_eq!(seen.len(), states.len());
    }
}
