//! Wire formats per design (docs/wire.md): which of the model's optional message fields a
//! design's text gives its RPCs, and the check that a message sent carries nothing more.
//!
//! Every field of Kafka's own schemas, the model's correlation stand-ins (a response's
//! echo of its request) and the ghost values ([`crate::protocol::ghost::Ghost`]) are
//! in every format. What differs between `seed` (KIP-1289 section 4.2), `draft`
//! (apache/kafka#22357) and `proposed` is listed in [`WireFormat`], each field tied to
//! the knob whose handler reads it, so a design with a knob moved carries what that knob
//! needs. The check runs on each envelope the world puts on its network, whoever sent it.

use crate::design::spl_knobs::{LeaderResolution, StageOwnerCheck};
use crate::design::Design;
use crate::protocol::ids::MemberId;
use crate::protocol::msg::Msg;
use crate::protocol::txn_share_msg::TxnShareAcknowledgeRequest;
use crate::world::action_ref::EnvelopeRef;
use crate::world::record::{Outgoing, Record};
use crate::world::scenario::Role;
use crate::world::system::System;

/// The design-dependent part of the wire: each flag says a field (or a whole RPC) is in
/// the design's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireFormat {
    /// A client's TxnShareAcknowledge goes to the share-partition leader (the draft's
    /// KafkaApis handler on the leader), not to the share coordinator (the seed's).
    pub txn_share_ack_to_leader: bool,
    /// A client's TxnShareAcknowledge names the member (the draft's `MemberId`; the
    /// seed's section 4.2 schema has none).
    pub txn_share_ack_member: bool,
    /// A client's TxnShareAcknowledge names the acquisitions it acknowledges (offset and
    /// delivery count, as ShareFetch's `AcquiredRecords` gave them): proposed's addition.
    pub txn_share_ack_deliveries: bool,
    /// The leader's staging at the share coordinator carries the leader's delivery
    /// counts, as a persisted `StateBatch` carries `DeliveryCount`.
    pub staging_deliveries: bool,
    /// The leader's staging asks the share coordinator to tell it the outcome: proposed's
    /// addition, with the TxnShareAcksResolved RPC that answers it.
    pub staging_notify: bool,
    /// The leader's staging carries its leader epoch for the share coordinator to fence
    /// (`stage_leader_epoch`): proposed's addition.
    pub staging_leader_epoch: bool,
    /// TxnShareAcksResolvedResponse names the outcome and offsets it answers
    /// (`outcome_per_transaction`): proposed's addition.
    pub resolved_answer_offsets: bool,
    /// ReadShareGroupState asks for, and its response carries, the pending transactional
    /// acknowledgements: proposed's addition.
    pub read_pending: bool,
    /// KIP-1309's TxnHeartbeat (a draft KIP, no design of KIP-1289's).
    pub txn_heartbeat: bool,
}

impl Design {
    /// The optional fields this design's messages may carry (docs/wire.md).
    pub fn wire_format(&self) -> WireFormat {
        WireFormat {
            txn_share_ack_to_leader: self.stage_at_leader,
            txn_share_ack_member: self.stage_owner_check != StageOwnerCheck::None,
            txn_share_ack_deliveries: self.stage_owner_check == StageOwnerCheck::Acquisition,
            staging_deliveries: self.stage_at_leader,
            staging_notify: self.stage_at_leader
                && self.leader_resolution == LeaderResolution::Notify,
            staging_leader_epoch: self.stage_at_leader && self.stage_leader_epoch,
            resolved_answer_offsets: self.stage_at_leader
                && self.leader_resolution == LeaderResolution::Notify
                && self.outcome_per_transaction,
            read_pending: self.rebuild_pending,
            txn_heartbeat: self.txn_heartbeat,
        }
    }
}

impl WireFormat {
    /// The fields (Kafka's names, as docs/wire.md lists them) that `msg`, sent by a `from`
    /// to a `to`, carries outside this format; empty when it fits.
    pub fn excess(&self, from: Role, to: Role, msg: &Msg) -> Vec<&'static str> {
        let mut out = Vec::new();
        let mut outside = |carried: bool, allowed: bool, field: &'static str| {
            if carried && !allowed {
                out.push(field);
            }
        };
        match msg {
            Msg::TxnShareAcknowledge(r) if from == Role::SharePartition => {
                self.staging_excess(r, &mut outside);
            }
            Msg::TxnShareAcknowledge(r) => {
                self.client_staging_excess(to == Role::SharePartition, r, &mut outside);
            }
            Msg::ReadShareGroupState(r) => {
                outside(r.pending, self.read_pending, "ReadShareGroupState.Pending");
            }
            Msg::ReadShareGroupStateResponse(r) => {
                outside(
                    !r.pending.is_empty(),
                    self.read_pending,
                    "ReadShareGroupStateResponse.PendingAcks",
                );
            }
            Msg::TxnShareAcksResolved(_) => {
                outside(true, self.staging_notify, "TxnShareAcksResolved");
            }
            Msg::TxnShareAcksResolvedResponse(r) => {
                outside(true, self.staging_notify, "TxnShareAcksResolved");
                outside(
                    r.answered.is_some(),
                    self.resolved_answer_offsets,
                    "TxnShareAcksResolvedResponse.Outcome and Offsets",
                );
            }
            Msg::TxnHeartbeat(_) | Msg::TxnHeartbeatResponse(_) => {
                outside(true, self.txn_heartbeat, "TxnHeartbeat");
            }
            _ => {}
        }
        out
    }

    /// A share-partition leader's staging at the share coordinator.
    fn staging_excess(
        &self,
        r: &TxnShareAcknowledgeRequest,
        outside: &mut impl FnMut(bool, bool, &'static str),
    ) {
        outside(
            true,
            self.txn_share_ack_to_leader,
            "TxnShareAcknowledge (leader staging)",
        );
        outside(
            r.member != MemberId::NONE,
            false,
            "TxnShareAcknowledge.MemberId (leader staging)",
        );
        outside(
            !r.deliveries.is_empty(),
            self.staging_deliveries,
            "TxnShareAcknowledge.DeliveryCount (leader staging)",
        );
        outside(r.notify, self.staging_notify, "TxnShareAcknowledge.Notify");
        outside(
            r.leader_epoch.is_some(),
            self.staging_leader_epoch,
            "TxnShareAcknowledge.LeaderEpoch (leader staging)",
        );
    }

    /// A client's TxnShareAcknowledge, to the leader (`at_leader`) or the share coordinator.
    fn client_staging_excess(
        &self,
        at_leader: bool,
        r: &TxnShareAcknowledgeRequest,
        outside: &mut impl FnMut(bool, bool, &'static str),
    ) {
        outside(
            at_leader,
            self.txn_share_ack_to_leader,
            "TxnShareAcknowledge to the share-partition leader",
        );
        outside(
            !at_leader,
            !self.txn_share_ack_to_leader,
            "TxnShareAcknowledge to the share coordinator",
        );
        outside(
            r.member != MemberId::NONE,
            self.txn_share_ack_member,
            "TxnShareAcknowledge.MemberId",
        );
        outside(
            !r.deliveries.is_empty(),
            self.txn_share_ack_deliveries,
            "TxnShareAcknowledge.DeliveryCount",
        );
        outside(
            !r.members.is_empty(),
            self.txn_share_ack_deliveries,
            "TxnShareAcknowledge.AcknowledgementBatches.MemberId",
        );
        outside(
            r.notify,
            false,
            "TxnShareAcknowledge.Notify (from a client)",
        );
        outside(
            r.leader_epoch.is_some(),
            false,
            "TxnShareAcknowledge.LeaderEpoch (from a client)",
        );
    }
}

impl<H: Record> System<H> {
    /// The fields `env` carries outside the design's wire format: the world's check on
    /// every message it sends, whichever handler built it.
    pub fn wire_excess(&self, env: EnvelopeRef<'_>) -> Vec<&'static str> {
        self.design.wire_format().excess(
            self.topology.role(env.src),
            self.topology.role(env.dst),
            env.msg,
        )
    }

    /// With `strict_wire_format`, a debug build stops at the first message sent outside
    /// the design's format, at the step that sent it.
    pub(crate) fn debug_check_wire(&self, sent: &[Outgoing]) {
        if cfg!(debug_assertions) && self.design.strict_wire_format {
            for out in sent {
                let env = out.env();
                let excess = self.wire_excess(env);
                assert!(
                    excess.is_empty(),
                    "{env:?} carries {excess:?} outside its wire format"
                );
            }
        }
    }
}
