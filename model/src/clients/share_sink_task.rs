//! KIP-1302's `WorkerShareSinkTask` in exactly-once mode on a KIP-1310
//! `TransactionSession`: Connect's sink task draining a share group into an output topic,
//! with the poll thread and the commit thread apart (the "async commit" of the session
//! seed's section 4.6: "the commit thread can call `session.commitTransaction()` without
//! needing a producer instance").
//!
//! ```text
//! poll thread:   records = shareConsumer.poll()      commit thread:
//!                task.put(convert(records))            session.addShareAcksToTransaction(acks)
//!                producer.send(output)                 session.commitTransaction()
//!                hand the acks to the commit thread    (abortTransaction() on an exception)
//!                records = shareConsumer.poll()  ...
//! ```
//!
//! **One client actor, two threads.** As for the plain session loop
//! ([`crate::clients::transaction_session`]) the task's session, producer and share consumer are
//! roles of the one `Producer` actor (one worker process, built from one config). What the
//! sink task adds is that the poll thread does not wait for the commit: once it handed a
//! batch over it polls again, so a second batch can be polled, put and sent while the
//! first one's commit is in flight. Whether that batch is sent into the committing
//! transaction is the knob [`crate::design::sink_knobs::SinkCommitScope`].
//!
//! Bounds of the model: one record per poll, one batch in flight per partition (a batch
//! waits for the previous one's answer, `max.in.flight.requests.per.connection=1`), and at
//! most one batch held besides the transaction being committed (the poll thread blocks in
//! `producer.send` or `beginTransaction` until the commit ends). `task.put()` taking long is
//! the scenario's stall (the acquisition lock expires while the task holds the record);
//! the task failing and the worker restarting it with the same transactional id is a crash
//! and restart of the actor: the new incarnation's InitProducerId fences the old one.

use crate::clients::producer::{Producer, ProducerState};
use crate::design::sink_knobs::SinkCommitScope;
use crate::protocol::ghost::Ghost;
use crate::protocol::ids::TxnTag;
use crate::protocol::msg::RequestKey;
use crate::protocol::output::Host;
use crate::protocol::share_msg::AcquiredRecord;
use serde::{Deserialize, Serialize};
use stateright::actor::Out;

/// The sink task's state beside the session's transaction.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SinkTaskState {
    /// The batch the poll thread polled and put while the commit thread's transaction was
    /// still open; it begins the next transaction once that one ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held: Option<HeldBatch>,
    /// A poll came back empty: the poll thread's loop ended (the bounded stand-in for an
    /// idle task), and the task is done once its last transaction ended.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub polls_ended: bool,
}

/// A batch the poll thread holds for the next transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HeldBatch {
    /// The record polled.
    pub record: AcquiredRecord,
    /// Ghost: the attempt the application puts the batch in (the next commit's).
    pub tag: Ghost<TxnTag>,
    /// `producer.send` already went out (the seed's scope), with the identity the session
    /// had then.
    pub sent: bool,
}

impl Producer {
    /// The poll thread handed the transaction's batch to the commit thread: it polls
    /// again at once, while the commit goes on.
    pub(crate) fn sink_poll_again<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        let ended = state.role.sink().is_none_or(|s| s.polls_ended);
        let polling = state.manager.requests.contains_key(&RequestKey::Share);
        let held = state.role.sink().is_some_and(|s| s.held.is_some());
        if !ended && !polling && !held && state.manager.attempts < self.txns {
            self.poll(state, o);
        }
    }

    /// The poll thread got `record` while the commit thread's transaction is open: it puts
    /// the batch and, as the scope says, sends it now or holds it for the next transaction.
    pub(crate) fn sink_hold<A: Host>(
        &self,
        state: &mut ProducerState,
        record: AcquiredRecord,
        o: &mut Out<A>,
    ) {
        let tag = Ghost::new(TxnTag {
            client: self.txn.0,
            incarnation: state.manager.incarnation,
            attempt: state.manager.attempts,
        });
        state.manager.attempts += 1;
        if let Some(sink) = state.role.sink_mut() {
            sink.held = Some(HeldBatch {
                record,
                tag,
                sent: false,
            });
        }
        self.sink_send_held(state, o);
    }

    /// The seed's scope: the held batch goes out as soon as its partition has no batch in
    /// flight, with whatever identity the producer has from the session, which is still
    /// the committing transaction's until EndTxn is answered.
    pub(crate) fn sink_send_held<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        if self.design.sink_commit_scope != SinkCommitScope::Session || state.manager.txn.is_none()
        {
            return;
        }
        let Some(batch) = state.role.sink().and_then(|s| s.held) else {
            return;
        };
        let in_flight = state.manager.produce_in_flight();
        if batch.sent || in_flight || !self.may_send_writes(state) {
            return;
        }
        self.send_outputs(state, batch.record.offset, batch.tag, o);
        if let Some(held) = state.role.sink_mut().and_then(|s| s.held.as_mut()) {
            held.sent = true;
        }
    }

    /// The session's transaction ended (or the session was initialised): begin the next
    /// one with the held batch, wait for the poll in flight, poll, or finish.
    pub(crate) fn sink_next<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        if let Some(batch) = state.role.sink_mut().and_then(|s| s.held.take()) {
            if let Some(sh) = state.role.share_mut() {
                sh.fetched = Some(batch.record);
            }
            self.begin_attempt(state, batch.record.offset, batch.tag, batch.sent, o);
            return;
        }
        if state.manager.requests.contains_key(&RequestKey::Share) {
            return;
        }
        let ended = state.role.sink().is_none_or(|s| s.polls_ended);
        if ended || state.manager.attempts >= self.txns {
            state.manager.done = true;
            return;
        }
        self.poll(state, o);
    }

    /// A poll came back empty or timed out: the poll thread stops; the task is done once
    /// no transaction is open.
    pub(crate) fn sink_polls_ended(&self, state: &mut ProducerState) {
        if let Some(sink) = state.role.sink_mut() {
            sink.polls_ended = true;
        }
        state.manager.done = state.manager.txn.is_none();
    }
}
