//! The group coordinator's `__consumer_offsets` partition, reduced to what transactional
//! offset commits need (`OffsetMetadataManager`): TxnOffsetCommit writes offsets with the
//! producer's id and epoch through the same log layer as data (with KIP-890 verification;
//! under TV2 the implicit add of TxnOffsetCommit v5), markers resolve them
//! (`completeTransaction` -> `replayEndTransactionMarker`: on COMMIT an offset is
//! materialised only if its record is later in the log than the committed one, which is
//! what "latest committed record by log position" computes), and OffsetFetch with
//! `RequireStable` answers UNSTABLE_OFFSET_COMMIT while offsets are pending (KIP-447).
//! Pending and committed offsets are derived from the log, so a reload rebuilds them
//! exactly, as `CoordinatorLoaderImpl` does.

use crate::design::Design;
use crate::partition::leader::{LeaderState, LeaderStorage};
use crate::partition::parked_write::{
    leader_wait, verifications_from, void_guard, VerifiedWrite, Verifier,
};
use crate::partition::partition_log::{AppendCheck, PartitionLog, Payload, RecordStatus};
use crate::protocol::error::ErrorCode;
use crate::protocol::ids::*;
use crate::protocol::msg::*;
use crate::protocol::output::Saves;
use crate::protocol::wait::{Held, Wait};
use crate::protocol::width::Offset;
use stateright::actor::{Id, Out};

/// The group coordinator's state.
pub type GroupCoordinatorState = LeaderState<TxnOffsetCommitRequest>;

/// The group coordinator's configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GroupCoordinator {
    /// The transaction coordinator (for verification).
    pub txn_coordinator: Id,
    /// The design.
    pub design: Design,
    /// Scenario field `resets`: the share group an admin may reset (none without resets).
    pub share_admin: Option<crate::coordinator::share_group_admin::ShareGroupAdmin>,
}

/// The committed offset of the group: the latest committed offset record, else 0.
pub fn committed_offset(log: &PartitionLog) -> Offset {
    log.data()
        .filter(|(_, _, _, s)| *s == RecordStatus::Committed)
        .filter_map(|(_, _, p, _)| match p {
            Payload::Offset { offset, .. } => Some(offset),
            Payload::Output(_) => None,
        })
        .last()
        .unwrap_or(0)
}

/// Whether any offset commit is still pending in a transaction.
pub fn has_pending_offsets(log: &PartitionLog) -> bool {
    log.data().any(|(_, _, _, s)| s == RecordStatus::Pending)
}

impl GroupCoordinator {
    /// Loads the coordinator from its log.
    pub fn on_start<A: Saves<LeaderStorage>>(
        &self,
        storage: Option<&LeaderStorage>,
        o: &mut Out<A>,
    ) -> GroupCoordinatorState {
        let (state, storage) = LeaderState::load(&storage.cloned());
        o.save(storage.into());
        self.offer_reset(&state, o);
        state
    }

    /// Handles TxnOffsetCommit, OffsetFetch, verification answers and markers.
    pub fn on_msg<A: Saves<LeaderStorage>>(
        &self,
        state: &mut GroupCoordinatorState,
        src: Id,
        msg: Msg,
        o: &mut Out<A>,
    ) {
        match msg {
            Msg::TxnOffsetCommit(req) => self.commit(state, src, req, false, o),
            Msg::OffsetFetch(req) => {
                // KIP-447: the consumer retries UNSTABLE_OFFSET_COMMIT until the pending
                // offsets resolve; polling changes nothing, so the fetch waits here and is
                // answered when a marker resolves them.
                if req.require_stable && has_pending_offsets(&state.log) {
                    if !state.waiting_fetches.contains(&src) {
                        state.waiting_fetches.push(src);
                    }
                } else {
                    let offset = committed_offset(&state.log);
                    o.send(
                        src,
                        Msg::OffsetFetchResponse(OffsetFetchResponse {
                            error: ErrorCode::None,
                            offset,
                        }),
                    );
                }
            }
            Msg::AddPartitionsToTxnResponse(resp) => {
                if let Some(parked) = self.verifier().resume(&mut state.verifying, &resp, o) {
                    self.commit(state, parked.src, parked.request, true, o);
                }
            }
            Msg::WriteTxnMarkers(req) => {
                let error = state.log.write_marker(&req);
                if error == ErrorCode::None {
                    o.save(state.storage().into());
                    void_guard(&mut state.verifying, req.producer.pid);
                    if !has_pending_offsets(&state.log) {
                        let offset = committed_offset(&state.log);
                        for dst in std::mem::take(&mut state.waiting_fetches) {
                            o.send(
                                dst,
                                Msg::OffsetFetchResponse(OffsetFetchResponse {
                                    error: ErrorCode::None,
                                    offset,
                                }),
                            );
                        }
                    }
                }
                o.send(src, req.response(error));
            }
            _ => {}
        }
    }

    /// The inter-broker request timeout of the verification of `pid` ran out.
    pub fn on_timeout<A: Saves<LeaderStorage>>(
        &self,
        state: &mut GroupCoordinatorState,
        timer: Timer,
        o: &mut Out<A>,
    ) {
        if let Timer::VerificationTimeout(at) = timer {
            self.verifier().time_out(&mut state.verifying, at, o);
        }
    }

    fn verifier(&self) -> Verifier {
        Verifier {
            txn_coordinator: self.txn_coordinator,
            tv: self.design.tv,
            partition: TopicPartition::ConsumerOffsets,
            join_voided: false,
            // One partition, so one key.
            key: 0,
        }
    }

    fn commit<A: Saves<LeaderStorage>>(
        &self,
        state: &mut GroupCoordinatorState,
        src: Id,
        req: TxnOffsetCommitRequest,
        verified: bool,
        o: &mut Out<A>,
    ) {
        let check = state.log.check_append(
            req.producer,
            None,
            self.design.tv,
            self.design.verification || self.design.tv.bumps_epoch_per_txn(),
            verified,
        );
        match check {
            AppendCheck::Append => {
                state.log.append(
                    req.producer,
                    None,
                    Payload::Offset {
                        offset: req.offset,
                        tag: req.tag,
                    },
                );
                o.save(state.storage().into());
                reply(o, src, &req, ErrorCode::None);
            }
            AppendCheck::Duplicate => reply(o, src, &req, ErrorCode::None),
            AppendCheck::Reject(e) => reply(o, src, &req, e),
            AppendCheck::NeedsVerification => {
                let guard = state.guard();
                self.verifier()
                    .park(&mut state.verifying, guard, src, req, o);
            }
        }
    }
}

fn reply<A: Saves<LeaderStorage>>(
    o: &mut Out<A>,
    dst: Id,
    req: &TxnOffsetCommitRequest,
    error: ErrorCode,
) {
    o.send(dst, req.response(error));
}

/// What the group coordinator's timers wait for, and the requests it holds (see
/// [`crate::protocol::wait`]).
impl GroupCoordinator {
    /// What `timer` waits for: only verifications arm timers here.
    pub fn wait(&self, state: &GroupCoordinatorState, timer: &Timer) -> Wait {
        leader_wait(&state.verifying, timer, self.txn_coordinator)
    }

    /// Whether an OffsetFetch of `from` waits here for a pending transactional offset
    /// commit to complete (`GroupCoordinator.handleFetchOffsets` with `requireStable`).
    pub fn holds(&self, state: &GroupCoordinatorState, from: Id, held: &Held) -> bool {
        matches!(held, Held::Request(_)) && state.waiting_fetches.contains(&from)
    }

    /// The verifications in progress for commits from `client`.
    pub fn verifications_from(&self, state: &GroupCoordinatorState, client: Id) -> Vec<Wait> {
        verifications_from(&state.verifying, client, self.txn_coordinator)
    }
}
