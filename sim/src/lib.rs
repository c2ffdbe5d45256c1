//! # sharetxn-sim: deterministic simulation of the closed world
//!
//! The exhaustive checker covers tiny bounds; the simulator covers what users run: more
//! records and transactions, real Kafka timeouts, minutes of virtual time, and faults
//! drawn by a seed. It drives the same [`sharetxn_model::System`] as every other engine
//! (the actors in `sharetxn-model` are the only protocol implementation) and judges the
//! same property table.
//!
//! A run is a pure function of one `u64` seed: a ChaCha8 RNG, a virtual clock in
//! milliseconds, ordered collections only. The seed first draws its swarm (workload size,
//! which fault kinds are on and how often), then the run has a fault phase and a heal
//! phase after which liveness must follow within a virtual deadline.
//!
//! | module | its one job |
//! |---|---|
//! | [`rng`] | the seeded random source, integer draws only |
//! | [`ratio`] | probabilities as integer ratios |
//! | [`clock`] | virtual time |
//! | [`options`] | Kafka's durations and the run's shape, with `--set` keys |
//! | [`durations`] | each model timer's Kafka duration |
//! | [`latency`] | per-link latency with a long tail |
//! | [`faults`] | fault kinds, message fates, where faults come from |
//! | [`schedule`] | an explicit fault schedule (what proptest shrinks) |
//! | [`swarm`] | a seed's choices |
//! | [`pending`] | the side table of times for messages, timers, choices, restarts |
//! | [`scheduler`] | which enabled action happens next, and when |
//! | [`run`] | one run: fault phase, heal phase, property checks |
//! | [`outcome`] | what a run yields |
//! | [`seeds`] | seed ranges and shards |
//! | [`parallel`] | many seeds over threads, results in seed order |
//! | [`line`] | the JSON line of one seed |
//! | [`summary`] | the summary of many seeds, merged from many machines |
//! | [`trace_limit`] | which violating seeds write a trace file |

pub mod clock;
pub mod durations;
pub mod faults;
pub mod latency;
pub mod line;
pub mod options;
pub mod outcome;
pub mod parallel;
pub mod pending;
pub mod ratio;
pub mod rng;
pub mod run;
pub mod schedule;
pub mod scheduler;
pub mod seeds;
#[cfg(feature = "proptest")]
pub mod strategies;
pub mod summary;
pub mod swarm;
pub mod trace_limit;

pub use options::SimOptions;
pub use outcome::{Outcome, TimedAction};
pub use run::{run_schedule, run_seed};
pub use schedule::Schedule;
pub use swarm::Swarm;
pub use trace_limit::{TraceLimit, TraceQuota};
