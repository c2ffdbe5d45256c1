//! The wire: Kafka's request and response types as the designs give them, and the ids,
//! widths, error codes and share record states they carry, with the ghost values that ride
//! on messages for the properties and that no handler can open (`ghost`), what an actor
//! declares its timers wait for (`wait`), and what a handler may do besides changing its
//! state (`output`: stateright's `Out` over any host actor). Every other folder speaks
//! through these types; this one names no other.

pub mod error;
pub mod external_msg;
pub mod ghost;
pub mod ids;
pub mod keyed;
pub mod msg;
pub mod output;
pub mod record_state;
pub mod share_msg;
pub mod share_state;
pub mod txn_heartbeat_msg;
pub mod txn_share_msg;
pub mod wait;
pub mod width;
