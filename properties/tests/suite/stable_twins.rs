//! The twins the property table declares stable (`PropertyDef::twin_stable`) are never
//! unset by a step: on the whole state graph of small cells of every design, no step
//! leads from a state that witnesses one to a state that does not. On the same graphs,
//! every step that unsets any label is one that `reduction_visible::may_unset` declares
//! may unset one. The reduction sizing rests on it (`docs/checker.md`, "Twins that stay witnessed"). The same measure finds
//! the labels that are unset: a violation of `pending_isolation` that a later step
//! resolves, on the seed design's Flink acknowledger.

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::reduction_graph::{label_bit, Graph};

fn system(design: &str, scenario: &str, sets: &[&str]) -> System {
    let mut design = Design::by_name(design).unwrap();
    let mut scenario = Scenario::by_name(scenario).unwrap();
    for s in sets {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    System::new(design, scenario)
}

#[test]
fn stable_twins_are_never_unset() {
    let cells: [(&str, &str, &[&str]); 9] = [
        ("seed", "flink-acknowledger", &[]),
        ("seed", "ctp", &["records=1"]),
        ("seed", "session-resume", &[]),
        ("seed", "ctp-two-groups", &[]),
        ("seed", "flink-shuffle", &[]),
        ("seed", "ctp-acks", &[]),
        ("draft", "ctp-acks", &[]),
        ("draft", "ctp", &["records=1"]),
        ("proposed", "spl-move", &[]),
    ];
    let mut witnessed = 0;
    let mut unsetting = 0;
    for (design, scenario, sets) in cells {
        let graph = Graph::of(&system(design, scenario, sets));
        let unset = graph.unset() & graph.stable();
        assert_eq!(unset, 0, "{design}/{scenario}: a stable twin is unset");
        witnessed += (graph.verdicts() & graph.stable()).count_ones();
        // Every step that unsets any label is one `may_unset` declares.
        let undeclared = graph.undeclared_unsets();
        assert_eq!(undeclared, 0, "{design}/{scenario}: undeclared unsets");
        unsetting += graph.unsetting_steps();
    }
    assert!(witnessed > 0, "no stable twin is witnessed");
    assert!(
        unsetting > 0,
        "no step unsets a label: the check shows nothing"
    );
}

#[test]
fn an_unset_label_is_found() {
    let sys = system("seed", "flink-acknowledger", &[]);
    let graph = Graph::of(&sys);
    let violation = label_bit(&sys, "pending_isolation", false).unwrap();
    assert_ne!(graph.unset() & violation, 0);
    assert_eq!(
        graph.stable() & violation,
        0,
        "violations are never declared stable"
    );
}
