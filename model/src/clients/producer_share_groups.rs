//! The KIP-1289 client of two share groups (scenario `ctp-two-groups`): one
//! consume-transform-produce loop whose transaction carries the acknowledgements of two
//! share groups, as a Flink job whose sources read two groups commits both in its
//! checkpoint's transaction.
//!
//! The client is a member of each group; each group has one share partition (group `g`'s
//! leader is share partition `g`'s, `SP0` and `SP1`). Per transaction it polls group 0's
//! leader, holds the record, polls group 1's leader and holds that record too (a poll that
//! finds nothing leaves the transaction with the one record it has), then writes each
//! record's output to the output partition of its group and calls
//! `sendShareAcksToTransaction` once per group: AddShareAcksToTxn naming the group, and
//! once it is answered the group's TxnShareAcknowledge, to the group's leader (or the share
//! coordinator). The next group's add goes out when the previous one is answered, as the
//! `TransactionManager` sends one coordinator request at a time; EndTxn waits for both adds.
//!
//! With one group none of this runs: every function here leaves the one-group path as it
//! was (`groups` is 1 and the fields it keeps stay at their defaults).

use crate::clients::producer::{Producer, ProducerState};
use crate::clients::producer_share::ShareClientState;
use crate::protocol::ghost::Ghost;
use crate::protocol::ids::{GroupId, PartitionIndex, TxnTag};
use crate::protocol::msg::{OutputRecord, RequestKey};
use crate::protocol::output::Host;
use crate::protocol::share_msg::AcquiredRecord;
use crate::protocol::wait::Holding;
use crate::protocol::width::Offset;
use stateright::actor::Out;

impl Producer {
    /// The share groups the client consumes in (1 but in `ctp-two-groups`).
    pub(crate) fn share_groups(&self) -> u8 {
        self.role.share_source().map_or(1, |s| s.groups.max(1))
    }

    /// A poll acquired `record` from the leader of share partition `sh.partition`. With two
    /// groups, group 0's record is held while group 1 is polled, and group 1's record,
    /// polled while group 0's is held, begins the transaction with both. Returns whether it
    /// took the record (false: the one-group path begins the transaction with it).
    pub(crate) fn hold_for_groups<A: Host>(
        &self,
        state: &mut ProducerState,
        record: AcquiredRecord,
        o: &mut Out<A>,
    ) -> bool {
        let groups = self.share_groups();
        let Some(sh) = state.role.share_mut().filter(|_| groups > 1) else {
            return false;
        };
        if sh.fetched.is_none() && sh.partition + 1 < groups {
            sh.fetched = Some(record);
            sh.empty_polls = 0;
            sh.partition += 1;
            self.poll(state, o);
            return true;
        }
        let Some(first) = sh.fetched.filter(|_| sh.partition > 0) else {
            return false;
        };
        sh.more_fetched = Some(record);
        sh.partition = 0;
        self.begin_polled(state, first, o);
        true
    }

    /// The poll of group 1 found nothing while group 0's record is held: the transaction
    /// begins with that record alone. Returns whether it began one.
    pub(crate) fn begin_held<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) -> bool {
        let groups = self.share_groups();
        let Some(sh) = state.role.share_mut().filter(|_| groups > 1) else {
            return false;
        };
        let Some(first) = sh.fetched.filter(|_| sh.partition > 0) else {
            return false;
        };
        sh.partition = 0;
        self.begin_polled(state, first, o);
        true
    }

    /// The transaction's `i`-th share group (0 or 1) and the record it holds of it: the
    /// first is the group of the share partition it polled the record from (the
    /// client's one group when it has one), the second is group 1.
    pub(crate) fn held_record(
        &self,
        sh: &ShareClientState,
        i: u8,
    ) -> Option<(GroupId, AcquiredRecord)> {
        let src = self.role.share_source()?;
        if src.groups <= 1 {
            return sh.fetched.filter(|_| i == 0).map(|r| (src.group, r));
        }
        let record = match i {
            0 => sh.fetched,
            1 => sh.more_fetched,
            _ => None,
        };
        record.map(|r| (GroupId(sh.partition + i), r))
    }

    /// The share partition whose leader takes the staging of the transaction's `i`-th
    /// group: the one polled with one group, the group's own with two.
    pub(crate) fn staging_partition(&self, sh: &ShareClientState, i: u8) -> u8 {
        if self.share_groups() <= 1 {
            sh.partition
        } else {
            sh.partition + i
        }
    }

    /// The request key of the staging of the transaction's `i`-th group.
    pub(crate) fn staging_key(i: u8) -> RequestKey {
        match i.checked_sub(1) {
            None => RequestKey::TxnShareAcknowledge,
            Some(k) => RequestKey::TxnShareAcknowledgeOf(k + 1),
        }
    }

    /// AddShareAcksToTxn of the transaction's `i`-th group was answered: with two groups it
    /// is counted, and the next held group's add goes out. Returns `i`.
    pub(crate) fn group_added<A: Host>(&self, state: &mut ProducerState, o: &mut Out<A>) -> u8 {
        if self.share_groups() <= 1 {
            return 0;
        }
        let Some(sh) = state.role.share_mut() else {
            return 0;
        };
        let i = sh.groups_added;
        sh.groups_added += 1;
        let next = state
            .role
            .share()
            .and_then(|sh| self.held_record(sh, i + 1));
        if next.is_some() {
            self.send_add_share_acks(state, o);
        }
        i
    }

    /// With two groups, each held record's output, to the output partition of its group
    /// (`None` with one group: the one-group path writes the output).
    pub(crate) fn group_outputs(&self, state: &ProducerState) -> Option<Vec<(usize, Offset)>> {
        let sh = state.role.share().filter(|_| self.share_groups() > 1)?;
        let n = self.partitions.len().max(1);
        Some(
            (0..self.share_groups())
                .filter_map(|i| self.held_record(sh, i))
                .map(|(g, r)| (usize::from(g.0) % n, r.offset))
                .collect(),
        )
    }

    /// `producer.send` of each held record's output (see [`Producer::group_outputs`]).
    pub(crate) fn send_group_outputs<A: Host>(
        &self,
        state: &mut ProducerState,
        outputs: Vec<(usize, Offset)>,
        tag: Ghost<TxnTag>,
        o: &mut Out<A>,
    ) {
        for (k, input) in outputs {
            let record = OutputRecord { input, tag };
            let leader = self.partitions[k];
            self.send_produce(state, PartitionIndex(k as u8), leader, record, o);
        }
    }

    /// The transaction ended: the second group's record is let go and the next poll starts
    /// at group 0 again.
    pub(crate) fn groups_txn_ended(&self, state: &mut ProducerState) {
        if self.share_groups() <= 1 {
            return;
        }
        if let Some(sh) = state.role.share_mut() {
            sh.more_fetched = None;
            sh.groups_added = 0;
            sh.partition = 0;
        }
    }

    /// Whether the client holds `record` as the second group's record of its transaction.
    pub(crate) fn holds_second(&self, state: &ProducerState, record: AcquiredRecord) -> Holding {
        let holds = state
            .role
            .share()
            .is_some_and(|sh| sh.more_fetched == Some(record) && !sh.stalled);
        if holds {
            Holding::Holds
        } else {
            Holding::No
        }
    }
}
