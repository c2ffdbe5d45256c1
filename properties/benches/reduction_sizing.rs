//! The reduction ceiling and the learned rules sized against it on ctp/proposed
//! (`sharetxn_properties::reduction_sizing`): the states each rule's search reaches
//! against the whole space, whether every verdict is the same, and the states each
//! actor's set was taken in, by actor.
//!
//! First, for the hand-written declarations (`reduction_written`), the states where each
//! actor sends a request they leave out, where its due timers change while they say they
//! cannot, and where they take a set that the ceiling where no set unsets a label refuses
//! (all zero when they are sound); and the labels some step unsets.
//!
//! Then, for a reduction that proves each set by visiting every state the other actors
//! reach first (`Graph::proofs`), at each cap on a proof: the states, and the states the
//! proofs that succeed visit, counted per proof and distinct.
//!
//! `cargo bench -p sharetxn-properties --bench reduction_sizing [-- RECORDS...]`: at each
//! number of records given (default 1; 2, the default bound, takes about a minute and 1.2 GB).

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::reduction_graph::Graph;
use sharetxn_properties::reduction_proofs::PROOF_CAPS;
use sharetxn_properties::reduction_sizing::{Visible, ROWS};
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
    let mut proofs = Vec::new();
    for r in &records {
        let (mut design, mut scenario) = (Design::proposed(), Scenario::ctp());
        settings::apply(&mut design, &mut scenario, &format!("records={r}"))
            .unwrap_or_else(|e| panic!("records={r}: {e}"));
        let sys = System::new(design, scenario);
        let graph = Graph::of(&sys);
        let missed = graph.undeclared(|s, a| graph.written(s, a));
        println!("ctp/proposed records={r}: requests the written declarations miss, by sender: {missed:?}");
        let missed = graph.undeclared_timers(|s, a| graph.written_timers_move(s, a));
        println!("ctp/proposed records={r}: timer changes the written declarations miss, by actor: {missed:?}");
        let refuted = graph.written_refuted(Visible::Unsets);
        println!("ctp/proposed records={r}: sets the written declarations take that the ceiling where no set unsets a label refuses, by actor: {refuted:?}");
        println!(
            "ctp/proposed records={r}: labels some step unsets: {:#x}",
            graph.unset()
        );
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
        for cap in PROOF_CAPS {
            let p = graph.proofs(cap);
            let same = if p.same { "same" } else { "DIFFER" };
            proofs.push(format!(
                "| ctp/proposed records={r} | {cap} | {} | {} | {:.2}x | {same} | {} ({:.1}x the space) | {} |",
                graph.states(),
                p.states,
                graph.states() as f64 / p.states as f64,
                p.visits,
                p.visits as f64 / graph.states() as f64,
                p.distinct
            ));
        }
    }
    println!();
    println!("Proving each set by visiting what it skips, up to a cap:");
    println!("| case | cap | states | with the proofs | fewer | verdicts | proof visits | distinct states visited |");
    println!("|---|---|---|---|---|---|---|---|");
    proofs.iter().for_each(|line| println!("{line}"));
}

/// The states each actor's set was taken in, by actor name.
fn by_actor(sys: &System, counts: &[u64]) -> String {
    let named = counts.iter().enumerate().filter(|(_, n)| **n > 0);
    let named = named.map(|(i, n)| format!("{} {n}", sys.topology.name(Id::from(i))));
    named.collect::<Vec<_>>().join(", ")
}
