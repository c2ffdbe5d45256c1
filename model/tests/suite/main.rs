//! The model crate's integration tests, one test binary: the handler tests (one message in,
//! the exact commands out), Kafka's own unit tests as a conformance suite, the wire and
//! layering guards, and the docs they keep in step. One binary rather than one per file, so
//! the generic model code is compiled and linked once for all of them.
//!
//! A new test file `foo.rs` goes next to this one, with `mod foo;` below; helpers come from
//! `crate::common`.

mod acknowledger_handlers;
mod committer_recovery_handlers;
mod common;
mod conformance;
mod fidelity_doc;
mod fidelity_handlers;
mod fingerprints;
mod ghost_guard;
mod implicit_add_handlers;
mod kip939_handlers;
mod layers;
mod leader_move_handlers;
mod random_walks;
mod reset_handlers;
mod resume_handoff_handlers;
mod session_resume_handlers;
mod share_coordinator_cases;
mod share_handlers;
mod shuffle_handlers;
mod timer_rules;
mod trace_fields;
mod two_groups_handlers;
mod two_phase_reader_handlers;
mod tx_pending_handlers;
mod txn_client_ack_handlers;
mod txn_handlers;
mod txn_share_handlers;
mod verification_timeout_handlers;
mod wire_formats;
mod world_json;
