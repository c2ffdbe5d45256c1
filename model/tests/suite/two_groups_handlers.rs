//! Two share groups in one KIP-1289 transaction (issue 17, `Scenario::ctp_two_groups`):
//! the `group` field of AddShareAcksToTxn and TxnShareAcknowledge routed by each handler,
//! and the share coordinator's pending acknowledgements, outcomes and verifications kept
//! per `SharePartitionKey`; one message in, the exact answer out.

use crate::common;
use common::staging;

use common::{
    deliver, empty_state_read, messages, pe, sc_state, sc_state_mut, sent, start, system,
};
use sharetxn_model::design::Design;
use sharetxn_model::partition::parked_write::VerifiedWrite;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::keyed::Keyed;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::protocol::txn_share_msg::*;
use sharetxn_model::protocol::width::Offset;
use sharetxn_model::share::share_coordinator::ShareRecord;
use sharetxn_model::world::node::NodeState;
use sharetxn_model::{Scenario, System};
use stateright::actor::{Command, Id};

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

// The share coordinator's state per `SharePartitionKey` (issue 17): each group's staging,
// outcome and verification under its own key, as `ShareCoordinatorShard` keeps its state.

/// `cmds` as they print, the saves left out (each writes the whole log).
fn shown(cmds: &[common::Cmd]) -> Vec<String> {
    cmds.iter()
        .filter(|c| !matches!(c, Command::Save(_)))
        .map(|c| format!("{c:?}"))
        .collect()
}

fn send(dst: Id, msg: Msg) -> String {
    format!("{:?}", common::Cmd::Send(dst, msg))
}

fn set_timer(timer: Timer) -> String {
    let due = std::time::Duration::ZERO..std::time::Duration::ZERO;
    format!("{:?}", common::Cmd::SetTimer(timer, due))
}

fn cancel_timer(timer: Timer) -> String {
    format!("{:?}", common::Cmd::CancelTimer(timer))
}

/// Group `group`'s staging of its record, forwarded by its leader under `proposed`
/// (`notify`, the leader epoch it loaded).
fn forwarded(group: u8) -> TxnShareAcknowledgeRequest {
    TxnShareAcknowledgeRequest {
        notify: true,
        leader_epoch: Some(0),
        state_epoch: Some(0),
        ..staging(group, Offset::from(group))
    }
}

fn commit_marker() -> Msg {
    Msg::WriteTxnMarkers(WriteTxnMarkersRequest {
        producer: pe(1),
        commit: true,
        coordinator_epoch: CoordinatorEpoch(0),
        partition: TopicPartition::ShareGroupState,
        tv: 2,
    })
}

/// The share coordinator's state `state` takes the transaction coordinator's COMMIT marker.
fn commit(sys: &System, state: &NodeState) -> (NodeState, Vec<common::Cmd>) {
    let sc = sys.topology.share_coordinator.unwrap();
    deliver(
        sys,
        sc,
        state,
        sys.topology.txn_coordinator,
        commit_marker(),
    )
}

/// `(SC, SP0, SP1)`.
fn share_ids(sys: &System) -> (Id, Id, Id) {
    let t = &sys.topology;
    let sc = t.share_coordinator.unwrap();
    (sc, t.share_partition.unwrap(), t.more_share_partitions[0])
}

/// `proposed`'s share coordinator with both groups' stagings of producer 0's transaction at
/// epoch 0 written (the staging verification off, so each is written as it comes).
fn both_staged() -> (System, NodeState) {
    both_staged_with(&[])
}

/// [`both_staged`] with more `--set` values.
fn both_staged_with(sets: &[&str]) -> (System, NodeState) {
    let sets: Vec<&str> = ["stage_verification=false"]
        .into_iter()
        .chain(sets.iter().copied())
        .collect();
    let sys = two_groups(Design::proposed(), &sets);
    let (sc, sp0, sp1) = share_ids(&sys);
    let state = start(&sys, sc, None).0;
    let (state, _) = deliver(
        &sys,
        sc,
        &state,
        sp0,
        Msg::TxnShareAcknowledge(forwarded(0)),
    );
    let (state, _) = deliver(
        &sys,
        sc,
        &state,
        sp1,
        Msg::TxnShareAcknowledge(forwarded(1)),
    );
    (sys, state)
}

#[test]
fn one_transactions_two_stagings_are_two_pending_entries() {
    let (_, state) = both_staged();
    let sc = sc_state(&state);
    let keys: Vec<_> = sc.pending.keys().copied().collect();
    assert_eq!(keys, vec![Keyed::first(pe(0)), Keyed::new(1, pe(0))]);
    assert_eq!(sc.pending[&Keyed::first(pe(0))].batches[0].offset, 0);
    assert_eq!(sc.pending[&Keyed::new(1, pe(0))].batches[0].offset, 1);
    // Each record of `__share_group_state` names its key.
    let keyed: Vec<u8> = sc
        .log
        .iter()
        .filter_map(|r| match r {
            ShareRecord::TxnAcks(p) => Some(p.partition),
            _ => None,
        })
        .collect();
    assert_eq!(keyed, vec![0, 1]);
}

#[test]
fn the_commit_marker_applies_each_key_and_tells_each_leader() {
    let (sys, state) = both_staged();
    let (_, sp0, sp1) = share_ids(&sys);
    let (after, cmds) = commit(&sys, &state);
    let outcome = |offset: Offset| {
        Msg::TxnShareAcksResolved(TxnShareAcksResolvedRequest {
            producer: pe(0),
            commit: true,
            offsets: vec![offset],
            leader_epoch: Some(0),
        })
    };
    let answer = Msg::WriteTxnMarkersResponse(WriteTxnMarkersResponse {
        producer: pe(1),
        commit: true,
        coordinator_epoch: CoordinatorEpoch(0),
        partition: TopicPartition::ShareGroupState,
        error: ErrorCode::None,
    });
    assert_eq!(
        shown(&cmds),
        vec![
            send(sp0, outcome(0)),
            send(sp1, outcome(1)),
            set_timer(Timer::ResolvedRetry),
            send(sys.topology.txn_coordinator, answer),
        ]
    );
    let s = sc_state(&after);
    assert!(s.pending.is_empty());
    assert_eq!(
        s.partition(0).state_of(0).map(|(st, _)| st.is_terminal()),
        Some(true)
    );
    assert_eq!(
        s.partition(1).state_of(1).map(|(st, _)| st.is_terminal()),
        Some(true)
    );
    assert_eq!(s.outbox.len(), 2);
}

#[test]
fn a_leaders_answer_retires_its_own_keys_outcome_only() {
    let (sys, state) = both_staged();
    let (sc, sp0, sp1) = share_ids(&sys);
    let (state, _) = commit(&sys, &state);
    let answered = |offset: Offset| {
        Msg::TxnShareAcksResolvedResponse(TxnShareAcksResolvedResponse {
            producer: pe(0),
            answered: Some((true, vec![offset])),
            leader_epoch: Some(0),
        })
    };
    let (state, cmds) = deliver(&sys, sc, &state, sp1, answered(1));
    assert!(cmds.is_empty(), "{cmds:?}");
    let left: Vec<u8> = sc_state(&state)
        .outbox
        .keys()
        .map(|k| k.partition)
        .collect();
    assert_eq!(left, vec![0], "group 0's outcome still owed to SP0");
    let (state, cmds) = deliver(&sys, sc, &state, sp0, answered(0));
    assert_eq!(shown(&cmds), vec![cancel_timer(Timer::ResolvedRetry)]);
    assert!(sc_state(&state).outbox.is_empty());
}

#[test]
fn each_keys_first_staging_is_verified_on_its_own() {
    let sys = two_groups(Design::proposed(), &[]);
    let (sc, sp0, sp1) = share_ids(&sys);
    let tc = sys.topology.txn_coordinator;
    let state = start(&sys, sc, None).0;
    let verify = |generation: u16, counter: u32| {
        let guard = VerificationGuard {
            generation,
            counter,
        };
        let msg = AddPartitionsToTxnRequest::verification(
            sys.design.tv,
            TransactionalId(0),
            pe(0),
            TopicPartition::ShareGroupState,
            guard,
        );
        (msg, guard)
    };
    // Group 0's staging is parked at its key while the transaction coordinator verifies it.
    let (state, cmds) = deliver(
        &sys,
        sc,
        &state,
        sp0,
        Msg::TxnShareAcknowledge(forwarded(0)),
    );
    let (g0, guard0) = verify(0, 1);
    let timer0 = Timer::VerificationTimeout(Keyed::first(ProducerId(0)));
    assert_eq!(shown(&cmds), vec![send(tc, g0), set_timer(timer0)]);
    // Group 1's, at the same log end, is parked beside it under its own key and guard:
    // it displaces nothing (no NETWORK_EXCEPTION to SP0).
    let (state, cmds) = deliver(
        &sys,
        sc,
        &state,
        sp1,
        Msg::TxnShareAcknowledge(forwarded(1)),
    );
    let (g1, _) = verify(1, 1);
    let timer1 = Timer::VerificationTimeout(Keyed::new(1, ProducerId(0)));
    assert_eq!(shown(&cmds), vec![send(tc, g1), set_timer(timer1)]);
    assert_eq!(sc_state(&state).verifying.len(), 2);
    // Group 0's verification answered: its staging alone is written and answered.
    let verified = Msg::AddPartitionsToTxnResponse(AddPartitionsToTxnResponse {
        txn: TransactionalId(0),
        producer: pe(0),
        partitions: vec![TopicPartition::ShareGroupState],
        mode: AddPartitionsMode::BrokerAdd { guard: guard0 },
        error: ErrorCode::None,
    });
    let (state, cmds) = deliver(&sys, sc, &state, tc, verified);
    assert_eq!(
        shown(&cmds),
        vec![
            cancel_timer(timer0),
            send(sp0, forwarded(0).response(ErrorCode::None)),
        ]
    );
    let s = sc_state(&state);
    assert_eq!(
        s.pending.keys().copied().collect::<Vec<_>>(),
        vec![Keyed::first(pe(0))]
    );
    assert_eq!(
        s.verifying.keys().copied().collect::<Vec<_>>(),
        vec![Keyed::new(1, ProducerId(0))]
    );
}

#[test]
fn a_pending_staging_at_one_key_does_not_spare_the_other_keys_verification() {
    let sys = two_groups(Design::proposed(), &[]);
    let (sc, sp0, sp1) = share_ids(&sys);
    let tc = sys.topology.txn_coordinator;
    let mut state = start(&sys, sc, None).0;
    // Group 0's staging pending, as a verified write leaves it.
    sc_state_mut(&mut state).pending.insert(
        Keyed::first(pe(0)),
        PendingAcks {
            producer: pe(0),
            tag: staging::first_attempt(),
            batches: Vec::new(),
            notify: Some(sp0),
            state_epoch: 0,
            partition: 0,
        },
    );
    // Group 0's resent staging is ongoing at its key: written without a verification.
    let (_, cmds) = deliver(
        &sys,
        sc,
        &state,
        sp0,
        Msg::TxnShareAcknowledge(forwarded(0)),
    );
    assert_eq!(
        shown(&cmds),
        vec![send(sp0, forwarded(0).response(ErrorCode::None))]
    );
    // Group 1's first staging is verified (`hasOngoingTransaction` is per partition).
    let (after, cmds) = deliver(
        &sys,
        sc,
        &state,
        sp1,
        Msg::TxnShareAcknowledge(forwarded(1)),
    );
    assert!(matches!(sent(&cmds)[..], [(dst, Msg::AddPartitionsToTxn(_))] if dst == tc));
    assert_eq!(sc_state(&after).pending.len(), 1);
}

/// Without `outcome_per_transaction` an answer names only the producer: the key is the one
/// whose leader answered.
#[test]
fn an_answer_without_offsets_retires_the_outcome_of_the_leaders_key() {
    let (sys, state) = both_staged_with(&["outcome_per_transaction=false"]);
    let (sc, sp0, sp1) = share_ids(&sys);
    let (state, _) = commit(&sys, &state);
    let answered = Msg::TxnShareAcksResolvedResponse(TxnShareAcksResolvedResponse {
        producer: pe(0),
        answered: None,
        leader_epoch: Some(0),
    });
    let (state, cmds) = deliver(&sys, sc, &state, sp1, answered.clone());
    assert!(cmds.is_empty(), "{cmds:?}");
    let left: Vec<u8> = sc_state(&state)
        .outbox
        .keys()
        .map(|k| k.partition)
        .collect();
    assert_eq!(left, vec![0]);
    let (state, cmds) = deliver(&sys, sc, &state, sp0, answered);
    assert_eq!(shown(&cmds), vec![cancel_timer(Timer::ResolvedRetry)]);
    assert!(sc_state(&state).outbox.is_empty());
}
