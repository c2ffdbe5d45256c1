//! KIP-1302's choices for Connect's `WorkerShareSinkTask` in exactly-once mode on a
//! `TransactionSession`: one `Design` knob per point the seeds leave open. The seed's value
//! is the default, left out of traces, so designs and traces without sink tasks are what
//! they were.

use serde::{Deserialize, Serialize};

/// Which batches the commit thread's `session.commitTransaction()` covers when the poll
/// thread goes on polling, converting and sending while a commit is in flight (the "async
/// commit" KIP-1310 promises KIP-1302: "the commit thread can call
/// `session.commitTransaction()` without needing a producer instance").
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum SinkCommitScope {
    /// The seed: the session has one transaction, and the producer on it sends with the
    /// session's identity whenever the poll thread calls `producer.send`. A batch polled
    /// while the commit thread commits is sent at once, with the epoch of the transaction
    /// being committed, although its acknowledgements go into the next commit: if it
    /// reaches its partition before the COMMIT marker it joins the committing transaction.
    #[default]
    Session,
    /// The commit covers exactly the batches whose acknowledgements it staged: a batch
    /// polled while a commit is in flight is held (put, not sent) until the commit ended,
    /// and then begins the next transaction, with the epoch that transaction gets.
    Staged,
}

impl SinkCommitScope {
    /// Every value, in `--set` order.
    pub const ALL: [SinkCommitScope; 2] = [SinkCommitScope::Session, SinkCommitScope::Staged];

    /// The `--set` spelling.
    pub fn name(self) -> &'static str {
        match self {
            SinkCommitScope::Session => "session",
            SinkCommitScope::Staged => "staged",
        }
    }
}
