//! The closed world the actors run in: `System` (one `stateright::Model` over every actor,
//! generic over the history it records into, `record`), the actor enum and its storage
//! (`node`, the host every handler's `Out` is over), the accessors into each actor's state
//! (`accessors`), the network, the topology, the scenarios and their fault budgets, which
//! design applies to which scenario (`scope`), the `--set` keys over both (`settings`),
//! which actions are enabled (`enabled`), borrowed as a search steps them (`action_ref`), a
//! state's fingerprint (`fingerprint`), a searcher's memo of handler runs (`memo`), when a
//! timer is due, and each design's wire format (`wire`). It names every folder below it and
//! none above: the history is a type parameter.

pub mod accessors;
pub mod action_ref;
pub mod assemble;
pub mod effects;
pub mod enabled;
pub mod fingerprint;
pub mod memo;
pub mod network;
pub mod node;
pub mod observation;
pub mod record;
pub mod resume_system;
pub mod scenario;
pub mod scope;
pub mod settings;
pub mod shared;
pub mod state;
pub mod system;
pub mod timer_set;
pub mod timing;
pub mod topology;
pub mod wire;
