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
        let sys = System::new(design, Scenario::txn_basic());
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
        }
    }
}
