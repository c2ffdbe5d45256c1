//! Kafka's own unit tests as a conformance suite for the model: each test here mirrors one
//! Kafka test method (named in its doc comment, with the class), feeds the model's handler
//! the same request in the same state, and checks Kafka's expected answer and state.
//!
//! Kafka read: apache/kafka at commit `1eb7644349cb` (2024-10-25, 4.0.0-SNAPSHOT). Where the
//! model follows a newer `TransactionCoordinator` (`bb126f2d`, about 4.0 with TV2), the test
//! says so. `docs/conformance.md` has the table: Kafka test, model test, verdict.
//!
//! A model test that disagrees with Kafka's expectation is `#[ignore]`d with the row of
//! `docs/conformance.md` that explains it, and still asserts Kafka's answer, so
//! `cargo test -p sharetxn-model --test conformance -- --ignored` shows each open
//! disagreement failing.

#[path = "../common/mod.rs"]
mod common;
mod fixture;
mod producer_state_manager;
mod share_coordinator;
mod share_partition;
mod transaction_coordinator;
