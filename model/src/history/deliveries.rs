//! What the world's own rules may ask of the acknowledgements' ghost tags. Whether an
//! acquisition lock firing now is early (a fault the `timeouts` budget pays for) is the
//! closed world's judgement over the whole run, not an actor's decision: it may tell an
//! acknowledgement in flight for this delivery of a record from one made for an earlier
//! delivery of it, which no share-partition leader can (an `AcknowledgementBatch` carries
//! offsets and types only, KIP-932).

use crate::protocol::share_msg::Acknowledgement;
use crate::protocol::width::Offset;

/// Whether one of `acks` acknowledges the delivery of `offset` with `delivery_count`.
pub fn acknowledges_delivery(acks: &[Acknowledgement], offset: Offset, delivery_count: u8) -> bool {
    acks.iter()
        .any(|a| a.offset == offset && a.tag.open().delivery_count == delivery_count)
}
