//! Helpers of the `session-resume` handler tests: the writer's committable, the committer's
//! id, and the InitProducerId requests a handler sent.

use super::{messages, pe, Cmd, TXN};
use sharetxn_model::protocol::external_msg::Committable;
use sharetxn_model::protocol::ghost::Ghost;
use sharetxn_model::protocol::ids::TxnTag;
use sharetxn_model::protocol::msg::{InitProducerIdRequest, Msg};
use sharetxn_model::System;
use stateright::actor::Id;

/// The writer's first transaction, prepared at epoch 0.
pub fn committable() -> Committable {
    Committable {
        txn: TXN,
        producer: pe(0),
        tag: Ghost::new(TxnTag {
            client: 0,
            incarnation: 0,
            attempt: 0,
        }),
    }
}

/// The coordinator application.
pub fn committer(sys: &System) -> Id {
    sys.topology.committers[0]
}

/// The InitProducerId requests among `cmds`.
pub fn init_producer_ids(cmds: &[Cmd]) -> Vec<InitProducerIdRequest> {
    messages(cmds)
        .into_iter()
        .filter_map(|m| match m {
            Msg::InitProducerId(r) => Some(r),
            _ => None,
        })
        .collect()
}
