//! proptest: random action sequences never break the transition tables' own assertions
//! (`debug_assert!` in every transition) nor the system's bookkeeping.

use proptest::prelude::*;
use sharetxn_model::{Design, Scenario, System};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_walks_stay_within_the_tables(
        choices in proptest::collection::vec(any::<u16>(), 1..120),
        tv in 0u8..=2,
        verification in any::<bool>(),
        flush in any::<bool>(),
    ) {
        let mut design = Design::consumer_offsets();
        design.tv = sharetxn_model::design::TransactionVersion(tv);
        design.verification = verification;
        design.flush_before_end_txn = flush;
        let mut scenario = Scenario::txn_basic();
        scenario.partitions = 2;
        scenario.budget.drops = 1;
        scenario.budget.duplicates = 1;
        scenario.budget.timeouts = 1;
        let sys = System::new(design, scenario);
        let mut state = sys.init_state();
        let mut actions = Vec::new();
        for c in choices {
            actions.clear();
            sys.enabled(&state, &mut actions);
            if actions.is_empty() {
                break;
            }
            let action = &actions[usize::from(c) % actions.len()];
            prop_assert!(sys.is_enabled(&state, action));
            state = sys.step(&state, action);
            prop_assert!(state.ghost.illegal_transition.is_none(), "{:?}", state.ghost.illegal_transition);
            let mut progress = Vec::new();
            sys.enabled_progress(&state, &mut progress);
            prop_assert_eq!(sys.is_quiescent(&state), progress.is_empty());
        }
    }
}
