//! How far rules for a persistent-set reduction could go on ctp/proposed
//! (`sharetxn_properties::reduction_sizing`): the states each rule's search reaches
//! against the whole space, and whether every verdict is the same.
//!
//! `cargo bench -p sharetxn-properties --bench reduction_sizing [-- RECORDS...]`: at each
//! number of records given (default 1; 2, the default bound, takes about a minute and a
//! few GB).

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::reduction_sizing::{Graph, Rule};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let records: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let records = if records.is_empty() {
        vec!["1".to_string()]
    } else {
        records
    };
    println!("| case | rule | states | with the rule | fewer | verdicts |");
    println!("|---|---|---|---|---|---|");
    for r in &records {
        let (mut design, mut scenario) = (Design::proposed(), Scenario::ctp());
        settings::apply(&mut design, &mut scenario, &format!("records={r}"))
            .unwrap_or_else(|e| panic!("records={r}: {e}"));
        let graph = Graph::of(&System::new(design, scenario));
        for (name, rule) in [
            ("connections", Rule::Connections),
            ("declared", Rule::Declared),
        ] {
            let sized = graph.size(rule);
            let same = if sized.same { "same" } else { "DIFFER" };
            println!(
                "| ctp/proposed records={r} | {name} | {} | {} | {:.2}x | {same} |",
                graph.states(),
                sized.states,
                graph.states() as f64 / sized.states as f64
            );
        }
    }
}
