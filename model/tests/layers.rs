//! The model's folders depend on each other one way: each may name only the folders below
//! it in [`LAYERS`], except for the few edges in [`UPWARD`], each with the reason it is
//! still there. A new `crate::` path that points up the stack fails this test: either it
//! moves down (a wire type into `protocol/`, a property helper into `history/`), or it
//! joins [`UPWARD`] with its reason.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

/// The folders of `model/src`, lowest first.
const LAYERS: [&str; 8] = [
    "protocol",
    "design",
    "partition",
    "coordinator",
    "share",
    "clients",
    "world",
    "history",
];

/// The edges that still point up: (folder, the module above it it names, why).
const UPWARD: [(&str, &str, &str); 7] = [
    (
        "partition",
        "world::node",
        "a handler's effects are stateright's `Out<Node>` over the world's actor enum, its \
         saved storage a `NodeStorage` variant, and its accessor extends `NodeState`",
    ),
    ("coordinator", "world::node", "as for partition"),
    ("share", "world::node", "as for partition"),
    ("clients", "world::node", "as for partition"),
    (
        "coordinator",
        "world::topology",
        "the transaction coordinator's metadata: which broker leads each partition it \
         sends markers to",
    ),
    (
        "protocol",
        "history::deliveries",
        "whether a message acknowledges one delivery is ghost, so the acquisition-lock \
         wait asks the history",
    ),
    (
        "world",
        "history::*",
        "the world keeps the run's history in its state and records each step into it",
    ),
];

/// The code of a line, without its `//` comment.
fn code_of(line: &str) -> &str {
    line.find("//").map_or(line, |i| &line[..i])
}

/// Every `crate::FOLDER::MODULE` path in `code`.
fn crate_paths(code: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let mut parts = rest.splitn(3, "::");
        let folder = parts.next().unwrap_or_default();
        let module: String = parts
            .next()
            .unwrap_or_default()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        out.push((folder.to_string(), module));
    }
    out
}

/// Every upward edge of the model: (file, folder named, module named).
fn upward_edges(src: &Path) -> BTreeSet<(String, String, String)> {
    let rank = |folder: &str| LAYERS.iter().position(|l| *l == folder);
    let mut edges = BTreeSet::new();
    for (low, folder) in LAYERS.iter().enumerate() {
        let mut files: Vec<_> = fs::read_dir(src.join(folder))
            .expect("a model folder")
            .map(|e| e.expect("a directory entry").path())
            .collect();
        files.sort();
        for file in files {
            let text = fs::read_to_string(&file).expect("readable source");
            for line in text.lines() {
                for (target, module) in crate_paths(code_of(line)) {
                    if rank(&target).is_some_and(|high| high > low) {
                        let name = file.file_name().unwrap().to_string_lossy().into_owned();
                        edges.insert((format!("{folder}/{name}"), target, module));
                    }
                }
            }
        }
    }
    edges
}

/// Whether the [`UPWARD`] entry (`from`, `to`) covers an edge from `file` to
/// `target::module`.
fn covers(from: &str, to: &str, file: &str, target: &str, module: &str) -> bool {
    let folder = file.split('/').next().unwrap_or_default();
    let (to_folder, to_module) = to.split_once("::").expect("folder::module");
    from == folder && to_folder == target && (to_module == "*" || to_module == module)
}

/// Whether an upward edge from `file` to `target::module` is one of [`UPWARD`].
fn allowed(file: &str, target: &str, module: &str) -> bool {
    UPWARD
        .iter()
        .any(|(from, to, _)| covers(from, to, file, target, module))
}

#[test]
fn folders_depend_one_way_but_for_the_listed_edges() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let unlisted: Vec<String> = upward_edges(&src)
        .into_iter()
        .filter(|(file, target, module)| !allowed(file, target, module))
        .map(|(file, target, module)| format!("{file} -> crate::{target}::{module}"))
        .collect();
    assert!(
        unlisted.is_empty(),
        "imports that point up the folder stack {LAYERS:?}:\n{}",
        unlisted.join("\n")
    );
}

#[test]
fn every_listed_upward_edge_is_still_used() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let edges = upward_edges(&src);
    for (from, to, why) in UPWARD {
        let used = edges
            .iter()
            .any(|(file, target, module)| covers(from, to, file, target, module));
        assert!(
            used,
            "{from} -> {to} is listed ({why}) but no longer used: drop it"
        );
    }
}

#[test]
fn the_scanner_sees_a_planted_upward_import() {
    let paths = crate_paths("use crate::history::share_ghost::ShareGhost; // crate::world::x");
    assert_eq!(paths[0], ("history".to_string(), "share_ghost".to_string()));
    assert_eq!(crate_paths(code_of("// crate::world::x")), Vec::new());
    assert!(!allowed(
        "share/share_partition.rs",
        "history",
        "share_ghost"
    ));
    assert!(allowed("share/share_partition.rs", "world", "node"));
    assert!(allowed("world/system.rs", "history", "record"));
}
