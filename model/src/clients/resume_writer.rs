//! The writer of scenario `session-resume`: Flink's `KafkaSink` writer subtask on a
//! `TransactionSession` with a `KafkaProducer(configs, session)` (the seed's 4.1), which is
//! also phase 1 of the seed's 4.5 custom two-phase coordinator.
//!
//! It initialises its session (InitProducerId with `Enable2Pc` as granted), begins one
//! transaction, writes its output and commits its input offset in it, calls
//! `prepareTransaction()` (which flushes), and hands the `PreparedTxnState` to the
//! committer (Flink: the `KafkaCommittable` in the checkpoint). From then on the transaction
//! belongs to the committer, and the writer either dies ([`ClientChoice::Vanish`]) or was
//! only stalled: it wakes ([`ClientChoice::Wake`]) not knowing it was replaced, and its
//! application, which missed its checkpoint while stalled, goes on with one more `send()`
//! and gives the transaction up (`abortTransaction()`, then `close()`). Whether those reach a broker with the prepared identity is
//! what `single_writer` judges.

use crate::clients::producer::{Producer, ProducerState};
use crate::coordinator::txn_state::TxnManagerState;
use crate::protocol::external_msg::{Committable, WriterFailed};
use crate::protocol::msg::{ClientChoice, Msg, Timer};
use crate::protocol::output::Host;
use crate::protocol::wait::Held;
use serde::{Deserialize, Serialize};
use stateright::actor::{Id, Out};

/// Where the writer is after its prepare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WriterFate {
    /// Still working towards its prepare, or prepared and idle.
    #[default]
    Working,
    /// Died for good.
    Vanished,
    /// Woke from a stall as a zombie.
    Woke,
    /// Failed before its hand-off (its session went fatal), and reported it.
    Failed,
}

/// The writer's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ResumeWriterState {
    /// The session and the producer on it.
    pub session: ProducerState,
    /// The `PreparedTxnState` was handed to the committer.
    pub handed: bool,
    /// What became of it after its prepare.
    pub fate: WriterFate,
}

/// The writer's configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ResumeWriter {
    /// Its session and producer (one transaction, one output partition).
    pub session: Producer,
    /// The committer that completes the prepared transaction.
    pub committer: Id,
}

const FATE: &str = "writer";

impl ResumeWriter {
    /// `session.initialize()`.
    pub fn on_start<A: Host>(&self, o: &mut Out<A>) -> ResumeWriterState {
        ResumeWriterState {
            session: self.session.initialize_2pc_session(0, o),
            handed: false,
            fate: WriterFate::Working,
        }
    }

    /// Responses go to the session and the producer.
    pub fn on_msg<A: Host>(&self, s: &mut ResumeWriterState, src: Id, msg: Msg, o: &mut Out<A>) {
        self.session.on_msg(&mut s.session, src, msg, o);
        self.next(s, o);
    }

    /// Request timeouts go to the session and the producer.
    pub fn on_timeout<A: Host>(&self, s: &mut ResumeWriterState, timer: Timer, o: &mut Out<A>) {
        self.session.on_timeout(&mut s.session, timer, o);
        self.next(s, o);
    }

    /// The writer dies, or wakes as a zombie.
    pub fn on_choice<A: Host>(
        &self,
        s: &mut ResumeWriterState,
        choice: ClientChoice,
        o: &mut Out<A>,
    ) {
        if s.fate != WriterFate::Working || !s.handed {
            return;
        }
        o.choose_random(FATE, Vec::new());
        match choice {
            ClientChoice::Vanish => {
                // The process is gone: its session will never act again.
                s.fate = WriterFate::Vanished;
                self.session.fatal(&mut s.session, o);
            }
            ClientChoice::Wake => {
                s.fate = WriterFate::Woke;
                // The stall made it miss its checkpoint, so its application gives the
                // transaction up: one more record was on its way, then `abortTransaction()`
                // and `close()`.
                self.session.send_on_session(&mut s.session, o);
                self.session.abort_session(&mut s.session, o);
                self.session.close_session(&mut s.session, o);
            }
            _ => {}
        }
    }

    /// Whether the writer still owes the coordinator application its hand-off: it is at
    /// work towards its prepare, so its committable (or its failure report) is to come.
    pub fn holds(&self, s: &ResumeWriterState, held: &Held) -> bool {
        *held == Held::HandOff && s.fate == WriterFate::Working && !s.handed
    }

    /// The loop: begin (the producer's own), then prepare instead of a commit choice, then
    /// hand the prepared state over.
    fn next<A: Host>(&self, s: &mut ResumeWriterState, o: &mut Out<A>) {
        let failed = s.session.manager.tm == TxnManagerState::FatalError;
        if failed && !s.handed && s.fate == WriterFate::Working {
            // The task failed: with `writer_failover` its job fails over, which the
            // committer sees as a restore with nothing logged.
            s.fate = WriterFate::Failed;
            if self.session.design.writer_failover {
                let failure = WriterFailed {
                    txn: self.session.txn,
                };
                o.send(self.committer, Msg::WriterFailed(failure));
            }
            return;
        }
        let unprepared = s.session.manager.tm == TxnManagerState::InTransaction
            && s.session.manager.txn.as_ref().is_some_and(|t| !t.prepare);
        if unprepared {
            // The writer never commits on its own: its application prepares instead.
            o.remove_random("end");
            self.session.prepare_transaction(&mut s.session, o);
        }
        let prepared = s.session.manager.tm == TxnManagerState::PreparedTransaction
            && s.session.manager.coordinator.is_none();
        if prepared && !s.handed {
            if let (Some(producer), Some(txn)) =
                (s.session.manager.prepared, s.session.manager.txn.as_ref())
            {
                s.handed = true;
                o.send(
                    self.committer,
                    Msg::Committable(Committable {
                        txn: self.session.txn,
                        producer,
                        tag: txn.tag,
                    }),
                );
                o.choose_random(FATE, vec![ClientChoice::Vanish, ClientChoice::Wake]);
            }
        }
    }
}
