//! Traces of the simulator's heal-phase verdict (`heal_deadline`), which no property of the
//! table gives, through the built binary: `sim` records the heal point, `replay` confirms
//! the verdict on the model (exit 1) or says why it does not show (exit 0), `render`
//! shows where the heal began, and `shrink` keeps the verdict, heal point included, or
//! refuses a verdict that rests on virtual times alone.

use crate::common;
use common::{run, text};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn scratch_dir(name: &str) -> PathBuf {
    common::scratch_dir("heal", name)
}

/// Runs `sharetxn sim` with `args` into `dir` and returns the one trace it wrote.
fn sim_trace(dir: &Path, args: &[&str]) -> PathBuf {
    let dir_text = dir.to_string_lossy().into_owned();
    let mut all = vec!["sim", "--threads", "1", "--trace-out", dir_text.as_str()];
    all.extend_from_slice(args);
    let out = run(&all);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the trace directory")
        .map(|e| e.expect("an entry").path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 1, "{files:?}");
    files.remove(0)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("readable")).expect("JSON")
}

fn write_json(path: &Path, value: &Value) {
    std::fs::write(path, serde_json::to_string_pretty(value).expect("JSON")).expect("writable");
}

/// `seed` judged on `txn_completes` only (so its safety violations do not stop the run),
/// a 50 ms fault phase and a 5 ms heal deadline: the run is still busy when the deadline
/// passes, on any model, so the verdict rests on the recorded virtual times.
#[test]
fn a_deadline_passed_by_the_recorded_times_replays_renders_and_is_not_shrunk() {
    let dir = scratch_dir("late");
    let path = sim_trace(
        &dir,
        &[
            "--scenario",
            "ctp",
            "--design",
            "seed",
            "--seeds",
            "0..1",
            "--set",
            "properties=txn_completes",
            "--set",
            "fault_ms=50",
            "--set",
            "heal_deadline_ms=5",
        ],
    );
    let file = path.to_string_lossy().into_owned();
    let trace = read_json(&path);
    assert_eq!(trace["outcome"]["violation"]["property"], "heal_deadline");
    let heal = &trace["heal"];
    assert_eq!(heal["at_ms"], 50, "{heal}");
    assert_eq!(heal["deadline_ms"], 5, "{heal}");
    assert!(
        heal["next_due_ms"].as_u64().expect("a due time") > 55,
        "{heal}"
    );

    let replayed = run(&["replay", &file]);
    let stdout = text(&replayed.stdout);
    assert_eq!(replayed.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("reproduced at step") && stdout.contains("recorded virtual times"),
        "{stdout}"
    );

    let rendered = run(&["render", &file]);
    let rendered_text = text(&rendered.stdout);
    assert_eq!(rendered.status.code(), Some(0));
    assert!(
        rendered_text.contains("heal      after step"),
        "{rendered_text}"
    );
    assert!(rendered_text.contains("heal begins"), "{rendered_text}");
    let mermaid = run(&["render", &file, "--format", "mermaid"]);
    assert!(text(&mermaid.stdout).contains(": heal begins (after step"));

    // A shorter run has no honest timing: shrink says so in one line.
    let shrunk = run(&["shrink", &file, "-o", &format!("{file}.shrunk")]);
    let err = text(&shrunk.stderr);
    assert_eq!(shrunk.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("no honest timing"), "{err}");

    // The same trace with the next action due within the deadline does not show it.
    let mut early = trace.clone();
    early["heal"]["next_due_ms"] = Value::from(54);
    let early_path = dir.join("early.json");
    write_json(&early_path, &early);
    let out = run(&["replay", &early_path.to_string_lossy()]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("within the deadline"), "{stdout}");

    // An edited due time that still claims the deadline passed is not believed: the
    // simulator, run again on the recorded seed, records another, and by the model alone
    // (no fair cycle) the verdict does not show. Render says the same.
    let mut edited = trace.clone();
    let due = edited["heal"]["next_due_ms"].as_u64().unwrap();
    edited["heal"]["next_due_ms"] = Value::from(due + 1000);
    let edited_path = dir.join("edited.json");
    write_json(&edited_path, &edited);
    let out = run(&["replay", &edited_path.to_string_lossy()]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("not the simulator's"), "{stdout}");
    let out = run(&["render", &edited_path.to_string_lossy()]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("heal_deadline not reproduced"), "{stdout}");

    // A heal-phase trace without its heal point (as written before traces had one) is
    // refused in one line.
    let mut old = trace;
    old.as_object_mut().expect("an object").remove("heal");
    let old_path = dir.join("old.json");
    write_json(&old_path, &old);
    for command in ["replay", "render", "shrink"] {
        let out = run(&[command, &old_path.to_string_lossy()]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{command}: {err}");
        assert!(err.contains("must record where the heal began"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
