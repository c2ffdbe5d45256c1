//! The actors of scenario `session-resume`, appended after the others so that every
//! other scenario's actor ids stay where they were.

use crate::committer::Committer;
use crate::design::Design;
use crate::external_participant::ExternalParticipant;
use crate::node::Node;
use crate::producer::Producer;
use crate::resume_writer::ResumeWriter;
use crate::scenario::Scenario;
use crate::system::TXN_ID;
use crate::topology::Topology;
use crate::width::Offset;

/// Pushes the writer, the committer and the external participant, if the scenario has them.
pub(crate) fn push_actors(
    actors: &mut Vec<Node>,
    topology: &Topology,
    design: &Design,
    scenario: &Scenario,
) {
    let (Some(&committer), Some(&external)) =
        (topology.committers.first(), topology.externals.first())
    else {
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
        share: None,
        session: true,
        sink: false,
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
    }));
    actors.push(Node::ExternalParticipant(ExternalParticipant));
}
