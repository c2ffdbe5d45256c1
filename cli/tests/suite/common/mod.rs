//! What every test of the built binary needs: running it, its output as text, and a fresh
//! scratch directory. Each module of the suite uses part of it.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_sharetxn");

/// Runs the binary with `args` and waits for it.
pub fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("the sharetxn binary runs")
}

/// Output bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A directory under the target directory for `group`'s test `name`, removed first if a
/// previous run left it (not created: the command under test creates it, or the test does).
pub fn scratch_dir(group: &str, name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("sharetxn-{group}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}
