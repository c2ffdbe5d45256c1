//! Short labels for actions. Labels come from `Debug` output with the fields stripped
//! rather than from a match over `Msg`, so messages the model adds (the share-group RPCs)
//! get labels without a change here.

use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::msg::Msg;
use sharetxn_model::world::topology::Topology;
use sharetxn_model::Action;
use std::fmt::Debug;

/// The variant name of an enum value: its `Debug` text up to the first `(`, `{` or space.
pub fn variant_name(value: &impl Debug) -> String {
    let text = format!("{value:?}");
    let end = text.find(['(', '{', ' ']).unwrap_or(text.len());
    text[..end].to_string()
}

/// A message's RPC name with the fields that decide the story (the transaction result,
/// the producer id and epoch, the acknowledged offsets), and the error of a response that
/// failed: `EndTxn(ABORT, pid0/e0)`, `WriteTxnMarkers(COMMIT, pid0/e1)`,
/// `TxnShareAcknowledge(0 ACCEPT, pid0/e0)`, `ProduceResponse(pid0/e0 seq 0,
/// INVALID_PRODUCER_EPOCH)`.
pub fn message(msg: &Msg) -> String {
    let name = variant_name(msg);
    let mut fields = story(msg);
    if let Some(error) = msg.response_error().filter(|e| *e != ErrorCode::None) {
        fields.push(kafka_name(&variant_name(&error)));
    }
    if fields.is_empty() {
        name
    } else {
        format!("{name}({})", fields.join(", "))
    }
}

/// The fields of `msg` a reader needs to follow a trace; none for the other RPCs.
fn story(msg: &Msg) -> Vec<String> {
    let result = |commit: bool| if commit { "COMMIT" } else { "ABORT" }.to_string();
    let pe = |p: &dyn Debug| format!("{p:?}");
    match msg {
        Msg::EndTxn(r) => vec![result(r.commit), pe(&r.producer)],
        Msg::EndTxnResponse(r) => {
            let mut v = vec![result(r.commit), pe(&r.request_producer)];
            v.extend(r.producer.map(|p| format!("now {p:?}")));
            v
        }
        Msg::WriteTxnMarkers(r) => vec![result(r.commit), pe(&r.producer)],
        Msg::WriteTxnMarkersResponse(r) => vec![result(r.commit), pe(&r.producer)],
        Msg::Produce(r) => vec![format!("{:?} seq {}", r.producer, r.seq)],
        Msg::ProduceResponse(r) => vec![format!("{:?} seq {}", r.producer, r.seq)],
        Msg::InitProducerIdResponse(r) => r.producer.iter().map(|p| pe(p)).collect(),
        Msg::AddPartitionsToTxn(r) => vec![pe(&r.producer)],
        Msg::TxnShareAcknowledge(r) => {
            let acks: Vec<String> = r
                .acks
                .iter()
                .map(|a| format!("{} {}", a.offset, a.ack.name().to_uppercase()))
                .collect();
            vec![acks.join(" "), pe(&r.producer)]
        }
        Msg::TxnShareAcknowledgeResponse(r) => vec![pe(&r.producer)],
        Msg::TxnOffsetCommit(r) => vec![format!("offset {}", r.offset), pe(&r.producer)],
        _ => Vec::new(),
    }
}

/// `InvalidProducerEpoch` as Kafka's `Errors` names it: `INVALID_PRODUCER_EPOCH` (and a
/// `TransactionManager` state as Kafka's `State` enum: `IN_TRANSACTION`).
pub fn kafka_name(variant: &str) -> String {
    let mut out = String::new();
    for (i, c) in variant.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// What a timer or choice is, with its argument when it has one (`RequestTimeout(Produce)`).
pub fn detail(value: &impl Debug) -> String {
    let text = format!("{value:?}");
    // One level of argument is informative; deeper structure is noise in one column.
    match text.split_once('(') {
        Some((name, rest)) => {
            let inner = rest.trim_end_matches(')');
            format!("{name}({})", variant_name(&Raw(inner)))
        }
        None => text,
    }
}

/// A string whose `Debug` is itself, so [`variant_name`] can cut it.
struct Raw<'a>(&'a str);

impl Debug for Raw<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// What each short actor name stands for, in topology order: `TC` the transaction
/// coordinator, `D0` the leader of `out-0`, `SP0` the share-partition leader, and so on.
pub fn legend(topology: &Topology) -> Vec<(String, String)> {
    use sharetxn_model::world::scenario::Role;
    (0..topology.len())
        .map(|i| {
            let id = i.into();
            let name = topology.name(id);
            let index = name.trim_start_matches(|c: char| c.is_ascii_alphabetic());
            let what = match topology.role(id) {
                Role::TxnCoordinator => "transaction coordinator".to_string(),
                Role::GroupCoordinator => "group coordinator of __consumer_offsets".to_string(),
                Role::DataPartition => format!("leader of out-{index}"),
                Role::Producer if name.starts_with('W') => "resumed session's writer".into(),
                Role::Producer => format!("transactional client {index}"),
                Role::SharePartition => "share-partition leader".to_string(),
                Role::ShareCoordinator => "share coordinator of __share_group_state".to_string(),
                Role::ShareConsumer => format!("share consumer {index}"),
                Role::SourceReader => format!("Flink source reader {index}"),
                Role::Committer => "2PC coordinator application".to_string(),
                Role::ExternalParticipant => "external 2PC participant".to_string(),
            };
            (name, what)
        })
        .collect()
}

/// The names of identities in a trace: `pid0/e1` and `i0a0`.
pub const IDENTITIES: &str =
    "pid0/e1 producer id 0 at epoch 1; i0a0 a client's transaction attempt (incarnation 0, attempt 0)";

/// An action in columns: what kind of step it is, who it goes from and to, and its label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Columns {
    /// `deliver`, `drop`, `duplicate`, `fire`, `crash`, `restart`, `choose`.
    pub kind: &'static str,
    /// The sender, or the actor the step happens at.
    pub from: String,
    /// The recipient, or `-`.
    pub to: String,
    /// The message, timer or choice.
    pub label: String,
}

/// The columns of an action, with actor names from the topology.
pub fn columns(topology: &Topology, action: &Action) -> Columns {
    let n = |id| topology.name(id);
    let (kind, from, to, label) = match action {
        Action::Deliver(e) => ("deliver", n(e.src), n(e.dst), message(&e.msg)),
        Action::Drop(e) => ("drop", n(e.src), n(e.dst), message(&e.msg)),
        Action::Duplicate(e) => ("duplicate", n(e.src), n(e.dst), message(&e.msg)),
        Action::Fire { actor, timer } => ("fire", n(*actor), "-".into(), detail(timer)),
        Action::Crash(id) => ("crash", n(*id), "-".into(), "crash".into()),
        Action::Restart(id) => ("restart", n(*id), "-".into(), "restart".into()),
        Action::Choose { actor, choice } => ("choose", n(*actor), "-".into(), detail(choice)),
    };
    Columns {
        kind,
        from,
        to,
        label,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sharetxn_model::protocol::msg::{RequestKey, Timer};

    #[test]
    fn names_come_from_debug() {
        assert_eq!(variant_name(&Some(3)), "Some");
        assert_eq!(variant_name(&ErrorCode::ProducerFenced), "ProducerFenced");
        let timer = Timer::RequestTimeout(RequestKey::Produce(Default::default()));
        assert_eq!(detail(&timer), "RequestTimeout(Produce)");
        assert_eq!(detail(&RequestKey::Coordinator), "Coordinator");
    }
}

#[cfg(test)]
mod story_tests {
    use super::*;
    use sharetxn_model::protocol::ids::{
        PartitionIndex, ProducerEpoch, ProducerId, TransactionalId,
    };
    use sharetxn_model::protocol::msg::{EndTxnRequest, ProduceResponse, ProducerIdAndEpoch};

    fn pe(epoch: u16) -> ProducerIdAndEpoch {
        ProducerIdAndEpoch {
            pid: ProducerId(0),
            epoch: ProducerEpoch(epoch),
        }
    }

    #[test]
    fn a_label_names_the_result_the_identity_and_the_error() {
        let end = Msg::EndTxn(EndTxnRequest {
            txn: TransactionalId(0),
            producer: pe(0),
            commit: false,
            connection: Default::default(),
        });
        assert_eq!(message(&end), "EndTxn(ABORT, pid0/e0)");
        let fenced = Msg::ProduceResponse(ProduceResponse {
            partition: PartitionIndex(0),
            producer: pe(1),
            seq: 3,
            error: ErrorCode::InvalidProducerEpoch,
        });
        assert_eq!(
            message(&fenced),
            "ProduceResponse(pid0/e1 seq 3, INVALID_PRODUCER_EPOCH)"
        );
    }
}
