//! Twins a scenario's bounds exclude by construction. A twin is reported `not_applicable`
//! (with the reason) instead of `unreached` only when no run of the scenario can meet its
//! precondition: no crashable actor of the kind it needs, a single share-group member, or
//! no fault at all. Anything weaker stays `unreached`, so a model too weak to reach a twin
//! still fails its check.

use sharetxn_model::design::kip939::AcknowledgerCommit;
use sharetxn_model::world::scenario::{Role, Scenario};
use sharetxn_model::System;

/// A twin's exclusion rule: the reason, if the scenario's bounds exclude it.
pub type Excluded = fn(&System) -> Option<&'static str>;

/// No rule: the twin applies wherever its property does.
pub fn never(_sys: &System) -> Option<&'static str> {
    None
}

fn crashable(s: &Scenario, roles: &[Role]) -> bool {
    s.budget.crashes > 0 && roles.iter().any(|r| s.can_crash(*r))
}

/// Whether the budget allows a lost, duplicated or early-timed-out message.
fn message_faults(s: &Scenario) -> bool {
    s.budget.drops > 0 || s.budget.duplicates > 0 || s.budget.timeouts > 0
}

const CLIENTS: &[Role] = &[Role::Producer, Role::ShareConsumer, Role::SourceReader];

/// `coordinator_restart`: a coordinator must be able to crash.
pub fn coordinator_restart(sys: &System) -> Option<&'static str> {
    (!crashable(
        &sys.scenario,
        &[Role::TxnCoordinator, Role::ShareCoordinator],
    ))
    .then_some("neither coordinator can crash in this scenario")
}

/// `spl_rebuilt`: the share-partition leader must be able to crash.
pub fn spl_rebuilt(sys: &System) -> Option<&'static str> {
    (!crashable(&sys.scenario, &[Role::SharePartition]))
        .then_some("the share-partition leader cannot crash in this scenario")
}

/// `resolved_after_restart`, `pending_across_restart`: the share coordinator must be able
/// to crash.
pub fn share_coordinator_restart(sys: &System) -> Option<&'static str> {
    (!crashable(&sys.scenario, &[Role::ShareCoordinator]))
        .then_some("the share coordinator cannot crash in this scenario")
}

/// The share group's members: plain consumers, readers (a reader of `flink-shuffle` is
/// several, `reader_members`) and the KIP-1289 clients where they poll a share partition.
fn members(sys: &System) -> usize {
    let t = &sys.topology;
    t.consumers.len()
        + t.readers.len() * (1 + usize::from(t.extra_reader_members))
        + if t.share_partition.is_some() {
            t.producers.len()
        } else {
            0
        }
}

/// `lock_redelivered`: a record can only go to another member where there are two.
pub fn lock_redelivered(sys: &System) -> Option<&'static str> {
    (members(sys) < 2).then_some("the share group has one member")
}

/// `redelivered_after_abort`: a record goes out again only at a poll, and a member's
/// bounded loop polls once per transaction (`Producer::begin_next` closes the consumer
/// after the last). With one member, one transaction, no message fault (a duplicated or
/// resent ShareFetch could arrive after the abort) and no client crash (a restarted client
/// runs its loop again), the only poll of each share partition comes before the one
/// transaction's abort (`ctp-two-groups`; `--set txns=2` reaches the twin).
pub fn redelivered_after_abort(sys: &System) -> Option<&'static str> {
    let s = &sys.scenario;
    let once = s.txns < 2 && members(sys) < 2;
    (once && !message_faults(s) && !crashable(s, CLIENTS))
        .then_some("one member and one transaction, no fault: no poll follows an abort")
}

/// `commit_after_fault`: the budget must hold a fault.
pub fn commit_after_fault(sys: &System) -> Option<&'static str> {
    let s = &sys.scenario;
    (!message_faults(s) && !crashable(s, &Role::ALL)).then_some("the budget has no fault")
}

/// `zombie_fenced`, `timeout_abort`: a stale epoch or an abandoned transaction needs a
/// client or transaction-coordinator crash or a message fault; a share-coordinator crash
/// alone makes the client's request fail and the client end its own transaction.
pub fn stale_client(sys: &System) -> Option<&'static str> {
    let s = &sys.scenario;
    let roles = [Role::Producer, Role::SourceReader, Role::TxnCoordinator];
    // A resumed session's writer is a stale client by construction (it may wake).
    (!s.resume && !message_faults(s) && !crashable(s, &roles))
        .then_some("no client or transaction-coordinator crash and no message fault")
}

/// `timeout_abort`: as `zombie_fenced`, and some transaction must be able to time out:
/// KIP-939 exempts a 2PC transaction from the transaction timeout, so where every
/// transactional client is a two-phase Flink acknowledger with 2PC granted, none can.
pub fn timeout_abort(sys: &System) -> Option<&'static str> {
    let d = &sys.design;
    let t = &sys.topology;
    let flink_2pc = d.acknowledger_commit == AcknowledgerCommit::TwoPhase
        && t.producers.is_empty()
        && !t.readers.is_empty();
    // A resumed session's writer asks for 2PC, and its one transaction is prepared.
    let all_2pc = d.two_phase_commit && (flink_2pc || sys.scenario.resume);
    stale_client(sys).or_else(|| {
        all_2pc.then_some("every transaction is 2PC (KIP-939), exempt from the transaction timeout")
    })
}

/// `heartbeat_abort`: a heartbeat deadline is due only once the session crashed or failed,
/// or, with the producer owning the heartbeat, stalled in `task.put()`; or it fires early
/// (a `timeouts` fault). A failure needs a fault too.
pub fn heartbeat_abort(sys: &System) -> Option<&'static str> {
    let s = &sys.scenario;
    let producer_owned = sys.design.heartbeat_owner
        == sharetxn_model::clients::session_heartbeat::HeartbeatOwner::Producer
        && s.stalls > 0;
    (!producer_owned && !message_faults(s) && !crashable(s, &Role::ALL))
        .then_some("no crash, no message fault, and no stall silencing the heartbeat")
}

/// `late_ack_rejected`: an acknowledgement can only be late after a stall, a message fault,
/// or a client or leader crash.
pub fn late_ack(sys: &System) -> Option<&'static str> {
    let s = &sys.scenario;
    let mut roles = CLIENTS.to_vec();
    roles.push(Role::SharePartition);
    (s.stalls == 0 && !message_faults(s) && !crashable(s, &roles))
        .then_some("no stall, message fault, or client or leader crash")
}

/// `limit_archived`: KIP-1289's clients run bounded loops; without faults that add polls,
/// each client acquires at most once per transaction and once more, which may stay below
/// the limit.
pub fn limit_archived(sys: &System) -> Option<&'static str> {
    let s = &sys.scenario;
    let t = &sys.topology;
    if !s.has_share_transactions() || !t.consumers.is_empty() {
        return None;
    }
    let mut roles = CLIENTS.to_vec();
    roles.push(Role::SharePartition);
    let clients = t.producers.len() + t.readers.len();
    let deliveries = clients * (usize::from(s.txns) + 1);
    (!message_faults(s) && !crashable(s, &roles) && deliveries < usize::from(s.delivery_limit))
        .then_some("the clients' bounded loops cannot deliver a record delivery_limit times")
}

/// `plain_after_abort`: a plain share consumer must run beside the KIP-1289 clients.
/// Without one, only the client's own implicit ACCEPT of the batch its aborted transaction
/// was handed could settle the record after the abort, and that is the violation itself.
pub fn plain_after_abort(sys: &System) -> Option<&'static str> {
    sys.topology.consumers.is_empty().then_some(
        "no plain share consumer: a plain settle after an abort could only be the client's own, a violation",
    )
}
