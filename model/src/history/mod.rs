//! Ghost state: the history of a run that the properties read and no actor may. The world
//! records it from the steps it executes.

pub mod deliveries;
pub mod ghost;
pub mod ghost_value;
pub mod resume_ghost;
pub mod session_ghost;
pub mod share_resolutions;
pub mod txn_ack_ghost;
