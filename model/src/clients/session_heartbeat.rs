//! KIP-1309's heartbeat on the client side: a KIP-1310 `TransactionSession` sends
//! `TxnHeartbeat` for its open transaction, so that the transaction coordinator can abort
//! the transaction of a dead session long before the transaction timeout would
//! ([`crate::coordinator::txn_coordinator_2pc`] is the coordinator's side). The session seed says the
//! session owns the heartbeat ("The heartbeat (KIP 1309) is automatic"), on its own
//! network client, "the same pattern used by the consumer's HeartbeatThread", so it goes
//! on while the application is busy in `task.put()` ([`HeartbeatOwner`]).
//!
//! KIP-1309 is a draft that names no interval, no client error handling and no schema.
//! Where it is silent this follows the `TransactionManager`:
//! - the session heartbeats while its transaction is open (IN_TRANSACTION or
//!   ABORTABLE_ERROR) and stops once it sends EndTxn or prepares (a 2PC transaction is
//!   exempt at the coordinator);
//! - the coordinator that aborted a silent transaction bumped its epoch
//!   (`fence_and_abort`), so the next heartbeat is answered PRODUCER_FENCED. The
//!   `TransactionManager` treats PRODUCER_FENCED on any transactional request as fatal:
//!   the session moves to FATAL_ERROR, cancels what it has in flight and never sends the
//!   aborted transaction's EndTxn, so the acknowledgements and outputs of that transaction
//!   are not committed. A retriable error (CONCURRENT_TRANSACTIONS while an EndTxn is being
//!   completed) is left to the next heartbeat.
//!
//! Timing in the exhaustive checker (see [`crate::world::timing`]): a heartbeat that the
//! coordinator answers without error changes nothing (it re-arms a timer that is armed),
//! so the session's heartbeat timer is *due* only when the answer would be news: the
//! coordinator is up, no heartbeat of this session is in flight, and the coordinator no
//! longer has the session's transaction open with its pair. Any other firing is early (a
//! `timeouts` unit). The simulator gives it its real interval.

use crate::clients::producer::{Producer, ProducerState};
use crate::coordinator::txn_state::TxnManagerState;
use crate::protocol::error::ErrorCode;
use crate::protocol::msg::{Msg, Timer};
use crate::protocol::output::Host;
use crate::protocol::txn_heartbeat_msg::{TxnHeartbeatRequest, TxnHeartbeatResponse};
use crate::protocol::wait::{Answer, Down, Duty, Held, Reply, Wait};
use stateright::actor::Out;
use std::time::Duration;

pub use crate::design::session_knobs::HeartbeatOwner;

/// Whether `tm` is a state in which the session heartbeats: its transaction is open.
fn heartbeating(tm: TxnManagerState) -> bool {
    matches!(
        tm,
        TxnManagerState::InTransaction | TxnManagerState::AbortableError
    )
}

impl Producer {
    /// `beginTransaction()`: the session starts heartbeating for the transaction.
    pub(crate) fn start_heartbeat<A: Host>(&self, o: &mut Out<A>) {
        if self.heartbeats() {
            o.set_timer(Timer::TxnHeartbeat, interval());
        }
    }

    /// The transaction leaves the open states (EndTxn sent, prepared, or a fatal error):
    /// no more heartbeats for it.
    pub(crate) fn stop_heartbeat<A: Host>(&self, o: &mut Out<A>) {
        if self.heartbeats() {
            o.cancel_timer(Timer::TxnHeartbeat);
        }
    }

    /// The heartbeat interval elapsed: one TxnHeartbeat with the session's pair, and the
    /// next one armed, while the transaction is open.
    pub(crate) fn on_heartbeat_timer<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        if !self.heartbeats() || !heartbeating(state.manager.tm) {
            return;
        }
        let producer = state.manager.identity();
        o.send(
            self.txn_coordinator,
            Msg::TxnHeartbeat(TxnHeartbeatRequest {
                txn: self.txn,
                producer,
            }),
        );
        o.set_timer(Timer::TxnHeartbeat, interval());
    }

    /// The coordinator's answer. PRODUCER_FENCED (or no such producer any more): the
    /// coordinator aborted the transaction, and the session fails fatally instead of
    /// committing it. An answer for an earlier pair, or after the transaction left the
    /// open states, is stale.
    pub(crate) fn on_heartbeat_response<A: Host>(
        &self,
        state: &mut ProducerState,
        r: TxnHeartbeatResponse,
        o: &mut Out<A>,
    ) {
        if !self.heartbeats()
            || !heartbeating(state.manager.tm)
            || state.manager.identity != Some(r.producer)
            || r.error == ErrorCode::None
            || r.error.is_retriable()
        {
            return;
        }
        self.fatal(state, o);
    }
}

impl Producer {
    /// What the heartbeat timer waits for: the coordinator no longer holding the session's
    /// pair, which is what the session has to learn. While the coordinator is down, a
    /// heartbeat of this session is in flight, or the coordinator would answer without
    /// error, firing changes nothing, so it is early.
    pub(crate) fn heartbeat_wait(&self, state: &ProducerState) -> Wait {
        match state.manager.identity {
            Some(producer) if heartbeating(state.manager.tm) => Wait::Reply(Reply {
                peer: self.txn_coordinator,
                answer: Answer::Heartbeat,
                held: Some(Held::Heartbeat {
                    txn: self.txn,
                    producer,
                }),
                down: Down::Waits,
            }),
            _ => Wait::Never,
        }
    }

    /// Whether this client has given up `duty` for good: it failed fatally, or, when
    /// the producer owns the heartbeat, the application is stalled in a long
    /// `task.put()` (the session's own network client goes on through a stall).
    pub(crate) fn gone(&self, state: &ProducerState, duty: Duty) -> bool {
        state.manager.tm == TxnManagerState::FatalError
            || (duty == Duty::Heartbeat
                && self.design.heartbeat_owner == HeartbeatOwner::Producer
                && state.role.share().is_some_and(|sh| sh.stalled))
    }
}

/// The transactional id of client `id`.
/// The exhaustive checker ignores durations; the simulator gives the interval
/// (`sim::durations`).
fn interval() -> std::ops::Range<Duration> {
    Duration::ZERO..Duration::ZERO
}
