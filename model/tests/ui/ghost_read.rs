//! A handler reading a ghost value directly: every read below must fail to compile.

use sharetxn_model::protocol::msg::OutputRecord;
use sharetxn_model::protocol::share_msg::Acknowledgement;

/// What `acking_member` and the acknowledger's `deliveries` read before the wrapper.
fn acknowledged_delivery(ack: &Acknowledgement) -> (u8, u8) {
    (ack.tag.member.0, ack.tag.delivery_count)
}

/// Which attempt wrote a record.
fn attempt(record: &OutputRecord) -> u8 {
    record.tag.attempt
}

/// The private field, and a dereference (there is no `Deref`).
fn through_the_wrapper(ack: &Acknowledgement) -> u8 {
    let inner = ack.tag.0;
    (*ack.tag).delivery_count + inner.delivery_count
}

fn main() {
    let _ = (acknowledged_delivery, attempt, through_the_wrapper);
}
