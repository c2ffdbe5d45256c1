//! `single_writer`: once a `TransactionSession.resume(txnId, producerId, epoch)` was
//! acknowledged, no broker accepts a write or an offset commit that adds to its log, or an
//! EndTxn, of the old incarnation (the writer that prepared the transaction) carrying the
//! resumed identity. A late retry of a write the log already holds (a Produce the
//! partition answers as a duplicate, a TxnOffsetCommit of the same offset) changes nothing
//! the transaction commits, so it is no zombie write
//! (KIP-1310 3.5, KIP-939's fencing through `keepPreparedTxn`; docs/kafka-cases.md S17). A zombie
//! writer that is not fenced races the committer with the very pair it completes.
//!
//! Twin `resumed_writer_fenced`: a broker rejected such a request of the old incarnation.

use crate::view::View;

/// The violation, if any.
pub fn check(view: &View) -> Option<String> {
    let state = view.state;
    state.ghost.resume.zombie_accepted.clone()
}

/// Twin: the old incarnation's request with the resumed identity was rejected.
pub fn witness(view: &View) -> bool {
    let state = view.state;
    state.ghost.resume.zombie_rejected
}
