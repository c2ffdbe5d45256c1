//! `docs/fidelity.md` stays true to itself and to the code: its summary is the count of the
//! verdicts in its actor tables, and every `file::function` a row cites names a function
//! that exists in `model/src`. `SHARETXN_DOCS_UPDATE=1 cargo test -p sharetxn-model --test
//! fidelity_doc` rewrites the summary from the tables instead of comparing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The verdicts a row may have, in the summary's column order.
const VERDICTS: [&str; 4] = ["faithful", "simplified", "deviating", "KIP rule"];

/// The header every actor table has.
const HEADER: &str = "| rule | model (file::function) | Kafka (Class.method) | verdict | why |";

const START: &str = "<!-- generated: fidelity-summary -->";
const END: &str = "<!-- end generated -->";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn page() -> (PathBuf, String) {
    let path = root().join("../docs/fidelity.md");
    let text = std::fs::read_to_string(&path).expect("docs/fidelity.md exists");
    (path, text)
}

/// One table row of an actor section.
struct Row {
    actor: String,
    model: String,
    verdict: String,
}

/// The cells of a Markdown table row, with `\|` kept inside its cell.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut out = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                out.last_mut().expect("a cell").push('|');
                chars.next();
            }
            '|' => out.push(String::new()),
            _ => out.last_mut().expect("a cell").push(c),
        }
    }
    out.into_iter().map(|c| c.trim().to_string()).collect()
}

/// The rows of every actor table: a `## ` section whose table has [`HEADER`].
fn rows(text: &str) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut actor = String::new();
    let mut in_table = false;
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            actor = heading.trim().to_string();
            in_table = false;
        } else if line.trim() == HEADER {
            in_table = true;
        } else if in_table && line.starts_with("|---") {
            continue;
        } else if in_table && line.starts_with('|') {
            let c = cells(line);
            assert_eq!(c.len(), 5, "a row of '{actor}' has 5 cells: {line}");
            rows.push(Row {
                actor: actor.clone(),
                model: c[1].clone(),
                verdict: c[3].clone(),
            });
        } else {
            in_table = false;
        }
    }
    rows
}

/// The summary table the rows give: actors in page order, then the total.
fn summary(rows: &[Row]) -> String {
    let mut order: Vec<&str> = Vec::new();
    let mut counts: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    for row in rows {
        let i = VERDICTS
            .iter()
            .position(|v| *v == row.verdict)
            .unwrap_or_else(|| {
                panic!(
                    "'{}': verdict '{}' is none of {VERDICTS:?}",
                    row.actor, row.verdict
                )
            });
        if !order.contains(&row.actor.as_str()) {
            order.push(&row.actor);
        }
        counts.entry(&row.actor).or_default()[i] += 1;
    }
    let mut out = format!("| actor | {} | rules |\n|---|", VERDICTS.join(" | "));
    out.push_str(&"---|".repeat(VERDICTS.len() + 1));
    out.push('\n');
    let mut total = [0usize; 4];
    for actor in order {
        let c = counts[actor];
        for (t, n) in total.iter_mut().zip(c) {
            *t += n;
        }
        out.push_str(&line(actor, c));
    }
    out.push_str(&line("all", total));
    out
}

fn line(name: &str, c: [usize; 4]) -> String {
    let cols: Vec<String> = c.iter().map(|n| n.to_string()).collect();
    format!(
        "| {name} | {} | {} |\n",
        cols.join(" | "),
        c.iter().sum::<usize>()
    )
}

fn region(text: &str) -> (usize, usize) {
    let start = text.find(START).expect("the summary region starts") + START.len();
    let end = start + text[start..].find(END).expect("the summary region ends");
    (start, end)
}

#[test]
fn summary_counts_the_verdicts_of_the_tables() {
    let (path, text) = page();
    let rows = rows(&text);
    assert!(rows.len() > 100, "the actor tables were found");
    let generated = format!("\n{}", summary(&rows));
    let (start, end) = region(&text);
    if std::env::var_os("SHARETXN_DOCS_UPDATE").is_some() {
        let updated = format!("{}{}{}", &text[..start], generated, &text[end..]);
        std::fs::write(&path, updated).expect("page written");
        return;
    }
    assert!(
        text[start..end] == generated,
        "docs/fidelity.md's summary differs from its tables: run SHARETXN_DOCS_UPDATE=1 \
         cargo test -p sharetxn-model --test suite fidelity_doc::\n--- page\n{}\n--- tables\n{}",
        &text[start..end],
        generated
    );
}

/// Whether `source` defines a function `name` (`fn name(` or `fn name<`).
fn defines(source: &str, name: &str) -> bool {
    let needle = format!("fn {name}");
    source.match_indices(&needle).any(|(i, _)| {
        matches!(
            source[i + needle.len()..].chars().next(),
            Some('(') | Some('<')
        )
    })
}

#[test]
fn every_cited_function_exists() {
    let (_, text) = page();
    let src = root().join("src");
    let mut missing = Vec::new();
    let mut cited = 0;
    for row in rows(&text) {
        let refs: Vec<&str> = row
            .model
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|r| r.contains("::"))
            .collect();
        assert!(
            !refs.is_empty(),
            "'{}': a row cites no file::function: {}",
            row.actor,
            row.model
        );
        for r in refs {
            cited += 1;
            let (file, name) = r.rsplit_once("::").expect("file::function");
            let path: &Path = &src.join(file);
            let source = std::fs::read_to_string(path).unwrap_or_default();
            if !defines(&source, name) {
                missing.push(format!("{} ({})", r, row.actor));
            }
        }
    }
    assert!(cited > 100, "the citations were found");
    assert!(
        missing.is_empty(),
        "docs/fidelity.md cites functions model/src does not define:\n{}",
        missing.join("\n")
    );
}
