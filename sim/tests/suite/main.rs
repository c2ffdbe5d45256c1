//! The simulator's integration tests, one test binary: determinism, the bugs it finds, the
//! shrinker, and the swarms over the proposed design. One binary rather than one per file,
//! so the simulator and the model are compiled and linked once for all of them.
//!
//! A new test file `foo.rs` goes next to this one, with `mod foo;` below.

mod ctp;
mod determinism;
mod finds_bugs;
mod production_size;
mod proposed_regressions;
mod proposed_swarm;
mod session_resume_swarm;
mod shrink;
mod spl_move_swarm;
mod swarm;
