//! The widths of the model's numbers, in one place. The exhaustive checker explores a few
//! records and transactions, but the simulator runs production sizes (a thousand records,
//! hundreds of transactions, thousands of fetches and state writes), so every number that
//! grows with the length of a run is wide enough that no run the simulator allows reaches
//! its end. Widening changes no value, so states, digests and traces are what they were.

/// An offset in the share partition's input log, and a count of its records. Kafka's is an
/// int64; a run holds at most a few thousand records.
pub type Offset = u16;

/// A number a long run keeps bumping: producer sequence numbers, share session epochs,
/// persister write numbers and log positions (Kafka's are int32). Sessions and writes
/// grow with every fetch and acknowledgement, so they need more than 16 bits.
pub type Counter = u32;

/// An epoch or incarnation bumped by restarts, fencing and loads: producer and coordinator
/// epochs, leader and state epochs, client incarnations. Kafka's producer epoch is an
/// int16 (see [`crate::protocol::ids::ProducerEpoch::bump`] for its exhaustion).
pub type Epoch = u16;
