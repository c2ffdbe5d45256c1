//! The point of no return of the corpus's violations: the step after which every run that
//! comes to rest violates the property, found by searching from each state of the trace.

use sharetxn_traces::inevitable::{inevitable, DEFAULT_CAP};
use sharetxn_traces::load;
use sharetxn_traces::render::Judgement;
use std::path::PathBuf;

fn corpus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("counterexamples")
        .join(format!("{name}.json"))
}

#[test]
fn every_corpus_violation_s_point_of_no_return_is_pinned() {
    let mut dir: Vec<PathBuf> = std::fs::read_dir(corpus("x").parent().expect("a folder"))
        .expect("the corpus")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    dir.sort();
    let mut found = Vec::new();
    for path in &dir {
        let trace = load(path).expect("a corpus trace loads");
        let steps = trace.steps.len();
        let point = inevitable(&trace, DEFAULT_CAP).expect("the trace runs");
        if let Some(p) = &point {
            assert!(p.after_step < steps, "{}: {p:?}", path.display());
        }
        found.push(format!(
            "{}: {} steps, {:?}",
            path.file_stem().unwrap().to_string_lossy(),
            steps,
            point
        ));
        // The note the renderings show, its cause in Kafka's terms.
        let note = Judgement::of_file(&trace).inevitable_note(trace.outcome.property());
        if let Some((_, note)) = note {
            found.push(format!("    {note}"));
        }
    }
    // Pinned: a change to the model or the search that moves a point of no return, or to
    // the words that name its cause, shows here, trace by trace.
    insta::assert_snapshot!("points_of_no_return", found.join("\n"));
}

#[test]
fn the_torn_share_commit_is_sealed_when_the_client_gives_up_on_its_acknowledgement() {
    // txn_atomicity on seed/ctp: the ack is staged at SC (15), SC crashes (16), P0's
    // TxnShareAcknowledge times out (17) and the client aborts. From there the restarted
    // SC replays the staged ack as committed while the markers abort out-0, on every run.
    let trace = load(&corpus("txn_atomicity--seed-ctp")).expect("the trace loads");
    let point = inevitable(&trace, DEFAULT_CAP)
        .expect("the trace runs")
        .expect("a point");
    assert_eq!((point.after_step, point.exact), (17, true));
}

#[test]
fn a_witness_has_no_point_of_no_return() {
    let mut trace = load(&corpus("txn_atomicity--seed-ctp")).expect("the trace loads");
    trace.outcome = sharetxn_traces::Outcome::Witness {
        property: "commit_reached".into(),
    };
    assert_eq!(inevitable(&trace, DEFAULT_CAP), Ok(None));
}
