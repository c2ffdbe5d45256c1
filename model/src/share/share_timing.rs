//! What the share-partition leader's timers wait for, and the requests it holds (see
//! [`crate::protocol::wait`]); the closed world judges from these whether a firing is
//! due or early.

use crate::protocol::msg::{RequestKey, Timer};
use crate::protocol::record_state::RecordState;
use crate::protocol::share_msg::AcquiredRecord;
use crate::protocol::wait::{self, Answer, Down, Held, Reply, Wait};
use crate::share::share_partition::{SharePartition, SharePartitionState};
use crate::share::share_partition_txn::{answers_parked, has_unstaged, holds_reply};
use stateright::actor::Id;

impl SharePartition {
    /// What `timer` waits for.
    pub fn wait(&self, s: &SharePartitionState, timer: &Timer) -> Wait {
        // While the share coordinator is down the persister waits for its restart (it
        // finds the new coordinator), so its requests are lost only with a live one.
        let coordinator = |answer| {
            Wait::Reply(Reply {
                peer: self.share_coordinator,
                answer,
                held: None,
                down: Down::Waits,
            })
        };
        match *timer {
            Timer::AcquisitionLock(offset) => lock_wait(s, offset),
            Timer::PersisterTimeout(write) if s.writes.contains_key(&write) => {
                coordinator(Answer::Write {
                    leader_epoch: s.leader_epoch,
                    write,
                })
            }
            // The load's read, or a refresh's (`refresh`, `refresh-guarded`).
            Timer::ReadStateTimeout if !s.loaded || s.refreshing => coordinator(Answer::Read {
                leader_epoch: s.leader_epoch,
            }),
            Timer::StageRetry if has_unstaged(s) => coordinator(Answer::Stage),
            // `spl-move`: the old leader's broker applies the move's metadata at its own
            // pace. The checker lets it land while a client's request waits on this
            // leader (a fetch parked or queued for the load, a staging's or a write's
            // answer), where it decides what the client hears; while nothing waits it
            // changes nothing a client sees before its next request, and the old leader's
            // own late writes are fenced by the share coordinator either way.
            Timer::LeaderMove if !holds_client(s) => Wait::Never,
            // `refresh()` is the leader's own re-read: nothing it waits for, so always due.
            _ => Wait::Always,
        }
    }

    /// Whether the leader holds `held` from `from` unanswered.
    pub fn holds(&self, s: &SharePartitionState, from: Id, held: &Held) -> bool {
        let loading = |f: &dyn Fn(&crate::protocol::msg::Msg) -> bool| {
            s.loading.iter().any(|(src, msg)| *src == from && f(msg))
        };
        match *held {
            // A ShareFetch waiting for the leader to load its state will be answered; a
            // parked one (no record available) is what `poll` timing out stands for.
            // A parked poll is an answer to the poll only: counting it for a staging would
            // hold the staging's timeout back while the poll waits for that very
            // transaction to end (found by the simulator on `proposed`: a lost
            // TxnShareAcknowledgeResponse next to a duplicated ShareFetch left the
            // transaction open for ever).
            Held::Request(key) => {
                loading(&|_| true)
                    || holds_reply(s, from)
                    || (!matches!(
                        key,
                        RequestKey::TxnShareAcknowledge | RequestKey::TxnShareAcknowledgeOf(_)
                    ) && answers_parked(s, from))
            }
            // A share session's request waits for the state, for records (long poll), or
            // for the write of its acknowledgements.
            Held::Session => {
                loading(&|_| true)
                    || s.parked.iter().any(|(src, _, _)| *src == from)
                    || s.writes
                        .values()
                        .any(|w| w.reply.as_ref().is_some_and(|r| r.src == from))
            }
            // An outcome that arrived before the state was loaded is applied after it.
            Held::Outcome(producer) => s.loading.iter().any(|(_, msg)| {
                matches!(msg, crate::protocol::msg::Msg::TxnShareAcksResolved(q) if q.producer == producer)
            }),
            Held::Acquisition(record) => loading(&|msg| wait::acknowledges(msg, record)),
            _ => false,
        }
    }
}

/// Whether a client's request waits on the leader: a fetch parked or queued for the load,
/// a staging's answer, or a write's.
fn holds_client(s: &SharePartitionState) -> bool {
    !s.parked.is_empty()
        || !s.loading.is_empty()
        || s.records
            .values()
            .any(|r| r.staged.as_ref().is_some_and(|st| st.reply.is_some()))
        || s.writes.values().any(|w| w.reply.is_some())
}

/// An acquisition lock is due when no acknowledgement of that acquisition can still reach
/// the leader: the holder crashed, stalled past its lock (a client choice), or holds the
/// record nowhere (its delivery or its acknowledgement was lost, or its session was reset).
/// While the acknowledgement's write is in progress the lock is not due: that race is the
/// write's timing against a 30 s lock. A lock on a record that is no longer ACQUIRED (the
/// KAFKA-19476 timer that was not cancelled) is due: nothing stops it.
fn lock_wait(s: &SharePartitionState, offset: crate::protocol::width::Offset) -> Wait {
    let Some(rec) = s.records.get(&offset) else {
        return Wait::Always;
    };
    if rec.state != RecordState::Acquired {
        return Wait::Always;
    }
    if rec.ongoing.is_some() {
        return Wait::Never;
    }
    match rec.member {
        Some(member) => Wait::Acquisition {
            member,
            record: AcquiredRecord {
                offset,
                delivery_count: rec.delivery_count,
            },
        },
        None => Wait::Always,
    }
}
