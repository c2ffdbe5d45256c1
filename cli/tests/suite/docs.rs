//! README's main job, run as README gives it: its exit code, and its findings table, which
//! README holds between generated markers (`sharetxn_properties::docs::findings_table`),
//! so README's figures (verdicts, unique states, depths) fail this test when they drift.
//! `SHARETXN_DOCS_UPDATE=1 cargo test -p sharetxn --test suite docs::` rewrites README's table.

use serde_json::Value;
use sharetxn_properties::docs;
use std::path::PathBuf;
use std::process::Command;

/// The main job's arguments, as README's set-up section writes them.
const MAIN_JOB: &[&str] = &[
    "matrix",
    "--designs",
    "seed,draft,proposed",
    "--scenarios",
    "session,session-resume,connect-share-sink",
    "--unclaimed-max-states",
    "100000",
    "--threads",
    "2",
];

#[test]
fn readme_main_job_and_its_findings_table_are_current() {
    let readme_path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let readme = std::fs::read_to_string(&readme_path).expect("README.md");
    let command = format!("cargo run --release -- {}", MAIN_JOB.join(" "));
    assert!(
        readme.contains(&command),
        "README gives the main job as `{command}`"
    );

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("sharetxn-docs-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_sharetxn"))
        .args(MAIN_JOB)
        .args(["--json", "--trace-out"])
        .arg(&dir)
        .output()
        .expect("the sharetxn binary runs");
    let _ = std::fs::remove_dir_all(&dir);
    // 0: every design claimed safe (proposed) passed; seed and draft failing, as they do,
    // is the finding, not a failure of the job.
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let matrix: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(matrix["passed"], Value::Bool(true));
    let generated = docs::findings_table(&matrix);
    let current = docs::region(&readme, "findings").expect("README has the findings region");
    if std::env::var_os("SHARETXN_DOCS_UPDATE").is_some() {
        let updated = docs::replace_region(&readme, "findings", &generated).expect("the region");
        std::fs::write(&readme_path, updated).expect("README written");
        return;
    }
    assert!(
        current == generated,
        "README's findings table differs from the main job's (a hand edit, or a model \
         change): run SHARETXN_DOCS_UPDATE=1 cargo test -p sharetxn --test suite docs::\n--- README\n\
         {current}\n--- main job\n{generated}"
    );
}
