//! A trace's header is the world it was made in: every named scenario and design, written
//! as JSON and read back, is the same world, and a field at its default is left out (so
//! that a trace written before the field existed still reads, and today's traces keep
//! their bytes).

use sharetxn_model::design::DESIGN_NAMES;
use sharetxn_model::world::scenario::SCENARIO_NAMES;
use sharetxn_model::{Design, Scenario};

#[test]
fn every_named_scenario_reads_back_as_written() {
    for name in SCENARIO_NAMES {
        let scenario = Scenario::by_name(name).unwrap();
        let json = serde_json::to_string(&scenario).unwrap();
        let back: Scenario = serde_json::from_str(&json).unwrap();
        assert_eq!(back, scenario, "{name}: {json}");
    }
}

#[test]
fn every_named_design_reads_back_as_written() {
    for name in DESIGN_NAMES {
        let design = Design::by_name(name).unwrap();
        let json = serde_json::to_string(&design).unwrap();
        let back: Design = serde_json::from_str(&json).unwrap();
        assert_eq!(back, design, "{name}: {json}");
    }
}

/// The acknowledgement mode is written only where it is not Kafka's default (implicit):
/// `share-basic` writes it, `txn-basic` does not.
#[test]
fn the_acknowledgement_mode_is_written_only_when_explicit() {
    let field = "\"ack_mode\"";
    let explicit = serde_json::to_string(&Scenario::share_basic()).unwrap();
    assert!(
        explicit.contains(&format!("{field}:\"explicit\"")),
        "{explicit}"
    );
    let implicit = serde_json::to_string(&Scenario::txn_basic()).unwrap();
    assert!(!implicit.contains(field), "{implicit}");
}
