//! The coordinator application of scenario `session-resume`: the seed's 4.5 custom
//! two-phase coordinator, whose Kafka leg is completed by a committer that resumes the
//! writer's session (the seed's 4.1, Flink's `KafkaCommitter`), with the same
//! transactional id as the writer.
//!
//! Phase 1: it waits for the writer's `PreparedTxnState` (its `Committable`), records it
//! durably and asks the external participant to prepare. Once both are prepared the application decides
//! (a client choice, commit or abort) and records the decision in its own durable log
//! before acting on it. Phase 2: it tells the participant, and runs
//! `TransactionSession.resume(txnId, producerId, epoch)` and completes the transaction
//! with the decision. A crash and restart (a recovering coordinator) reads the log: with a
//! decision it resumes the Kafka leg again and repeats the decision to the participant;
//! without one it starts phase 1 again. With no committable in its log either (it crashed
//! before the writer's hand-off reached it, so the hand-off is lost), the design's
//! `committer_recovery` decides whether it aborts what the writer's transactional id left open
//! ([`Committer::presume_abort`]), and whether a resumed session fenced before it completed
//! the durable decision is resumed again ([`crate::clients::committer_recovery`]).

use crate::clients::producer::{Producer, ProducerState};
use crate::coordinator::txn_state::TxnManagerState;
use crate::protocol::external_msg::{Committable, ExternalOp, ExternalRequest};
use crate::protocol::msg::{ClientChoice, Msg, RequestKey, Timer};
use crate::protocol::output::Saves;
use crate::protocol::wait::{Answer, Down, Held, Reply, Wait};
use crate::protocol::width::Epoch;
use serde::{Deserialize, Serialize};
use stateright::actor::{Id, Out};
use std::time::Duration;

/// The coordinator application's durable log.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CommitterStorage {
    /// Which start of the process this is (a modelling device, as for producers).
    pub incarnation: Epoch,
    /// The writer's committable, once received.
    pub committable: Option<Committable>,
    /// The decision (commit = true), once made.
    pub decision: Option<bool>,
}

impl CommitterStorage {
    /// Whether the log holds the writer's committable or a decision: the transaction is
    /// in the application's hands, and no vote is awaited.
    pub fn logged(&self) -> bool {
        self.committable.is_some() || self.decision.is_some()
    }
}

/// The coordinator application's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CommitterState {
    /// Its log, as last written.
    pub log: CommitterStorage,
    /// The participant voted yes.
    pub voted: bool,
    /// The request to the participant awaiting its answer.
    pub external: Option<ExternalOp>,
    /// The participant acknowledged the decision.
    pub external_done: bool,
    /// The resumed session, once phase 2 began.
    pub session: Option<ProducerState>,
    /// Resume was acknowledged: the session holds the transaction (installed, or the
    /// InitProducerId that fenced the writer was answered).
    pub resumed: bool,
    /// The decision was handed to the session.
    pub completing: bool,
    /// A recovery without a committable is aborting whatever the writer's transactional id
    /// left open (`committer_recovery`); phase 1 waits until that session ended.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub presumed_abort: bool,
    /// Sessions this start of the process opened: the next one's connection
    /// ([`crate::protocol::ids::Connection`]), so that no session takes an earlier one's answers.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub sessions: u8,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// The coordinator application's configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Committer {
    /// The committer's `TransactionManager` (the writer's transactional id, no partition).
    pub session: Producer,
    /// The external participant.
    pub external: Id,
    /// The writer whose hand-off it waits for.
    pub writer: Id,
}

const DECIDE: &str = "decide";

impl Committer {
    /// Start or recovery from the log.
    pub fn on_start<A: Saves<CommitterStorage>>(
        &self,
        storage: Option<&CommitterStorage>,
        o: &mut Out<A>,
    ) -> CommitterState {
        let log = CommitterStorage {
            incarnation: storage.map_or(0, |s| s.incarnation + 1),
            committable: storage.and_then(|s| s.committable.clone()),
            decision: storage.and_then(|s| s.decision),
        };
        o.save(log.clone().into());
        let mut s = CommitterState {
            log,
            voted: false,
            external: None,
            external_done: false,
            session: None,
            resumed: false,
            completing: false,
            presumed_abort: false,
            sessions: 0,
        };
        self.await_vote(&s, o);
        match s.log.decision {
            Some(commit) => self.phase_two(&mut s, commit, o),
            None if s.log.committable.is_some() => self.ask(&mut s, ExternalOp::Prepare, o),
            None if storage.is_some() && self.session.design.committer_recovery => {
                self.presume_abort(&mut s, o)
            }
            None => {}
        }
        s
    }

    /// The writer's committable, the participant's answers, and the session's responses.
    pub fn on_msg<A: Saves<CommitterStorage>>(
        &self,
        s: &mut CommitterState,
        src: Id,
        msg: Msg,
        o: &mut Out<A>,
    ) {
        match msg {
            Msg::Committable(c) => {
                o.cancel_timer(Timer::VoteTimeout);
                if s.log.committable.is_none() && s.log.decision.is_none() {
                    s.log.committable = Some(c);
                    o.save(s.log.clone().into());
                    // Phase 1's other leg: the database prepares once the Kafka leg has.
                    self.ask(s, ExternalOp::Prepare, o);
                }
            }
            Msg::WriterFailed(_) => self.writer_failed(s, o),
            Msg::ExternalResponse(r) => {
                if s.external != Some(r.op) {
                    return;
                }
                s.external = None;
                o.cancel_timer(Timer::RequestTimeout(RequestKey::External));
                match r.op {
                    ExternalOp::Prepare => s.voted = true,
                    _ => s.external_done = true,
                }
            }
            other => {
                if let Some(session) = s.session.as_mut() {
                    self.session.on_msg(session, src, other, o);
                }
            }
        }
        self.next(s, o);
    }

    /// The participant's request timed out: ask again (it is idempotent); the session's
    /// own timeouts go to it.
    pub fn on_timeout<A: Saves<CommitterStorage>>(
        &self,
        s: &mut CommitterState,
        timer: Timer,
        o: &mut Out<A>,
    ) {
        if timer == Timer::RequestTimeout(RequestKey::External) {
            if let Some(op) = s.external {
                self.ask(s, op, o);
            }
        } else if timer == Timer::VoteTimeout {
            self.vote_timed_out(s, o);
        } else if let Some(session) = s.session.as_mut() {
            self.session.on_timeout(session, timer, o);
        }
        self.next(s, o);
    }

    /// The application's decision, once both legs are prepared.
    pub fn on_choice<A: Saves<CommitterStorage>>(
        &self,
        s: &mut CommitterState,
        choice: ClientChoice,
        o: &mut Out<A>,
    ) {
        let commit = match choice {
            ClientChoice::Commit => true,
            ClientChoice::Abort => false,
            _ => return,
        };
        if s.log.decision.is_some() || !self.may_decide(s) {
            return;
        }
        self.decide(s, commit, o);
    }

    /// Both legs are prepared and, with `decide_after_resume`, the Kafka leg is resumed.
    fn may_decide(&self, s: &CommitterState) -> bool {
        s.voted
            && s.log.committable.is_some()
            && (!self.session.design.decide_after_resume || s.resumed)
    }

    /// Records the decision durably, then acts on it.
    fn decide<A: Saves<CommitterStorage>>(
        &self,
        s: &mut CommitterState,
        commit: bool,
        o: &mut Out<A>,
    ) {
        o.choose_random(DECIDE, Vec::new());
        s.log.decision = Some(commit);
        o.save(s.log.clone().into());
        self.phase_two(s, commit, o);
    }

    fn ask<A: Saves<CommitterStorage>>(
        &self,
        s: &mut CommitterState,
        op: ExternalOp,
        o: &mut Out<A>,
    ) {
        s.external = Some(op);
        o.send(self.external, Msg::ExternalRequest(ExternalRequest { op }));
        o.set_timer(Timer::RequestTimeout(RequestKey::External), no_delay());
    }

    /// Phase 2: the decision to the participant, and the Kafka leg resumed (unless it was
    /// resumed before the decision) and completed.
    fn phase_two<A: Saves<CommitterStorage>>(
        &self,
        s: &mut CommitterState,
        commit: bool,
        o: &mut Out<A>,
    ) {
        let op = if commit {
            ExternalOp::Commit
        } else {
            ExternalOp::Abort
        };
        self.ask(s, op, o);
        self.resume(s, o);
        self.next(s, o);
    }

    /// `TransactionSession.resume(txnId, producerId, epoch)` with the writer's committable.
    pub(crate) fn resume<A: Saves<CommitterStorage>>(
        &self,
        s: &mut CommitterState,
        o: &mut Out<A>,
    ) {
        if s.session.is_some() {
            return;
        }
        if let Some(c) = s.log.committable.clone() {
            let connection = s.open_connection();
            s.session = Some(
                self.session
                    .resume_session(s.log.incarnation, &c, connection, o),
            );
        }
    }

    /// Resumes early when the design says so, offers the decision once it may be taken
    /// (or takes abort when the resumed transaction is gone), and completes the resumed
    /// session once it holds the transaction.
    pub(crate) fn next<A: Saves<CommitterStorage>>(&self, s: &mut CommitterState, o: &mut Out<A>) {
        if self.presumed_abort_pending(s, o) {
            return;
        }
        if self.resume_after_fatal(s, o) {
            self.next(s, o);
            return;
        }
        let early = self.session.design.decide_after_resume;
        if early && s.log.decision.is_none() && s.voted && s.log.committable.is_some() {
            self.resume(s, o);
        }
        if let Some(session) = s.session.as_mut() {
            if let Some(c) = &s.log.committable {
                // The kept transaction is the writer's attempt: its ghost tag follows the
                // transaction, not the process that completes it.
                if let Some(txn) = session.manager.txn.as_mut() {
                    txn.tag = c.tag;
                }
            }
            if Producer::holds_resumed(session) {
                s.resumed = true;
            }
        }
        match s.log.decision {
            None => {
                // InitProducerId(keepPreparedTxn=true) found no ongoing transaction: the
                // prepared transaction was aborted (by its writer, or timed out) before the
                // fence, so the only decision left is abort.
                let gone = early
                    && !s.resumed
                    && s.session.as_ref().is_some_and(|p| {
                        p.manager.tm == TxnManagerState::Ready && p.manager.txn.is_none()
                    });
                if gone && s.voted {
                    self.decide(s, false, o);
                    return;
                }
                let offer = if self.may_decide(s) {
                    vec![ClientChoice::Commit, ClientChoice::Abort]
                } else {
                    Vec::new()
                };
                o.choose_random(DECIDE, offer);
            }
            Some(commit) => {
                let Some(session) = s.session.as_mut() else {
                    return;
                };
                if !s.completing && Producer::holds_resumed(session) {
                    s.completing = true;
                    let stored = s.log.committable.as_ref().map(|c| c.producer);
                    let prepared = if commit { stored } else { None };
                    self.session.complete_resumed(session, prepared, o);
                }
            }
        }
    }
}

/// What the committer's timers wait for (see [`crate::protocol::wait`]).
impl Committer {
    /// What `timer` waits for. The request to the external participant can no longer be
    /// answered once neither it nor its answer is in flight (a crash of the participant
    /// drops both); a resend to a participant that is down waits for its restart. The
    /// session's timers wait for what a session's do.
    pub fn wait(&self, s: &CommitterState, timer: &Timer) -> Wait {
        match (timer, s.session.as_ref()) {
            (Timer::RequestTimeout(RequestKey::External), _) => Wait::Reply(Reply {
                peer: self.external,
                answer: Answer::Any,
                held: None,
                down: Down::InFlightArrives,
            }),
            // Due once the hand-off is lost: nothing of it in flight, and the writer no
            // longer at work towards it.
            (Timer::VoteTimeout, _) => Wait::Reply(Reply {
                peer: self.writer,
                answer: Answer::HandOff,
                held: Some(Held::HandOff),
                down: Down::InFlightArrives,
            }),
            (_, Some(session)) => self.session.wait(session, timer),
            (_, None) => Wait::Always,
        }
    }

    /// Where the outstanding request `key` went.
    pub fn request_destination(&self, s: &CommitterState, key: RequestKey) -> Option<Id> {
        match (key, s.session.as_ref()) {
            (RequestKey::External, _) => Some(self.external),
            (_, Some(session)) => self.session.request_destination(session, key),
            (_, None) => None,
        }
    }
}

pub(crate) fn no_delay() -> std::ops::Range<Duration> {
    Duration::ZERO..Duration::ZERO
}
