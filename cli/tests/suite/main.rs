//! The command line's integration tests, one test binary: each runs the built `sharetxn`
//! binary and reads its output, exit code and files. One binary rather than one per file,
//! so the test code is compiled and linked once.
//!
//! A new test file `foo.rs` goes next to this one, with `mod foo;` below; helpers come from
//! `crate::common`. A test's scratch directory is named after its file and test
//! (`common::scratch_dir`), since the tests of every file run side by side in this process.

mod bad_input;
mod cli;
mod cli_doc;
mod common;
mod docs;
mod fuzz;
mod heal_traces;
mod matrix;
mod report;
mod swarm;
