//! Generated traces round-trip: any run of the model, recorded, written and read back, is
//! the same trace and the same bytes, and replays with every digest as recorded.

use proptest::prelude::*;
use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_traces::{parse, record, replay, Origin, Outcome};

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn recorded_walks_round_trip(
        choices in proptest::collection::vec(any::<usize>(), 0..40),
        seed in any::<u64>(),
        timed in any::<bool>(),
        faults in proptest::sample::select(vec!["crashes=1", "timeouts=1", "drops=1", "duplicates=1"]),
    ) {
        let (mut design, mut scenario) = (Design::consumer_offsets(), Scenario::txn_basic());
        settings::apply(&mut design, &mut scenario, faults).unwrap();
        let sys = System::new(design, scenario);
        let mut state = sys.init_state();
        let mut actions = Vec::new();
        for c in choices {
            let mut enabled = Vec::new();
            sys.enabled(&state, &mut enabled);
            if enabled.is_empty() {
                break;
            }
            let a = enabled[c % enabled.len()].clone();
            state = sys.step(&state, &a);
            actions.push(a);
        }
        let times: Vec<Option<u64>> = if timed {
            (0..actions.len()).map(|i| Some(i as u64 * 250)).collect()
        } else {
            Vec::new()
        };
        let origin = Origin::Sim { seed, options: serde_json::json!({"faults": faults}) };
        let outcome = Outcome::Witness { property: "commit_reached".into() };
        let trace = record(&sys, origin, outcome, &actions, &times).unwrap();
        let text = trace.to_json().unwrap();
        let back = parse(&text).unwrap();
        prop_assert_eq!(&back, &trace);
        prop_assert_eq!(back.to_json().unwrap(), text);
        let result = replay(&back).unwrap();
        prop_assert_eq!(result.divergence, None);
        prop_assert_eq!(result.steps.len(), actions.len());
    }
}
