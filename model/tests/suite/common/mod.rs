//! What every handler test needs: a closed world, one handler call on one of its actors
//! (start, a delivered message, a fired timer, a client choice), and what the commands
//! send and save. The suite's modules use it as `crate::common`.
#![allow(dead_code)]

pub mod resume;
pub mod staging;

use sharetxn_model::clients::committer::CommitterState;
use sharetxn_model::clients::producer::ProducerState;
use sharetxn_model::clients::source_reader::SourceReaderState;
use sharetxn_model::coordinator::txn_coordinator::TxnCoordinatorState;
use sharetxn_model::design::Design;
use sharetxn_model::partition::data_partition::DataPartitionState;
use sharetxn_model::protocol::error::ErrorCode;
use sharetxn_model::protocol::ids::{ProducerEpoch, ProducerId, TransactionalId};
use sharetxn_model::protocol::msg::{ClientChoice, Msg, ProducerIdAndEpoch, Timer};
use sharetxn_model::protocol::share_msg::ReadShareGroupStateResponse;
use sharetxn_model::protocol::share_state::ShareState;
use sharetxn_model::share::share_coordinator::ShareCoordinatorState;
use sharetxn_model::share::share_partition::SharePartitionState;
use sharetxn_model::world::node::{Node, NodeState, NodeStorage};
use sharetxn_model::{Scenario, System};
use stateright::actor::{Actor, Command, Id, Out};
use std::borrow::Cow;

/// One command of a handler.
pub type Cmd = Command<Msg, Timer, ClientChoice, NodeStorage>;

/// The transactional id of the scenario's first client.
pub const TXN: TransactionalId = TransactionalId(0);

/// The share coordinator's answer to a share-partition leader's first read: an empty share
/// state at `leader_epoch`, nothing pending.
pub fn empty_state_read(leader_epoch: u16) -> Msg {
    Msg::ReadShareGroupStateResponse(ReadShareGroupStateResponse {
        leader_epoch,
        error: ErrorCode::None,
        state: Some(ShareState {
            leader_epoch,
            ..ShareState::default()
        }),
        pending: Vec::new(),
        refresh: false,
    })
}

/// The closed world of `design` on `scenario`, with each `KEY=VALUE` of `settings` applied
/// as `--set` applies it.
pub fn system(mut design: Design, mut scenario: Scenario, settings: &[&str]) -> System {
    for setting in settings {
        sharetxn_model::world::settings::apply(&mut design, &mut scenario, setting)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    System::new(design, scenario)
}

/// Starts actor `id` from `storage` (`None`: empty storage): its state and the commands.
pub fn start(sys: &System, id: Id, storage: Option<NodeStorage>) -> (NodeState, Vec<Cmd>) {
    let mut out = Out::new();
    let state = sys.actors[usize::from(id)].on_start(id, &storage, &mut out);
    (state, out.into_iter().collect())
}

/// Delivers `msg` from `src` to actor `id` in `state`: the state after and the commands.
pub fn deliver(
    sys: &System,
    id: Id,
    state: &NodeState,
    src: Id,
    msg: Msg,
) -> (NodeState, Vec<Cmd>) {
    run(sys, id, state, |a, s, o| a.on_msg(id, s, src, msg, o))
}

/// Fires actor `id`'s `timer` in `state`: the state after and the commands.
pub fn fire(sys: &System, id: Id, state: &NodeState, timer: Timer) -> (NodeState, Vec<Cmd>) {
    run(sys, id, state, |a, s, o| a.on_timeout(id, s, &timer, o))
}

/// Client `id` makes `choice` in `state`: the state after and the commands.
pub fn choose(
    sys: &System,
    id: Id,
    state: &NodeState,
    choice: ClientChoice,
) -> (NodeState, Vec<Cmd>) {
    run(sys, id, state, |a, s, o| a.on_random(id, s, &choice, o))
}

/// Runs one handler of actor `id` on `state`.
fn run(
    sys: &System,
    id: Id,
    state: &NodeState,
    handler: impl FnOnce(&Node, &mut Cow<NodeState>, &mut Out<Node>),
) -> (NodeState, Vec<Cmd>) {
    let mut cow = Cow::Borrowed(state);
    let mut out = Out::new();
    handler(&sys.actors[usize::from(id)], &mut cow, &mut out);
    (cow.into_owned(), out.into_iter().collect())
}

/// The messages the commands send, with their recipients.
pub fn sent(cmds: &[Cmd]) -> Vec<(Id, Msg)> {
    cmds.iter()
        .filter_map(|c| match c {
            Command::Send(dst, m) => Some((*dst, m.clone())),
            _ => None,
        })
        .collect()
}

/// The messages the commands send, whoever they go to.
pub fn messages(cmds: &[Cmd]) -> Vec<Msg> {
    sent(cmds).into_iter().map(|(_, m)| m).collect()
}

/// The messages the commands send to `dst`.
pub fn sent_to(cmds: &[Cmd], dst: Id) -> Vec<Msg> {
    sent(cmds)
        .into_iter()
        .filter(|(d, _)| *d == dst)
        .map(|(_, m)| m)
        .collect()
}

/// The storage the commands write, in order.
pub fn saved(cmds: &[Cmd]) -> Vec<NodeStorage> {
    cmds.iter()
        .filter_map(|c| match c {
            Command::Save(s) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

/// `Command` has no `PartialEq`: compare what it prints.
pub fn same(a: &Cmd, b: &Cmd) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

/// [`same`] for a list of commands.
pub fn same_commands(a: &[Cmd], b: &[Cmd]) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

/// Producer id `pid` at `epoch`.
pub fn pid_epoch(pid: u8, epoch: u16) -> ProducerIdAndEpoch {
    ProducerIdAndEpoch {
        pid: ProducerId(pid),
        epoch: ProducerEpoch(epoch),
    }
}

/// The first producer id (0) at `epoch`.
pub fn pe(epoch: u16) -> ProducerIdAndEpoch {
    pid_epoch(0, epoch)
}

/// The scenario's first Flink source reader.
pub fn reader(sys: &System) -> Id {
    sys.topology.readers[0]
}

/// A source reader's state.
pub fn reader_state(state: &NodeState) -> &SourceReaderState {
    state.source_reader().expect("a source reader's state")
}

/// The transaction coordinator's state.
pub fn tc_state(state: &NodeState) -> &TxnCoordinatorState {
    state
        .txn_coordinator()
        .expect("the transaction coordinator's state")
}

/// The transaction coordinator's state, to plant a table in.
pub fn tc_state_mut(state: &mut NodeState) -> &mut TxnCoordinatorState {
    state
        .txn_coordinator_mut()
        .expect("the transaction coordinator's state")
}

/// The share coordinator's state.
pub fn sc_state(state: &NodeState) -> &ShareCoordinatorState {
    state
        .share_coordinator()
        .expect("the share coordinator's state")
}

/// The share coordinator's state, to plant a stored state in.
pub fn sc_state_mut(state: &mut NodeState) -> &mut ShareCoordinatorState {
    state
        .share_coordinator_mut()
        .expect("the share coordinator's state")
}

/// The share-partition leader's state.
pub fn spl_state(state: &NodeState) -> &SharePartitionState {
    state
        .share_partition()
        .expect("the share-partition leader's state")
}

/// An output partition leader's state.
pub fn dp_state(state: &NodeState) -> &DataPartitionState {
    state
        .data_partition()
        .expect("an output partition leader's state")
}

/// A plain transactional producer's state.
pub fn producer_state(state: &NodeState) -> &ProducerState {
    state.producer().expect("a producer's state")
}

/// KIP-939's 2PC committer application's state.
pub fn committer_state(state: &NodeState) -> &CommitterState {
    state.committer().expect("a committer's state")
}
