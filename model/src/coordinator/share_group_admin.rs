//! The group coordinator's share-group offset reset (KIP-932 `AlterShareGroupOffsets`,
//! `kafka-share-groups --reset-offsets`; docs/kafka-cases.md S20). The group coordinator
//! owns the share group's state epoch; a reset moves it on and initialises the share
//! partition's state at the new epoch with InitializeShareGroupState, so that the share
//! coordinator fences every write made for the state before it (FENCED_STATE_EPOCH).
//!
//! Kafka 1eb7644 has the RPC's schema but no handler yet (`ShareCoordinatorShard` has no
//! `initializeState`, `GroupMetadataManager` no alter path): the model follows KIP-932's
//! text, "the group coordinator ... initializes the share-group state with a new state
//! epoch". The admin's request is a choice (to the earliest offset or to the log end)
//! offered while resets are left (scenario field `resets`); share-group membership is not
//! modelled, so the reset does not wait for the group to be empty (docs/fidelity.md).

use crate::coordinator::group_coordinator::{GroupCoordinator, GroupCoordinatorState};
use crate::partition::leader::LeaderStorage;
use crate::protocol::msg::{ClientChoice, Msg};
use crate::protocol::output::{Host, Saves};
use crate::protocol::share_msg::{InitializeShareGroupStateRequest, ResetTo};
use crate::protocol::width::{Epoch, Offset};
use stateright::actor::{Id, Out};

/// The choice key of the admin's reset.
const RESET: &str = "reset";

/// The share group an admin may reset, as the group coordinator knows it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShareGroupAdmin {
    /// The share coordinator of the share group's state.
    pub share_coordinator: Id,
    /// The share partition's log end offset (where `--to-latest` moves the start offset).
    pub log_end: Offset,
    /// Resets the admin may still ask for, counted by the state epoch they set.
    pub resets: u8,
}

impl GroupCoordinator {
    /// Offers the admin's reset while resets are left.
    pub(crate) fn offer_reset(&self, state: &GroupCoordinatorState, o: &mut Out<impl Host>) {
        let Some(admin) = &self.share_admin else {
            return;
        };
        if state.share_state_epoch < Epoch::from(admin.resets) {
            let offer = vec![
                ClientChoice::ShareGroupReset(ResetTo::Earliest),
                ClientChoice::ShareGroupReset(ResetTo::Latest),
            ];
            o.choose_random(RESET, offer);
        }
    }

    /// The admin's reset: move the state epoch on (durably, before the request goes out,
    /// so a restart never reuses it) and initialise the share partition's state at it.
    pub fn on_choice<A: Saves<LeaderStorage>>(
        &self,
        state: &mut GroupCoordinatorState,
        choice: ClientChoice,
        o: &mut Out<A>,
    ) {
        let (Some(admin), ClientChoice::ShareGroupReset(to)) = (&self.share_admin, choice) else {
            return;
        };
        if state.share_state_epoch >= Epoch::from(admin.resets) {
            return;
        }
        o.choose_random(RESET, Vec::new());
        state.share_state_epoch += 1;
        o.save(state.storage().into());
        let start_offset = match to {
            ResetTo::Earliest => 0,
            ResetTo::Latest => admin.log_end,
        };
        o.send(
            admin.share_coordinator,
            Msg::InitializeShareGroupState(InitializeShareGroupStateRequest {
                state_epoch: state.share_state_epoch,
                start_offset,
                partition: 0,
            }),
        );
        self.offer_reset(state, o);
    }
}
