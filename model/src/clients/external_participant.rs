//! The external participant of the seed's 4.5 custom two-phase coordinator: a database
//! that prepares a transaction (a durable yes vote) and then commits or aborts it as the
//! coordinator application says. Its prepare and its decision are durable, so a crash and
//! restart keeps both; a decision it is told twice keeps the first (a recovering
//! coordinator repeats its own, durable, decision).

use crate::protocol::external_msg::{ExternalOp, ExternalRequest, ExternalResponse};
use crate::protocol::msg::Msg;
use crate::protocol::output::Saves;
use serde::{Deserialize, Serialize};
use stateright::actor::{Id, Out};

/// The participant's state, all of it durable.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ExternalState {
    /// The transaction is prepared (it voted yes).
    pub prepared: bool,
    /// Its outcome (commit = true), once decided.
    pub decision: Option<bool>,
}

/// The participant's configuration (none beyond being one).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExternalParticipant;

impl ExternalParticipant {
    /// Recovery from its log.
    pub fn on_start(&self, storage: Option<&ExternalState>) -> ExternalState {
        storage.cloned().unwrap_or_default()
    }

    /// Prepare, commit or abort, each made durable before it is answered.
    pub fn on_msg<A: Saves<ExternalState>>(
        &self,
        s: &mut ExternalState,
        src: Id,
        msg: Msg,
        o: &mut Out<A>,
    ) {
        let Msg::ExternalRequest(ExternalRequest { op }) = msg else {
            return;
        };
        match op.decision() {
            None => s.prepared = true,
            Some(commit) => {
                if s.decision.is_none() {
                    s.decision = Some(commit);
                }
            }
        }
        o.save(s.clone().into());
        let decided = if op == ExternalOp::Prepare {
            None
        } else {
            s.decision
        };
        o.send(src, Msg::ExternalResponse(ExternalResponse { op, decided }));
    }
}
