//! The seed's Flink source loop (KIP-1289, "no-producer (Flink/Spark) use case"): a
//! `FlinkShareGroupSourceReader` task holding a share consumer (a member of the share
//! group) and a [`TransactionalShareAcknowledger`].
//!
//! * `open()`: `acknowledger.initTransactions()`; the consumer opens its share session.
//! * The consumer polls (ShareFetch without acknowledgements: the records are acknowledged
//!   by the acknowledger, never through the share session) and the reader emits what it
//!   gets downstream, adding an ACCEPT for each record to `pendingAcks`.
//! * A checkpoint completing is a client choice: `snapshotState` saves `pendingAcks` as
//!   the checkpoint's state (durable: Flink's checkpoint storage) and
//!   `notifyCheckpointComplete` calls `acknowledger.commitAcknowledgements(pendingAcks)`.
//!   The records a completed checkpoint covers are what the reader *processed*: their
//!   effects downstream are part of the job's committed state (the ghost records them for
//!   `no_duplicate_processing`). The checkpoint may come after the acquisition lock
//!   expired (the scenario's early timeout).
//! * The reader polls again when the commit has ended and it may still checkpoint
//!   (`txns` checkpoints per incarnation), so every record it is given can be covered by a
//!   checkpoint and the run stays bounded.
//! * A failed commit (a request failing after its resends) makes the reader call
//!   `abortAcknowledgements()`: EndTxn ABORT. The seed says nothing more; the reader drops
//!   those acknowledgements and the records come back when their locks expire. A checkpoint
//!   that fails before completion has nothing to abort (`commitAcknowledgements` opens and
//!   closes its transaction in one call); Flink then fails over the job, which is the
//!   reader's crash and restart.
//! * A restart (job failover) restores the last completed checkpoint and commits its
//!   acknowledgements again, since the reader cannot know whether the previous attempt
//!   committed them (docs/kafka-cases.md S24). Its consumer opens a new share session.

use crate::clients::producer::ProducerState;
use crate::clients::share_acknowledger::{HandedAck, TransactionalShareAcknowledger};
use crate::clients::share_consumer::{ShareConsumer, ShareConsumerState};
use crate::coordinator::txn_state::TxnManagerState;
use crate::design::kip939::AcknowledgerCommit;
use crate::protocol::ids::MemberId;
use crate::protocol::msg::{ClientChoice, Msg, ProducerIdAndEpoch, RequestKey, Timer};
use crate::protocol::output::Saves;
use crate::protocol::record_state::AckType;
use crate::protocol::share_msg::{AcquiredRecord, DeliveryTag};
use crate::protocol::wait::{Holding, Wait};
use crate::protocol::width::{Epoch, Offset};
use serde::{Deserialize, Serialize};
use stateright::actor::{Id, Out};
use std::fmt;

/// Which checkpoint: the reader incarnation that took it and its number there.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct CheckpointId {
    /// Which start of the reader.
    pub incarnation: Epoch,
    /// Which checkpoint of that incarnation (0 for the first).
    pub checkpoint: u8,
}

impl fmt::Debug for CheckpointId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "i{}cp{}", self.incarnation, self.checkpoint)
    }
}

/// Ghost: a completed checkpoint covers the processing of one delivery of a record.
/// Drained by the `System` after every handler; never stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Processed {
    /// The input record's offset.
    pub offset: Offset,
    /// The delivery that was processed.
    pub delivery: DeliveryTag,
    /// The checkpoint that covers it.
    pub checkpoint: CheckpointId,
}

/// What survives a reader failover: Flink's checkpoint storage.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ReaderStorage {
    /// Which start of the task this is (a modelling device, as for producers).
    pub incarnation: Epoch,
    /// The last completed checkpoint's state: its pending acknowledgements.
    pub checkpoint: Vec<HandedAck>,
    /// `acknowledger_commit=two-phase`: the last completed checkpoint's `PreparedTxnState`
    /// (the pair of the transaction its `snapshotState` prepared).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prepared: Option<ProducerIdAndEpoch>,
}

/// The reader's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SourceReaderState {
    /// Which start of the task this is.
    pub incarnation: Epoch,
    /// The share consumer's state.
    pub consumer: ShareConsumerState,
    /// `reader_members`: the further share consumers' states, in the order of
    /// [`SourceReader::more_consumers`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more_consumers: Vec<ShareConsumerState>,
    /// The acknowledger's `TransactionManager` state.
    pub acknowledger: ProducerState,
    /// `pendingAcks`: an ACCEPT for every record emitted since the last checkpoint.
    pub pending: Vec<HandedAck>,
    /// What `commitAcknowledgements` is committing, until its transaction ends.
    pub committing: Vec<HandedAck>,
    /// Acknowledgements restored from the last completed checkpoint, to commit again once
    /// the acknowledger is initialised.
    pub restored: Vec<HandedAck>,
    /// Checkpoints this incarnation completed.
    pub checkpoints: u8,
    /// `two-phase`: the acknowledgements of the checkpoint whose `snapshotState` is staging
    /// and preparing them; the checkpoint completes when the transaction is prepared.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub snapshotting: Vec<HandedAck>,
    /// `two-phase`: the restored checkpoint's `PreparedTxnState`, to complete once
    /// `initTransactions(keepPreparedTxn=true)` answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovering: Option<ProducerIdAndEpoch>,
    /// Ghost: what the current handler's checkpoint covered; drained by the `System`.
    #[serde(skip)]
    pub processed: Vec<Processed>,
}

/// The reader's configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceReader {
    /// Its share consumer (member).
    pub consumer: ShareConsumer,
    /// `reader_members` (scenario `flink-shuffle`): the further share consumers, each its
    /// own member, whose records a shuffle brings to this task's acknowledger; empty in
    /// every other scenario.
    pub more_consumers: Vec<ShareConsumer>,
    /// Its acknowledger.
    pub acknowledger: TransactionalShareAcknowledger,
    /// Checkpoints per incarnation.
    pub checkpoints: u8,
}

const CHECKPOINT: &str = "checkpoint";

impl SourceReader {
    /// `open()`: restores the last completed checkpoint, initialises the acknowledger and
    /// opens the consumer's share session.
    pub fn on_start<A: Saves<ReaderStorage>>(
        &self,
        storage: Option<&ReaderStorage>,
        o: &mut Out<A>,
    ) -> SourceReaderState {
        let incarnation = storage.map_or(0, |s| s.incarnation + 1);
        let checkpoint = storage.map(|s| s.checkpoint.clone()).unwrap_or_default();
        let prepared = storage.and_then(|s| s.prepared);
        o.save(
            ReaderStorage {
                incarnation,
                checkpoint: checkpoint.clone(),
                prepared,
            }
            .into(),
        );
        let two_phase = self.two_phase();
        let consumer = self.consumer.on_start(o);
        let more_consumers = self.more_consumers.iter().map(|c| c.on_start(o)).collect();
        let acknowledger = if two_phase {
            // Flink's KafkaSink recovery: keep whatever the last incarnation prepared, then
            // complete it against the restored checkpoint's state.
            self.acknowledger
                .init_transactions_keep_prepared(incarnation, o)
        } else {
            self.acknowledger.init_transactions(incarnation, o)
        };
        SourceReaderState {
            incarnation,
            consumer,
            more_consumers,
            acknowledger,
            pending: Vec::new(),
            committing: Vec::new(),
            // The seed's reader commits the restored acks again; the two-phase reader
            // completes the restored prepared transaction instead.
            restored: if two_phase { Vec::new() } else { checkpoint },
            checkpoints: 0,
            processed: Vec::new(),
            snapshotting: Vec::new(),
            recovering: if two_phase { prepared } else { None },
        }
    }

    /// Fetch answers go to the consumer; everything else to the acknowledger.
    pub fn on_msg<A: Saves<ReaderStorage>>(
        &self,
        s: &mut SourceReaderState,
        src: Id,
        msg: Msg,
        o: &mut Out<A>,
    ) {
        if let Msg::ShareFetchResponse(r) = &msg {
            // Each member's answer goes to its own share consumer.
            let member = r.member;
            let (consumer, cs) = self.consumer_of(s, |c| c.member == member);
            if let Some(acquired) = consumer.receive(cs, msg, o) {
                let member = consumer.member;
                self.emit(s, member, &acquired);
            }
        } else {
            self.acknowledger.on_msg(&mut s.acknowledger, src, msg, o);
        }
        self.next(s, o);
    }

    /// The consumer's request timeout opens a new session; the others are the
    /// acknowledger's.
    pub fn on_timeout<A: Saves<ReaderStorage>>(
        &self,
        s: &mut SourceReaderState,
        timer: Timer,
        o: &mut Out<A>,
    ) {
        if let Timer::RequestTimeout(key @ (RequestKey::Share | RequestKey::ShareOf(_))) = timer {
            let (consumer, cs) = self.consumer_of(s, |c| c.key == key);
            consumer.on_timeout(cs, timer, o);
        } else {
            self.acknowledger.on_timeout(&mut s.acknowledger, timer, o);
        }
        self.next(s, o);
    }

    /// A checkpoint completes: `snapshotState`, then `notifyCheckpointComplete`.
    pub fn on_choice<A: Saves<ReaderStorage>>(
        &self,
        s: &mut SourceReaderState,
        choice: ClientChoice,
        o: &mut Out<A>,
    ) {
        if choice != ClientChoice::Checkpoint || !self.may_checkpoint(s) {
            return;
        }
        if self.two_phase() {
            // `snapshotState`: the checkpoint completes only once its acks are prepared.
            s.snapshotting = std::mem::take(&mut s.pending);
            self.acknowledger
                .stage_and_prepare(&mut s.acknowledger, s.snapshotting.clone(), o);
            self.next(s, o);
            return;
        }
        let id = CheckpointId {
            incarnation: s.incarnation,
            checkpoint: s.checkpoints,
        };
        s.checkpoints += 1;
        let acks = std::mem::take(&mut s.pending);
        s.processed.extend(acks.iter().map(|a| Processed {
            offset: a.offset,
            delivery: a.delivery,
            checkpoint: id,
        }));
        o.save(
            ReaderStorage {
                incarnation: s.incarnation,
                checkpoint: acks.clone(),
                prepared: None,
            }
            .into(),
        );
        s.committing = acks.clone();
        self.acknowledger
            .commit_acknowledgements(&mut s.acknowledger, acks, o);
        self.next(s, o);
    }

    /// Emits what `member`'s consumer fetched downstream: each record gets an ACCEPT in
    /// `pendingAcks`, with the delivery of the member that acquired it.
    fn emit(&self, s: &mut SourceReaderState, member: MemberId, acquired: &[AcquiredRecord]) {
        s.pending.extend(acquired.iter().map(|a| HandedAck {
            offset: a.offset,
            ack: AckType::Accept,
            delivery: DeliveryTag {
                member,
                delivery_count: a.delivery_count,
            },
        }));
    }

    /// The share consumer `which` picks, with its state: the first one unless a further
    /// one matches.
    fn consumer_of<'a>(
        &'a self,
        s: &'a mut SourceReaderState,
        which: impl Fn(&ShareConsumer) -> bool,
    ) -> (&'a ShareConsumer, &'a mut ShareConsumerState) {
        match self.more_consumers.iter().position(which) {
            Some(k) if k < s.more_consumers.len() => {
                (&self.more_consumers[k], &mut s.more_consumers[k])
            }
            _ => (&self.consumer, &mut s.consumer),
        }
    }

    /// Every share consumer that has no request in flight polls (after a commit ended).
    fn poll_idle<A: Saves<ReaderStorage>>(&self, s: &mut SourceReaderState, o: &mut Out<A>) {
        if s.consumer.in_flight.is_none() {
            self.consumer.poll(&mut s.consumer, o);
        }
        for (c, cs) in self.more_consumers.iter().zip(&mut s.more_consumers) {
            if cs.in_flight.is_none() {
                c.poll(cs, o);
            }
        }
    }

    fn may_checkpoint(&self, s: &SourceReaderState) -> bool {
        !s.pending.is_empty()
            && s.restored.is_empty()
            && s.snapshotting.is_empty()
            && s.recovering.is_none()
            && s.checkpoints < self.checkpoints
            && TransactionalShareAcknowledger::is_idle(&s.acknowledger)
    }

    /// What the reader does after any event: abort a failed commit, end a finished one,
    /// commit restored acknowledgements once it can, poll again, offer the checkpoint.
    fn next<A: Saves<ReaderStorage>>(&self, s: &mut SourceReaderState, o: &mut Out<A>) {
        let ack = &self.acknowledger;
        if TransactionalShareAcknowledger::failed(&s.acknowledger) {
            ack.abort_acknowledgements(&mut s.acknowledger, o);
        }
        if self.two_phase() {
            self.next_two_phase(s, o);
        }
        let idle = TransactionalShareAcknowledger::is_idle(&s.acknowledger);
        if idle && !s.committing.is_empty() {
            s.committing.clear();
            if s.pending.is_empty() && s.checkpoints < self.checkpoints {
                self.poll_idle(s, o);
            }
        }
        if idle && !s.restored.is_empty() {
            s.committing = std::mem::take(&mut s.restored);
            ack.commit_acknowledgements(&mut s.acknowledger, s.committing.clone(), o);
        }
        let offer = if self.may_checkpoint(s) {
            vec![ClientChoice::Checkpoint]
        } else {
            Vec::new()
        };
        o.choose_random(CHECKPOINT, offer);
    }
}

impl SourceReader {
    fn two_phase(&self) -> bool {
        self.acknowledger.producer.design.acknowledger_commit == AcknowledgerCommit::TwoPhase
    }

    /// The two-phase acknowledger's steps: a prepared `snapshotState` completes its
    /// checkpoint (stored with its `PreparedTxnState`) and `notifyCheckpointComplete`
    /// commits it; a `snapshotState` whose transaction aborted instead fails its checkpoint
    /// (nothing covers those records, which come back); after a restart the transaction
    /// that `initTransactions(keepPreparedTxn=true)` found is completed against the
    /// restored checkpoint's state (committed iff that checkpoint prepared it).
    fn next_two_phase<A: Saves<ReaderStorage>>(&self, s: &mut SourceReaderState, o: &mut Out<A>) {
        let ack = &self.acknowledger;
        let prepared = TransactionalShareAcknowledger::is_prepared(&s.acknowledger);
        if prepared && !s.snapshotting.is_empty() {
            let id = CheckpointId {
                incarnation: s.incarnation,
                checkpoint: s.checkpoints,
            };
            s.checkpoints += 1;
            let acks = std::mem::take(&mut s.snapshotting);
            s.processed.extend(acks.iter().map(|a| Processed {
                offset: a.offset,
                delivery: a.delivery,
                checkpoint: id,
            }));
            let state = s.acknowledger.manager.prepared;
            o.save(
                ReaderStorage {
                    incarnation: s.incarnation,
                    checkpoint: acks.clone(),
                    prepared: state,
                }
                .into(),
            );
            s.committing = acks;
            ack.complete_transaction(&mut s.acknowledger, state, o);
        } else if prepared {
            // Recovery: whatever the restored checkpoint prepared (or nothing).
            let expected = s.recovering.take();
            ack.complete_transaction(&mut s.acknowledger, expected, o);
        }
        let idle = TransactionalShareAcknowledger::is_idle(&s.acknowledger);
        if idle {
            // Nothing was kept (the checkpoint's transaction had completed): done.
            s.recovering = None;
            if !s.snapshotting.is_empty() {
                // The checkpoint failed: its records are no longer held.
                s.snapshotting.clear();
                self.poll_again(s, o);
            }
        }
    }

    fn poll_again<A: Saves<ReaderStorage>>(&self, s: &mut SourceReaderState, o: &mut Out<A>) {
        if s.pending.is_empty() && s.checkpoints < self.checkpoints {
            self.poll_idle(s, o);
        }
    }
}

/// What the reader's timers wait for, which acquisitions it holds, and its restart
/// policy (see [`crate::protocol::wait`]).
impl SourceReader {
    /// What `timer` waits for: the share consumer's request, or the acknowledger's.
    pub fn wait(&self, s: &SourceReaderState, timer: &Timer) -> Wait {
        match *timer {
            Timer::RequestTimeout(key @ (RequestKey::Share | RequestKey::ShareOf(_))) => {
                let (c, cs) = self.consumer_ref(s, key);
                c.wait(cs, timer)
            }
            _ => self.acknowledger.producer.wait(&s.acknowledger, timer),
        }
    }

    /// Where the outstanding request `key` went.
    pub fn request_destination(&self, s: &SourceReaderState, key: RequestKey) -> Option<Id> {
        match key {
            RequestKey::Share | RequestKey::ShareOf(_) => {
                let (c, cs) = self.consumer_ref(s, key);
                c.request_destination(cs)
            }
            _ => self
                .acknowledger
                .producer
                .request_destination(&s.acknowledger, key),
        }
    }

    /// The share consumer whose request is keyed `key`, with its state.
    fn consumer_ref<'a>(
        &'a self,
        s: &'a SourceReaderState,
        key: RequestKey,
    ) -> (&'a ShareConsumer, &'a ShareConsumerState) {
        match self.more_consumers.iter().position(|c| c.key == key) {
            Some(k) if k < s.more_consumers.len() => {
                (&self.more_consumers[k], &s.more_consumers[k])
            }
            _ => (&self.consumer, &s.consumer),
        }
    }

    /// Whether the reader holds the delivery `record`: emitted, in the checkpoint being
    /// committed, or restored to commit again, so the lock expiring is early (the
    /// checkpoint is slow: a `timeouts` fault), unless its acknowledger failed for good.
    pub fn acquisition(&self, s: &SourceReaderState, record: AcquiredRecord) -> Holding {
        if s.acknowledger.manager.tm == TxnManagerState::FatalError {
            return Holding::Dropped;
        }
        // A record emitted after the bounded loop's last checkpoint (a further member's
        // fetch answered late) is never checkpointed: the job holds it no more, and its
        // lock expiring is no fault.
        let checkpoints_left = s.checkpoints < self.checkpoints;
        let pending: &[HandedAck] = if checkpoints_left { &s.pending } else { &[] };
        let holds = pending
            .iter()
            .chain(&s.committing)
            .chain(&s.restored)
            .chain(&s.snapshotting)
            .any(|a| {
                a.offset == record.offset && a.delivery.delivery_count == record.delivery_count
            });
        if holds {
            Holding::Holds
        } else {
            Holding::No
        }
    }

    /// Whether the two-phase reader fails over now: its acknowledger failed for good, and
    /// Flink's restart strategy restarts the task (a crash and restart from the checkpoint
    /// storage that is the job's reaction to the failure, not a fault of the budget).
    /// Without it, a transaction the dead acknowledger had prepared stays ONGOING for ever:
    /// 2PC exempts it from the transaction timeout, and only its owner's recovery
    /// completes it.
    pub fn fails_over(&self, s: &SourceReaderState) -> bool {
        self.acknowledger.producer.design.acknowledger_commit == AcknowledgerCommit::TwoPhase
            && s.acknowledger.manager.tm == TxnManagerState::FatalError
    }
}
