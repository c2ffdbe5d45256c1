//! `flush_before_commit`: a session decides a commit only after every produce and every
//! share acknowledgement of that transaction was answered. `TransactionManager.nextRequest`
//! holds EndTxn while a batch is incomplete; a `TransactionSession` that sends EndTxn on
//! its own connection must keep that order (KIP-1310; docs/kafka-cases.md S15), or a batch still in
//! flight is fenced by the epoch the commit bumps and the transaction commits without it.
//!
//! Twin `flushed_commit`: a session decided a commit after its produce and its share
//! acknowledgement were both answered.

use crate::view::View;

/// The violation, if any.
pub fn check(view: &View) -> Option<String> {
    let state = view.state;
    state.ghost.session.unflushed_commit.clone()
}

/// Twin: a commit decided with its writes answered.
pub fn witness(view: &View) -> bool {
    let state = view.state;
    state.ghost.session.flushed_commit
}
