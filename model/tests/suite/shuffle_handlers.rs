//! docs/kafka-cases.md S22 (b), one handler call each: a transaction carrying the
//! acknowledgements of two share-group members (scenario `flink-shuffle`). The reader's two
//! share consumers each take their own member's answers; the standalone acknowledger sends
//! one TxnShareAcknowledge per member where the request names one member (`draft`), one
//! request naming each acknowledgement's member where the owner check reads acquisitions
//! (`proposed`); the leader checks each acknowledgement against its own member's
//! acquisition; and the share coordinator's store of a transaction's later staging.

use crate::common;

use common::{
    deliver, empty_state_read, pe, reader, reader_state, sc_state, sent, spl_state, start, system,
};
use sharetxn_model::design::Design;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::*;
use sharetxn_model::protocol::msg::*;
use sharetxn_model::protocol::record_state::{AckType, RecordState};
use sharetxn_model::protocol::share_msg::*;
use sharetxn_model::protocol::txn_share_msg::*;
use sharetxn_model::world::node::NodeState;
use sharetxn_model::{Scenario, System};
use stateright::actor::{Command, Id};

const M0: MemberId = MemberId(0);
const M1: MemberId = MemberId(1);

const TAG: Ghost<TxnTag> = Ghost::new(TxnTag {
    client: 0,
    incarnation: 0,
    attempt: 0,
});

fn fetched(member: MemberId, offset: u64) -> Msg {
    Msg::ShareFetchResponse(ShareFetchResponse {
        member,
        session_epoch: 0,
        error: ErrorCode::None,
        ack_error: ErrorCode::None,
        acquired: vec![AcquiredRecord {
            offset: offset.try_into().expect("a small offset"),
            delivery_count: 1,
        }],
    })
}

/// The reader `R0` initialised, each member's record emitted (m0 offset 0, m1 offset 1).
fn both_emitted(sys: &System) -> NodeState {
    let (tc, spl) = (
        sys.topology.txn_coordinator,
        sys.topology.share_partition.unwrap(),
    );
    let (s, _) = start(sys, reader(sys), None);
    let init = Msg::InitProducerIdResponse(InitProducerIdResponse {
        txn: TransactionalId(0),
        error: ErrorCode::None,
        producer: Some(pe(0)),
        ongoing: None,
        connection: Default::default(),
    });
    let (s, _) = deliver(sys, reader(sys), &s, tc, init);
    let (s, _) = deliver(sys, reader(sys), &s, spl, fetched(M0, 0));
    deliver(sys, reader(sys), &s, spl, fetched(M1, 1)).0
}

/// The checkpoint's transaction past AddShareAcksToTxn: the commands of the add's answer.
fn added(sys: &System) -> (NodeState, Vec<common::Cmd>) {
    let tc = sys.topology.txn_coordinator;
    let s = both_emitted(sys);
    let (s, _) = common::choose(sys, reader(sys), &s, ClientChoice::Checkpoint);
    let answer = Msg::AddShareAcksToTxnResponse(AddShareAcksToTxnResponse {
        group: Default::default(),
        txn: TransactionalId(0),
        producer: pe(0),
        error: ErrorCode::None,
    });
    deliver(sys, reader(sys), &s, tc, answer)
}

fn staged_offsets(r: &TxnShareAcknowledgeRequest) -> Vec<u64> {
    r.acks.iter().map(|a| u64::from(a.offset)).collect()
}

#[test]
fn each_member_s_fetch_and_answer_are_its_own_consumer_s() {
    let sys = system(Design::proposed(), Scenario::flink_shuffle(), &[]);
    let spl = sys.topology.share_partition.unwrap();
    let (_, cmds) = start(&sys, reader(&sys), None);
    let fetches: Vec<MemberId> = sent(&cmds)
        .into_iter()
        .filter_map(|(dst, m)| match m {
            Msg::ShareFetch(f) if dst == spl => Some(f.member),
            _ => None,
        })
        .collect();
    assert_eq!(fetches, vec![M0, M1]);
    for key in [RequestKey::Share, RequestKey::ShareOf(0)] {
        assert!(cmds
            .iter()
            .any(|c| matches!(c, Command::SetTimer(t, _) if *t == Timer::RequestTimeout(key))));
    }
    let s = both_emitted(&sys);
    let members: Vec<(u64, MemberId)> = reader_state(&s)
        .pending
        .iter()
        .map(|a| (u64::from(a.offset), a.delivery.member))
        .collect();
    assert_eq!(members, vec![(0, M0), (1, M1)]);
}

#[test]
fn proposed_stages_both_members_in_one_request_naming_each_acks_member() {
    let sys = system(Design::proposed(), Scenario::flink_shuffle(), &[]);
    let spl = sys.topology.share_partition.unwrap();
    let (_, cmds) = added(&sys);
    let out = sent(&cmds);
    let [(dst, Msg::TxnShareAcknowledge(r))] = &out[..] else {
        panic!("one staging: {out:?}");
    };
    assert_eq!(*dst, spl);
    assert_eq!((r.member, staged_offsets(r)), (M0, vec![0, 1]));
    assert_eq!(
        r.members,
        vec![AckMember {
            offset: 1,
            member: M1
        }]
    );
}

#[test]
fn draft_sends_one_request_per_member_and_ends_after_the_last() {
    let sys = system(Design::draft(), Scenario::flink_shuffle(), &[]);
    let (tc, spl) = (
        sys.topology.txn_coordinator,
        sys.topology.share_partition.unwrap(),
    );
    let (s, cmds) = added(&sys);
    let out = sent(&cmds);
    let [(_, Msg::TxnShareAcknowledge(first))] = &out[..] else {
        panic!("one staging: {out:?}");
    };
    assert_eq!((first.member, staged_offsets(first)), (M0, vec![0]));
    assert!(first.members.is_empty());
    let ok = Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
        group: Default::default(),
        producer: pe(0),
        error: ErrorCode::None,
        leader_epoch: None,
    });
    let (s, cmds) = deliver(&sys, reader(&sys), &s, spl, ok.clone());
    let out = sent(&cmds);
    let [(dst, Msg::TxnShareAcknowledge(second))] = &out[..] else {
        panic!("the second member's staging, and no EndTxn yet: {out:?}");
    };
    assert_eq!(
        (*dst, second.member, staged_offsets(second)),
        (spl, M1, vec![1])
    );
    let (_, cmds) = deliver(&sys, reader(&sys), &s, spl, ok);
    let ends: Vec<(Id, &'static str)> = sent(&cmds)
        .into_iter()
        .map(|(d, m)| (d, m.name()))
        .collect();
    assert_eq!(ends, vec![(tc, "EndTxn")]);
}

/// The leader loaded, m0 holding offset 0 and m1 offset 1 (delivery 1 each).
fn leader_with_both_acquired(sys: &System) -> NodeState {
    let (spl, sc) = (
        sys.topology.share_partition.unwrap(),
        sys.topology.share_coordinator.unwrap(),
    );
    let r0 = reader(sys);
    let (s, _) = start(sys, spl, None);
    let read = empty_state_read(1);
    let (mut s, _) = deliver(sys, spl, &s, sc, read);
    for member in [M0, M1] {
        let fetch = Msg::ShareFetch(ShareFetchRequest {
            member,
            session_epoch: 0,
            max_records: 1,
            acks: Vec::new(),
        });
        s = deliver(sys, spl, &s, r0, fetch).0;
    }
    let held: Vec<Option<MemberId>> = [0, 1]
        .iter()
        .map(|o| spl_state(&s).records[o].member)
        .collect();
    assert_eq!(held, vec![Some(M0), Some(M1)]);
    s
}

fn two_member_staging(members: Vec<AckMember>) -> Msg {
    let ack = |offset, member| Acknowledgement {
        offset,
        ack: AckType::Accept,
        tag: Ghost::new(DeliveryTag {
            member,
            delivery_count: 1,
        }),
    };
    Msg::TxnShareAcknowledge(TxnShareAcknowledgeRequest {
        group: Default::default(),
        txn: TransactionalId(0),
        producer: pe(0),
        member: M0,
        members,
        acks: vec![ack(0, M0), ack(1, M1)],
        tag: TAG,
        deliveries: [0, 1]
            .into_iter()
            .map(|offset| AcquiredRecord {
                offset,
                delivery_count: 1,
            })
            .collect(),
        notify: false,
        leader_epoch: None,
        state_epoch: None,
    })
}

#[test]
fn the_leader_checks_each_ack_against_its_own_member_s_acquisition() {
    let sys = system(Design::proposed(), Scenario::flink_shuffle(), &[]);
    let (spl, sc, r0) = (
        sys.topology.share_partition.unwrap(),
        sys.topology.share_coordinator.unwrap(),
        reader(&sys),
    );
    let s = leader_with_both_acquired(&sys);
    let named = vec![AckMember {
        offset: 1,
        member: M1,
    }];
    let (staged, cmds) = deliver(&sys, spl, &s, r0, two_member_staging(named));
    let states: Vec<RecordState> = [0, 1]
        .iter()
        .map(|o| spl_state(&staged).records[o].state)
        .collect();
    assert_eq!(states, vec![RecordState::TxPending, RecordState::TxPending]);
    let out = sent(&cmds);
    assert!(
        matches!(&out[..], [(dst, Msg::TxnShareAcknowledge(f))] if *dst == sc && staged_offsets(f) == vec![0, 1]),
        "{out:?}"
    );
    // Without offset 1's member, its acknowledgement is checked against m0: m1's
    // acquisition is not m0's, and nothing is staged.
    let (refused, cmds) = deliver(&sys, spl, &s, r0, two_member_staging(Vec::new()));
    assert_eq!(spl_state(&refused).records[&1].state, RecordState::Acquired);
    assert_eq!(
        sent(&cmds),
        vec![(
            r0,
            Msg::TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponse {
                group: Default::default(),
                producer: pe(0),
                error: ErrorCode::InvalidRecordState,
                leader_epoch: None,
            })
        )]
    );
}

/// A staging at the share coordinator of `offset` by m`offset`, verification off so it is
/// written at once.
fn sc_staging(offset: u64) -> Msg {
    let member = MemberId(u8::try_from(offset).expect("a small offset"));
    let offset = offset.try_into().expect("a small offset");
    Msg::TxnShareAcknowledge(TxnShareAcknowledgeRequest {
        group: Default::default(),
        txn: TransactionalId(0),
        producer: pe(0),
        member,
        members: Vec::new(),
        acks: vec![Acknowledgement {
            offset,
            ack: AckType::Accept,
            tag: Ghost::new(DeliveryTag {
                member,
                delivery_count: 1,
            }),
        }],
        tag: TAG,
        deliveries: vec![AcquiredRecord {
            offset,
            delivery_count: 1,
        }],
        notify: false,
        leader_epoch: None,
        state_epoch: None,
    })
}

fn pending_after_two_stagings(merge: &str) -> Vec<u64> {
    let sys = system(
        Design::draft(),
        Scenario::flink_shuffle(),
        &["stage_verification=false", merge],
    );
    let (sc, spl) = (
        sys.topology.share_coordinator.unwrap(),
        sys.topology.share_partition.unwrap(),
    );
    let (s, _) = start(&sys, sc, None);
    let (s, _) = deliver(&sys, sc, &s, spl, sc_staging(0));
    let (s, _) = deliver(&sys, sc, &s, spl, sc_staging(1));
    sc_state(&s)
        .pending_entries()
        .flat_map(|p| p.batches.iter().map(|b| u64::from(b.offset)))
        .collect()
}

#[test]
fn a_later_staging_of_one_transaction_replaces_the_first_unless_merged() {
    assert_eq!(
        pending_after_two_stagings("sc_merge_pending=false"),
        vec![1]
    );
    assert_eq!(
        pending_after_two_stagings("sc_merge_pending=true"),
        vec![0, 1]
    );
}
