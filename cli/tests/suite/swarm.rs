//! `sharetxn swarm`: seeded depth-first searches, one JSON line each in search order then a
//! summary; shards merged by `--summarize` give the whole range's summary; the thread count
//! changes nothing; the first trace of each violation replays; bad input exits 2.

use crate::common::{run, scratch_dir, text};
use serde_json::Value;
use std::path::Path;

/// `swarm` on ctp/seed, capped low, with `extra` flags, JSON lines parsed.
fn ctp_seed(dir: &Path, extra: &[&str]) -> (std::process::Output, Vec<Value>) {
    let traces = dir.join("traces").to_string_lossy().into_owned();
    let mut args = vec![
        "swarm",
        "--scenario",
        "ctp",
        "--design",
        "seed",
        "--searches",
        "0..6",
        "--max-states",
        "3000",
        "--json",
        "--trace-out",
        &traces,
    ];
    args.extend_from_slice(extra);
    let out = run(&args);
    let lines = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    (out, lines)
}

#[test]
fn swarm_lines_are_in_search_order_and_threads_change_nothing() {
    let dir = scratch_dir("swarm", "order");
    let (out, one) = ctp_seed(&dir, &["--threads", "1"]);
    assert_eq!(out.status.code(), Some(1), "ctp/seed violates");
    let searches: Vec<u64> = one[..6]
        .iter()
        .map(|l| l["search"].as_u64().unwrap())
        .collect();
    assert_eq!(searches, (0..6).collect::<Vec<_>>());
    assert!(one[6]["summary"]["violated"]["marker_match"].is_object());
    let (_, two) = ctp_seed(&dir, &["--threads", "2"]);
    assert_eq!(one, two);
    let trace = dir.join("traces/seed-ctp-marker_match.json");
    let replay = run(&["replay", &trace.to_string_lossy()]);
    let shown = text(&replay.stdout);
    assert_eq!(
        replay.status.code(),
        Some(1),
        "the violation shows again: {shown}"
    );
    assert!(shown.contains("reproduced at step"), "{shown}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn swarm_shards_merge_into_the_whole_with_summarize() {
    let dir = scratch_dir("swarm", "shards");
    std::fs::create_dir_all(&dir).unwrap();
    let whole = ctp_seed(&dir, &[]).1;
    let mut files = Vec::new();
    for shard in ["0/2", "1/2"] {
        let (out, _) = ctp_seed(&dir, &["--shard", shard]);
        let file = dir.join(format!("shard-{}.jsonl", &shard[..1]));
        std::fs::write(&file, &out.stdout).unwrap();
        files.push(file.to_string_lossy().into_owned());
    }
    let merged = run(&["swarm", "--summarize", &files[0], &files[1], "--json"]);
    assert_eq!(merged.status.code(), Some(1));
    let merged: Value = serde_json::from_str(text(&merged.stdout).trim()).unwrap();
    assert_eq!(
        merged,
        *whole.last().unwrap(),
        "the merged summary is the whole run's"
    );
    let human = run(&["swarm", "--summarize", &files[0], &files[1]]);
    assert!(
        text(&human.stdout).starts_with("result: 6 searches"),
        "{}",
        text(&human.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_search_below_its_cap_explores_the_whole_space_and_passes() {
    let dir = scratch_dir("swarm", "complete");
    let traces = dir.join("traces").to_string_lossy().into_owned();
    let out = run(&[
        "swarm",
        "--scenario",
        "session",
        "--design",
        "proposed",
        "--searches",
        "0..2",
        "--trace-out",
        &traces,
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("search 0: 4353 states"), "{stdout}");
    assert!(
        stdout.contains("search 0 explored the whole space"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn swarm_bad_input_is_one_line_and_exit_2() {
    let dir = scratch_dir("swarm", "bad");
    std::fs::create_dir_all(&dir).unwrap();
    let stray = dir.join("stray.jsonl");
    std::fs::write(&stray, "{\"seed\": 1}\n").unwrap();
    let stray = stray.to_string_lossy().into_owned();
    for args in [
        vec!["swarm", "--searches", "5..5"],
        vec!["swarm", "--shard", "2/2"],
        vec!["swarm", "--max-states", "0"],
        vec!["swarm", "--scenario", "nope"],
        vec!["swarm", "--summarize", &stray],
        vec!["swarm", "--summarize", &stray, "--threads", "2"],
        vec!["swarm", "--summarize", "/no/such/file.jsonl"],
    ] {
        let out = run(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("sharetxn: "), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
