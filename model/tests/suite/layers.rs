//! The model's folders depend on each other one way: each may name only the folders below
//! it in [`LAYERS`], with no exception. A new `crate::` path that points up the stack fails
//! this test: the type it names moves down (a wire type into `protocol/`, a property helper
//! into `history/`), or the dependency is turned around (a handler is generic over its
//! host actor, `protocol::output`; the world over its history, `world::record`).

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

#[test]
fn folders_depend_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let upward: Vec<String> = upward_edges(&src)
        .into_iter()
        .map(|(file, target, module)| format!("{file} -> crate::{target}::{module}"))
        .collect();
    assert!(
        upward.is_empty(),
        "imports that point up the folder stack {LAYERS:?}:\n{}",
        upward.join("\n")
    );
}

#[test]
fn the_scanner_sees_a_planted_upward_import() {
    let paths = crate_paths("use crate::history::share_ghost::ShareGhost; // crate::world::x");
    assert_eq!(paths[0], ("history".to_string(), "share_ghost".to_string()));
    assert_eq!(crate_paths(code_of("// crate::world::x")), Vec::new());
    // A copy of the layout with one upward import planted in a handler's file, next to a
    // downward one, one in a comment, and one in a doc comment: only the first is an edge.
    let src = std::env::temp_dir().join(format!("sharetxn-layers-{}", std::process::id()));
    for folder in LAYERS {
        fs::create_dir_all(src.join(folder)).expect("a scratch folder");
    }
    fs::write(
        src.join("share/share_partition.rs"),
        "use crate::protocol::msg::Msg;\n\
         use crate::world::node::{Node, NodeStorage};\n\
         // use crate::history::share_ghost::ShareGhost;\n\
         /// [`crate::world::scenario::Scenario`]\n",
    )
    .expect("a planted file");
    fs::write(
        src.join("history/mod.rs"),
        "use crate::world::system::System;\n",
    )
    .expect("a planted file");
    let edges = upward_edges(&src);
    fs::remove_dir_all(&src).expect("scratch removed");
    assert_eq!(
        edges.into_iter().collect::<Vec<_>>(),
        vec![(
            "share/share_partition.rs".to_string(),
            "world".to_string(),
            "node".to_string()
        )]
    );
}
