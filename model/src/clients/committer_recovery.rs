//! The 2PC coordinator application's recovery of the Kafka leg ([`Committer`]): the
//! presumed abort of a restart that finds no committable (`committer_recovery`), its retry
//! when its session went fatal (`recovery_retry`), the resume again of a resumed session
//! gone fatal, and the job's failover when the writer failed before its hand-off
//! (`writer_failover`), and the presumed abort when the writer's vote does not come
//! (`vote_timeout`).
//!
//! Each session is a `TransactionManager` of its own on a connection of its own
//! ([`Connection`]): a session replaced after a request timed out never takes the answer
//! that request still gets, as Kafka's `NetworkClient` drops the answers of a closed
//! connection.

use crate::clients::committer::{no_delay, Committer, CommitterState, CommitterStorage};
use crate::clients::producer::Producer;
use crate::coordinator::txn_state::TxnManagerState;
use crate::protocol::ids::Connection;
use crate::protocol::msg::Timer;
use crate::protocol::output::Saves;
use stateright::actor::Out;

impl CommitterState {
    /// The connection of the next session this process opens.
    pub(crate) fn open_connection(&mut self) -> Connection {
        let connection = Connection {
            incarnation: self.log.incarnation,
            session: self.sessions,
        };
        self.sessions = self.sessions.wrapping_add(1);
        connection
    }
}

impl Committer {
    /// Recovery with neither a committable nor a decision in the log: the writer's hand-off
    /// died with the crashed process, so nothing will ever complete a transaction the
    /// writer prepared, and a 2PC transaction never times out. KIP-939's recovery for an
    /// external coordinator: InitProducerId(keepPreparedTxn=true) under the writer's
    /// transactional id (which fences the writer) returns the prepared transaction, and
    /// `completeTransaction` with a state that does not match aborts it (presumed abort:
    /// the participant was never asked to prepare, since the committable is logged before
    /// that). Flink's `KafkaSink` does the same on restore, aborting the lingering
    /// transactions of its transactional ids. Nothing is logged: a committable that still
    /// arrives starts phase 1 once this session ended, and finds the transaction gone.
    pub(crate) fn presume_abort<A: Saves<CommitterStorage>>(
        &self,
        s: &mut CommitterState,
        o: &mut Out<A>,
    ) {
        s.presumed_abort = true;
        s.completing = false;
        let connection = s.open_connection();
        s.session = Some(self.session.init_transactions_2pc(
            s.log.incarnation,
            self.session.design.two_phase_commit,
            true,
            connection,
            o,
        ));
    }

    /// The presumed abort's session: abort what InitProducerId kept, and once it ended
    /// (nothing kept, the abort answered, or the session fatal), drop the session so that
    /// phase 1 resumes with a fresh one. Whether the recovery is still under way.
    pub(crate) fn presumed_abort_pending<A: Saves<CommitterStorage>>(
        &self,
        s: &mut CommitterState,
        o: &mut Out<A>,
    ) -> bool {
        if !s.presumed_abort {
            return false;
        }
        let Some(session) = s.session.as_mut() else {
            s.presumed_abort = false;
            return false;
        };
        if !s.completing && Producer::holds_resumed(session) {
            s.completing = true;
            self.session.complete_resumed(session, None, o);
        }
        let failed = session.manager.tm == TxnManagerState::FatalError;
        // A fatal session ended too, even holding the kept transaction: it will send
        // nothing more.
        let ended = failed
            || (session.manager.coordinator.is_none()
                && session.manager.txn.is_none()
                && session.manager.tm == TxnManagerState::Ready);
        if !ended {
            return true;
        }
        s.completing = false;
        if failed && self.session.design.recovery_retry {
            // `initTransactions` or `completeTransaction` threw (a request timed out with
            // no retries left): the application closes that producer and runs the recovery
            // again on a new one, since nothing else will end a prepared 2PC transaction.
            self.presume_abort(s, o);
            return true;
        }
        s.presumed_abort = false;
        s.session = None;
        false
    }

    /// A resumed session gone fatal before the Kafka leg is done: replace it and resume
    /// again. With `committer_recovery`, one fenced while completing the durable decision
    /// (an InitProducerId of an earlier session or process reached the coordinator after
    /// this session's, bumping the epoch), as the recovery a restart would run; with
    /// `recovery_retry` also one whose resume or EndTxn timed out, in either phase, as the
    /// application does when `initTransactions` or `completeTransaction` throws. Whether
    /// the session was replaced.
    pub(crate) fn resume_after_fatal<A: Saves<CommitterStorage>>(
        &self,
        s: &mut CommitterState,
        o: &mut Out<A>,
    ) -> bool {
        let fatal = s
            .session
            .as_ref()
            .is_some_and(|p| p.manager.tm == TxnManagerState::FatalError);
        if s.presumed_abort || !fatal {
            return false;
        }
        let design = &self.session.design;
        let fenced_completing =
            s.completing && s.log.decision.is_some() && design.committer_recovery;
        if !fenced_completing && !design.recovery_retry {
            return false;
        }
        s.session = None;
        s.completing = false;
        self.resume(s, o);
        true
    }

    /// The writer failed before its hand-off (`writer_failover`): Flink fails the job over
    /// to its last checkpoint, and the committer restored with nothing logged runs the
    /// presumed abort again on a fresh session. Needed because an InitProducerId of an
    /// earlier recovery that timed out can still reach the coordinator after the writer
    /// began: KIP-939's coordinator keeps any ONGOING transaction (it has no PREPARED
    /// state), so it keeps the writer's unprepared transaction, fences the writer, and
    /// its answer goes to a closed connection.
    pub(crate) fn writer_failed<A: Saves<CommitterStorage>>(
        &self,
        s: &mut CommitterState,
        o: &mut Out<A>,
    ) {
        o.cancel_timer(Timer::VoteTimeout);
        if !self.session.design.writer_failover || s.log.logged() {
            return;
        }
        self.presume_abort(s, o);
    }

    /// With `vote_timeout`, a start that has neither a committable nor a decision waits for
    /// the writer's vote for a bounded time ([`Timer::VoteTimeout`]).
    pub(crate) fn await_vote<A: Saves<CommitterStorage>>(
        &self,
        s: &CommitterState,
        o: &mut Out<A>,
    ) {
        if self.session.design.vote_timeout && !s.log.logged() {
            o.set_timer(Timer::VoteTimeout, no_delay());
        }
    }

    /// The writer's vote did not come in time: its hand-off was lost (or is slow). A 2PC
    /// coordinator presumes abort for a participant that did not vote; Flink declares the
    /// checkpoint failed and fails the job over to the last one, whose restored committer
    /// has nothing logged and aborts what the writer's transactional id left open. Either
    /// way, a committable that still arrives finds its transaction gone and is aborted.
    pub(crate) fn vote_timed_out<A: Saves<CommitterStorage>>(
        &self,
        s: &mut CommitterState,
        o: &mut Out<A>,
    ) {
        if s.log.logged() {
            return;
        }
        if s.presumed_abort {
            // A presumed abort of `committer_recovery` or `writer_failover` is under way,
            // but its InitProducerId may have reached the coordinator before the writer
            // began: once it ended, abort again.
            o.set_timer(Timer::VoteTimeout, no_delay());
        } else {
            self.presume_abort(s, o);
        }
    }
}
