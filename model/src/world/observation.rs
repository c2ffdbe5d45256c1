//! `Observation`: what a handler did that its state after the step does not show, typed.
//! An actor records these in its own state while it handles an event; the world drains
//! them after the handler (so no stored state holds any) and hands them to the history
//! through [`crate::world::record::Record`], the only reader.

use crate::clients::source_reader::Processed;
use crate::coordinator::txn_state::{TransactionState, TxnManagerState};
use crate::protocol::record_state::RecordState;
use crate::share::share_partition::ShareEvent;

/// One kind of fact one handler recorded, in the order it recorded them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Observation {
    /// The transaction coordinator moved transactions between these states (from, to).
    TxnMoves(Vec<(TransactionState, TransactionState)>),
    /// A client's `TransactionManager` moved between these states (from, to).
    ManagerMoves(Vec<(TxnManagerState, TxnManagerState)>),
    /// The share-partition leader moved records between these states (from, to).
    RecordMoves(Vec<(RecordState, RecordState)>),
    /// What the share-partition leader did to its records and acknowledgements.
    ShareEvents(Vec<ShareEvent>),
    /// What a Flink source reader's completed checkpoint covered.
    Processed(Vec<Processed>),
}

/// Appends `observation` made of `facts` unless there are none (most handlers record
/// nothing, and then nothing is allocated).
pub(crate) fn push_nonempty<T>(
    out: &mut Vec<Observation>,
    facts: &mut Vec<T>,
    observation: fn(Vec<T>) -> Observation,
) {
    if !facts.is_empty() {
        out.push(observation(std::mem::take(facts)));
    }
}
