//! # sharetxn-traces: counterexamples people can replay, shrink and read
//!
//! A trace is a versioned JSON document holding everything needed to run a discovery
//! again on the current model: the design and scenario in full, where it came from, the
//! actions by value with the digest of every state, and what it shows.
//!
//! | module | its one job |
//! |---|---|
//! | [`format`] | the document: [`Trace`], its origin, outcome and steps |
//! | [`canonical`] | any serde value as one JSON tree (map keys of any type) |
//! | [`digest`] | state digests stable across runs and machines, per part |
//! | [`diff`] | where two canonical states differ |
//! | [`load`] | reading a file into a checked [`Trace`], or a one-line error |
//! | [`walk`] | running actions, refusing one that is not enabled |
//! | [`judge`] | judging states as the checker does |
//! | [`record`] | making a trace from a run |
//! | [`replay`] | re-running a trace and saying where it goes elsewhere |
//! | [`oracle`] | the shrinker's test: does a candidate run show the outcome |
//! | [`ddmin`] | delta debugging to a 1-minimal run |
//! | [`reduce`] | a smaller scenario that still shows the outcome |
//! | [`search`] | a bounded breadth-first search for a shorter trace |
//! | [`heal`] | the simulator's heal-phase verdict: confirmed, shrunk |
//! | [`shrink`] | the shrinker's passes, and the shrunk trace |
//! | [`render`] | text and Mermaid |

pub mod canonical;
pub mod ddmin;
pub mod diff;
pub mod digest;
pub mod format;
pub mod heal;
pub mod inevitable;
pub mod judge;
pub mod load;
pub mod oracle;
pub mod record;
pub mod reduce;
pub mod render;
pub mod replay;
pub mod search;
pub mod shrink;
pub mod walk;

pub use format::{Heal, Origin, Outcome, Step, Trace, FORMAT, VERSION};
pub use load::{load, parse, LoadError};
pub use record::{from_report, record};
pub use replay::{replay, Replay, Verdict};
pub use shrink::{shrink, shrink_with, Pass, ShrinkOptions, Shrunk};
