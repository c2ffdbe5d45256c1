//! The reviewed counterexamples in `traces/counterexamples/`: each replays on the current
//! model to the same violation with every digest as recorded, writes back byte for byte,
//! and renders as pinned. A model change that moves any of them shows up here as a
//! reviewed diff.

use sharetxn_model::world::topology::Topology;
use sharetxn_traces::render::{mermaid, text};
use sharetxn_traces::{load, replay, Outcome, Trace, Verdict};
use std::path::{Path, PathBuf};

fn corpus() -> Vec<(String, PathBuf)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("counterexamples");
    let mut files: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .expect("the corpus directory exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, p)
        })
        .collect();
    files.sort();
    files
}

fn load_ok(path: &Path) -> Trace {
    load(path).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_corpus_covers_every_documented_violation() {
    let names: Vec<String> = corpus().into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "at_least_once--proposed-ctp-one-outcome-per-producer",
            "cache_agrees--draft-ctp",
            "cache_agrees--proposed-ctp-one-outcome-per-producer",
            "cache_agrees--seed-ctp",
            "external_agreement--seed-session-resume",
            "flush_before_commit--seed-session",
            "marker_match--seed-ctp",
            "no_aborted_read--consumer-offsets-tv1",
            "no_duplicate_processing--draft-ctp",
            "no_duplicate_processing--proposed-ctp-unfenced-stage",
            "no_duplicate_processing--proposed-flink-acknowledger-no-2pc",
            "no_duplicate_processing--proposed-flink-acknowledger-notify",
            "no_duplicate_processing--seed-ctp",
            "no_duplicate_processing--seed-ctp-race",
            "no_duplicate_processing--seed-flink-acknowledger",
            "no_hanging_transaction--consumer-offsets-tv0-no-verification",
            "no_lost_record--seed-ctp",
            "no_orphan_acks--seed-ctp",
            "no_orphan_acks--seed-ctp-tv1-unverified",
            "pending_isolation--seed-ctp",
            "single_writer--seed-session-resume",
            "txn_atomicity--consumer-offsets-no-flush-before-end-txn",
            "txn_atomicity--consumer-offsets-tv1",
            "txn_atomicity--proposed-connect-share-sink-session-scope",
            "txn_atomicity--proposed-session-async-handoff",
            "txn_atomicity--seed-ctp",
            "txn_atomicity--seed-session",
        ]
    );
    for (name, path) in corpus() {
        let trace = load_ok(&path);
        let (property, knobs) = name.split_once("--").unwrap();
        assert_eq!(trace.outcome.property(), property, "{name}");
        assert!(knobs.starts_with(&trace.design.name), "{name}");
        assert!(matches!(trace.outcome, Outcome::Violation { .. }), "{name}");
    }
}

#[test]
fn every_counterexample_replays_to_its_violation_with_the_recorded_digests() {
    for (name, path) in corpus() {
        let trace = load_ok(&path);
        let result = replay(&trace).unwrap();
        assert_eq!(result.divergence, None, "{name}");
        assert!(result.steps.iter().all(|s| s.matches), "{name}");
        let Outcome::Violation { message, .. } = &trace.outcome else {
            unreachable!()
        };
        assert_eq!(
            result.verdict,
            Verdict::Reproduced {
                step: trace.steps.len(),
                message: message.clone()
            },
            "{name}"
        );
    }
}

#[test]
fn every_counterexample_writes_back_byte_for_byte() {
    for (name, path) in corpus() {
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(load_ok(&path).to_json().unwrap(), text, "{name}");
    }
}

#[test]
fn text_rendering_is_pinned() {
    for (name, path) in corpus() {
        let rendered = text::render(&load_ok(&path)).unwrap();
        insta::assert_snapshot!(format!("text-{name}"), rendered);
    }
}

#[test]
fn mermaid_rendering_is_pinned() {
    for (name, path) in corpus() {
        let rendered = mermaid::render(&load_ok(&path)).unwrap();
        insta::assert_snapshot!(format!("mermaid-{name}"), rendered);
    }
}

/// The structure Mermaid needs: the header, one participant per actor in topology order,
/// then one statement per step and the closing note, each naming only participants.
#[test]
fn mermaid_diagrams_are_well_formed() {
    for (name, path) in corpus() {
        let trace = load_ok(&path);
        let rendered = mermaid::render(&trace).unwrap();
        let lines: Vec<&str> = rendered.lines().collect();
        assert_eq!(lines[0], "sequenceDiagram", "{name}");
        let topology = Topology::for_scenario(&trace.scenario);
        let actors: Vec<String> = (0..topology.len())
            .map(|i| topology.name(i.into()))
            .collect();
        for (i, actor) in actors.iter().enumerate() {
            // `participant TC as TC (transaction coordinator)`: the id the arrows use, and
            // the legend as the alias Mermaid draws.
            let line = lines[1 + i];
            let alias = line
                .strip_prefix(&format!("    participant {actor} as {actor} ("))
                .and_then(|rest| rest.strip_suffix(')'))
                .unwrap_or_else(|| panic!("{name}: {line}"));
            assert!(!alias.contains([';', ':', '(', ')']), "{name}: {line}");
        }
        // The point of no return, when there is one, is a note across every participant.
        let span = format!(
            "    Note over {},{}: point of no return ",
            actors[0],
            actors[actors.len() - 1]
        );
        let (no_return, body): (Vec<&str>, Vec<&str>) = lines[1 + actors.len()..]
            .iter()
            .partition(|l| l.starts_with(&span));
        assert!(no_return.len() <= 1, "{name}: {no_return:?}");
        assert_eq!(body.len(), trace.steps.len() + 1, "{name}");
        for (i, line) in body.iter().enumerate() {
            let line = line.strip_prefix("    ").expect("statements are indented");
            // A `;` ends a Mermaid statement, except inside an entity code (`#35;` is `#`).
            let bare = strip_entity_codes(line);
            assert!(!bare.contains(';'), "{name}: {line}");
            let (head, label) = line.split_once(": ").expect("every statement has a label");
            if i < trace.steps.len() {
                assert!(label.starts_with(&format!("{}. ", i + 1)), "{name}: {line}");
            } else {
                assert!(
                    label.starts_with(trace.outcome.property()),
                    "{name}: {line}"
                );
            }
            let named: Vec<&str> = match head.strip_prefix("Note over ") {
                Some(over) => over.split(',').collect(),
                None => head.split("->>").collect(),
            };
            assert!(!named.is_empty() && named.len() <= 2, "{name}: {line}");
            for actor in named {
                assert!(actors.iter().any(|a| a == actor), "{name}: {line}");
            }
        }
    }
}

/// The line without Mermaid entity codes (`#` digits `;`).
fn strip_entity_codes(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find('#') {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 1..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && tail[digits..].starts_with(';') {
            rest = &tail[digits + 1..];
        } else {
            out.push('#');
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}
