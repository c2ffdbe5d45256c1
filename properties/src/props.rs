//! One file per property: `check` returns the violation's one-line message, `witness`
//! says whether the property's reachability twin holds in a state. Both take the state's
//! [`View`](crate::view::View): `view.sys` and `view.state`, and the parts several
//! properties read (`logs`, `write_statuses`, `applied_acks`, `is_quiescent`), built once
//! for every property its caller judges on that state.

pub mod ack_owner;
pub mod at_least_once;
pub mod cache_agrees;
pub mod delivery_limit;
pub mod external_agreement;
pub mod flush_before_commit;
pub mod leader_fencing;
pub mod legal_transitions;
pub mod live_session_kept;
pub mod marker_match;
pub mod no_aborted_read;
pub mod no_duplicate_processing;
pub mod no_hanging_transaction;
pub mod no_lost_record;
pub mod no_orphan_acks;
pub mod pending_isolation;
pub mod producer_fencing;
pub mod single_writer;
pub mod staged_ack_exclusive;
pub mod stale_acks_fenced;
pub mod txn_atomicity;
pub mod txn_completes;
