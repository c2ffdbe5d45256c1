//! `single_writer`: once a `TransactionSession.resume(txnId, producerId, epoch)` was
//! acknowledged, no broker accepts a write, an offset commit or an EndTxn of the old
//! incarnation (the writer that prepared the transaction) carrying the resumed identity
//! (KIP-1310 3.5, KIP-939's fencing through `keepPreparedTxn`; docs/kafka-cases.md S17). A zombie
//! writer that is not fenced races the committer with the very pair it completes.
//!
//! Twin `resumed_writer_fenced`: a broker rejected such a request of the old incarnation.

use sharetxn_model::{System, SystemState};

/// The violation, if any.
pub fn check(_sys: &System, state: &SystemState) -> Option<String> {
    state.ghost.resume.zombie_accepted.clone()
}

/// Twin: the old incarnation's request with the resumed identity was rejected.
pub fn witness(_sys: &System, state: &SystemState) -> bool {
    state.ghost.resume.zombie_rejected
}
