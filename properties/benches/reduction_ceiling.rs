//! The reduction ceiling (`sharetxn_properties::reduction_ceiling`): how many states an
//! exact persistent-set search spares on ctp/proposed, with both state counts and whether
//! every verdict is the same.
//!
//! `cargo bench -p sharetxn-properties --bench reduction_ceiling [-- RECORDS...]`: at each
//! number of records given (default 1; 2, the default bound, takes minutes).

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::reduction_ceiling::search;

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
    println!("| case | states | s | with the ceiling reduction | s | fewer | verdicts |");
    println!("|---|---|---|---|---|---|---|");
    let mut notes = Vec::new();
    for r in &records {
        let (mut design, mut scenario) = (Design::proposed(), Scenario::ctp());
        settings::apply(&mut design, &mut scenario, &format!("records={r}"))
            .unwrap_or_else(|e| panic!("records={r}: {e}"));
        let sys = System::new(design, scenario);
        let full = search(&sys, false);
        let cut = search(&sys, true);
        let same = if full.verdicts == cut.verdicts {
            "same"
        } else {
            "DIFFER"
        };
        println!(
            "| ctp/proposed records={r} | {} | {:.1} | {} | {:.1} | {:.2}x | {same} |",
            full.states,
            full.seconds,
            cut.states,
            cut.seconds,
            full.states as f64 / cut.states as f64
        );
        notes.push(format!(
            "records={r}: ample sets by actor {:?}",
            cut.reduced
        ));
    }
    for n in notes {
        println!("{n}");
    }
}
