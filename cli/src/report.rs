//! `sharetxn report --out DIR [TRACE...]`: one self-contained HTML page for a reviewer.
//! It runs the matrix exactly as `sharetxn matrix` does (same flags, same checks, its
//! traces written under `DIR/traces`), then draws every violation the matrix found and
//! every trace named on the command line: the verdict judged now by a replay, the
//! sequence diagram, the step table and the Mermaid source. The page needs no script and
//! no network, so it opens from a file, a CI artifact or a mail attachment alike.

use crate::args::ReportArgs;
use crate::error::CliError;
use crate::judged;
use crate::matrix::{self, Matrix};
use crate::output;
use crate::report_page::{self, Finding, Page};
use sharetxn_properties::Status;
use sharetxn_traces::render::{mermaid, svg, text, Judgement};
use sharetxn_traces::{load, Trace};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Runs the matrix (unless `--no-matrix`), draws the findings, writes `DIR/index.html`.
pub fn run(args: ReportArgs) -> Result<ExitCode, CliError> {
    let ReportArgs {
        matrix,
        traces,
        out,
    } = args;
    std::fs::create_dir_all(&out).map_err(|e| {
        CliError::new(format!(
            "cannot create the report directory {}: {e}",
            out.display()
        ))
    })?;
    // Every named trace is read before the matrix runs, so a bad one costs no time.
    let named: Vec<(PathBuf, Trace)> = traces
        .iter()
        .map(|p| {
            load(p)
                .map(|t| (p.clone(), t))
                .map_err(|e| CliError::new(e.to_string()))
        })
        .collect::<Result<_, _>>()?;
    let (computed, write_failure) = match matrix {
        Some(args) => {
            let (m, failure) = matrix::compute(args)?;
            (Some(m), failure)
        }
        None => (None, None),
    };
    let mut findings = Vec::new();
    if let Some(m) = &computed {
        for (id, path) in violations(m) {
            findings.push(finding(&id, &path)?);
        }
    }
    let mut from_files = Vec::new();
    for (path, trace) in &named {
        from_files.push(finding_of(&trace_id(path), path, trace)?);
    }
    let page = Page {
        matrix: computed.as_ref(),
        findings: &findings,
        traces: &from_files,
        version: env!("CARGO_PKG_VERSION"),
    };
    let index = out.join("index.html");
    std::fs::write(&index, report_page::render(&page))
        .map_err(|e| CliError::new(format!("cannot write {}: {e}", index.display())))?;
    output::stdout(&format!(
        "report: {} ({} findings from the matrix, {} named traces)\n",
        index.display(),
        findings.len(),
        from_files.len()
    ))?;
    if let Some(e) = write_failure {
        return Err(e);
    }
    Ok(match &computed {
        Some(m) if !m.passed => ExitCode::from(crate::check::NOT_PASSED),
        _ => ExitCode::SUCCESS,
    })
}

/// The anchor of a matrix cell's finding.
pub fn cell_id(design: &str, scenario: &str, property: &str) -> String {
    format!("f-{design}--{scenario}--{property}")
}

/// The anchor of a named trace: its file name without `.json`.
fn trace_id(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map_or_else(|| "trace".into(), |s| s.to_string_lossy().into_owned());
    format!("t-{stem}")
}

/// Every violated cell with a trace, as (anchor, trace file), in the matrix's order.
fn violations(m: &Matrix) -> Vec<(String, PathBuf)> {
    m.cells
        .iter()
        .filter(|c| c.status == Status::Violated)
        .filter_map(|c| {
            let path = c.trace.as_ref()?;
            Some((cell_id(&c.design, &c.scenario, &c.property), path.into()))
        })
        .collect()
}

fn finding(id: &str, path: &Path) -> Result<Finding, CliError> {
    let trace = load(path).map_err(|e| CliError::new(e.to_string()))?;
    finding_of(id, path, &trace)
}

/// A trace drawn for the page, its verdict judged now by a replay.
fn finding_of(id: &str, path: &Path, trace: &Trace) -> Result<Finding, CliError> {
    let fail = |e: String| CliError::new(format!("{}: {e}", path.display()));
    let verdict = judged::judge(trace)
        .and_then(|r| judged::outcome_line(trace, &r))
        .map_err(fail)?;
    let judged = Judgement::with_outcome(trace, verdict);
    Ok(Finding {
        id: id.to_string(),
        file: path.display().to_string(),
        design: trace.design.name.clone(),
        design_line: trace.design.describe(),
        scenario: trace.scenario.name.clone(),
        scenario_line: text::scenario_line(trace),
        property: trace.outcome.property().to_string(),
        svg: svg::render_judged(trace, &judged, id).map_err(fail)?,
        mermaid: mermaid::render_judged(trace, &judged).map_err(fail)?,
        rows: text::step_rows(trace).map_err(fail)?,
        no_return: judged.inevitable_note(trace.outcome.property()),
        verdict: judged.outcome,
    })
}
