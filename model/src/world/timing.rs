//! When a timer is due. The exhaustive checker has no clock: any armed timer may fire.
//! Firing is split in two. A timer is *due* when what it waits for can no longer arrive
//! (the request or its answer was lost, the other side is down, the client gave up or
//! crashed): firing it is recovery, free, and part of every fair run. Otherwise firing is
//! *early*, the timeout-with-unknown-outcome fault, and costs one unit of the scenario's
//! `timeouts` budget. The actors cannot tell the two apart; only the closed world can.
//!
//! Each actor declares what its timers wait for and which requests it holds
//! ([`crate::protocol::wait`], through [`Node::wait`] and its siblings); the one rule here
//! judges those declarations against the messages in flight and who is up.

use crate::protocol::ids::{MemberId, ProducerId};
use crate::protocol::keyed::Keyed;
use crate::protocol::msg::{Msg, Timer};
use crate::protocol::share_msg::AcquiredRecord;
use crate::protocol::wait::{Answer, Down, Held, Holding, Reply, Wait};
use crate::world::node::Node;
use crate::world::record::Record;
use crate::world::system::{System, SystemState};
use stateright::actor::Id;

/// Whether `timer` of actor `id` is due in `state`.
pub fn is_due<H: Record>(sys: &System<H>, state: &SystemState<H>, id: Id, timer: &Timer) -> bool {
    is_lost(sys, state, id, &actor(sys, id).wait(state.node(id), timer))
}

fn actor<H: Record>(sys: &System<H>, id: Id) -> &Node {
    &sys.actors[usize::from(id)]
}

/// Whether what `waiter` waits for can no longer arrive.
fn is_lost<H: Record>(sys: &System<H>, state: &SystemState<H>, waiter: Id, wait: &Wait) -> bool {
    match wait {
        Wait::Always => true,
        Wait::Never => false,
        Wait::Reply(reply) => reply_is_lost(sys, state, waiter, reply),
        Wait::Client { client, duty } => {
            !state.is_up(*client) || actor(sys, *client).gone(state.node(*client), *duty)
        }
        Wait::Acquisition { member, record } => {
            acquisition_is_lost(sys, state, waiter, *member, *record)
        }
        Wait::Any(waits) => waits.iter().any(|w| is_lost(sys, state, waiter, w)),
    }
}

/// An answer from `reply.peer` can no longer arrive: none of the exchange is in flight
/// (as far as the peer being down lets it arrive), and the peer holds nothing of it,
/// parked, loading or in a verification of its own that can still be answered.
fn reply_is_lost<H: Record>(
    sys: &System<H>,
    state: &SystemState<H>,
    waiter: Id,
    reply: &Reply,
) -> bool {
    let peer = reply.peer;
    let sent = |from: Id, to: Id| {
        state
            .network
            .any_from(from, to, |msg| reply.answer.matches(msg))
    };
    let either = || sent(waiter, peer) || sent(peer, waiter);
    let held = || {
        reply.held.is_some_and(|held| {
            let (node, s) = (actor(sys, peer), state.node(peer));
            node.holds(s, waiter, &held)
                || node
                    .verifications_from(s, waiter)
                    .iter()
                    .any(|w| !is_lost(sys, state, peer, w))
        })
    };
    let up = state.is_up(peer);
    match reply.down {
        Down::Lost => !up || !(either() || held()),
        Down::AnswerArrives => !(sent(peer, waiter) || (up && (sent(waiter, peer) || held()))),
        Down::InFlightArrives => !(either() || (up && held())),
        Down::Waits => up && !(either() || held()),
    }
}

/// No acknowledgement of the acquisition `record` by `member` can still reach the leader
/// `spl`. A share consumer or a reader answers for its own member; KIP-1289's
/// consume-transform-produce clients hold the record from the poll that acquired it until
/// their transaction ends, and any of them holding it keeps the lock from being due.
fn acquisition_is_lost<H: Record>(
    sys: &System<H>,
    state: &SystemState<H>,
    spl: Id,
    member: MemberId,
    record: AcquiredRecord,
) -> bool {
    let topology = &sys.topology;
    let holds = |h: Id| {
        state.is_up(h)
            && match actor(sys, h).acquisition(state.node(h), record) {
                Holding::Holds => true,
                Holding::Dropped => false,
                Holding::No => {
                    let answer = Answer::Acquisition(record);
                    let sent = |from: Id, to: Id| {
                        state.network.any_from(from, to, |msg| answer.matches(msg))
                    };
                    sent(spl, h)
                        || sent(h, spl)
                        || actor(sys, spl).holds(state.node(spl), h, &Held::Acquisition(record))
                }
            }
    };
    match topology.member_actor(member) {
        Some(h) if !topology.producers.contains(&h) => !holds(h),
        _ => !topology.producers.iter().any(|p| holds(*p)),
    }
}

/// `leader`'s verification of a producer id at one of its keys (`at`) timed out while the
/// transaction coordinator was down.
/// Kafka's `InterBrokerSendThread` never wrote that request to a socket (it cannot connect
/// to a broker that is down) and fails it at its timeout, so it is taken off the
/// connection here instead of reaching the coordinator after its restart. Without this,
/// each retry of the NETWORK_EXCEPTION that answers the timeout would queue one more copy
/// behind it, and the leader's verifications in flight would grow without bound for as
/// long as the coordinator stays down.
pub(crate) fn unsend_timed_out_verification<H: Record>(
    sys: &System<H>,
    state: &mut SystemState<H>,
    leader: Id,
    at: Keyed<ProducerId>,
) {
    let timer = Timer::VerificationTimeout(at);
    let Wait::Reply(reply) = actor(sys, leader).wait(state.node(leader), &timer) else {
        return;
    };
    if state.is_up(reply.peer) {
        // Transmitted or answered: what is on the wire may still arrive (late answers
        // are ignored by their guard).
        return;
    }
    state.network.unsend(leader, reply.peer, |m| {
        matches!(m, Msg::AddPartitionsToTxn(_)) && reply.answer.matches(m)
    });
}
