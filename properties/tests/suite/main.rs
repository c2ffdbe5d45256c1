//! The properties crate's integration tests, one test binary: the pinned state counts, the
//! designs' verdicts on every scenario, the checks that each property can fail, and the
//! docs generated from them. One binary rather than one per file, so the checker and the
//! model are compiled and linked once for all of them.
//!
//! A new test file `foo.rs` goes next to this one, with `mod foo;` below; helpers come from
//! `crate::common`.

mod bfs_threads;
mod can_fail;
mod common;
mod connect_sink;
mod ctp_acks;
mod docs;
mod draft_itest;
mod explorer;
mod fidelity_knobs;
mod flink_two_phase;
mod fused_duplicates;
mod historical_bugs;
mod implicit_add;
mod kip1289;
mod kip_scenarios;
mod partial_order;
mod pinned;
mod proposed;
mod reset;
mod session;
mod session_heartbeat;
mod session_resume;
mod share;
mod share_coordinator_cases;
mod spl_move;
mod stable_twins;
mod stall_symmetry;
mod swarm;
mod two_groups;
mod two_partitions;
mod view;
mod written_declarations;
