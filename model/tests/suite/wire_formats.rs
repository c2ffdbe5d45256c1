//! Wire formats per design (docs/wire.md): on the KIP-1289 scenarios, every message the
//! world sends under `seed`, `draft` and `proposed` carries no field outside the design's
//! format (`Design::wire_format`, checked by `System::wire_excess` on each envelope in
//! flight, whichever handler sent it). The scenarios run at small bounds: breadth-first up
//! to a cap, then seeded random walks to quiescence for the deep states.

use sharetxn_model::world::settings::apply;
use sharetxn_model::{Design, Scenario, System, SystemState};
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeSet, VecDeque};
use std::hash::{Hash, Hasher};

/// The KIP-1289 scenarios, each with its small bounds.
const SCENARIOS: &[(&str, &[&str])] = &[
    ("ctp", &["txns=1"]),
    // Small enough for every design's breadth-first part to finish, so that the count
    // with and without `strict_wire_format` is compared under `draft` too.
    ("ctp", &["txns=1", "crashes=0"]),
    ("ctp-race", &["stalls=0"]),
    ("session", &[]),
    ("connect-share-sink", &[]),
    ("flink-acknowledger", &["txns=1"]),
];

/// States explored breadth-first per scenario and design.
const BFS_CAP: usize = 20_000;
/// Random walks per scenario and design after the breadth-first part.
const WALKS: u64 = 300;
/// Steps per walk at most.
const WALK_LEN: usize = 400;

fn fingerprint(state: &SystemState) -> u64 {
    let mut h = DefaultHasher::new();
    state.hash(&mut h);
    h.finish()
}

/// What one exploration saw: the states it reached, whether the breadth-first search
/// finished under its cap, and every field sent outside the format.
struct Seen {
    states: usize,
    complete: bool,
    excess: BTreeSet<(&'static str, String)>,
}

/// Each field outside the format, with the connection it was sent on.
fn check_network(sys: &System, state: &SystemState, excess: &mut BTreeSet<(&'static str, String)>) {
    for env in state.network.iter() {
        for field in sys.wire_excess(env.as_ref()) {
            let route = format!(
                "{} -> {}",
                sys.topology.name(env.src),
                sys.topology.name(env.dst)
            );
            excess.insert((field, route));
        }
    }
}

fn explore(sys: &System) -> Seen {
    let init = sys.init_state();
    let mut excess = BTreeSet::new();
    let mut seen = BTreeSet::from([fingerprint(&init)]);
    let mut queue = VecDeque::from([init.clone()]);
    let mut actions = Vec::new();
    while let Some(state) = queue.pop_front() {
        check_network(sys, &state, &mut excess);
        if seen.len() >= BFS_CAP {
            continue;
        }
        actions.clear();
        sys.enabled(&state, &mut actions);
        for action in &actions {
            let next = sys.step(&state, action);
            if seen.insert(fingerprint(&next)) {
                queue.push_back(next);
            }
        }
    }
    let complete = seen.len() < BFS_CAP;
    let states = seen.len();
    for walk in 0..WALKS {
        // A fixed linear congruential sequence per walk: the same walks on every run.
        let mut rng = walk.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let mut state = init.clone();
        for _ in 0..WALK_LEN {
            actions.clear();
            sys.enabled(&state, &mut actions);
            if actions.is_empty() {
                break;
            }
            rng = rng
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let pick = usize::try_from(rng >> 33).expect("31 bits") % actions.len();
            state = sys.step(&state, &actions[pick]);
            check_network(sys, &state, &mut excess);
        }
    }
    Seen {
        states,
        complete,
        excess,
    }
}

fn system(design: &Design, scenario: &str, settings: &[&str]) -> System {
    let mut design = design.clone();
    let mut scenario = Scenario::by_name(scenario).expect("a scenario");
    for setting in settings {
        apply(&mut design, &mut scenario, setting).expect("a valid setting");
    }
    System::new(design, scenario)
}

/// Every KIP-1289 scenario under `design` with `strict_wire_format`: no message carries a
/// field outside the design's format. Where the breadth-first part finished, the count is
/// the same as without the knob: the fields it leaves out carried nothing a handler read.
fn holds_its_format(mut design: Design) {
    let mut earlier = design.clone();
    earlier.strict_wire_format = false;
    design.strict_wire_format = true;
    for (scenario, settings) in SCENARIOS {
        let strict = explore(&system(&design, scenario, settings));
        eprintln!(
            "{} on {scenario}: {} states breadth-first{}",
            design.name,
            strict.states,
            if strict.complete {
                " (all)"
            } else {
                " (capped)"
            }
        );
        assert!(
            strict.excess.is_empty(),
            "{} on {scenario}: sent outside its wire format: {:?}",
            design.name,
            strict.excess
        );
        if strict.complete {
            let loose = explore(&system(&earlier, scenario, settings));
            assert_eq!(
                strict.states, loose.states,
                "{} on {scenario}: strict_wire_format moved the count",
                design.name
            );
        }
    }
}

#[test]
fn seed_messages_carry_only_the_seed_wire_format() {
    holds_its_format(Design::seed());
}

#[test]
fn draft_messages_carry_only_the_draft_wire_format() {
    holds_its_format(Design::draft());
}

#[test]
fn proposed_messages_carry_only_the_proposed_wire_format() {
    holds_its_format(Design::proposed());
}

/// The earlier senders (`strict_wire_format=false`) send exactly these fields outside each
/// design's format, none of them read by a handler of that design (docs/wire.md).
#[test]
fn the_earlier_senders_fill_these_fields_outside_the_format() {
    let expected: [(Design, &[&str]); 3] = [
        (Design::seed(), &["TxnShareAcknowledge.MemberId"]),
        (
            Design::draft(),
            &[
                "TxnShareAcknowledge.DeliveryCount",
                "TxnShareAcknowledge.MemberId (leader staging)",
            ],
        ),
        (
            Design::proposed(),
            &["TxnShareAcknowledge.MemberId (leader staging)"],
        ),
    ];
    for (mut design, fields) in expected {
        design.strict_wire_format = false;
        let mut found = BTreeSet::new();
        for (scenario, settings) in SCENARIOS {
            let seen = explore(&system(&design, scenario, settings));
            found.extend(seen.excess.into_iter().map(|(field, _)| field));
        }
        let want: BTreeSet<&str> = fields.iter().copied().collect();
        assert_eq!(found, want, "{}", design.name);
    }
}
