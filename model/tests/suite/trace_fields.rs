//! Fields left out of traces at their defaults: a persister message's `partition` (0 but
//! in `draft-itest`), and KIP-1289's `pending`, `refresh` and `notify` flags (false unless
//! a design turns them on). Leaving them out keeps the traces, snapshots and state digests
//! of the designs and scenarios that do not use them byte-identical to what they were
//! before the fields existed; the field is written as soon as it is not the default, and
//! reading a trace back gives the message that was written.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::{MemberId, ProducerEpoch, ProducerId, TransactionalId, TxnTag};
use sharetxn_model::protocol::msg::ProducerIdAndEpoch;
use sharetxn_model::protocol::share_msg::{
    ReadShareGroupStateRequest, ReadShareGroupStateResponse, WriteShareGroupStateRequest,
};
use sharetxn_model::protocol::txn_share_msg::TxnShareAcknowledgeRequest;
use std::fmt::Debug;

/// `msg` as JSON, after checking that reading that JSON back gives `msg`.
fn written<T: Serialize + DeserializeOwned + PartialEq + Debug>(msg: &T) -> Value {
    let json = serde_json::to_value(msg).expect("serializes");
    let back: T = serde_json::from_value(json.clone()).expect("reads back");
    assert_eq!(&back, msg, "{json}");
    json
}

fn read(pending: bool, partition: u8, refresh: bool) -> ReadShareGroupStateRequest {
    ReadShareGroupStateRequest {
        leader_epoch: 1,
        pending,
        partition,
        refresh,
    }
}

#[test]
fn a_read_at_the_defaults_carries_only_its_leader_epoch() {
    assert_eq!(
        written(&read(false, 0, false)),
        json!({ "leader_epoch": 1 })
    );
}

#[test]
fn a_read_writes_each_field_that_is_not_its_default() {
    assert_eq!(
        written(&read(true, 0, false)),
        json!({ "leader_epoch": 1, "pending": true })
    );
    assert_eq!(
        written(&read(false, 1, false)),
        json!({ "leader_epoch": 1, "partition": 1 })
    );
    assert_eq!(
        written(&read(false, 0, true)),
        json!({ "leader_epoch": 1, "refresh": true })
    );
}

#[test]
fn a_read_answer_leaves_out_refresh_unless_it_is_a_refreshs() {
    let answer = |refresh| ReadShareGroupStateResponse {
        leader_epoch: 1,
        error: sharetxn_model::protocol::error::ErrorCode::None,
        state: None,
        pending: Vec::new(),
        refresh,
    };
    let plain = written(&answer(false));
    assert!(plain.get("refresh").is_none(), "{plain}");
    assert_eq!(written(&answer(true))["refresh"], json!(true));
}

#[test]
fn a_write_leaves_out_partition_zero_only() {
    let write = |partition| WriteShareGroupStateRequest {
        leader_epoch: 1,
        state_epoch: 0,
        write: 3,
        start_offset: 0,
        batches: Vec::new(),
        partition,
    };
    let first = written(&write(0));
    assert!(first.get("partition").is_none(), "{first}");
    assert_eq!(first["write"], json!(3));
    assert_eq!(written(&write(2))["partition"], json!(2));
}

#[test]
fn a_staging_leaves_out_notify_unless_the_leader_asks_for_it() {
    let staging = |notify| TxnShareAcknowledgeRequest {
        group: Default::default(),
        txn: TransactionalId(0),
        producer: ProducerIdAndEpoch {
            pid: ProducerId(0),
            epoch: ProducerEpoch(1),
        },
        member: MemberId(0),
        acks: Vec::new(),
        tag: Ghost::new(TxnTag {
            client: 0,
            incarnation: 0,
            attempt: 1,
        }),
        deliveries: Vec::new(),
        members: Vec::new(),
        notify,
        leader_epoch: None,
        state_epoch: None,
    };
    let plain = written(&staging(false));
    assert!(plain.get("notify").is_none(), "{plain}");
    assert_eq!(written(&staging(true))["notify"], json!(true));
}
