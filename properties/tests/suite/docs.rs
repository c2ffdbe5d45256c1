//! The tables in `docs/` are generated from the definitions (`sharetxn_properties::docs`):
//! this test fails when a page's generated region differs from what the generator gives,
//! so a hand edit, or a property, knob or scenario changed without its page, is caught.
//! `SHARETXN_DOCS_UPDATE=1 cargo test -p sharetxn-properties --test suite docs::` rewrites the
//! regions instead.

use sharetxn_properties::docs;
use std::path::PathBuf;

fn page_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../docs")
        .join(name)
}

/// Compares (or, with `SHARETXN_DOCS_UPDATE` set, rewrites) one generated region.
fn check_region(page: &str, region: &str, generated: &str) {
    let path = page_path(page);
    let text = std::fs::read_to_string(&path).expect("the docs page exists");
    let current = docs::region(&text, region)
        .unwrap_or_else(|| panic!("docs/{page} has no generated region '{region}'"));
    if std::env::var_os("SHARETXN_DOCS_UPDATE").is_some() {
        let updated = docs::replace_region(&text, region, generated).expect("the region");
        std::fs::write(&path, updated).expect("page written");
        return;
    }
    assert!(
        current == generated,
        "docs/{page}, region '{region}', differs from the generator (a hand edit, or a \
         definition changed without its page): run SHARETXN_DOCS_UPDATE=1 cargo test -p \
         sharetxn-properties --test suite docs::\n--- page\n{current}\n--- generated\n{generated}"
    );
}

#[test]
fn property_table_is_generated() {
    check_region("properties.md", "properties", &docs::property_table());
}

#[test]
fn knob_and_scenario_tables_are_generated() {
    check_region("designs.md", "knobs", &docs::knob_table());
    check_region("designs.md", "scenarios", &docs::scenario_table());
}

/// Each knob's "moved alone in `proposed`, fails" cell names properties that exist.
#[test]
fn every_reverted_property_is_a_property() {
    for knob in sharetxn_model::design::KNOBS {
        for name in knob.reverted {
            assert!(
                sharetxn_properties::PROPERTIES
                    .iter()
                    .any(|p| p.name == *name),
                "{}: {name} is no property",
                knob.name
            );
        }
    }
}

/// The full default matrix's pinned snapshot (insta's header, then the JSON document).
fn full_matrix_snapshot() -> serde_json::Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../cli/tests/suite/snapshots/suite__matrix__full_default_matrix.snap");
    let text = std::fs::read_to_string(path).expect("the full matrix snapshot");
    let body = text
        .splitn(3, "---")
        .nth(2)
        .expect("an insta header between --- lines");
    serde_json::from_str(body).expect("the snapshot's JSON")
}

#[test]
fn full_matrix_verdicts_are_generated_from_its_snapshot() {
    let matrix = full_matrix_snapshot();
    check_region("findings.md", "full-matrix", &docs::verdict_table(&matrix));
}

/// The protocol-level measure of `docs/mutants.md`: which knob and which design breaks each
/// property, from the knob table and the full matrix's pinned verdicts.
#[test]
fn power_table_is_generated_from_the_knobs_and_the_full_matrix() {
    let matrix = full_matrix_snapshot();
    check_region("mutants.md", "power", &docs::power_table(&matrix));
}

/// The reduction ceilings and the sized rules at one record (docs/checker.md,
/// `sharetxn_properties::reduction_sizing`), each with every verdict the same as over the
/// whole space, and no twin the property table declares stable ever unset.
#[test]
fn reduction_figures_are_generated() {
    use sharetxn_model::{Design, Scenario, System};
    use sharetxn_properties::reduction_graph::Graph;
    use sharetxn_properties::reduction_proofs::PROOF_CAPS;
    use sharetxn_properties::reduction_sizing::{Rule, ROWS};
    let scenario = Scenario {
        records: 1,
        ..Scenario::ctp()
    };
    let graph = Graph::of(&System::new(Design::proposed(), scenario));
    assert!(graph.verdicts() != 0, "a twin is witnessed");
    assert_eq!(graph.unset() & graph.stable(), 0, "a stable twin is unset");
    let case = "ctp/proposed `records=1`";
    let (mut ceilings, mut rows) = (String::new(), String::new());
    for (name, rule, within) in ROWS {
        let sized = graph.size(rule, within);
        assert!(sized.same, "{name}: a verdict changed");
        assert!(sized.states < graph.states(), "{name} takes no set");
        assert!(
            within.is_none() || sized.refuted == 0,
            "{name} takes a set the ceiling refuses"
        );
        let row = docs::reduction_sizing_row(case, name, graph.states(), sized.states);
        match rule {
            Rule::Ceiling(_) => ceilings += &row,
            _ => rows += &row,
        }
    }
    check_region("checker.md", "reduction-ceiling", &ceilings);
    check_region("checker.md", "reduction-sizing", &rows);
    let mut rows = String::new();
    for cap in PROOF_CAPS {
        let p = graph.proofs(cap);
        assert!(p.same, "proofs of {cap} states: a verdict changed");
        assert!(p.states < graph.states() && p.distinct <= graph.states());
        assert!(p.visits >= p.distinct as u64);
        rows += &docs::reduction_proofs_row(case, cap, graph.states(), &p);
    }
    check_region("checker.md", "reduction-proofs", &rows);
}
