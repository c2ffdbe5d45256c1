//! The `sharetxn` binary as users meet it: exit statuses, the one-line errors, the JSON
//! report and its trace files, and the Explorer answering over HTTP. These run the built
//! binary, so they catch what unit tests of the modules cannot (argument handling end to
//! end, stdout staying pure JSON, the server actually listening).

use crate::common;
use common::{run, text, BIN};
use serde_json::Value;
use sharetxn_properties::PROPERTIES;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::thread::sleep;
use std::time::Duration;

/// The fault budget switched off, so an exhaustive check takes about a second.
const NO_FAULTS: &[&str] = &[
    "--set",
    "drops=0",
    "--set",
    "duplicates=0",
    "--set",
    "crashes=0",
];

/// A fresh directory under the target directory, removed first if a previous run left it.
fn scratch_dir(name: &str) -> PathBuf {
    common::scratch_dir("cli", name)
}

/// Switches off the faults the model gained after the three above (early timeouts), if
/// this model has them: `list` says which `--set` keys exist.
fn extra_fault_switches() -> Vec<&'static str> {
    let list = text(&run(&["list"]).stdout);
    let has = |key: &str| {
        list.lines()
            .any(|l| l.split_whitespace().next() == Some(key))
    };
    if has("timeouts") {
        vec!["--set", "timeouts=0"]
    } else {
        Vec::new()
    }
}

#[test]
fn list_names_scenarios_and_every_property() {
    let out = run(&["list"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("txn-basic"), "{stdout}");
    assert!(stdout.contains("consumer-offsets"), "{stdout}");
    for p in PROPERTIES {
        assert!(stdout.contains(p.name), "list lacks {}", p.name);
        assert!(stdout.contains(p.twin), "list lacks {}", p.twin);
    }
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}

#[test]
fn help_prints_usage_and_succeeds() {
    for args in [&["--help"][..], &["-h"], &["help"], &["check", "--help"]] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(text(&out.stdout).contains("Usage:"), "{args:?}");
    }
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let cases: &[&[&str]] = &[
        &["check", "--scenario", "no-such-scenario"],
        &["check", "--design", "no-such-design"],
        &["check", "--set", "nope=1"],
        &["check", "--set", "tv=9"],
        &["check", "--set", "reader_members=3"],
        &["check", "--set", "txn_ack_types=renew"],
        &["check", "--set", "txn_ack_types="],
        &["check", "--set", "txn_plain_acks=maybe"],
        &["check", "--set", "share_add_choices=2"],
        &["check", "--threads", "0"],
        &["check", "--threads", "many"],
        &["check", "--max-states", "0"],
        &["check", "--strategy", "random"],
        &["check", "--max-depth"],
        &["check", "--no-such-flag"],
        &["sim", "--seeds", "5..5"],
        &["sim", "--seeds", "nope"],
        &["sim", "--shard", "3/2"],
        &["sim", "--scenario", "no-such-scenario"],
        &["sim", "--set", "faults=meteor"],
        &["sim", "--steps", "0"],
        &["sim", "--summarize", "/no/such/file.jsonl"],
        &["explore", "--port", "0"],
        &["explore", "--design", "no-such-design"],
        &["no-such-command"],
        &[],
    ];
    for args in cases {
        let out = run(args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("sharetxn: "), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
    }
}

#[test]
fn check_json_is_one_object_with_readable_traces() {
    let dir = scratch_dir("json");
    let dir_arg = dir.to_string_lossy().into_owned();
    let mut args = vec!["check", "--json", "--trace-out", dir_arg.as_str()];
    args.extend_from_slice(NO_FAULTS);
    args.extend(extra_fault_switches());
    // A safety net should the model outgrow a quick exhaustive check.
    args.extend(["--max-states", "300000"]);
    let out = run(&args);
    let stdout = text(&out.stdout);
    let report: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON object ({e}): {stdout}"));
    for key in [
        "scenario",
        "design",
        "settings",
        "exhaustive",
        "unique_states",
        "max_depth",
        "seconds",
        "states_per_second",
        "properties",
    ] {
        assert!(report.get(key).is_some(), "report lacks {key}: {stdout}");
    }
    assert_eq!(report["scenario"], "txn-basic");
    assert_eq!(report["design"], "consumer-offsets");
    assert_eq!(report["settings"]["drops"], 0);
    let properties = report["properties"]
        .as_array()
        .expect("properties is an array");
    assert_eq!(properties.len(), 2 * PROPERTIES.len());
    let mut all_good = true;
    let mut traces = 0;
    for p in properties {
        for key in ["name", "kind", "status", "trace"] {
            assert!(p.get(key).is_some(), "property lacks {key}: {p}");
        }
        let status = p["status"].as_str().expect("status is a string");
        all_good &= matches!(status, "holds" | "witnessed" | "not_applicable");
        if matches!(status, "violated" | "witnessed") {
            assert!(p["trace"].is_string(), "a discovery without a trace: {p}");
        }
        if let Some(path) = p["trace"].as_str() {
            traces += 1;
            let file = std::fs::read_to_string(path).expect("the trace file exists");
            let trace: Value = serde_json::from_str(&file).expect("the trace file is JSON");
            assert_eq!(trace["format"], "sharetxn-trace");
            assert_eq!(trace["version"], 1);
            assert_eq!(trace["origin"]["kind"], "check");
            assert_eq!(trace["origin"]["strategy"], "bfs");
            let outcome = &trace["outcome"];
            let recorded = outcome["violation"]["property"]
                .as_str()
                .or(outcome["witness"]["property"].as_str());
            assert_eq!(recorded, p["name"].as_str(), "{outcome}");
            if status == "violated" {
                assert_eq!(outcome["violation"]["kind"], p["kind"]);
                assert_eq!(outcome["violation"]["message"], p["message"]);
            }
            assert_eq!(trace["design"]["name"], "consumer-offsets");
            assert_eq!(trace["scenario"]["name"], "txn-basic");
            let steps = trace["steps"].as_array().expect("steps is an array");
            assert!(!steps.is_empty(), "{path}");
            for (i, step) in steps.iter().enumerate() {
                assert_eq!(step["step"], i + 1);
                assert!(
                    step["text"].as_str().is_some_and(|t| !t.is_empty()),
                    "{step}"
                );
                assert!(step.get("action").is_some(), "{step}");
                assert!(
                    step["digest"].as_str().is_some_and(|d| d.len() == 16),
                    "{step}"
                );
            }
            // What check writes, replay reads: a witness shows again (exit 0).
            if status == "witnessed" {
                let out = run(&["replay", path]);
                assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
            }
            let name = format!(
                "consumer-offsets-txn-basic-{}.json",
                p["name"].as_str().unwrap()
            );
            assert!(path.ends_with(&name), "{path} is not named {name}");
        }
    }
    assert!(
        traces > 0,
        "a fault-free run still reaches a commit: {stdout}"
    );
    let expected = if all_good { 0 } else { 1 };
    assert_eq!(out.status.code(), Some(expected), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_human_output_summarises_and_bounds_report_unknown() {
    let dir = scratch_dir("human");
    let dir_arg = dir.to_string_lossy().into_owned();
    // A depth bound cuts the space short, so the run must say it is not exhaustive.
    let mut args = vec!["check", "--max-depth", "5", "--trace-out", dir_arg.as_str()];
    args.extend_from_slice(NO_FAULTS);
    let out = run(&args);
    let stdout = text(&out.stdout);
    for needle in [
        "scenario",
        "unique states",
        "states/s",
        "exhaustive     no",
        "txn_atomicity",
    ] {
        assert!(stdout.contains(needle), "lacks {needle}: {stdout}");
    }
    assert!(stdout.contains("unknown"), "{stdout}");
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    // Not a terminal: no progress line, and nothing violated, so nothing on stderr.
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A reviewed counterexample of the traces crate.
fn corpus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../traces/counterexamples")
        .join(format!("{name}.json"))
}

const TORN: &str = "txn_atomicity--consumer-offsets-no-flush-before-end-txn";

#[test]
fn replay_exit_status_says_whether_the_violation_shows() {
    let path = corpus(TORN);
    let out = run(&["replay", path.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("reproduced at step 14 of 14: txn_atomicity violated"),
        "{stdout}"
    );
    assert_eq!(
        stdout.lines().filter(|l| l.contains(" ok ")).count(),
        14,
        "{stdout}"
    );

    // The same run cut before its last step replays cleanly without the violation.
    let dir = scratch_dir("replay");
    std::fs::create_dir_all(&dir).unwrap();
    let mut trace: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    trace["steps"].as_array_mut().unwrap().pop();
    let cut = dir.join("cut.json");
    std::fs::write(&cut, serde_json::to_string_pretty(&trace).unwrap()).unwrap();
    let out = run(&["replay", cut.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("not reproduced"),
        "{}",
        text(&out.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shrink_writes_a_trace_and_reports_lengths() {
    let dir = scratch_dir("shrink");
    std::fs::create_dir_all(&dir).unwrap();
    let out_path = dir.join("small.json");
    let path = corpus(TORN);
    let out = run(&[
        "shrink",
        path.to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("from 14 to 14 steps"), "{stdout}");
    let shrunk: Value = serde_json::from_str(&std::fs::read_to_string(&out_path).unwrap()).unwrap();
    assert_eq!(shrunk["origin"]["kind"], "shrunk");
    let replayed = run(&["replay", out_path.to_str().unwrap()]);
    assert_eq!(replayed.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn render_prints_text_and_mermaid() {
    let path = corpus(TORN);
    let out = run(&["render", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("step       time  kind"), "{stdout}");
    let out = run(&["render", path.to_str().unwrap(), "--format", "mermaid"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("sequenceDiagram\n"));
}

#[test]
fn bad_traces_are_one_line_and_exit_2() {
    let dir = scratch_dir("bad-traces");
    std::fs::create_dir_all(&dir).unwrap();
    let good = std::fs::read_to_string(corpus(TORN)).unwrap();
    let edit = |f: &dyn Fn(&mut Value)| {
        let mut v: Value = serde_json::from_str(&good).unwrap();
        f(&mut v);
        serde_json::to_string_pretty(&v).unwrap()
    };
    let cases: Vec<(&str, String, &str)> = vec![
        ("not-json", "not json at all".into(), "not JSON"),
        ("truncated", good[..good.len() / 3].to_string(), "not JSON"),
        (
            "version",
            edit(&|v| v["version"] = 0.into()),
            "reads version 1",
        ),
        (
            "design",
            edit(&|v| v["design"]["name"] = "nope".into()),
            "unknown design",
        ),
        (
            "scenario",
            edit(&|v| v["scenario"]["name"] = "nope".into()),
            "unknown scenario",
        ),
        (
            "actor",
            edit(&|v| v["steps"][2]["action"]["Deliver"]["dst"] = 42.into()),
            "unknown actor id 42",
        ),
        (
            "message",
            edit(&|v| {
                let msg = &mut v["steps"][0]["action"]["Deliver"]["msg"];
                let body = msg["InitProducerId"].take();
                *msg = serde_json::json!({ "ShareFetchTypo": body });
            }),
            "unknown variant `ShareFetchTypo`",
        ),
        (
            "not-enabled",
            edit(&|v| {
                let steps = v["steps"].as_array_mut().unwrap();
                steps.remove(0);
                for (i, s) in steps.iter_mut().enumerate() {
                    s["step"] = (i + 1).into();
                }
            }),
            "not enabled",
        ),
    ];
    for (name, contents, expected) in &cases {
        let file = dir.join(format!("{name}.json"));
        std::fs::write(&file, contents).unwrap();
        let file = file.to_str().unwrap();
        for command in [&["replay", file][..], &["shrink", file], &["render", file]] {
            let out = run(command);
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{command:?}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{command:?}: {stderr}");
            assert!(
                stderr.starts_with(&format!("sharetxn: {file}")),
                "{command:?}: {stderr}"
            );
            assert!(stderr.contains(expected), "{command:?}: {stderr}");
        }
    }
    let out = run(&["replay", "no/such/trace.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot read"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Kills the child however the test ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A plain HTTP/1.0 GET: the status line and the body.
fn http_get(port: u16, path: &str) -> std::io::Result<(String, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    let response = text(&response);
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head.lines().next().unwrap_or_default().to_string();
    Ok((status, body.to_string()))
}

#[test]
fn explore_serves_the_explorer() {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let port_arg = port.to_string();
    let mut args = vec!["explore", "--port", port_arg.as_str()];
    args.extend_from_slice(NO_FAULTS);
    let child = Command::new(BIN)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the sharetxn binary starts");
    let mut child = Killed(child);

    let mut page = None;
    for _ in 0..100 {
        if let Ok(answer) = http_get(port, "/") {
            page = Some(answer);
            break;
        }
        if let Ok(Some(status)) = child.0.try_wait() {
            panic!("explore exited early with {status}");
        }
        sleep(Duration::from_millis(200));
    }
    let (status, body) = page.expect("the Explorer answers within 20 s");
    assert!(status.contains("200"), "{status}");
    assert!(body.to_ascii_lowercase().contains("<html"), "{body}");

    let (status, body) = http_get(port, "/.states/0").expect("the Explorer answers");
    assert!(status.contains("200"), "{status}: {body}");
    assert!(body.trim_start().starts_with('['), "{body}");
    let states: Value = serde_json::from_str(&body).expect("the states are JSON");
    assert!(states.as_array().is_some_and(|a| !a.is_empty()), "{body}");

    let _ = child.0.kill();
    let _ = child.0.wait();
    let mut stderr = String::new();
    if let Some(mut pipe) = child.0.stderr.take() {
        let _ = pipe.read_to_string(&mut stderr);
    }
    let url = format!("Explorer at http://127.0.0.1:{port}/");
    assert!(stderr.contains(&url), "{stderr}");
}

fn sim_json(args: &[&str]) -> (Output, Vec<Value>) {
    let out = run(args);
    let lines = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    (out, lines)
}

#[test]
fn sim_json_is_one_line_per_seed_in_order_then_a_summary() {
    let dir = scratch_dir("sim-pass");
    let dir_arg = dir.to_string_lossy().into_owned();
    let (out, lines) = sim_json(&["sim", "--seeds", "3..9", "--json", "--trace-out", &dir_arg]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    assert_eq!(lines.len(), 7);
    for (line, seed) in lines.iter().zip(3..9) {
        assert_eq!(line["seed"], seed);
        assert_eq!(line["result"], "pass");
        for key in [
            "steps",
            "virtual_ms",
            "property",
            "trace",
            "swarm",
            "faults",
        ] {
            assert!(line.get(key).is_some(), "lacks {key}: {line}");
        }
        assert!(line["swarm"]["inputs"].is_u64(), "{line}");
    }
    let summary = &lines[6]["summary"];
    assert_eq!(
        (summary["seeds"].as_u64(), summary["violated"].as_u64()),
        (Some(6), Some(0))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sim_threads_do_not_change_the_output() {
    let one = run(&["sim", "--seeds", "0..24", "--json", "--threads", "1"]);
    let two = run(&["sim", "--seeds", "0..24", "--json", "--threads", "2"]);
    assert_eq!(one.status.code(), two.status.code());
    assert!(!one.stdout.is_empty());
    assert_eq!(text(&one.stdout), text(&two.stdout));
}

#[test]
fn sim_violation_exits_1_with_a_trace_and_a_reproduce_command() {
    let dir = scratch_dir("sim-violation");
    let dir_arg = dir.to_string_lossy().into_owned();
    let args = [
        "sim",
        "--seeds",
        "0..120",
        "--set",
        "tv=1",
        "--json",
        "--trace-out",
        &dir_arg,
    ];
    let (out, lines) = sim_json(&args);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let bad: Vec<&Value> = lines.iter().filter(|l| l["result"] == "violated").collect();
    assert!(
        !bad.is_empty(),
        "tv=1 breaks atomicity within 120 seeds (first at 108)"
    );
    let first = bad[0];
    assert_eq!(first["property"], "txn_atomicity");
    let path = first["trace"].as_str().expect("a trace path");
    let trace: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(trace["format"], "sharetxn-trace");
    assert_eq!(trace["version"], 1);
    assert_eq!(trace["origin"]["kind"], "sim");
    assert_eq!(trace["origin"]["seed"], first["seed"]);
    assert_eq!(trace["outcome"]["violation"]["property"], "txn_atomicity");
    assert_eq!(trace["design"]["tv"], 1);
    assert!(trace["scenario"]["inputs"].is_u64());
    assert!(trace["origin"]["options"]["options"]["request_timeout_ms"].is_u64());
    let steps = trace["steps"].as_array().unwrap();
    assert_eq!(steps.len() as u64, first["steps"].as_u64().unwrap());
    for (i, step) in steps.iter().enumerate() {
        assert_eq!(step["step"], i + 1);
        assert!(
            step["time_ms"].is_u64() && step["text"].is_string() && step.get("action").is_some()
        );
    }
    // The simulator's trace replays on the model alone, and shrinks to a short one.
    let replayed = run(&["replay", path]);
    assert_eq!(
        replayed.status.code(),
        Some(1),
        "{}",
        text(&replayed.stderr)
    );
    let shrunk_path = dir.join("shrunk.json");
    let shrunk = run(&["shrink", path, "-o", &shrunk_path.to_string_lossy()]);
    assert_eq!(shrunk.status.code(), Some(0), "{}", text(&shrunk.stderr));
    let shrunk: Value =
        serde_json::from_str(&std::fs::read_to_string(&shrunk_path).unwrap()).unwrap();
    let shrunk_len = shrunk["steps"].as_array().unwrap().len();
    assert!(
        shrunk_len < steps.len(),
        "{} steps shrink to {shrunk_len}",
        steps.len()
    );
    let again = run(&["replay", &shrunk_path.to_string_lossy()]);
    assert_eq!(again.status.code(), Some(1), "{}", text(&again.stderr));
    // The printed command reproduces exactly that seed's line.
    let stderr = text(&out.stderr);
    let command = stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("reproduce: sharetxn "))
        .expect("a reproduce command");
    let mut words: Vec<&str> = command.split_whitespace().collect();
    words.push("--json");
    let (again, again_lines) = sim_json(&words);
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(again_lines[0], *first);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--max-traces N` writes the first N traces of each violated property, in seed order;
/// every violating seed is still reported and counted.
#[test]
fn sim_max_traces_bounds_the_traces_written_per_property() {
    let base = [
        "sim",
        "--scenario",
        "ctp",
        "--design",
        "seed",
        "--seeds",
        "0..200",
        "--json",
    ];
    let mut written = Vec::new();
    for limit in ["0", "1", "2", "all"] {
        let dir = scratch_dir(&format!("sim-max-traces-{limit}"));
        let dir_arg = dir.to_string_lossy().into_owned();
        let mut args = base.to_vec();
        args.extend(["--max-traces", limit, "--trace-out", &dir_arg]);
        let (out, lines) = sim_json(&args);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        let bad: Vec<&Value> = lines.iter().filter(|l| l["result"] == "violated").collect();
        let mut per_property = std::collections::BTreeMap::<String, usize>::new();
        for line in &bad {
            if line["trace"].is_string() {
                *per_property
                    .entry(line["property"].to_string())
                    .or_default() += 1;
            }
        }
        let bound = limit.parse::<usize>().unwrap_or(usize::MAX);
        assert!(
            per_property.values().all(|n| *n <= bound),
            "{limit}: {per_property:?}"
        );
        let summary = &lines.last().expect("a summary")["summary"];
        assert_eq!(summary["violated"].as_u64(), Some(bad.len() as u64));
        written.push((bad.len(), per_property.values().sum::<usize>()));
        let _ = std::fs::remove_dir_all(&dir);
    }
    let seeds = written[0].0;
    assert!(written.iter().all(|(bad, _)| *bad == seeds), "{written:?}");
    assert_eq!(written[0].1, 0, "--max-traces 0 writes none");
    assert_eq!(
        written[3].1, seeds,
        "--max-traces all writes one per violating seed"
    );
    assert!(
        written[1].1 < written[2].1 && written[2].1 < seeds,
        "{written:?}"
    );
}

#[test]
fn sim_shards_merge_into_the_whole_with_summarize() {
    let dir = scratch_dir("sim-shards");
    std::fs::create_dir_all(&dir).unwrap();
    let trace_dir = dir.join("traces").to_string_lossy().into_owned();
    let mut files = Vec::new();
    for shard in ["0/2", "1/2"] {
        let out = run(&[
            "sim",
            "--seeds",
            "0..30",
            "--shard",
            shard,
            "--set",
            "tv=1",
            "--json",
            "--trace-out",
            &trace_dir,
        ]);
        let file = dir.join(format!("shard-{}.jsonl", &shard[..1]));
        std::fs::write(&file, &out.stdout).unwrap();
        files.push(file.to_string_lossy().into_owned());
    }
    let whole = sim_json(&[
        "sim",
        "--seeds",
        "0..30",
        "--set",
        "tv=1",
        "--json",
        "--trace-out",
        &trace_dir,
    ])
    .1;
    let mut args = vec!["sim", "--summarize"];
    args.extend(files.iter().map(String::as_str));
    args.push("--json");
    let (out, merged) = sim_json(&args);
    assert_eq!(merged.len(), 1);
    assert_eq!(
        merged[0],
        *whole.last().unwrap(),
        "the merged summary is the whole run's"
    );
    let violated = merged[0]["summary"]["violated"].as_u64().unwrap();
    assert_eq!(out.status.code(), Some(if violated > 0 { 1 } else { 0 }));
    let human = run(&["sim", "--summarize", &files[0], &files[1]]);
    assert!(
        text(&human.stdout).starts_with("result: 30 seeds"),
        "{}",
        text(&human.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
