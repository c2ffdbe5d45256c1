//! The reduction ceiling and the learned rules sized against it on ctp/proposed
//! (`sharetxn_properties::reduction_sizing`): the states each rule's search reaches
//! against the whole space, whether every verdict is the same, and the states each
//! actor's set was taken in, by actor.
//!
//! `cargo bench -p sharetxn-properties --bench reduction_sizing [-- RECORDS...]`: at each
//! number of records given (default 1; 2, the default bound, takes about 30 s and 0.9 GB).

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::reduction_graph::Graph;
use sharetxn_properties::reduction_sizing::ROWS;
use stateright::actor::Id;

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
    println!("| case | rule | states | with the rule | fewer | verdicts | sets taken | refuted |");
    println!("|---|---|---|---|---|---|---|---|");
    for r in &records {
        let (mut design, mut scenario) = (Design::proposed(), Scenario::ctp());
        settings::apply(&mut design, &mut scenario, &format!("records={r}"))
            .unwrap_or_else(|e| panic!("records={r}: {e}"));
        let sys = System::new(design, scenario);
        let graph = Graph::of(&sys);
        for (name, rule, within) in ROWS {
            let sized = graph.size(rule, within);
            let same = if sized.same { "same" } else { "DIFFER" };
            println!(
                "| ctp/proposed records={r} | {name} | {} | {} | {:.2}x | {same} | {} | {} |",
                graph.states(),
                sized.states,
                graph.states() as f64 / sized.states as f64,
                by_actor(&sys, &sized.by_actor),
                sized.refuted
            );
        }
    }
}

/// The states each actor's set was taken in, by actor name.
fn by_actor(sys: &System, counts: &[u64]) -> String {
    let named = counts.iter().enumerate().filter(|(_, n)| **n > 0);
    let named = named.map(|(i, n)| format!("{} {n}", sys.topology.name(Id::from(i))));
    named.collect::<Vec<_>>().join(", ")
}
