//! proptest strategies for what the simulator runs: scenario sizes and fault schedules.
//! Shrinking a failing schedule removes faults and shortens delays, so a counterexample
//! found among many faults ends as the few that matter.

use crate::ratio::Ratio;
use crate::schedule::{FaultEvent, MessageFault, Schedule, Timed};
use proptest::prelude::*;
use sharetxn_model::Scenario;

/// A scenario like `base` with its size drawn: inputs, transactions, output partitions.
pub fn scenario(base: Scenario) -> impl Strategy<Value = Scenario> {
    (1u8..=4, 1u8..=4, 1u8..=2).prop_map(move |(inputs, txns, partitions)| Scenario {
        inputs,
        txns,
        partitions,
        ..base.clone()
    })
}

/// A message fault.
pub fn message_fault() -> impl Strategy<Value = MessageFault> {
    prop_oneof![
        Just(MessageFault::Lose),
        Just(MessageFault::Duplicate),
        (1u32..=90_000).prop_map(|ms| MessageFault::Delay { ms }),
    ]
}

/// A timed fault within the first `horizon_ms` of a run, over up to `actors` actors.
pub fn timed(horizon_ms: u64, actors: u8) -> impl Strategy<Value = Timed> {
    let side_max = (1u32 << actors.min(31)) - 1;
    let event = prop_oneof![
        (any::<u8>(), 10u64..=30_000)
            .prop_map(|(actor, downtime_ms)| FaultEvent::Crash { actor, downtime_ms }),
        (1u32..=side_max.max(1), 100u64..=120_000, any::<bool>()).prop_map(
            |(side, duration_ms, hold)| FaultEvent::Partition {
                side,
                duration_ms,
                hold
            }
        ),
        (0u8..actors.max(1), 10u64..=60_000)
            .prop_map(|(actor, duration_ms)| FaultEvent::Stall { actor, duration_ms }),
    ];
    (0..horizon_ms, event).prop_map(|(at_ms, event)| Timed { at_ms, event })
}

/// A fault schedule: up to `max_messages` message faults among the first
/// `message_horizon` messages, up to `max_timed` timed faults in the first `horizon_ms`.
pub fn schedule(
    max_messages: usize,
    message_horizon: u32,
    max_timed: usize,
    horizon_ms: u64,
) -> impl Strategy<Value = Schedule> {
    (
        proptest::collection::vec((0..message_horizon, message_fault()), 0..=max_messages),
        proptest::collection::vec(timed(horizon_ms, 5), 0..=max_timed),
        0u32..=50,
    )
        .prop_map(|(messages, timed, abort)| Schedule {
            timed,
            messages,
            abort: Ratio::new(abort, 100),
        })
}
