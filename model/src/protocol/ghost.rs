//! A ghost value: data the model carries for the properties (which client transaction
//! attempt wrote a record, which delivery an acknowledgement was made for) that no real
//! Kafka process receives. Handlers may create one, copy it and compare it for equality,
//! but not look inside: the field is private and there is no `Deref`, so a handler that
//! reads a ghost's contents does not compile (`model/tests/suite/ghost_guard`), and the one way
//! in, [`Ghost::open`], is for the history and the other crates only (the same test fails
//! on a call of it from any other module of this crate). The one question the world's own
//! rules ask of a ghost, whether an acknowledgement was made for a given delivery, is
//! answered here and visible in `protocol` only, where [`crate::protocol::wait`] asks it.
//!
//! It is invisible in every output: `Debug` prints what the value prints and serde sees the
//! value itself, so traces, digests, renderings and state fingerprints are what they were
//! before the wrapper.

use crate::protocol::share_msg::DeliveryTag;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A value only the history and the properties may read. See the module documentation.
///
/// A handler cannot look inside one. Reading a field through it does not compile:
///
/// ```compile_fail,E0609
/// use sharetxn_model::protocol::share_msg::Acknowledgement;
/// fn delivery_count(ack: &Acknowledgement) -> u8 {
///     ack.tag.delivery_count
/// }
/// ```
///
/// ```compile_fail,E0609
/// use sharetxn_model::protocol::msg::OutputRecord;
/// fn attempt(record: &OutputRecord) -> u8 {
///     record.tag.attempt
/// }
/// ```
///
/// nor does its private field, or a dereference:
///
/// ```compile_fail,E0616
/// use sharetxn_model::protocol::share_msg::Acknowledgement;
/// fn member(ack: &Acknowledgement) -> u8 {
///     ack.tag.0.member.0
/// }
/// ```
///
/// ```compile_fail,E0614
/// use sharetxn_model::protocol::share_msg::Acknowledgement;
/// fn delivery_count(ack: &Acknowledgement) -> u8 {
///     (*ack.tag).delivery_count
/// }
/// ```
///
/// The history and the other crates open it (the same reads, so the cases above fail for
/// the wrapper and nothing else):
///
/// ```
/// use sharetxn_model::protocol::msg::OutputRecord;
/// use sharetxn_model::protocol::share_msg::Acknowledgement;
/// fn read(ack: &Acknowledgement, record: &OutputRecord) -> (u8, u8, u8) {
///     (ack.tag.open().delivery_count, ack.tag.open().member.0, record.tag.open().attempt)
/// }
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Ghost<T>(T);

impl<T> Ghost<T> {
    /// Wraps `value`: for the code that creates a ghost (a client beginning a transaction
    /// attempt, a consumer acknowledging a delivery).
    pub const fn new(value: T) -> Ghost<T> {
        Ghost(value)
    }

    /// The value inside. Only `crate::history` and the other crates (properties, traces,
    /// sim, cli) may call it; the `ghost_guard` test fails on any other caller.
    pub const fn open(&self) -> &T {
        &self.0
    }
}

impl Ghost<DeliveryTag> {
    /// Whether the acknowledgement this tag rides on was made for the delivery numbered
    /// `delivery_count`. An `AcknowledgementBatch` carries offsets and types only (KIP-932),
    /// so no handler may ask: only the acquisition-lock wait does, for the closed world's
    /// judgement of whether a lock firing now is early.
    pub(in crate::protocol) fn is_for_delivery(&self, delivery_count: u8) -> bool {
        self.0.delivery_count == delivery_count
    }
}

impl<T> Ghost<Vec<T>> {
    /// Appends `value` to a ghost log: a handler may write what it did into ghost state
    /// without reading it back.
    pub fn push(&mut self, value: T) {
        self.0.push(value);
    }

    /// Whether the ghost log is empty: for serde's `skip_serializing_if`, so an empty
    /// log is left out of traces as it was before the wrapper. Not for handlers.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<T: fmt::Debug> fmt::Debug for Ghost<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<T: fmt::Display> fmt::Display for Ghost<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::Ghost;

    #[test]
    fn invisible_in_debug_and_json() {
        let g = Ghost::new((1u8, "a"));
        assert_eq!(format!("{g:?}"), format!("{:?}", (1u8, "a")));
        assert_eq!(format!("{g:#?}"), format!("{:#?}", (1u8, "a")));
        assert_eq!(serde_json::to_string(&g).unwrap(), r#"[1,"a"]"#);
        let back: Ghost<(u8, String)> = serde_json::from_str(r#"[1,"a"]"#).unwrap();
        assert_eq!(back, Ghost::new((1, "a".to_string())));
    }
}
