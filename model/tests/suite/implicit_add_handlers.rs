//! docs/kafka-cases.md S23, one handler call each: the KIP-1289 client's choice of how it
//! adds `__share_group_state` (scenario `ctp-implicit-add`), and the staging broker's
//! verification that adds the partition under TV2 and only verifies before it.

use crate::common;
use common::staging;

use common::{choose, deliver, messages, pe, sent, start, system, tc_state, Cmd};
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::protocol::share_msg::*;
use sharetxn_model::protocol::txn_share_msg::*;
use sharetxn_model::world::node::NodeState;
use sharetxn_model::{Scenario, System};
use stateright::actor::{Command, Id};

/// The client `P0` of `sys` holding record 0 of its first poll: the commands of the poll's
/// answer and the state after it.
fn polled(sys: &System) -> (NodeState, Vec<Cmd>) {
    let (tc, p0) = (sys.topology.txn_coordinator, sys.topology.producers[0]);
    let sp0 = sys.topology.share_partition.expect("a share group");
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
        acquired: vec![AcquiredRecord {
            offset: 0,
            delivery_count: 1,
        }],
    });
    deliver(sys, p0, &state, sp0, fetched)
}

/// The names of the requests the commands send, with their recipients.
fn requests(cmds: &[Cmd]) -> Vec<(Id, &'static str)> {
    sent(cmds).into_iter().map(|(d, m)| (d, m.name())).collect()
}

fn add_choice(add: ShareAdd) -> ClientChoice {
    ClientChoice::ShareAdd(add)
}

#[test]
fn the_client_chooses_how_it_adds_before_it_begins() {
    let sys = system(Design::proposed(), Scenario::ctp_implicit_add(), &[]);
    let (_, cmds) = polled(&sys);
    assert!(messages(&cmds).is_empty(), "nothing sent before the choice");
    let offered: Vec<_> = cmds
        .iter()
        .filter_map(|c| match c {
            Command::ChooseRandom(k, choices) if k == "share-add" => Some(choices.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        offered,
        vec![vec![
            add_choice(ShareAdd::Implicit),
            add_choice(ShareAdd::Early)
        ]]
    );
    // Without the scenario's choices the client begins at once, AddShareAcksToTxn first.
    let sys = system(Design::proposed(), Scenario::ctp(), &[]);
    let (_, cmds) = polled(&sys);
    let (tc, d0) = (sys.topology.txn_coordinator, sys.topology.partitions[0]);
    assert_eq!(
        requests(&cmds),
        vec![(d0, "Produce"), (tc, "AddShareAcksToTxn")]
    );
}

#[test]
fn an_implicit_add_sends_the_staging_alone() {
    let sys = system(Design::proposed(), Scenario::ctp_implicit_add(), &[]);
    let (state, _) = polled(&sys);
    let p0 = sys.topology.producers[0];
    let (d0, sp0) = (
        sys.topology.partitions[0],
        sys.topology.share_partition.unwrap(),
    );
    let (_, cmds) = choose(&sys, p0, &state, add_choice(ShareAdd::Implicit));
    // `proposed` stages at the share-partition leader; no AddShareAcksToTxn at all.
    assert_eq!(
        requests(&cmds),
        vec![(d0, "Produce"), (sp0, "TxnShareAcknowledge")]
    );
    // The seed stages at the share coordinator.
    let sys = system(Design::seed(), Scenario::ctp_implicit_add(), &[]);
    let (state, _) = polled(&sys);
    let sc = sys.topology.share_coordinator.unwrap();
    let (_, cmds) = choose(&sys, p0, &state, add_choice(ShareAdd::Implicit));
    assert_eq!(
        requests(&cmds),
        vec![(d0, "Produce"), (sc, "TxnShareAcknowledge")]
    );
}

#[test]
fn an_early_staging_goes_out_with_the_add_and_not_again() {
    let sys = system(Design::proposed(), Scenario::ctp_implicit_add(), &[]);
    let (state, _) = polled(&sys);
    let (tc, p0) = (sys.topology.txn_coordinator, sys.topology.producers[0]);
    let (d0, sp0) = (
        sys.topology.partitions[0],
        sys.topology.share_partition.unwrap(),
    );
    let (state, cmds) = choose(&sys, p0, &state, add_choice(ShareAdd::Early));
    assert_eq!(
        requests(&cmds),
        vec![
            (d0, "Produce"),
            (tc, "AddShareAcksToTxn"),
            (sp0, "TxnShareAcknowledge")
        ]
    );
    let added = Msg::AddShareAcksToTxnResponse(AddShareAcksToTxnResponse {
        group: Default::default(),
        txn: TransactionalId(0),
        producer: pe(0),
        error: ErrorCode::None,
    });
    // The add's answer sends nothing: the staging is already out, and EndTxn waits for
    // the produce and the staging.
    let (_, cmds) = deliver(&sys, p0, &state, tc, added);
    assert_eq!(requests(&cmds), vec![]);
}

fn stage() -> Msg {
    Msg::TxnShareAcknowledge(staging::accept(0))
}

/// What the share coordinator of `sys` sends for a staging that no add preceded.
fn verification_of_a_first_staging(sys: &System) -> AddPartitionsToTxnRequest {
    let sc = sys.topology.share_coordinator.unwrap();
    let p0 = sys.topology.producers[0];
    let (state, _) = start(sys, sc, None);
    let (_, cmds) = deliver(sys, sc, &state, p0, stage());
    match &sent(&cmds)[..] {
        [(dst, Msg::AddPartitionsToTxn(req))] if *dst == sys.topology.txn_coordinator => {
            req.clone()
        }
        other => panic!("expected one verification, got {other:?}"),
    }
}

#[test]
fn the_share_coordinator_adds_the_partition_under_tv2_and_only_verifies_before() {
    let sys = system(Design::seed(), Scenario::ctp_implicit_add(), &[]);
    let req = verification_of_a_first_staging(&sys);
    assert_eq!(req.partitions, vec![TopicPartition::ShareGroupState]);
    assert!(matches!(req.mode, AddPartitionsMode::BrokerAdd { .. }));
    let sys = system(Design::seed(), Scenario::ctp_implicit_add(), &["tv=1"]);
    let req = verification_of_a_first_staging(&sys);
    assert!(matches!(req.mode, AddPartitionsMode::VerifyOnly { .. }));
}

/// The transaction coordinator of `sys` after InitProducerId for `P0` (epoch 0).
fn initialised_tc(sys: &System) -> NodeState {
    let tc = sys.topology.txn_coordinator;
    let p0 = sys.topology.producers[0];
    let (state, _) = start(sys, tc, None);
    let init = Msg::InitProducerId(InitProducerIdRequest::plain(TransactionalId(0)));
    deliver(sys, tc, &state, p0, init).0
}

fn answer_error(cmds: &[Cmd]) -> ErrorCode {
    match &messages(cmds)[..] {
        [Msg::AddPartitionsToTxnResponse(r)] => r.error,
        other => panic!("expected one answer, got {other:?}"),
    }
}

#[test]
fn the_staging_brokers_add_opens_the_transaction_under_tv2() {
    let sys = system(Design::seed(), Scenario::ctp_implicit_add(), &[]);
    let sc = sys.topology.share_coordinator.unwrap();
    let tc = sys.topology.txn_coordinator;
    let state = initialised_tc(&sys);
    let req = verification_of_a_first_staging(&sys);
    let (after, cmds) = deliver(&sys, tc, &state, sc, Msg::AddPartitionsToTxn(req));
    assert_eq!(answer_error(&cmds), ErrorCode::None);
    let meta = &tc_state(&after).txns[&TransactionalId(0)];
    assert!(meta.partitions.contains(&TopicPartition::ShareGroupState));
    assert_eq!(
        meta.state,
        sharetxn_model::coordinator::txn_state::TransactionState::Ongoing
    );
}

#[test]
fn before_tv2_a_staging_without_its_add_is_refused() {
    // KIP-890's buggy client under TV1: the staging's verification reaches the coordinator
    // before AddShareAcksToTxn (or without one); the coordinator has no such partition in
    // the transaction and the staging fails, so nothing is staged outside it.
    let sys = system(Design::seed(), Scenario::ctp_implicit_add(), &["tv=1"]);
    let sc = sys.topology.share_coordinator.unwrap();
    let tc = sys.topology.txn_coordinator;
    let state = initialised_tc(&sys);
    let req = verification_of_a_first_staging(&sys);
    let (after, cmds) = deliver(&sys, tc, &state, sc, Msg::AddPartitionsToTxn(req));
    assert_eq!(answer_error(&cmds), ErrorCode::TransactionAbortable);
    let meta = &tc_state(&after).txns[&TransactionalId(0)];
    assert!(meta.partitions.is_empty());
}
