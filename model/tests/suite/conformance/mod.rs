//! Kafka's own unit tests as a conformance suite for the model: each test here mirrors one
//! Kafka test method (named in its doc comment, with the class), feeds the model's handler
//! the same request in the same state, and checks Kafka's expected answer and state.
//!
//! Kafka read: apache/kafka at commit `1eb7644349cb` (2024-10-25, 4.0.0-SNAPSHOT). Where the
//! model follows a newer `TransactionCoordinator` (`bb126f2d`, about 4.0 with TV2), the test
//! says so. The KIP-1289 draft's `SharePartitionTxnStateTest` is read from the draft PR's
//! test source. `docs/conformance.md` has the table: Kafka test, model test, verdict; the
//! `docs_table` module checks its counts against this suite.
//!
//! A model test that disagrees with Kafka's expectation is `#[ignore]`d with the row of
//! `docs/conformance.md` that explains it, and still asserts Kafka's answer, so
//! `cargo test -p sharetxn-model --test suite conformance:: -- --ignored` shows each disagreement
//! that is argued rather than fixed failing.

mod docs_table;
pub(crate) mod fixture;
mod marker_completion;
mod persister_state_batch_combiner;
mod producer_state_manager;
mod share_coordinator;
mod share_partition;
mod share_partition_manager;
mod share_partition_txn_state;
mod transaction_coordinator;
mod transaction_manager;
mod transaction_metadata;
mod transaction_state_manager;
