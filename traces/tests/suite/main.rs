//! The trace crate's integration tests, one test binary: the format's round trip, the
//! loader, the reviewed corpus and its renderings. One binary rather than one per file, so
//! the replayer and the model are compiled and linked once for all of them.
//!
//! A new test file `foo.rs` goes next to this one, with `mod foo;` below.

mod corpus;
mod draft_itest;
mod historical;
mod inevitable;
mod loader;
mod roundtrip;
