//! Trace files: one pretty JSON file per discovery (a violation or a witnessed twin),
//! holding everything needed to replay it: the tool version, the design and scenario as
//! used, and the actions by value with a one-line description each. It exists apart from
//! the check command because the trace format is a contract with readers (replay, shrink,
//! render) that outlives any one command.
//!
//! Files are named `<design>-<scenario>-<property>.json`, written to a temporary name and
//! renamed so a reader never sees half a file. A property of this design and scenario
//! with nothing to show has its old file (from an earlier run) removed, so the directory
//! always describes the latest run.

use crate::error::CliError;
use serde::Serialize;
use sharetxn_model::{Action, Design, Scenario, System};
use sharetxn_properties::{Kind, PropertyReport, Report};
use std::io;
use std::path::{Path, PathBuf};

/// The `format` field of every trace file.
pub const FORMAT: &str = "sharetxn-trace";
/// The `version` field: bumped when the layout changes incompatibly.
pub const VERSION: u64 = 0;

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

/// A trace file, fields in the order they are written.
#[derive(Serialize)]
pub struct TraceFile<'a> {
    /// Always [`FORMAT`].
    pub format: &'static str,
    /// Always [`VERSION`].
    pub version: u64,
    /// The version of the `sharetxn` that wrote it.
    pub tool_version: &'static str,
    /// Which command found it (`check`).
    pub origin: &'a str,
    /// The design as used.
    pub design: &'a Design,
    /// The scenario as used.
    pub scenario: &'a Scenario,
    /// The property or twin.
    pub property: &'a str,
    /// When the property is judged.
    pub kind: Kind,
    /// The violation's message, if it is one.
    pub message: Option<&'a str>,
    /// The steps from the initial state.
    pub actions: Vec<Step<'a>>,
}

/// One step of a trace.
#[derive(Serialize)]
pub struct Step<'a> {
    /// Its index, from 0.
    pub step: usize,
    /// The action, by value.
    pub action: &'a Action,
    /// The action for humans.
    pub text: String,
}

/// The trace file of a property's discovery.
pub fn trace_file<'a>(
    system: &'a System,
    property: &'a PropertyReport,
    origin: &'a str,
) -> TraceFile<'a> {
    TraceFile {
        format: FORMAT,
        version: VERSION,
        tool_version: env!("CARGO_PKG_VERSION"),
        origin,
        design: &system.design,
        scenario: &system.scenario,
        property: &property.name,
        kind: property.kind,
        message: property.message.as_deref(),
        actions: property
            .actions
            .iter()
            .enumerate()
            .map(|(step, action)| Step {
                step,
                action,
                text: system.describe(action),
            })
            .collect(),
    }
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
/// each file's path in the report.
pub fn write_all(system: &System, report: &mut Report, dir: &Path) -> Result<(), CliError> {
    let (design, scenario) = (system.design.name.as_str(), system.scenario.name.as_str());
    for property in &mut report.properties {
        let path = dir.join(file_name(design, scenario, &property.name));
        if property.actions.is_empty() {
            remove_stale(&path)?;
            property.trace = None;
            continue;
        }
        let file = trace_file(system, property, "check");
        write_atomically(&path, &file)?;
        property.trace = Some(path.display().to_string());
    }
    Ok(())
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

/// Writes `value` as pretty JSON to `path` through a temporary file, so a reader never
/// sees half a file.
pub fn write_atomically(path: &Path, value: &impl Serialize) -> Result<(), CliError> {
    let fail = |what: &str, p: &Path, e: &dyn std::fmt::Display| {
        CliError::new(format!("cannot {what} {}: {e}", p.display()))
    };
    let mut text = serde_json::to_string_pretty(value).map_err(|e| fail("encode", path, &e))?;
    text.push('\n');
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
