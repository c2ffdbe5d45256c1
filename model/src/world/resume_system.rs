//! The actors of scenario `session-resume`, appended after the others so that every
//! other scenario's actor ids stay where they were.

use crate::clients::client_role::ClientRole;
use crate::clients::committer::Committer;
use crate::clients::external_participant::ExternalParticipant;
use crate::clients::producer::Producer;
use crate::clients::resume_writer::ResumeWriter;
use crate::design::Design;
use crate::protocol::width::Offset;
use crate::world::node::Node;
use crate::world::scenario::Scenario;
use crate::world::system::TXN_ID;
use crate::world::topology::Topology;

/// Pushes the writer, the committer and the external participant, if the scenario has them.
pub(crate) fn push_actors(
    actors: &mut Vec<Node>,
    topology: &Topology,
    design: &Design,
    scenario: &Scenario,
) {
    let (Some(&committer), Some(&external), Some(&writer)) = (
        topology.committers.first(),
        topology.externals.first(),
        topology.writers.first(),
    ) else {
        return;
    };
    // One transactional id for both: the committer completes the writer's transaction.
    let session = |partitions, inputs, txns| Producer {
        txn: TXN_ID,
        txn_coordinator: topology.txn_coordinator,
        group_coordinator: topology.group_coordinator,
        partitions,
        design: design.clone(),
        inputs,
        txns,
        request_retries: scenario.request_retries,
        role: ClientRole::TwoPhaseSession,
    };
    for _ in &topology.writers {
        actors.push(Node::ResumeWriter(ResumeWriter {
            session: session(
                topology.partitions.clone(),
                Offset::from(scenario.inputs),
                scenario.txns,
            ),
            committer,
        }));
    }
    actors.push(Node::Committer(Committer {
        // The committer sends only EndTxn: no partition, no input of its own.
        session: session(Vec::new(), 0, 0),
        external,
        writer,
    }));
    actors.push(Node::ExternalParticipant(ExternalParticipant));
}
