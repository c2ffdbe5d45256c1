//! The ghost stays out of the protocol's reach (`sharetxn_model::protocol::ghost`).
//!
//! Two guards, one for each way a handler could read a ghost value:
//! - the compiler: a [`Ghost`]'s field is private and it has no `Deref`, so a direct read
//!   such as `ack.tag.delivery_count` does not compile (`tests/ui/ghost_read.rs`, checked
//!   by trybuild against its `.stderr`, and `Ghost`'s `compile_fail` doc-tests);
//! - this lint: the one way in, `Ghost::open`, may be called by `model/src/history/` and
//!   by the other crates only, so no file of `model/src` outside `history/` may call it.
//!
//! [`Ghost`]: sharetxn_model::protocol::ghost::Ghost

use std::fs;
use std::path::{Path, PathBuf};

/// The opener's name, as `protocol/ghost.rs` declares it.
const OPENER: &str = "open";

/// Where the opener may be called inside the model crate.
const ALLOWED: &str = "src/history/";

/// One call of the opener: the file, its 1-based line and the line's text.
#[derive(Debug, PartialEq, Eq)]
struct Call {
    file: String,
    line: usize,
    text: String,
}

/// The code of a line without its `//` comment (doc comments included). A `//` inside a
/// string literal is taken as a comment too, which can only hide code after it on that
/// line; no line of the model has a ghost read there.
fn code_of(line: &str) -> &str {
    match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    }
}

/// Whether `code` calls or names the opener: `.open(` as a method, `::open` as a path
/// (`Ghost::open(&x)`, `.map(Ghost::open)`), with any spacing.
fn calls_opener(code: &str) -> bool {
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(i) = code[from..].find(OPENER) {
        let start = from + i;
        let end = start + OPENER.len();
        from = end;
        let word_ends = bytes
            .get(end)
            .is_none_or(|b| !(b.is_ascii_alphanumeric() || *b == b'_'));
        if !word_ends {
            continue;
        }
        let before = code[..start].trim_end();
        if before.ends_with('.') || before.ends_with("::") {
            return true;
        }
    }
    false
}

/// Every call of the opener in `source`, named as `file`.
fn scan(file: &str, source: &str) -> Vec<Call> {
    source
        .lines()
        .enumerate()
        .filter(|(_, line)| calls_opener(code_of(line)))
        .map(|(i, line)| Call {
            file: file.to_string(),
            line: i + 1,
            text: line.trim().to_string(),
        })
        .collect()
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
    out
}

#[test]
fn no_module_outside_the_history_opens_a_ghost() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut calls = Vec::new();
    let mut scanned = 0;
    for path in rust_files(&root.join("src")) {
        let rel = path
            .strip_prefix(root)
            .expect("under the crate")
            .to_string_lossy()
            .replace('\\', "/");
        if rel.starts_with(ALLOWED) {
            continue;
        }
        scanned += 1;
        let source = fs::read_to_string(&path).expect("readable source");
        calls.extend(scan(&rel, &source));
    }
    assert!(
        scanned > 40,
        "the scan found only {scanned} files outside {ALLOWED}"
    );
    let report: Vec<String> = calls
        .iter()
        .map(|c| format!("model/{}:{}: {}", c.file, c.line, c.text))
        .collect();
    assert!(
        report.is_empty(),
        "a ghost value is opened outside model/{ALLOWED} (only the history and the other \
         crates may read one):\n{}",
        report.join("\n")
    );
}

#[test]
fn the_opener_is_the_name_the_lint_looks_for() {
    // If `open` were renamed, the lint would pass on everything: pin the declaration.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = fs::read_to_string(root.join("src/protocol/ghost.rs")).expect("readable");
    assert!(
        source.contains(&format!("pub const fn {OPENER}(&self) -> &T")),
        "protocol/ghost.rs no longer declares `{OPENER}`: update OPENER"
    );
    assert_eq!(
        scan("protocol/ghost.rs", &source)
            .iter()
            .filter(|c| !c.text.starts_with("pub const fn"))
            .count(),
        0,
        "the wrapper's own file opens no ghost besides declaring the opener (its unit test \
         compares ghosts instead)"
    );
}

#[test]
fn the_lint_flags_a_planted_read() {
    // A handler that decides on the ghost tag (what `acking_member` did before it was
    // handed the member with the acknowledgements), in each spelling of the opener.
    let planted = r#"
impl Producer {
    /// The member the acks were made by (reads the ghost: must be flagged).
    fn acking_member(&self, acks: &[Acknowledgement]) -> MemberId {
        // A comment naming ack.tag.open() is not a read.
        let first = acks[0].tag.open().member;
        let counts: Vec<u8> = acks.iter().map(|a| Ghost::open(&a.tag).delivery_count).collect();
        let tags: Vec<&DeliveryTag> = acks.iter().map(|a| &a.tag).map(Ghost::open).collect();
        let spaced = acks[0].tag . open ( ).member;
        let session_open = true; // `open` as a word is no call
        let reopen = self.reopen();
        first
    }
}
"#;
    let calls = scan("clients/producer_share.rs", planted);
    let lines: Vec<usize> = calls.iter().map(|c| c.line).collect();
    assert_eq!(lines, vec![6, 7, 8, 9], "{calls:#?}");
    assert_eq!(
        calls[0],
        Call {
            file: "clients/producer_share.rs".to_string(),
            line: 6,
            text: "let first = acks[0].tag.open().member;".to_string(),
        }
    );
}

/// A direct read of a ghost's contents does not compile; the compiler's errors are pinned
/// in `tests/ui/ghost_read.stderr`.
///
/// Ignored in the default `cargo test`: trybuild checks the case in its own target
/// directory (`target/tests/trybuild`), so its first run after a clean build checks the
/// model and all its dependencies again (308 s on a loaded 2-core machine; 1.5 s once
/// that directory is warm). The same reads are `compile_fail` doc-tests of `Ghost`, with
/// their error codes, which the default `cargo test` runs. Run this one with
/// `cargo test -p sharetxn-model --test suite ghost_guard:: -- --ignored`.
#[test]
#[ignore = "trybuild re-checks the model's dependencies in its own target directory (minutes cold)"]
fn a_direct_read_of_a_ghost_does_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/ghost_read.rs");
}
