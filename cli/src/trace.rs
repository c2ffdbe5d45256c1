//! Trace files on disk: where `check` puts a discovery's trace, and how any command writes
//! one. The trace document itself (format, digests, replay) belongs to `sharetxn-traces`;
//! this module only names files and writes them so that a reader never sees half a file.
//!
//! Files are named `<design>-<scenario>-<property>.json`, written to a temporary name and
//! renamed. A property of this design and scenario with nothing to show has its old file
//! (from an earlier run) removed, so the directory always describes the latest run.

use crate::error::CliError;
use sharetxn_model::System;
use sharetxn_properties::Report;
use sharetxn_traces::{Origin, Trace};
use std::io;
use std::path::{Path, PathBuf};

/// The file name of a property's trace.
pub fn file_name(design: &str, scenario: &str, property: &str) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    format!(
        "{}-{}-{}.json",
        clean(design),
        clean(scenario),
        clean(property)
    )
}

/// Creates the trace directory, so that a directory that cannot be written is reported
/// before a long check rather than after it.
pub fn prepare_dir(dir: &Path) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|e| {
        CliError::new(format!(
            "cannot create trace directory {}: {e}",
            dir.display()
        ))
    })
}

/// Writes a trace for every property of `report` with actions into `dir`, and records
/// each file's path in the report. A trace that cannot be recorded or written does not
/// stop the others nor lose the report: its property keeps no path, and the first such
/// failure comes back (with how many more there were) for the caller to report after it.
pub fn write_all(
    system: &System,
    report: &mut Report,
    dir: &Path,
    origin: &Origin,
) -> Option<CliError> {
    let (design, scenario) = (system.design.name.as_str(), system.scenario.name.as_str());
    let mut failures = Vec::new();
    for property in &mut report.properties {
        property.trace = None;
        let path = dir.join(file_name(design, scenario, &property.name));
        let written = sharetxn_traces::from_report(system, property, origin.clone())
            .map_err(|e| CliError::new(format!("cannot record the {} trace: {e}", property.name)))
            .and_then(|trace| match trace {
                None => remove_stale(&path).map(|()| false),
                Some(trace) => write_trace(&path, &trace).map(|()| true),
            });
        match written {
            Ok(true) => property.trace = Some(path.display().to_string()),
            Ok(false) => {}
            Err(e) => failures.push(e),
        }
    }
    let more = failures.len().saturating_sub(1);
    failures.into_iter().next().map(|first| match more {
        0 => first,
        n => CliError::new(format!("{first} (and {n} more trace files)")),
    })
}

/// Writes one trace to `path`, atomically.
pub fn write_trace(path: &Path, trace: &Trace) -> Result<(), CliError> {
    let text = trace
        .to_json()
        .map_err(|e| CliError::new(format!("{}: {e}", path.display())))?;
    write_atomically(path, &text)
}

fn remove_stale(path: &Path) -> Result<(), CliError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(CliError::new(format!(
            "cannot remove old trace {}: {e}",
            path.display()
        ))),
    }
}

fn write_atomically(path: &Path, text: &str) -> Result<(), CliError> {
    let fail = |what: &str, p: &Path, e: &dyn std::fmt::Display| {
        CliError::new(format!("cannot {what} {}: {e}", p.display()))
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| fail("create trace directory", dir, &e))?;
    }
    let mut tmp = PathBuf::from(path);
    tmp.set_extension("json.tmp");
    std::fs::write(&tmp, text).map_err(|e| fail("write", &tmp, &e))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail("write", path, &e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_design_scenario_property() {
        assert_eq!(
            file_name("consumer-offsets", "txn-basic", "txn_atomicity"),
            "consumer-offsets-txn-basic-txn_atomicity.json"
        );
        assert_eq!(file_name("a/b", "c d", "e.f"), "a_b-c_d-e_f.json");
    }
}
