//! `sharetxn report`: the page holds the matrix and every violation it found, drawn; every
//! link lands; nothing on it needs a script or the network; bad input exits 2 in one line.
//! (The browser check of the same page is `traces/mermaid-check/report.sh`.)

use crate::common;

use common::{run, scratch_dir, text};
use std::path::Path;

/// The page of a small matrix: `seed` on `ctp`, stopped early (seed is not claimed safe),
/// which already shows several of seed's violations.
fn small_report(dir: &Path, extra: &[&str]) -> (std::process::Output, String) {
    let out = dir.to_str().expect("a UTF-8 path");
    let mut args = vec![
        "report",
        "--out",
        out,
        "--designs",
        "seed",
        "--scenarios",
        "ctp",
        "--unclaimed-max-states",
        "20000",
        "--threads",
        "1",
    ];
    args.extend_from_slice(extra);
    let result = run(&args);
    let page = std::fs::read_to_string(dir.join("index.html")).unwrap_or_default();
    (result, page)
}

/// The values of `attr="..."` on the page, in order.
fn attributes<'a>(page: &'a str, attr: &str) -> Vec<&'a str> {
    let key = format!("{attr}=\"");
    page.match_indices(&key)
        .map(|(at, _)| {
            let rest = &page[at + key.len()..];
            &rest[..rest.find('"').unwrap_or(0)]
        })
        .collect()
}

#[test]
fn the_page_draws_every_violation_and_every_link_lands() {
    let dir = scratch_dir("report", "small");
    let (result, page) = small_report(&dir, &[]);
    assert!(result.status.success(), "{}", text(&result.stderr));
    assert!(
        text(&result.stdout).starts_with("report: "),
        "{}",
        text(&result.stdout)
    );
    assert!(!page.contains("<script"), "the page needs no script");
    let addresses = page.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(
        !addresses.contains("http:") && !addresses.contains("https:"),
        "the page loads nothing: it names no address but the SVG namespace"
    );
    let ids = attributes(&page, "id");
    let links: Vec<&str> = attributes(&page, "href")
        .into_iter()
        .filter_map(|h| h.strip_prefix('#'))
        .collect();
    assert!(!links.is_empty());
    for link in &links {
        assert!(ids.contains(link), "the link #{link} lands on nothing");
    }
    let findings: Vec<&&str> = ids
        .iter()
        .filter(|id| id.starts_with("f-seed--ctp--"))
        .collect();
    assert!(
        findings.len() >= 2,
        "seed's violations on ctp are drawn: {findings:?}"
    );
    for finding in &findings {
        assert!(links.contains(finding), "the matrix links to {finding}");
    }
    // Each drawn finding says how many messages it has and holds that many.
    let sections: Vec<&str> = page.split("<section class=\"finding\"").skip(1).collect();
    assert_eq!(sections.len(), findings.len());
    for s in sections {
        let said: usize = attributes(s, "data-messages")[0].parse().expect("a count");
        assert_eq!(s.matches("<g class=\"message\">").count(), said);
        assert!(s.contains("<pre class=\"mermaid-source\">sequenceDiagram"));
        assert!(s.contains("<p class=\"verdict\">"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn named_traces_are_drawn_without_a_matrix() {
    let dir = scratch_dir("report", "named");
    let corpus = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../traces/counterexamples/txn_atomicity--seed-ctp.json"
    );
    let out = dir.to_str().expect("a UTF-8 path");
    let result = run(&["report", "--out", out, "--no-matrix", corpus]);
    assert!(result.status.success(), "{}", text(&result.stderr));
    let page = std::fs::read_to_string(dir.join("index.html")).expect("the page");
    assert!(!page.contains("id=\"matrix\""), "no matrix was asked for");
    assert!(page.contains("id=\"t-txn_atomicity--seed-ctp\""));
    assert!(
        page.contains("txn_atomicity violated: "),
        "the verdict is judged now"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_trace_that_cannot_be_read_exits_2_in_one_line_before_any_check() {
    let dir = scratch_dir("report", "bad");
    let missing = dir.join("no-such-trace.json");
    let (result, _) = small_report(&dir, &[missing.to_str().expect("a UTF-8 path")]);
    assert_eq!(result.status.code(), Some(2));
    let err = text(&result.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!dir.join("traces").exists(), "no check ran");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn report_needs_an_out_directory() {
    let result = run(&["report", "--no-matrix"]);
    assert_eq!(result.status.code(), Some(2));
    assert!(text(&result.stderr).contains("--out"));
}
