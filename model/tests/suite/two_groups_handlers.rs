//! Two share groups in one KIP-1289 transaction (issue 17, `Scenario::ctp_two_groups`):
//! the `group` field of AddShareAcksToTxn and TxnShareAcknowledge routed by each handler,
//! one message in, the exact answer out.

use crate::common;
use common::staging;

use common::{deliver, empty_state_read, messages, pe, sc_state, sent, start, system};
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::keyed::Keyed;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::protocol::txn_share_msg::*;
use sharetxn_model::protocol::width::Offset;
use sharetxn_model::{Scenario, System};
use stateright::actor::Id;

/// Knobs under which the share coordinator writes a staging at once.
const FIXED: &[&str] = &["stage_verification=false", "sc_replay_pending=true"];

/// A TxnShareAcknowledge of `group` accepting the model's offset `offset`.
fn staging(group: u8, offset: Offset) -> TxnShareAcknowledgeRequest {
    TxnShareAcknowledgeRequest {
        group: GroupId(group),
        ..staging::accept(offset)
    }
}

fn answer(group: u8, error: ErrorCode) -> Msg {
    Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
        producer: pe(0),
        error,
        group: GroupId(group),
        leader_epoch: None,
    })
}

fn two_groups(design: Design, settings: &[&str]) -> System {
    system(design, Scenario::ctp_two_groups(), settings)
}

#[test]
fn the_topology_gives_each_group_its_own_share_partition() {
    let sys = two_groups(Design::proposed(), &[]);
    let sp0 = sys.topology.share_partition.unwrap();
    assert_eq!(
        sys.topology.more_share_partitions,
        vec![Id::from(usize::from(sp0) + 1)]
    );
    assert_eq!(
        sys.topology.name(sys.topology.more_share_partitions[0]),
        "SP1"
    );
    assert_eq!(sys.scenario.group_of(0), GroupId(0));
    assert_eq!(sys.scenario.group_of(1), GroupId(1));
    assert_eq!(sys.scenario.share_partition_of(1), 1);
    assert_eq!(sys.scenario.expressible(), Ok(()));
}

#[test]
fn combinations_the_model_cannot_express_are_refused() {
    let mut scenario = Scenario::ctp_two_groups();
    scenario.partitions = 1;
    let why = scenario.expressible().unwrap_err();
    assert!(why.contains("partitions other than share_groups"), "{why}");
    let mut scenario = Scenario::ctp_two_groups();
    scenario.share_partitions = 2;
    assert!(scenario.expressible().is_err());
    assert_eq!(Scenario::ctp().expressible(), Ok(()));
}

#[test]
fn the_transaction_coordinator_echoes_the_group_it_added() {
    let sys = two_groups(Design::seed(), &[]);
    let tc = sys.topology.txn_coordinator;
    let p0 = sys.topology.producers[0];
    let state = start(&sys, tc, None).0;
    let init = Msg::InitProducerId(InitProducerIdRequest::plain(TransactionalId(0)));
    let (state, _) = deliver(&sys, tc, &state, p0, init);
    let add = Msg::AddShareAcksToTxn(AddShareAcksToTxnRequest {
        txn: TransactionalId(0),
        producer: pe(0),
        group: GroupId(1),
    });
    let (_, cmds) = deliver(&sys, tc, &state, p0, add);
    assert_eq!(
        messages(&cmds),
        vec![Msg::AddShareAcksToTxnResponse(AddShareAcksToTxnResponse {
            txn: TransactionalId(0),
            producer: pe(0),
            error: ErrorCode::None,
            group: GroupId(1),
        })]
    );
}

#[test]
fn the_share_coordinator_stages_each_group_under_its_own_key() {
    let sys = two_groups(Design::seed(), FIXED);
    let sc = sys.topology.share_coordinator.unwrap();
    let p0 = sys.topology.producers[0];
    let state = start(&sys, sc, None).0;
    // Offset 1 is SP1's record, group 1's key: staged.
    let (staged, cmds) = deliver(
        &sys,
        sc,
        &state,
        p0,
        Msg::TxnShareAcknowledge(staging(1, 1)),
    );
    assert_eq!(sent(&cmds), vec![(p0, answer(1, ErrorCode::None))]);
    assert_eq!(
        sc_state(&staged).pending[&Keyed::new(1, pe(0))].batches[0].offset,
        1
    );
    // Group 0 has no key for offset 1: refused, nothing staged.
    let (refused, cmds) = deliver(
        &sys,
        sc,
        &state,
        p0,
        Msg::TxnShareAcknowledge(staging(0, 1)),
    );
    assert_eq!(
        sent(&cmds),
        vec![(p0, answer(0, ErrorCode::UnknownTopicOrPartition))]
    );
    assert!(sc_state(&refused).pending.is_empty());
}

#[test]
fn a_leader_refuses_another_groups_acknowledgements() {
    let sys = two_groups(Design::proposed(), &[]);
    let sp0 = sys.topology.share_partition.unwrap();
    let sc = sys.topology.share_coordinator.unwrap();
    let p0 = sys.topology.producers[0];
    let (state, _) = start(&sys, sp0, None);
    let (state, _) = deliver(&sys, sp0, &state, sc, empty_state_read(1));
    let (_, cmds) = deliver(
        &sys,
        sp0,
        &state,
        p0,
        Msg::TxnShareAcknowledge(staging(1, 0)),
    );
    assert_eq!(
        sent(&cmds),
        vec![(p0, answer(1, ErrorCode::UnknownTopicOrPartition))]
    );
}
