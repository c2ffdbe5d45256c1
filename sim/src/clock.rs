//! Virtual time in milliseconds. It only moves forward, and only when the scheduler takes
//! an action whose time has come: no wall clock is ever read, so a run takes the same
//! virtual time on a laptop and on a loaded CI machine.

/// The run's virtual clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    now_ms: u64,
}

impl Clock {
    /// The current virtual time.
    pub fn now(self) -> u64 {
        self.now_ms
    }

    /// Moves to `at_ms` if that is later; an action overdue (it waited for a stall or for
    /// a connection's head) happens now, never in the past.
    pub fn advance_to(&mut self, at_ms: u64) -> u64 {
        self.now_ms = self.now_ms.max(at_ms);
        self.now_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_goes_back() {
        let mut c = Clock::default();
        assert_eq!(c.advance_to(10), 10);
        assert_eq!(c.advance_to(3), 10);
        assert_eq!(c.now(), 10);
    }
}
