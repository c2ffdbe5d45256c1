//! Each property can fail: a state mutated the way a broken broker would leave it is
//! reported, so a property that holds does so because the model keeps it, not because the
//! check cannot see the failure.

use crate::common;
use sharetxn_model::partition::partition_log::Payload;
use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::{ProducerEpoch, ProducerId, TxnTag};
use sharetxn_model::protocol::msg::{OutputRecord, ProducerIdAndEpoch};
use sharetxn_model::{Design, Scenario, System};
use sharetxn_properties::props::producer_fencing;
use sharetxn_properties::View;

#[test]
fn producer_fencing_reports_a_partition_that_accepts_a_fenced_epoch() {
    let sys = System::new(Design::consumer_offsets(), Scenario::txn_basic());
    let mut state = sys.init_state();
    assert_eq!(producer_fencing::check(&View::new(&sys, &state)), None);
    let d0 = usize::from(sys.topology.partitions[0]);
    let mut node = state.nodes[d0].as_ref().clone();
    let leader = node.data_partition_mut().expect("D0 is a data partition");
    let record = |epoch| {
        Payload::Output(OutputRecord {
            input: 0,
            tag: Ghost::new(TxnTag {
                client: 0,
                incarnation: 0,
                attempt: epoch,
            }),
        })
    };
    let pe = |epoch| ProducerIdAndEpoch {
        pid: ProducerId(0),
        epoch: ProducerEpoch(epoch),
    };
    leader.log.append(pe(2), Some(0), record(2));
    // A broken leader that skipped the epoch check appends a zombie's write.
    leader.log.append(pe(1), Some(1), record(1));
    state.nodes[d0] = sharetxn_model::world::shared::Shared::new(node);
    let message =
        producer_fencing::check(&View::new(&sys, &state)).expect("the zombie write is reported");
    assert!(
        message.contains("D0 accepted a write from pid0/e1"),
        "{message}"
    );
}

/// Takes the first enabled progress action until `stop` holds (a deterministic walk).
fn walk_until(
    sys: &System,
    mut state: sharetxn_model::SystemState,
    stop: impl Fn(&sharetxn_model::SystemState) -> bool,
) -> sharetxn_model::SystemState {
    for _ in 0..200 {
        if stop(&state) {
            return state;
        }
        let mut actions = Vec::new();
        sys.enabled_progress(&state, &mut actions);
        let action = actions.first().expect("the walk reaches the state").clone();
        state = sys.step(&state, &action);
    }
    panic!("the walk did not reach the state in 200 steps");
}

#[test]
fn legal_transitions_reports_a_coordinator_whose_log_lost_its_last_record() {
    use sharetxn_model::coordinator::txn_state::TransactionState;
    use sharetxn_model::world::node::NodeStorage;
    use sharetxn_model::Action;
    use sharetxn_properties::props::legal_transitions;
    let sys = System::new(Design::consumer_offsets(), Scenario::txn_basic());
    let tc = sys.topology.txn_coordinator;
    let ongoing = |s: &sharetxn_model::SystemState| {
        sharetxn_model::history::transitions::txn_states(s, tc).contains(&TransactionState::Ongoing)
    };
    let mut state = walk_until(&sys, sys.init_state(), ongoing);
    assert_eq!(legal_transitions::check(&View::new(&sys, &state)), None);
    // A broken log: the record that began the transaction is gone, as if a leader
    // acknowledged a write that the new leader never had.
    let i = usize::from(tc);
    let Some(NodeStorage::TxnCoordinator(mut log)) = state.storage[i].as_deref().cloned() else {
        panic!("the coordinator has a log")
    };
    for meta in log.txns.values_mut() {
        meta.state = TransactionState::Empty;
    }
    state.storage[i] = Some(sharetxn_model::world::shared::Shared::new(
        NodeStorage::TxnCoordinator(log),
    ));
    let crashed = sys.step(&state, &Action::Crash(tc));
    let restarted = sys.step(&crashed, &Action::Restart(tc));
    let message = legal_transitions::check(&View::new(&sys, &restarted))
        .expect("the lost record is reported");
    assert!(message.contains("as Empty, it was Ongoing"), "{message}");
}

#[test]
fn legal_transitions_reports_a_handler_that_leaves_the_table() {
    use sharetxn_model::coordinator::txn_state::TransactionState;
    let sys = System::new(Design::consumer_offsets(), Scenario::txn_basic());
    let tc = usize::from(sys.topology.txn_coordinator);
    let mut node = sys.init_state().nodes[tc].as_ref().clone();
    let s = node.txn_coordinator_mut().expect("TC is the coordinator");
    // What a coordinator that committed without preparing would record.
    s.transitions
        .push((TransactionState::Ongoing, TransactionState::CompleteCommit));
    let observations = node.drain_observations();
    let message = observations
        .iter()
        .find_map(sharetxn_model::history::transitions::illegal_move)
        .expect("the move is reported");
    assert_eq!(
        message,
        "TC moved a transaction from Ongoing to CompleteCommit"
    );
    assert_eq!(node.drain_observations(), Vec::new(), "drained once");
}

#[test]
fn txn_completes_reports_a_coordinator_that_forgets_its_markers() {
    use sharetxn_model::coordinator::txn_state::TransactionState;
    use sharetxn_properties::props::txn_completes;
    let sys = System::new(Design::consumer_offsets(), Scenario::txn_basic());
    let tc = sys.topology.txn_coordinator;
    let preparing = |s: &sharetxn_model::SystemState| {
        sharetxn_model::history::transitions::txn_states(s, tc)
            .contains(&TransactionState::PrepareCommit)
    };
    let mut state = walk_until(&sys, sys.init_state(), preparing);
    // A broken coordinator: its pending markers and their resend timer vanish while the
    // transaction stays prepared, so nothing will ever complete it.
    let i = usize::from(tc);
    let mut node = state.nodes[i].as_ref().clone();
    let coordinator = node.txn_coordinator_mut().expect("TC is the coordinator");
    coordinator.markers.clear();
    state.nodes[i] = sharetxn_model::world::shared::Shared::new(node);
    state.timers[i] = sharetxn_model::world::shared::Shared::new(Default::default());
    state.network.retain_channels(|(src, _, _)| *src != tc);
    let quiescent = walk_until(&sys, state, |s| sys.is_quiescent(s));
    let message =
        txn_completes::check(&View::new(&sys, &quiescent)).expect("the stuck commit is reported");
    assert!(message.contains("in PrepareCommit forever"), "{message}");
}

/// The first reachable state, breadth-first, that `stop` holds in.
fn first_state(
    sys: &System,
    stop: impl Fn(&sharetxn_model::SystemState) -> bool,
) -> sharetxn_model::SystemState {
    common::first_reached(sys, |s| stop(s).then(|| s.clone()))
        .expect("no reachable state stops the search")
}

/// A broken share-partition leader that lets a plain acknowledgement settle a record whose
/// acknowledgement a transaction holds pending at the share coordinator (S14).
#[test]
fn staged_ack_exclusive_reports_a_plain_settle_of_a_staged_record() {
    use sharetxn_model::history::{txn_ack_ghost, txn_acks};
    use sharetxn_model::protocol::record_state::RecordState;
    use sharetxn_properties::props::staged_ack_exclusive;
    let sys = System::new(Design::proposed(), Scenario::ctp_mixed());
    let mut state = first_state(&sys, |s| !txn_acks::pending_acks(&sys, s).is_empty());
    assert_eq!(staged_ack_exclusive::check(&View::new(&sys, &state)), None);
    txn_ack_ghost::observe_plain_settled(&sys, &mut state, 0, None, RecordState::Acknowledged);
    let message = staged_ack_exclusive::check(&View::new(&sys, &state))
        .expect("the plain settle is reported");
    assert!(message.contains("made offset 0 ACKNOWLEDGED"), "{message}");
}

/// A broken share-partition leader that applies the KIP-1289 client's own implicit ACCEPT
/// (or `close()` release) of a record its transaction holds pending (S14, `ctp-acks`).
#[test]
fn staged_ack_exclusive_reports_the_clients_own_plain_ack_of_its_staged_record() {
    use sharetxn_model::history::{txn_ack_ghost, txn_acks};
    use sharetxn_model::protocol::share_msg::DeliveryTag;
    use sharetxn_properties::props::staged_ack_exclusive;
    let sys = System::new(Design::proposed(), Scenario::ctp_acks());
    let mut state = first_state(&sys, |s| !txn_acks::pending_acks(&sys, s).is_empty());
    assert_eq!(staged_ack_exclusive::check(&View::new(&sys, &state)), None);
    let p0 = sys.topology.producers[0];
    let member = sys.topology.member_of(p0).expect("P0 is a member");
    let acquisition = DeliveryTag {
        member,
        delivery_count: 1,
    };
    txn_ack_ghost::observe_own_plain_ack(&sys, &mut state, 0, acquisition);
    let message = staged_ack_exclusive::check(&View::new(&sys, &state))
        .expect("the own plain ack is reported");
    assert!(message.contains("outside its transaction"), "{message}");
}

/// A broken leader that lets a plain share consumer ACCEPT a record whose processing a
/// committed transaction's output already carries.
#[test]
fn no_duplicate_processing_reports_a_plain_accept_of_a_committed_record() {
    use sharetxn_model::history::txn_ack_ghost;
    use sharetxn_model::protocol::record_state::RecordState;
    use sharetxn_properties::props::no_duplicate_processing;
    let sys = System::new(Design::proposed(), Scenario::ctp_mixed());
    let accepted = |s: &sharetxn_model::SystemState| {
        let mut s = s.clone();
        txn_ack_ghost::observe_plain_settled(&sys, &mut s, 0, None, RecordState::Acknowledged);
        s
    };
    // The first state whose committed output a plain ACCEPT would duplicate.
    let mut state = first_state(&sys, |s| {
        no_duplicate_processing::check(&View::new(&sys, &accepted(s))).is_some()
    });
    assert_eq!(
        no_duplicate_processing::check(&View::new(&sys, &state)),
        None
    );
    txn_ack_ghost::observe_plain_settled(&sys, &mut state, 0, None, RecordState::Acknowledged);
    let message = no_duplicate_processing::check(&View::new(&sys, &state))
        .expect("the duplicate is reported");
    assert!(
        message.contains("share consumer that ACCEPTed it"),
        "{message}"
    );
}

/// A broken leader that rejects a plain acknowledgement of a record its member still holds
/// (what a leader that rejected every acknowledgement would do; it passes every other
/// share property, since its records reach the delivery limit and are archived).
#[test]
fn ack_owner_reports_a_rejected_acknowledgement_of_a_held_record() {
    use sharetxn_model::protocol::ids::MemberId;
    use sharetxn_model::protocol::record_state::RecordState;
    use sharetxn_model::share::share_partition::InFlightRecord;
    use sharetxn_properties::props::ack_owner;
    let sys = System::new(Design::proposed(), Scenario::share_basic());
    let mut state = sys.init_state();
    let acquired_by = |member| {
        Some(InFlightRecord {
            state: RecordState::Acquired,
            delivery_count: 1,
            member: Some(member),
            ongoing: None,
            staged: None,
        })
    };
    // A late acknowledgement, of a record another member now holds: rejecting it is right.
    state.ghost.update(|g| {
        g.share
            .observe_ack_rejected(MemberId(0), &[acquired_by(MemberId(1))], true)
    });
    assert_eq!(ack_owner::check(&View::new(&sys, &state)), None);
    // The same acknowledgement while member 0 still holds the record.
    state.ghost.update(|g| {
        g.share
            .observe_ack_rejected(MemberId(0), &[acquired_by(MemberId(0))], true)
    });
    let message = ack_owner::check(&View::new(&sys, &state)).expect("the rejection is reported");
    assert!(message.contains("it held ACQUIRED"), "{message}");
}

/// A broken client whose `TransactionManager` skips a state: P0 in a transaction records
/// a move from READY to COMMITTING_TRANSACTION (an EndTxn for a transaction it never
/// began), which its next handler's moves carry to the world's check.
#[test]
fn legal_transitions_reports_a_client_that_leaves_its_table() {
    use sharetxn_model::coordinator::txn_state::TxnManagerState::*;
    use sharetxn_model::world::node::NodeState;
    use sharetxn_model::Action;
    use sharetxn_properties::props::legal_transitions;
    let sys = System::new(Design::consumer_offsets(), Scenario::txn_basic());
    let p0 = sys.topology.producers[0];
    // A step of P0's handlers while it is in a transaction.
    let p0_step = |s: &sharetxn_model::SystemState| {
        let mut actions = Vec::new();
        sys.enabled_progress(s, &mut actions);
        let in_txn = s
            .node(p0)
            .txn_client()
            .is_some_and(|c| c.tm == InTransaction);
        actions.into_iter().find(|a| {
            in_txn
                && match a {
                    Action::Deliver(env) => env.dst == p0,
                    Action::Fire { actor, .. } | Action::Choose { actor, .. } => *actor == p0,
                    _ => false,
                }
        })
    };
    let mut state = walk_until(&sys, sys.init_state(), |s| p0_step(s).is_some());
    let action = p0_step(&state).unwrap();
    let legal = sys.step(&state, &action);
    assert_eq!(legal_transitions::check(&View::new(&sys, &legal)), None);
    let i = usize::from(p0);
    let mut node = state.nodes[i].as_ref().clone();
    let NodeState::Producer(p) = &mut node else {
        panic!("P0 is a producer")
    };
    p.manager.transitions.push((Ready, CommittingTransaction));
    state.nodes[i] = sharetxn_model::world::shared::Shared::new(node);
    let next = sys.step(&state, &action);
    let message =
        legal_transitions::check(&View::new(&sys, &next)).expect("the client's move is reported");
    assert_eq!(
        message,
        "P0: TransactionManager moved from Ready to CommittingTransaction"
    );
}

/// A broken session that ignores the heartbeat answer telling it that the coordinator
/// aborted its open transaction and fenced its pair (its handler leaves its state as it
/// was): the step is recorded as the world records a delivery whose handler did nothing.
#[test]
fn live_session_kept_reports_a_session_that_ignores_a_fenced_heartbeat() {
    use sharetxn_model::coordinator::txn_state::TxnManagerState;
    use sharetxn_model::protocol::error::ErrorCode;
    use sharetxn_model::protocol::msg::Msg;
    use sharetxn_model::protocol::txn_heartbeat_msg::TxnHeartbeatResponse;
    use sharetxn_model::world::record::StepFacts;
    use sharetxn_model::{Action, Envelope};
    use sharetxn_properties::props::live_session_kept;
    let mut design = Design::proposed();
    let mut scenario = Scenario::session();
    sharetxn_model::world::settings::apply(&mut design, &mut scenario, "txn_heartbeat=true")
        .unwrap();
    let sys = System::new(design, scenario);
    let (p0, tc) = (sys.topology.producers[0], sys.topology.txn_coordinator);
    let open = |s: &sharetxn_model::SystemState| {
        s.node(p0)
            .session_client()
            .is_some_and(|c| c.tm == TxnManagerState::InTransaction)
    };
    let mut state = walk_until(&sys, sys.init_state(), open);
    let client = state.node(p0).session_client().unwrap();
    let fenced = Envelope {
        src: tc,
        dst: p0,
        msg: Msg::TxnHeartbeatResponse(TxnHeartbeatResponse {
            txn: sharetxn_model::protocol::ids::TransactionalId(0),
            producer: client.identity.expect("initialised"),
            error: ErrorCode::ProducerFenced,
        }),
    };
    state.network.add_stray(fenced.clone());
    let deliver = Action::Deliver(fenced.clone());
    // The session as modelled fails on the answer.
    let failed = sys.step(&state, &deliver);
    assert_eq!(live_session_kept::check(&View::new(&sys, &failed)), None);
    assert!(live_session_kept::told_fenced(&View::new(&sys, &failed)));
    // A session that goes on: the answer is taken off the network and nothing else moves.
    let mut went_on = state.clone();
    went_on.network.take(fenced.as_ref());
    let facts = StepFacts::default();
    sharetxn_model::history::record(&sys, &state, deliver.as_ref(), &facts, &mut went_on);
    let message = live_session_kept::check(&View::new(&sys, &went_on))
        .expect("the ignored fence is reported");
    assert!(
        message.contains(
            "P0 went on in InTransaction after its heartbeat was answered ProducerFenced"
        ),
        "{message}"
    );
}

/// `stale_acks_fenced` (docs/kafka-cases.md S20): a share coordinator that applied, at
/// COMMIT, acknowledgements staged before an offset reset to the reset state is reported;
/// the same resolution fenced (`sc_state_epoch_fence`) or staged after the reset is not.
#[test]
fn stale_acks_fenced_reports_acks_of_an_older_state_epoch_applied_after_a_reset() {
    use sharetxn_model::protocol::record_state::RecordState;
    use sharetxn_model::protocol::share_state::StateBatch;
    use sharetxn_model::share::share_coordinator_txn::{PendingAcks, Resolution};
    use sharetxn_properties::props::stale_acks_fenced;
    let sys = System::new(Design::proposed(), Scenario::ctp_reset());
    let sc = usize::from(sys.topology.share_coordinator.expect("a share coordinator"));
    let judged = |staged_at: u16, fenced: bool| {
        let mut state = sys.init_state();
        let mut node = state.nodes[sc].as_ref().clone();
        let s = node
            .share_coordinator_mut()
            .expect("SC is the share coordinator");
        s.resolved.push(Resolution {
            acks: PendingAcks {
                producer: ProducerIdAndEpoch {
                    pid: ProducerId(0),
                    epoch: ProducerEpoch(0),
                },
                tag: Ghost::new(TxnTag {
                    client: 0,
                    incarnation: 0,
                    attempt: 0,
                }),
                batches: vec![StateBatch {
                    offset: 0,
                    state: RecordState::Acknowledged,
                    delivery_count: 1,
                }],
                notify: None,
                state_epoch: staged_at,
                partition: 0,
            },
            commit: true,
            by_marker: true,
            state_epoch: 1,
            fenced,
        });
        state.nodes[sc] = sharetxn_model::world::shared::Shared::new(node);
        let view = View::new(&sys, &state);
        (
            stale_acks_fenced::check(&view),
            stale_acks_fenced::witness(&view),
        )
    };
    let (message, witnessed) = judged(0, false);
    let message = message.expect("the stale acknowledgements' application is reported");
    assert!(message.contains("under state epoch 0"), "{message}");
    assert!(witnessed);
    assert_eq!(judged(0, true), (None, true));
    assert_eq!(judged(1, false), (None, false));
}
