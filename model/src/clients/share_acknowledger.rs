//! KIP-1289 section 3.2's `TransactionalShareAcknowledger`: share acknowledgements committed
//! in a transaction by a process that produces nothing (the seed's Flink and Spark case).
//!
//! It has its own transactional id and, after `initTransactions()` (InitProducerId), its
//! own producer id and epoch. `commitAcknowledgements(acks, groupId)` is, as the seed
//! clarifies, no new RPC but three calls in sequence: `beginTransaction()`,
//! `sendShareAcksToTransaction` (AddShareAcksToTxn, then TxnShareAcknowledge) and
//! `commitTransaction()` (EndTxn COMMIT). `abortAcknowledgements()` is EndTxn ABORT for the
//! transaction in progress.
//!
//! It is the producer's `TransactionManager` with no output partition and no share
//! source to poll: the same request timeouts, resends, fatal and abortable errors and
//! EndTxn flush, one implementation. A write that fails after its resends makes the
//! transaction abortable and it ends with EndTxn ABORT, as `commitTransaction()` would
//! throw and the caller abort.
//!
//! It is not the share-group member that acquired the records (docs/kafka-cases.md S24): its
//! TxnShareAcknowledge carries [`NOT_A_MEMBER`], it cannot renew acquisition locks, and the
//! seed gives it no way to learn the member's acquisitions or their deadlines.

use crate::clients::client_role::ClientRole;
use crate::clients::producer::{Producer, ProducerState};
use crate::clients::producer_share::{AckTypes, ShareSource, NOT_A_MEMBER};
use crate::coordinator::txn_state::TxnManagerState;
use crate::design::Design;
use crate::protocol::ghost::Ghost;
use crate::protocol::ids::{Connection, GroupId, TransactionalId};
use crate::protocol::msg::{Msg, Timer};
use crate::protocol::output::Host;
use crate::protocol::record_state::AckType;
use crate::protocol::share_msg::{Acknowledgement, DeliveryTag};
use crate::protocol::width::{Epoch, Offset};
use serde::{Deserialize, Serialize};
use stateright::actor::{Id, Out};
use std::fmt;

/// An acknowledgement the reader hands the acknowledger in-process, with the delivery it
/// was made for. Both halves of that delivery are the reader's own knowledge, not the
/// ghost the acknowledgement carries on the wire: the member is the reader's share
/// consumer (`AbstractMembershipManager.memberId()`), and the delivery count is what that
/// consumer's ShareFetch response gave the record (`AcquiredRecords.DeliveryCount`, which
/// Kafka 4.0's `ShareCompletedFetch` hands the application as
/// `ConsumerRecord.deliveryCount()`).
///
/// The seed's acknowledger uses neither (it names no member and stages at the share
/// coordinator); a design whose leader checks the owner or stages at the leader hands them
/// over with the acks, as `sendShareAcksToTransaction` takes the member's
/// `ShareGroupMetadata`.
///
/// Serialised and printed as the [`Acknowledgement`] it becomes (the delivery under the
/// ghost tag's name `tag`), so the reader's state reads in traces as it did when it held
/// wire acknowledgements.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct HandedAck {
    /// The offset acknowledged.
    pub offset: Offset,
    /// The acknowledgement type.
    pub ack: AckType,
    /// The delivery acknowledged: the reader's member and the record's delivery count.
    #[serde(rename = "tag")]
    pub delivery: DeliveryTag,
}

impl HandedAck {
    /// The acknowledgement as a request carries it: offset and type, with the delivery as
    /// its ghost tag.
    pub fn to_wire(&self) -> Acknowledgement {
        Acknowledgement {
            offset: self.offset,
            ack: self.ack,
            tag: Ghost::new(self.delivery),
        }
    }
}

impl fmt::Debug for HandedAck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_wire(), f)
    }
}

/// The standalone acknowledger's configuration: its `TransactionManager`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TransactionalShareAcknowledger {
    /// The transactional producer inside it, with no output partition.
    pub producer: Producer,
}

/// Where the acknowledger's configuration comes from.
pub struct AcknowledgerConfig {
    /// Its `transactional.id`.
    pub txn: TransactionalId,
    /// The transaction coordinator.
    pub txn_coordinator: Id,
    /// The group coordinator (never used: it commits no offsets).
    pub group_coordinator: Id,
    /// The share-partition leader of the acknowledged records (where a `stage_at_leader`
    /// design stages them).
    pub share_partition: Id,
    /// The share coordinator of the share group's state partition.
    pub share_coordinator: Id,
    /// The design.
    pub design: Design,
    /// Transactions per incarnation (the caller keeps the bound).
    pub txns: u8,
    /// Resends after a request timeout.
    pub request_retries: u8,
}

impl TransactionalShareAcknowledger {
    /// `new TransactionalShareAcknowledger(config)`.
    pub fn new(config: AcknowledgerConfig) -> TransactionalShareAcknowledger {
        TransactionalShareAcknowledger {
            producer: Producer {
                txn: config.txn,
                txn_coordinator: config.txn_coordinator,
                group_coordinator: config.group_coordinator,
                partitions: Vec::new(),
                design: config.design,
                inputs: 0,
                txns: config.txns,
                request_retries: config.request_retries,
                role: ClientRole::Acknowledger(ShareSource {
                    share_partition: None,
                    leader: config.share_partition,
                    moved_leader: None,
                    share_partitions: 1,
                    share_coordinator: config.share_coordinator,
                    group: GroupId::default(),
                    groups: 1,
                    member: NOT_A_MEMBER,
                    stalls: 0,
                    ack_types: AckTypes::ACCEPT,
                    plain_acks: false,
                    add_choices: false,
                }),
            },
        }
    }

    /// `initTransactions()`: InitProducerId for the process's `incarnation`.
    pub fn init_transactions<A: Host>(&self, incarnation: Epoch, o: &mut Out<A>) -> ProducerState {
        self.producer.start(incarnation, o)
    }

    /// Whether a `commitAcknowledgements` call can start: initialised, and no transaction
    /// or coordinator request in progress.
    pub fn is_idle(state: &ProducerState) -> bool {
        state.manager.tm == TxnManagerState::Ready
            && state.manager.txn.is_none()
            && state.manager.coordinator.is_none()
    }

    /// Begins a transaction carrying `acks` (AddShareAcksToTxn, then TxnShareAcknowledge):
    /// false, and nothing done, unless idle with something to acknowledge (the Java calls
    /// would throw or have nothing to send).
    fn begin_with<A: Host>(
        &self,
        state: &mut ProducerState,
        acks: Vec<HandedAck>,
        o: &mut Out<A>,
    ) -> bool {
        let Some(first) = acks.first().map(|a| a.offset) else {
            return false;
        };
        if !Self::is_idle(state) {
            return false;
        }
        state.manager.done = false;
        if let Some(share) = state.role.share_mut() {
            share.acks = acks;
            share.staged_members = 0;
        }
        self.producer.begin_txn(state, first, o);
        true
    }

    /// `commitAcknowledgements(acks, groupId)`: begin, AddShareAcksToTxn, then
    /// TxnShareAcknowledge with `acks`, then EndTxn COMMIT once it is answered. Ignored
    /// unless idle (the Java call would throw) or when there is nothing to acknowledge.
    pub fn commit_acknowledgements<A: Host>(
        &self,
        state: &mut ProducerState,
        acks: Vec<HandedAck>,
        o: &mut Out<A>,
    ) {
        if !self.begin_with(state, acks, o) {
            return;
        }
        if let Some(txn) = state.manager.txn.as_mut() {
            txn.decision.get_or_insert(true);
        }
        self.producer.maybe_end(state, o);
    }

    /// `abortAcknowledgements()`: EndTxn ABORT for the transaction in progress, once its
    /// requests are answered; nothing when no transaction is in progress or its EndTxn
    /// was already sent.
    pub fn abort_acknowledgements<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) {
        if state.manager.tm != TxnManagerState::InTransaction
            && state.manager.tm != TxnManagerState::AbortableError
        {
            return;
        }
        if let Some(txn) = state.manager.txn.as_mut() {
            txn.decision = Some(false);
        }
        self.producer.maybe_end(state, o);
    }

    /// `initTransactions(keepPreparedTxn=true)` with 2PC enabled as the design allows:
    /// a transaction a previous incarnation prepared is kept for `complete_transaction`.
    pub fn init_transactions_keep_prepared<A: Host>(
        &self,
        incarnation: crate::protocol::width::Epoch,
        o: &mut Out<A>,
    ) -> ProducerState {
        let two_phase = self.producer.design.two_phase_commit;
        self.producer
            .init_transactions_2pc(incarnation, two_phase, true, Connection::default(), o)
    }

    /// Flink `snapshotState` for the two-phase acknowledger: begin, AddShareAcksToTxn,
    /// TxnShareAcknowledge with `acks`, then `prepareTransaction()` once they are answered.
    /// Ignored unless idle or when there is nothing to acknowledge.
    pub fn stage_and_prepare<A: Host>(
        &self,
        state: &mut ProducerState,
        acks: Vec<HandedAck>,
        o: &mut Out<A>,
    ) {
        if !self.begin_with(state, acks, o) {
            return;
        }
        self.producer.prepare_transaction(state, o);
    }

    /// `completeTransaction(preparedTxnState)`: commit the prepared transaction iff it is
    /// the one `expected` names, else abort it.
    pub fn complete_transaction<A: Host>(
        &self,
        state: &mut ProducerState,
        expected: Option<crate::protocol::msg::ProducerIdAndEpoch>,
        o: &mut Out<A>,
    ) {
        self.producer.complete_transaction(state, expected, o);
    }

    /// Whether a transaction is prepared (PREPARED_TRANSACTION) and not yet completed.
    pub fn is_prepared(state: &ProducerState) -> bool {
        state.manager.tm == TxnManagerState::PreparedTransaction
            && state.manager.coordinator.is_none()
    }

    /// Whether the transaction in progress can only abort (a write failed).
    pub fn failed(state: &ProducerState) -> bool {
        state.manager.txn.as_ref().is_some_and(|t| t.failed)
    }

    /// Responses from the transaction coordinator and the share coordinator.
    pub fn on_msg<A: Host>(&self, state: &mut ProducerState, src: Id, msg: Msg, o: &mut Out<A>) {
        self.producer.on_msg(state, src, msg, o);
    }

    /// Request timeouts: resend, or give up as the producer does.
    pub fn on_timeout<A: Host>(&self, state: &mut ProducerState, timer: Timer, o: &mut Out<A>) {
        self.producer.on_timeout(state, timer, o);
    }
}
