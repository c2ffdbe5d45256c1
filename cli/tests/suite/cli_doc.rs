//! `docs/cli.md` is the help of every command as the binary prints it: this test builds the
//! page from `sharetxn --help` and each `sharetxn <command> --help`, and fails when the page
//! differs (a hand edit, or a flag changed without the page).
//! `SHARETXN_DOCS_UPDATE=1 cargo test -p sharetxn --test suite cli_doc::` rewrites it.

use std::path::PathBuf;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_sharetxn");

fn help(args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .arg("--help")
        // The help is wrapped to the terminal's width; a fixed one keeps the page the same
        // wherever the test runs.
        .env("COLUMNS", "100")
        .output()
        .expect("the sharetxn binary runs");
    assert_eq!(out.status.code(), Some(0), "{args:?} --help exits 0");
    String::from_utf8(out.stdout).expect("help is UTF-8")
}

/// The commands, in the order `sharetxn --help` lists them (without `help` itself).
fn commands(top: &str) -> Vec<String> {
    top.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

fn page() -> String {
    let mut page = String::from(
        "# The command line\n\n\
         Generated from the binary's own help (`sharetxn <command> --help`) by \
         `cli/tests/suite/cli_doc.rs`, which fails when this page and the binary differ.\n\n\
         ## sharetxn\n\n```text\n",
    );
    let top = help(&[]);
    page.push_str(&top);
    page.push_str("```\n");
    for command in commands(&top) {
        page.push_str(&format!("\n## sharetxn {command}\n\n```text\n"));
        page.push_str(&help(&[&command]));
        page.push_str("```\n");
    }
    page
}

#[test]
fn docs_cli_md_is_the_help_of_every_command() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/cli.md");
    let generated = page();
    if std::env::var_os("SHARETXN_DOCS_UPDATE").is_some() {
        std::fs::write(&path, &generated).expect("docs/cli.md written");
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == generated,
        "docs/cli.md differs from the binary's help: run \
         SHARETXN_DOCS_UPDATE=1 cargo test -p sharetxn --test suite cli_doc::"
    );
}

#[test]
fn every_command_has_a_section() {
    let page =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/cli.md"))
            .unwrap_or_default();
    let listed = commands(&help(&[]));
    assert!(listed.len() >= 9, "{listed:?}");
    for command in listed {
        assert!(
            page.contains(&format!("\n## sharetxn {command}\n")),
            "{command}"
        );
    }
}
