//! KIP-1310's `TransactionSession` and the two clients built on it, in the consume-transform-
//! produce loop of the seed's section 4.6 (KIP-1302's `iterationExactlyOnce`):
//!
//! ```text
//! records = shareConsumer.poll()
//! session.beginTransaction()
//! producer.send(output)                               // KafkaProducer(configs, session)
//! session.addShareAcksToTransaction(groupId, ACCEPT)  // AddShareAcksToTxn, TxnShareAcknowledge
//! session.commitTransaction()                         // or abortTransaction()
//! ```
//!
//! **A role of one client actor, not an actor of its own.** The session, the producer on
//! it and the share consumer are built from the same configs in one application process
//! (the seed's 4.2 and 4.6 construct all three in one task), so they start, stall and
//! crash together, and the application calls them in program order. What the seed
//! changes is who owns what and who waits for whom, not where the processes are. So the
//! client stays the one `Producer` actor of the KIP-1289 loop, split into roles:
//! - the **session** owns the transactional id, the producer id and epoch
//!   ([`ProducerState::identity`]) and the `TransactionManager` state, and is the only role
//!   that talks to the transaction coordinator (its own connection: InitProducerId,
//!   AddPartitionsToTxn under TV0/1, AddShareAcksToTxn, EndTxn); it also sends the share
//!   consumer's TxnShareAcknowledge (`addShareAcksToTransaction` is the session's method);
//! - the **producer** sends only Produce, with the identity it read from the session
//!   ([`SessionProducerState::view`]) and its own sequences;
//! - the **share consumer** polls the share-partition leader and hands its acquisitions to
//!   the session to acknowledge.
//!
//! Each role has its own connection because each talks to a different broker (the model's
//! connections are per pair of actors). The session's operations are the
//! `TransactionManager`'s, one implementation: `initialize()` is InitProducerId
//! ([`Producer::start`]), `beginTransaction()` opens the attempt
//! ([`Producer::begin_txn`]), `addShareAcksToTransaction` is AddShareAcksToTxn then
//! TxnShareAcknowledge, `commitTransaction()` / `abortTransaction()` are the
//! application's choice and EndTxn.
//!
//! What the seed leaves open is a `Design` knob each ([`crate::design::session_knobs`]):
//! - `session_commit_flush`: whether EndTxn waits for every produce and acknowledgement of
//!   the transaction to be answered. The seed's producer "does NOT send transaction RPCs"
//!   and its session has "no RecordAccumulator", so nothing holds the session's EndTxn
//!   back while a batch is in flight (docs/kafka-cases.md S15);
//! - `epoch_handoff`: when the producer sees the epoch the session got at EndTxn (TV2
//!   bumps it every time). Seed: asynchronously, a client choice some time after the
//!   session has it; a batch built before carries the old epoch (docs/kafka-cases.md S16).

use crate::clients::producer::{Producer, ProducerState};
use crate::clients::transaction_manager::TransactionManager;
use crate::design::session_knobs::EpochHandoff;
use crate::protocol::msg::{ClientChoice, ProducerIdAndEpoch};
use crate::protocol::output::Host;
use serde::{Deserialize, Serialize};
use stateright::actor::Out;

/// The producer role's state on an external session.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SessionProducerState {
    /// The producer id and epoch the producer stamps its batches with: what it last read
    /// from the session, which may lag the session's own under `epoch_handoff=async`.
    pub view: Option<ProducerIdAndEpoch>,
}

/// The choice key of the asynchronous epoch hand-off.
pub(crate) const HANDOFF: &str = "handoff";

impl Producer {
    /// Whether the producer may send the transaction's batches now. With the atomic
    /// hand-off it first takes the session's identity, which it can only do with no batch
    /// of the old identity in flight; until then it holds its batches.
    pub(crate) fn may_send_writes(&self, state: &mut ProducerState) -> bool {
        let Some(session) = state.role.session_mut() else {
            return true;
        };
        if self.design.epoch_handoff == EpochHandoff::Async {
            return true;
        }
        session.swap_identity(&mut state.manager);
        session.view == state.manager.identity
    }

    /// The session's identity changed (InitProducerId, or EndTxn under TV2). The first one
    /// is the producer's from the start (it is built on an initialised session); later
    /// ones reach it as the hand-off knob says.
    pub(crate) fn session_identity_changed<A: Host>(
        &self,
        state: &mut ProducerState,
        o: &mut Out<A>,
    ) {
        let Some(session) = state.role.session_mut() else {
            return;
        };
        if session.view.is_none() {
            session.view = state.manager.identity;
            state.manager.seqs.clear();
            return;
        }
        match self.design.epoch_handoff {
            EpochHandoff::Atomic => session.swap_identity(&mut state.manager),
            EpochHandoff::Async if session.view != state.manager.identity => {
                o.choose_random(HANDOFF, vec![ClientChoice::Handoff]);
            }
            EpochHandoff::Async => {}
        }
    }

    /// The asynchronous hand-off happens: the producer reads the session's identity and
    /// resets its sequences.
    pub(crate) fn on_handoff<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        o.choose_random(HANDOFF, Vec::new());
        if let Some(session) = state.role.session_mut() {
            if session.view != state.manager.identity {
                session.view = state.manager.identity;
                state.manager.seqs.clear();
            }
        }
    }

    /// After a produce was answered: with the atomic hand-off, take the session's identity
    /// once no batch is in flight and send the batches that waited for it.
    pub(crate) fn session_after_write<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        if self.design.epoch_handoff == EpochHandoff::Async {
            return;
        }
        let waiting = state.manager.txn.as_ref().is_some_and(|t| !t.writes_issued)
            && self.design.tv.bumps_epoch_per_txn();
        if waiting && self.may_send_writes(state) {
            self.issue_writes(state, o);
        }
    }
}

impl SessionProducerState {
    /// The atomic hand-off: the producer takes the session's identity (and resets its
    /// sequences) once no batch of the old one is in flight.
    fn swap_identity(&mut self, manager: &mut TransactionManager) {
        if !manager.produce_in_flight() && self.view != manager.identity {
            self.view = manager.identity;
            manager.seqs.clear();
        }
    }
}
