//! Each property can fail: a state mutated the way a broken broker would leave it is
//! reported, so a property that holds does so because the model keeps it, not because the
//! check cannot see the failure.

use sharetxn_model::ids::{ProducerEpoch, ProducerId, TxnTag};
use sharetxn_model::msg::{OutputRecord, ProducerIdAndEpoch};
use sharetxn_model::node::NodeState;
use sharetxn_model::partition_log::Payload;
use sharetxn_model::{Design, Scenario, System};
use sharetxn_properties::props::producer_fencing;
use std::sync::Arc;

#[test]
fn producer_fencing_reports_a_partition_that_accepts_a_fenced_epoch() {
    let sys = System::new(Design::consumer_offsets(), Scenario::txn_basic());
    let mut state = sys.init_state();
    assert_eq!(producer_fencing::check(&sys, &state), None);
    let d0 = usize::from(sys.topology.partitions[0]);
    let NodeState::DataPartition(mut leader) = state.nodes[d0].as_ref().clone() else {
        panic!("D0 is a data partition")
    };
    let record = |epoch| {
        Payload::Output(OutputRecord {
            input: 0,
            tag: TxnTag {
                incarnation: 0,
                attempt: epoch,
            },
        })
    };
    let pe = |epoch| ProducerIdAndEpoch {
        pid: ProducerId(0),
        epoch: ProducerEpoch(epoch),
    };
    leader.log.append(pe(2), Some(0), record(2));
    // A broken leader that skipped the epoch check appends a zombie's write.
    leader.log.append(pe(1), Some(1), record(1));
    state.nodes[d0] = Arc::new(NodeState::DataPartition(leader));
    let message = producer_fencing::check(&sys, &state).expect("the zombie write is reported");
    assert!(
        message.contains("D0 accepted a write from pid0/e1"),
        "{message}"
    );
}
