//! Inputs that once crashed, hung or lied (issue 19), each with the result it must give
//! now: a one-line error and exit 2, or the right answer.

use crate::common;
use common::{run, text, BIN};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const MAX: &str = "18446744073709551615";

fn scratch_dir(name: &str) -> PathBuf {
    let dir = common::scratch_dir("bad", name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn corpus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../traces/counterexamples")
        .join(format!("{name}.json"))
}

/// A one-line `sharetxn: ...` error under 300 characters, exit 2, containing `expect`.
fn assert_refused(out: &Output, expect: &str, what: &str) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{what}: {stderr}");
    assert!(stderr.starts_with("sharetxn: "), "{what}: {stderr}");
    assert!(stderr.chars().count() < 300, "{what}: {stderr}");
    assert!(stderr.contains(expect), "{what}: {stderr}");
}

const TORN: &str = "txn_atomicity--consumer-offsets-no-flush-before-end-txn";

fn edited(name: &str, dir: &Path, file: &str, edit: impl Fn(&mut Value)) -> String {
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(corpus(name)).unwrap()).unwrap();
    edit(&mut v);
    let path = dir.join(file);
    std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn the_whole_seed_range_streams_instead_of_aborting() {
    let dir = scratch_dir("stream");
    let range = format!("0..{MAX}");
    let mut child = Command::new(BIN)
        .args([
            "sim",
            "--json",
            "--threads",
            "1",
            "--seeds",
            &range,
            "--steps",
            "50",
        ])
        .arg("--trace-out")
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().expect("a first seed line").unwrap();
    let line: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(line["seed"], 0, "{first}");
    assert!(
        child.try_wait().unwrap().is_none(),
        "it keeps running seeds"
    );
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_thin_shard_of_the_whole_range_runs_its_one_seed() {
    let dir = scratch_dir("shard");
    let dir_arg = dir.to_string_lossy().into_owned();
    let range = format!("0..{MAX}");
    let last = format!("18446744073709551613/{MAX}");
    for (shard, seed) in [(format!("0/{MAX}"), 0u64), (last, u64::MAX - 2)] {
        let out = run(&[
            "sim",
            "--json",
            "--seeds",
            &range,
            "--shard",
            &shard,
            "--steps",
            "50",
            "--trace-out",
            &dir_arg,
        ]);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{}",
            text(&out.stderr)
        );
        let lines: Vec<Value> = text(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2, "one seed line and the summary");
        assert_eq!(lines[0]["seed"], seed);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn trace_commands_refuse_a_pair_check_refuses() {
    let dir = scratch_dir("pair");
    let file = edited(TORN, &dir, "relabelled.json", |v| {
        v["design"]["name"] = "seed".into();
    });
    let check = run(&["check", "--scenario", "txn-basic", "--design", "seed"]);
    assert_refused(&check, "does not apply", "check");
    for command in ["replay", "render", "shrink"] {
        let out = run(&[command, &file]);
        assert_refused(
            &out,
            "design seed does not apply to scenario txn-basic",
            command,
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn render_prints_the_outcome_judged_now() {
    let dir = scratch_dir("render");
    let file = edited(TORN, &dir, "lying.json", |v| {
        v["outcome"]["violation"]["message"] = "EVERYTHING IS FINE".into();
    });
    for format in ["text", "mermaid"] {
        let out = run(&["render", &file, "--format", format]);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(!stdout.contains("EVERYTHING IS FINE"), "{stdout}");
        assert!(stdout.contains("txn_atomicity violated"), "{stdout}");
    }
    // Cut before the violating step, the same file's outcome no longer shows, and render
    // says so rather than repeating the file.
    let cut = edited(TORN, &dir, "cut.json", |v| {
        v["steps"].as_array_mut().unwrap().pop();
    });
    let out = run(&["render", &cut]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("txn_atomicity not reproduced"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn summarize_of_nothing_is_an_error() {
    let dir = scratch_dir("summarize");
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let out = run(&["sim", "--summarize", &empty.to_string_lossy()]);
    assert_refused(&out, "empty", "empty file");
    let summary_only = dir.join("summary.jsonl");
    std::fs::write(&summary_only, "{\"summary\":{}}\n").unwrap();
    let out = run(&["sim", "--summarize", &summary_only.to_string_lossy()]);
    assert_refused(&out, "no seed lines", "summary only");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unwritable_trace_file_keeps_the_report() {
    let dir = scratch_dir("unwritable");
    let dir_arg = dir.to_string_lossy().into_owned();
    // The seed design on ctp violates txn_atomicity; its trace's name is taken by a
    // directory, so that one file cannot be written.
    let blocker = dir.join("seed-ctp-txn_atomicity.json");
    std::fs::create_dir_all(blocker.join("keep")).unwrap();
    let out = run(&[
        "check",
        "--scenario",
        "ctp",
        "--design",
        "seed",
        "--json",
        "--max-states",
        "200000",
        "--trace-out",
        &dir_arg,
    ]);
    let report: Value = serde_json::from_str(&text(&out.stdout)).expect("the report is printed");
    assert_eq!(report["design"], "seed");
    assert_refused(&out, "seed-ctp-txn_atomicity.json", "check");
    let written = std::fs::read_dir(&dir).unwrap().count();
    assert!(written > 1, "the other traces are written");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn long_errors_are_capped() {
    let long = format!("--{}", "x".repeat(10_000));
    let out = run(&["check", &long]);
    assert_refused(&out, "…", "long flag");
    let out = run(&["check", "--scenario", &"y".repeat(10_000)]);
    assert_refused(&out, "…", "long scenario");
}

#[test]
// The wall clock measures the command from outside; nothing here is a model decision.
#[allow(clippy::disallowed_methods)]
fn timeout_is_honoured_within_a_second() {
    // The full txn-basic check takes minutes; a 2 s budget must end it by about 3 s.
    let dir = scratch_dir("timeout");
    let started = std::time::Instant::now();
    let out = Command::new(BIN)
        .args([
            "check",
            "--timeout",
            "2",
            "--threads",
            "2",
            "--json",
            "--trace-out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let report: Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert_eq!(report["exhaustive"], false);
    assert!(took < Duration::from_secs(4), "took {took:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `share_groups` is 1 or 2, and two groups only with the one client the model has for
/// them (scenario `ctp-two-groups`): anything else is refused in one line, before a check.
#[test]
fn share_groups_out_of_range_or_inexpressible_is_refused() {
    let three = run(&[
        "check",
        "--scenario",
        "ctp",
        "--set",
        "share_groups=3",
        "--threads",
        "1",
    ]);
    assert_refused(&three, "from 1 to 2", "share_groups=3");
    let race = run(&[
        "check",
        "--scenario",
        "ctp-race",
        "--set",
        "share_groups=2",
        "--threads",
        "1",
    ]);
    assert_refused(&race, "cannot be combined with", "ctp-race with two groups");
}
