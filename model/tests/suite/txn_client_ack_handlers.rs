//! The KIP-1289 client's own acknowledgement paths (`ctp-acks`, docs/kafka-cases.md S14,
//! S21): the acknowledge type chosen for the record a poll handed it, a RELEASE
//! transaction without an output, the implicit ACCEPT of the previous batch on the next
//! ShareFetch, and `close()` releasing the last batch; and the leader's answer to that
//! ACCEPT while the record is TX_PENDING. One message or choice in, the exact commands out.

use crate::common;

use common::{choose, deliver, messages, pe, sent, spl_state, start, system, Cmd};
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::protocol::record_state::{AckType, RecordState};
use sharetxn_model::protocol::share_msg::*;
use sharetxn_model::protocol::share_state::ShareState;
use sharetxn_model::protocol::txn_share_msg::*;
use sharetxn_model::world::node::NodeState;
use sharetxn_model::{Scenario, System};
use stateright::actor::{Command, Id};

const RECORD: AcquiredRecord = AcquiredRecord {
    offset: 0,
    delivery_count: 1,
};

fn ack(ack: AckType) -> Acknowledgement {
    Acknowledgement {
        offset: 0,
        ack,
        tag: Ghost::new(DeliveryTag {
            member: MemberId(0),
            delivery_count: 1,
        }),
    }
}

fn ids(sys: &System) -> (Id, Id, Id) {
    let p0 = sys.topology.producers[0];
    let sp0 = sys.topology.share_partition.expect("a share partition");
    (p0, sp0, sys.topology.txn_coordinator)
}

/// `P0` initialised and handed the record by its first poll.
fn handed(sys: &System) -> (NodeState, Vec<Cmd>) {
    let (p0, sp0, tc) = ids(sys);
    let (state, _) = start(sys, p0, None);
    let init = Msg::InitProducerIdResponse(InitProducerIdResponse {
        txn: TransactionalId(0),
        error: ErrorCode::None,
        producer: Some(pe(0)),
        ongoing: None,
        connection: Default::default(),
    });
    let (state, _) = deliver(sys, p0, &state, tc, init);
    let fetched = Msg::ShareFetchResponse(ShareFetchResponse {
        member: MemberId(0),
        session_epoch: 0,
        error: ErrorCode::None,
        ack_error: ErrorCode::None,
        acquired: vec![RECORD],
    });
    deliver(sys, p0, &state, sp0, fetched)
}

/// `P0` after its transaction with `ack` committed (EndTxn answered).
fn after_commit(sys: &System, ack: AckType) -> (NodeState, Vec<Cmd>) {
    let (p0, _, tc) = ids(sys);
    let (state, _) = handed(sys);
    let (state, _) = choose(sys, p0, &state, ClientChoice::Ack { offset: 0, ack });
    let added = Msg::AddShareAcksToTxnResponse(AddShareAcksToTxnResponse {
        group: Default::default(),
        txn: TransactionalId(0),
        producer: pe(0),
        error: ErrorCode::None,
    });
    let (state, cmds) = deliver(sys, p0, &state, tc, added);
    let (dst, staged) = sent(&cmds)
        .into_iter()
        .find(|(_, m)| matches!(m, Msg::TxnShareAcknowledge(_)))
        .expect("the staging");
    let answer = Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
        group: Default::default(),
        producer: pe(0),
        error: ErrorCode::None,
        leader_epoch: None,
    });
    assert!(matches!(staged, Msg::TxnShareAcknowledge(_)));
    let (state, _) = deliver(sys, p0, &state, dst, answer);
    let (state, _) = choose(sys, p0, &state, ClientChoice::Commit);
    let ended = Msg::EndTxnResponse(EndTxnResponse {
        txn: TransactionalId(0),
        request_producer: pe(0),
        commit: true,
        error: ErrorCode::None,
        producer: Some(pe(1)),
        connection: Default::default(),
    });
    deliver(sys, p0, &state, tc, ended)
}

#[test]
fn a_polled_record_waits_for_the_applications_acknowledge_type() {
    let sys = system(Design::proposed(), Scenario::ctp_acks(), &[]);
    let (_, cmds) = handed(&sys);
    assert!(messages(&cmds).is_empty(), "{cmds:?}");
    let offered = cmds.iter().find_map(|c| match c {
        Command::ChooseRandom(k, o) if k == "ack-type" => Some(o.clone()),
        _ => None,
    });
    assert_eq!(
        offered,
        Some(
            [AckType::Accept, AckType::Release, AckType::Reject]
                .map(|ack| ClientChoice::Ack { offset: 0, ack })
                .to_vec()
        )
    );
}

#[test]
fn ctp_begins_its_transaction_at_once_with_accept() {
    let sys = system(Design::proposed(), Scenario::ctp(), &[]);
    let (_, cmds) = handed(&sys);
    assert!(messages(&cmds).iter().any(|m| matches!(m, Msg::Produce(_))));
    assert!(!cmds
        .iter()
        .any(|c| matches!(c, Command::ChooseRandom(k, _) if k == "ack-type")));
}

#[test]
fn a_release_transaction_writes_no_output_and_stages_release() {
    let sys = system(Design::proposed(), Scenario::ctp_acks(), &[]);
    let (p0, sp0, tc) = ids(&sys);
    let (state, _) = handed(&sys);
    let choice = ClientChoice::Ack {
        offset: 0,
        ack: AckType::Release,
    };
    let (state, cmds) = choose(&sys, p0, &state, choice);
    // TV2: no Produce, so no partition is added; the acknowledgement alone is added.
    assert_eq!(
        sent(&cmds),
        vec![(
            tc,
            Msg::AddShareAcksToTxn(AddShareAcksToTxnRequest {
                group: Default::default(),
                txn: TransactionalId(0),
                producer: pe(0),
            })
        )]
    );
    let added = Msg::AddShareAcksToTxnResponse(AddShareAcksToTxnResponse {
        group: Default::default(),
        txn: TransactionalId(0),
        producer: pe(0),
        error: ErrorCode::None,
    });
    let (_, cmds) = deliver(&sys, p0, &state, tc, added);
    let staged: Vec<_> = sent(&cmds)
        .into_iter()
        .filter_map(|(d, m)| match m {
            Msg::TxnShareAcknowledge(r) => Some((d, r.acks)),
            _ => None,
        })
        .collect();
    assert_eq!(staged, vec![(sp0, vec![ack(AckType::Release)])]);
}

/// The KIP's loop as it reads: the client's share consumer keeps the batch.
const KEEPS_BATCH: &[&str] = &["exclude_txn_records=false"];

#[test]
fn the_next_poll_accepts_the_batch_the_transaction_was_handed() {
    let sys = system(Design::proposed(), Scenario::ctp_acks(), KEEPS_BATCH);
    let (_, sp0, _) = ids(&sys);
    // A RELEASE transaction writes nothing, so EndTxn waits for no Produce.
    let (_, cmds) = after_commit(&sys, AckType::Release);
    assert_eq!(
        sent(&cmds),
        vec![(
            sp0,
            Msg::ShareFetch(ShareFetchRequest {
                member: MemberId(0),
                session_epoch: 1,
                max_records: 1,
                acks: vec![ack(AckType::Accept)],
            })
        )]
    );
}

/// `exclude_txn_records` (in `proposed`): the record handed to the transaction left the
/// batch, so the next poll acknowledges nothing.
#[test]
fn excluded_records_are_not_accepted_by_the_next_poll() {
    let sys = system(Design::proposed(), Scenario::ctp_acks(), &[]);
    let (_, cmds) = after_commit(&sys, AckType::Release);
    let fetches: Vec<_> = messages(&cmds)
        .into_iter()
        .filter_map(|m| match m {
            Msg::ShareFetch(r) => Some(r.acks),
            _ => None,
        })
        .collect();
    assert_eq!(fetches, vec![Vec::new()]);
}

#[test]
fn without_plain_paths_the_next_poll_carries_nothing() {
    let sys = system(
        Design::proposed(),
        Scenario {
            txn_plain_acks: false,
            ..Scenario::ctp_acks()
        },
        KEEPS_BATCH,
    );
    let (_, cmds) = after_commit(&sys, AckType::Release);
    let fetches: Vec<_> = messages(&cmds)
        .into_iter()
        .filter_map(|m| match m {
            Msg::ShareFetch(r) => Some(r.acks),
            _ => None,
        })
        .collect();
    assert_eq!(fetches, vec![Vec::new()]);
}

#[test]
fn close_after_the_last_transaction_releases_its_batch() {
    let sys = system(
        Design::proposed(),
        Scenario {
            txns: 1,
            ..Scenario::ctp_acks()
        },
        KEEPS_BATCH,
    );
    let (_, sp0, _) = ids(&sys);
    let (_, cmds) = after_commit(&sys, AckType::Reject);
    assert_eq!(
        sent(&cmds),
        vec![(
            sp0,
            Msg::ShareAcknowledge(ShareAcknowledgeRequest {
                member: MemberId(0),
                session_epoch: 1,
                acks: vec![ack(AckType::Release)],
            })
        )]
    );
}

#[test]
fn the_leader_rejects_an_implicit_accept_of_a_tx_pending_record() {
    let sys = system(Design::proposed(), Scenario::ctp_acks(), &[]);
    let (p0, sp0, _) = ids(&sys);
    let sc = sys.topology.share_coordinator.expect("a share coordinator");
    let (state, _) = start(&sys, sp0, None);
    let loaded = Msg::ReadShareGroupStateResponse(ReadShareGroupStateResponse {
        leader_epoch: 1,
        error: ErrorCode::None,
        state: Some(ShareState {
            leader_epoch: 1,
            ..ShareState::default()
        }),
        pending: Vec::new(),
        refresh: false,
    });
    let (state, _) = deliver(&sys, sp0, &state, sc, loaded);
    let fetch = |epoch, acks| {
        Msg::ShareFetch(ShareFetchRequest {
            member: MemberId(0),
            session_epoch: epoch,
            max_records: 1,
            acks,
        })
    };
    let (state, _) = deliver(&sys, sp0, &state, p0, fetch(0, Vec::new()));
    let stage = Msg::TxnShareAcknowledge(TxnShareAcknowledgeRequest {
        group: Default::default(),
        members: Vec::new(),
        txn: TransactionalId(0),
        producer: pe(0),
        member: MemberId(0),
        acks: vec![ack(AckType::Accept)],
        tag: Ghost::new(TxnTag {
            client: 0,
            incarnation: 0,
            attempt: 0,
        }),
        deliveries: vec![RECORD],
        notify: false,
        leader_epoch: None,
        state_epoch: None,
    });
    let (state, _) = deliver(&sys, sp0, &state, p0, stage);
    assert_eq!(spl_state(&state).records[&0].state, RecordState::TxPending);
    let (state, cmds) = deliver(&sys, sp0, &state, p0, fetch(1, vec![ack(AckType::Accept)]));
    // INVALID_RECORD_STATE for the ACCEPT: nothing written, the record still TX_PENDING,
    // and the fetch waits for a record (parked, nothing is available).
    assert!(sent(&cmds).is_empty(), "{cmds:?}");
    assert_eq!(spl_state(&state).records[&0].state, RecordState::TxPending);
    assert_eq!(spl_state(&state).parked.len(), 1);
}
