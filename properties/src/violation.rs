//! A violation: which property, and one line saying what went wrong.

use serde::{Deserialize, Serialize};
use std::fmt;

/// What a property found wrong in a state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The property's name.
    pub property: String,
    /// One line, naming actors and attempts as traces do.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.property, self.message)
    }
}
