//! Fuzzing the binary as a user (or a corrupted file) would: mutated corpus traces fed to
//! `replay`, `render` and `shrink`, and argument vectors drawn from every command's flags
//! and awkward values. Whatever the input, the process must end by itself (no hang), never
//! panic or abort (exit 101 or 134, or a signal), exit 0, 1 or 2, and an exit-2 stderr must
//! be exactly one line `sharetxn: ...` under 300 characters.
//!
//! The short runs here take a few seconds; the `#[ignore]`d long runs take minutes and
//! print the exit-code histogram (`FUZZ_CASES` sets how many cases each draws).

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::thread::sleep;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_sharetxn");

/// Longer than any bounded run here takes on a loaded machine, far shorter than a hang.
const TIMEOUT: Duration = Duration::from_secs(120);

/// Exit codes seen, for the long runs' histogram.
static SEEN: Mutex<BTreeMap<i32, u64>> = Mutex::new(BTreeMap::new());

/// A scratch directory of this test process.
fn scratch() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("sharetxn-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// The reviewed corpus, every trace as text.
fn corpus() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces/counterexamples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the corpus directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).expect("a corpus trace"))
        })
        .collect()
}

/// Runs the binary in `dir` and judges how it ended.
fn judge_run(args: &[String], dir: &Path) -> Result<i32, TestCaseError> {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| TestCaseError::fail(format!("spawn: {e}")))?;
    let mut stderr = child.stderr.take().expect("piped stderr");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let mut waited = Duration::ZERO;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if waited >= TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(TestCaseError::fail(format!("hang: {args:?}")));
        }
        sleep(Duration::from_millis(20));
        waited += Duration::from_millis(20);
    };
    let stderr = reader.join().unwrap_or_default();
    let Some(code) = status.code() else {
        return Err(TestCaseError::fail(format!("killed by a signal: {args:?}")));
    };
    *SEEN.lock().unwrap().entry(code).or_default() += 1;
    prop_assert!(matches!(code, 0..=2), "exit {code} for {args:?}: {stderr}");
    if code == 2 {
        prop_assert_eq!(stderr.lines().count(), 1, "{:?}: {}", args, stderr);
        prop_assert!(stderr.starts_with("sharetxn: "), "{:?}: {}", args, stderr);
        prop_assert!(stderr.chars().count() < 300, "{:?}: {}", args, stderr);
    }
    Ok(code)
}

/// A JSON value somewhere between plausible and hostile.
fn odd_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (0u64..40).prop_map(Value::from),
        Just(serde_json::json!(1e300)),
        "[a-zA-Z_]{0,12}".prop_map(Value::from),
        (1usize..12_000).prop_map(|n| Value::from("x".repeat(n))),
        Just(serde_json::json!([])),
        Just(serde_json::json!({})),
        Just(Value::from("heal_deadline")),
        Just(Value::from("seed")),
        Just(Value::from("ctp")),
    ]
}

/// One edit of a trace: a leaf replaced, an entry removed, a step dropped or duplicated,
/// or the text cut or garbled.
#[derive(Clone, Debug)]
enum Mutation {
    Replace(Vec<usize>, Value),
    Remove(Vec<usize>),
    Truncate(usize),
    Garble(usize, u8),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let path = proptest::collection::vec(any::<usize>(), 1..6);
    prop_oneof![
        4 => (path.clone(), odd_value()).prop_map(|(p, v)| Mutation::Replace(p, v)),
        2 => path.prop_map(Mutation::Remove),
        1 => any::<usize>().prop_map(Mutation::Truncate),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Mutation::Garble(at, b)),
    ]
}

/// The child of `value` picked by `index` (modulo its size), if it has children.
fn child_mut(value: &mut Value, index: usize) -> Option<&mut Value> {
    match value {
        Value::Object(map) if !map.is_empty() => {
            let key = map.keys().nth(index % map.len())?.clone();
            map.get_mut(&key)
        }
        Value::Array(items) if !items.is_empty() => {
            let n = items.len();
            items.get_mut(index % n)
        }
        _ => None,
    }
}

/// Applies `m` to the trace `text`.
fn mutate(text: &str, m: &Mutation) -> String {
    match m {
        Mutation::Truncate(at) => text[..floor_char(text, at % text.len().max(1))].to_string(),
        Mutation::Garble(at, byte) => {
            let mut bytes = text.as_bytes().to_vec();
            let i = at % bytes.len().max(1);
            if let Some(b) = bytes.get_mut(i) {
                *b = *byte;
            }
            String::from_utf8_lossy(&bytes).into_owned()
        }
        Mutation::Replace(path, _) | Mutation::Remove(path) => {
            // After a cut or a garbled byte the text may be JSON no more: leave it so.
            let Ok(mut root) = serde_json::from_str::<Value>(text) else {
                return text.to_string();
            };
            edit_at(&mut root, path, m);
            serde_json::to_string_pretty(&root).expect("JSON")
        }
    }
}

/// Walks `path` down from `value` (as far as it goes) and applies the edit there.
fn edit_at(value: &mut Value, path: &[usize], m: &Mutation) {
    if let (Some((index, [])), Mutation::Remove(_)) = (path.split_first(), m) {
        remove_child(value, *index);
        return;
    }
    let child = match path.split_first() {
        Some((index, rest)) => child_mut(value, *index).map(|c| (c, rest)),
        None => None,
    };
    match child {
        Some((c, rest)) => edit_at(c, rest, m),
        None => {
            if let Mutation::Replace(_, v) = m {
                *value = v.clone();
            }
        }
    }
}

fn floor_char(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn remove_child(value: &mut Value, index: usize) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            if let Some(key) = map.keys().nth(index % map.len()).cloned() {
                map.remove(&key);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            let n = items.len();
            items.remove(index % n);
        }
        _ => {}
    }
}

/// Runs `cases` mutated traces through `replay`, `render` and `shrink`.
fn fuzz_traces(cases: u32) {
    let corpus = corpus();
    let dir = scratch();
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        0..corpus.len(),
        proptest::collection::vec(mutation(), 1..4),
        0..3usize,
    );
    runner
        .run(&strategy, |(pick, mutations, command)| {
            let mut text = corpus[pick].1.clone();
            for m in &mutations {
                text = mutate(&text, m);
            }
            let file = dir.join(format!("mutated-{}.json", std::process::id()));
            std::fs::write(&file, &text).expect("write");
            let file = file.to_string_lossy().into_owned();
            let args: Vec<String> = match command {
                0 => vec!["replay".into(), file],
                1 => vec!["render".into(), file],
                _ => vec![
                    "shrink".into(),
                    file.clone(),
                    "--ddmin-only".into(),
                    "-o".into(),
                    format!("{file}.shrunk"),
                ],
            };
            judge_run(&args, &dir).map(|_| ())
        })
        .unwrap();
}

/// A word an argument vector may hold: a command, a flag, or a value.
fn word() -> impl Strategy<Value = String> {
    const WORDS: &[&str] = &[
        "list",
        "check",
        "matrix",
        "sim",
        "replay",
        "shrink",
        "render",
        "completions",
        "help",
        "--scenario",
        "--design",
        "--designs",
        "--scenarios",
        "--set",
        "--strategy",
        "--max-depth",
        "--max-states",
        "--unclaimed-max-states",
        "--threads",
        "--timeout",
        "--json",
        "--trace-out",
        "--seeds",
        "--shard",
        "--steps",
        "--summarize",
        "--format",
        "--ddmin-only",
        "--search-states",
        "-o",
        "--port",
        "--host",
        "--help",
        "-h",
        "--version",
        "--",
        "-",
        "=",
        "",
        "0",
        "1",
        "2",
        "-1",
        "65",
        "1e300",
        "NaN",
        "0.5",
        "18446744073709551615",
        "18446744073709551616",
        "5..5",
        "0..3",
        "9..7",
        "18446744073709551613..18446744073709551615",
        "0/1",
        "3/2",
        "1/0",
        "0/18446744073709551615",
        "txn-basic",
        "ctp",
        "session-resume",
        "seed",
        "draft",
        "proposed",
        "consumer-offsets",
        "seed,draft",
        "nope",
        "tv=9",
        "tv=1",
        "drops=0",
        "faults=meteor",
        "inputs=999999999",
        "bfs",
        "dfs",
        "random",
        "text",
        "mermaid",
        "bash",
        "zsh",
        "tcsh",
        "no/such/file.json",
        "é",
    ];
    prop_oneof![
        8 => proptest::sample::select(WORDS).prop_map(str::to_string),
        1 => (1usize..6000).prop_map(|n| format!("--{}", "x".repeat(n))),
        1 => "[ -~]{0,20}",
    ]
}

/// Bounds a vector that could legitimately run for minutes (an exhaustive check, a long
/// seed range, a server), so that only a real hang hits the timeout.
fn bounded(mut args: Vec<String>) -> Vec<String> {
    let has = |a: &[String], f: &str| a.iter().any(|w| w == f || w.starts_with(&format!("{f}=")));
    match args.first().map(String::as_str) {
        Some("check") if !has(&args, "--timeout") => {
            args.extend(["--timeout".into(), "2".into()]);
        }
        Some("matrix") => {
            if !has(&args, "--timeout") {
                args.extend(["--timeout".into(), "1".into()]);
            }
            if !has(&args, "--scenarios") {
                args.extend(["--scenarios".into(), "txn-basic".into()]);
            }
        }
        Some("sim") if !has(&args, "--seeds") && !has(&args, "--summarize") => {
            args.extend(["--seeds".into(), "0..3".into()]);
        }
        _ => {}
    }
    // The Explorer serves until interrupted: only its refusals are fuzzed.
    if args.first().is_some_and(|a| a == "explore") {
        args.insert(1, "--port=0".into());
    }
    args
}

/// Runs `cases` argument vectors.
fn fuzz_args(cases: u32) {
    let dir = scratch();
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&proptest::collection::vec(word(), 0..7), |args| {
            // A valid but huge `--timeout` could be a long valid run: cut it off first.
            let mut args = args;
            if let Some(i) = args.iter().position(|a| a == "--timeout") {
                if args.get(i + 1).is_some_and(|v| v == "18446744073709551615") {
                    args.truncate(i);
                }
            }
            judge_run(&bounded(args), &dir).map(|_| ())
        })
        .unwrap();
}

/// The exit-code histogram so far, for the closing note (`--nocapture` shows it).
fn histogram(what: &str) {
    let seen = SEEN.lock().unwrap();
    println!("{what}: exit codes {seen:?}");
}

fn cases(default: u32) -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn mutated_traces_short() {
    fuzz_traces(48);
}

#[test]
fn argument_vectors_short() {
    fuzz_args(64);
}

#[test]
#[ignore = "minutes: the long fuzz run over mutated traces"]
fn mutated_traces_long() {
    fuzz_traces(cases(2000));
    histogram("traces");
}

#[test]
#[ignore = "minutes: the long fuzz run over argument vectors"]
fn argument_vectors_long() {
    fuzz_args(cases(1000));
    histogram("arguments");
}
