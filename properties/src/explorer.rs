//! Stateright's web Explorer over the same `System`, with the property table attached so
//! the Explorer shows each property's status along the path being browsed.

use crate::PROPERTIES;
use sharetxn_model::{Action, System, SystemState};
use stateright::{Model, Property};

/// `System` with the property table, as a `stateright::Model`.
pub struct Checked(pub System);

macro_rules! prop_fns {
    ($($i:literal),*) => {
        fn props() -> Vec<Property<Checked>> {
            let mut out = Vec::new();
            $(
                if $i < PROPERTIES.len() {
                    let p = &PROPERTIES[$i];
                    out.push(Property::always(p.name, |m: &Checked, s: &SystemState| {
                        (PROPERTIES[$i].check)(&m.0, s).is_none()
                    }));
                    out.push(Property::sometimes(p.twin, |m: &Checked, s: &SystemState| {
                        (PROPERTIES[$i].witness)(&m.0, s)
                    }));
                }
            )*
            out
        }
    };
}

prop_fns!(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);

impl Model for Checked {
    type State = SystemState;
    type Action = Action;

    fn init_states(&self) -> Vec<SystemState> {
        self.0.init_states()
    }

    fn actions(&self, state: &SystemState, actions: &mut Vec<Action>) {
        self.0.actions(state, actions)
    }

    fn next_state(&self, state: &SystemState, action: Action) -> Option<SystemState> {
        self.0.next_state(state, action)
    }

    fn format_action(&self, action: &Action) -> String {
        self.0.describe(action)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        props()
    }
}
