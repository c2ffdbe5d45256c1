//! The report's HTML: the design × scenario × property matrix, each check's figures, and
//! one section per finding (verdict, sequence diagram, step table, a step-through of each
//! actor's changes, Mermaid source). All styles are inline and there is no script (the
//! step-through is radio buttons and CSS), so the page is one file that works offline.
//! Every matrix cell is a link: a violation to its finding, any other status to the row
//! of figures of its check (where an undecided cell's reason is).

use crate::matrix::{Cell, CheckRow, Matrix};
use crate::matrix_table::{grouped, status_word};
use crate::report::cell_id;
use sharetxn_properties::{Status, PROPERTIES};
use sharetxn_traces::render::svg::escape;
use sharetxn_traces::render::text::StepRow;

/// A trace drawn for the page.
pub struct Finding {
    /// The section's anchor.
    pub id: String,
    /// The trace file.
    pub file: String,
    /// The design's name.
    pub design: String,
    /// The design in one line, as `render` heads a trace with it.
    pub design_line: String,
    /// The scenario's name.
    pub scenario: String,
    /// The scenario with its bounds.
    pub scenario_line: String,
    /// The property the trace violates or witnesses.
    pub property: String,
    /// The outcome, judged now by a replay.
    pub verdict: String,
    /// The sequence diagram as SVG.
    pub svg: String,
    /// The same diagram as Mermaid source.
    pub mermaid: String,
    /// The steps.
    pub rows: Vec<StepRow>,
    /// The step after which the violation is inevitable, and the note that says so.
    pub no_return: Option<(usize, String)>,
}

/// What the page shows.
pub struct Page<'a> {
    /// The matrix, unless `--no-matrix`.
    pub matrix: Option<&'a Matrix>,
    /// The matrix's violations, drawn.
    pub findings: &'a [Finding],
    /// The traces named on the command line, drawn.
    pub traces: &'a [Finding],
    /// The tool's version.
    pub version: &'a str,
}

const STYLE: &str =
    "body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1800px}\
h2{border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:40px}\
table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #ccc;padding:3px 8px;\
text-align:left;vertical-align:top;font-size:13px}th{background:#f3f3f3}\
td.violated{background:#f8d0d0}td.holds,td.witnessed{background:#d8f0d8}\
td.unknown,td.unreached{background:#fbeec0}td.not_applicable{color:#999}\
td a{color:inherit}.what{color:#555;font-size:12px}.diagram{overflow-x:auto;border:1px solid #ddd;\
padding:4px;margin:8px 0}pre{background:#f7f7f7;padding:8px;overflow-x:auto;font-size:12px}\
.verdict{font-weight:bold;color:#922}tr.no-return td{background:#fde0e0;font-weight:bold}section.finding{margin-bottom:48px}code{font-size:12px}\
.stepper{border:1px solid #ddd;padding:8px;margin:8px 0;display:flex;gap:16px;align-items:flex-start}\
.stepper input.st{display:none}.step-list{margin:0;padding-left:0;list-style:none;max-height:480px;overflow-y:auto;\
font-size:12px;min-width:360px}.step-list li label{display:block;padding:1px 6px;cursor:pointer}\
.step-pane{display:none;font-size:13px}.step-pane .nav label{display:inline-block;border:1px solid #999;\
border-radius:3px;padding:2px 10px;margin-right:8px;cursor:pointer;background:#f3f3f3}\
.step-pane .nav label.off{color:#aaa;pointer-events:none}.step-pane ul{margin:0;padding-left:18px}";

/// The step-through's rules for a page whose longest trace has `steps` steps: the checked
/// radio button shows its step's pane and highlights its row of the step list (CSS has no
/// counter to match the n-th button with the n-th pane, so each index gets a rule).
fn stepper_style(steps: usize) -> String {
    let mut css = String::new();
    for k in 1..=steps {
        css.push_str(&format!(
            ".stepper input.st:nth-of-type({k}):checked~.step-panes>.step-pane:nth-child({k})\
             {{display:block}}.stepper input.st:nth-of-type({k}):checked~.step-list>li:nth-child({k})\
             {{background:#ffe9a8;font-weight:bold}}"
        ));
    }
    css
}

/// The whole page.
pub fn render(page: &Page<'_>) -> String {
    let mut html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>sharetxn report</title><style>{STYLE}{}</style></head><body>\n\
         <h1>sharetxn report</h1>\n<p>sharetxn {} &middot; {} findings from the matrix, {} named \
         traces. Every verdict on this page was judged by replaying the trace on the model that \
         wrote the page.</p>\n",
        stepper_style(
            page.findings
                .iter()
                .chain(page.traces)
                .map(|f| f.rows.len())
                .max()
                .unwrap_or(0)
        ),
        escape(page.version),
        page.findings.len(),
        page.traces.len()
    );
    if let Some(m) = page.matrix {
        html.push_str(&matrix_section(m));
    }
    html.push_str(&findings_section(
        "Findings",
        "the matrix's violations",
        page.findings,
    ));
    html.push_str(&findings_section(
        "Traces",
        "the traces named on the command line",
        page.traces,
    ));
    html.push_str("</body></html>\n");
    html
}

fn matrix_section(m: &Matrix) -> String {
    let mut html = String::from("<h2 id=\"matrix\">Matrix</h2>\n");
    if !m.sets.is_empty() {
        html.push_str(&format!(
            "<p>Every check with <code>--set {}</code>.</p>\n",
            escape(&m.sets.join(" --set "))
        ));
    }
    html.push_str(&format!(
        "<p>Designs claimed safe {}.</p>\n",
        if m.passed {
            "passed wherever they apply"
        } else {
            "<b>did not all pass</b>"
        }
    ));
    for scenario in m.scenarios() {
        html.push_str(&scenario_table(m, scenario));
    }
    html.push_str(&checks_table(m));
    html
}

/// One scenario's table: a row per property and twin, a column per design.
fn scenario_table(m: &Matrix, scenario: &str) -> String {
    // A (design, scenario) pair has one check row, so each design comes once.
    let designs: Vec<&str> = m
        .checks
        .iter()
        .filter(|c| c.scenario == scenario)
        .map(|c| c.design.as_str())
        .collect();
    let mut html = format!(
        "<h3 id=\"s-{0}\">{0}</h3>\n<table><tr><th>property</th>",
        escape(scenario)
    );
    for d in &designs {
        html.push_str(&format!("<th>{}</th>", escape(d)));
    }
    html.push_str("</tr>\n");
    for p in PROPERTIES {
        for (name, what) in [(p.name, p.what), (p.twin, p.twin_what)] {
            html.push_str(&format!(
                "<tr><td><b>{}</b><div class=\"what\">{}</div></td>",
                escape(name),
                escape(what)
            ));
            for d in &designs {
                html.push_str(&cell_html(m.cell(d, scenario, name), d, scenario, name));
            }
            html.push_str("</tr>\n");
        }
    }
    html.push_str("</table>\n");
    html
}

fn cell_html(cell: Option<&Cell>, design: &str, scenario: &str, property: &str) -> String {
    let Some(cell) = cell else {
        return "<td></td>".into();
    };
    let word = status_word(cell.status);
    let target = if cell.status == Status::Violated && cell.trace.is_some() {
        cell_id(design, scenario, property)
    } else {
        check_id(design, scenario)
    };
    let title = cell.reason.as_deref().unwrap_or(word);
    format!(
        "<td class=\"{}\"><a href=\"#{}\" title=\"{}\">{word}</a></td>",
        status_class(cell.status),
        escape(&target),
        escape(title)
    )
}

/// The status as the JSON spells it, a cell's CSS class.
fn status_class(status: Status) -> &'static str {
    match status {
        Status::Holds => "holds",
        Status::Violated => "violated",
        Status::Witnessed => "witnessed",
        Status::Unreached => "unreached",
        Status::Unknown => "unknown",
        Status::NotApplicable => "not_applicable",
    }
}

/// The anchor of a check's row of figures.
fn check_id(design: &str, scenario: &str) -> String {
    format!("c-{design}--{scenario}")
}

fn checks_table(m: &Matrix) -> String {
    let mut html = String::from(
        "<h3 id=\"checks\">Checks</h3>\n<table><tr><th>design</th><th>scenario</th>\
         <th>claimed safe</th><th>states</th><th>depth</th><th>seconds</th><th>result</th></tr>\n",
    );
    for c in &m.checks {
        html.push_str(&check_row(c));
    }
    html.push_str("</table>\n");
    html
}

fn check_row(c: &CheckRow) -> String {
    let (states, depth, seconds, result) = match (&c.figures, &c.reason) {
        (Some(f), _) => (
            grouped(f.unique_states),
            f.max_depth.to_string(),
            format!("{:.1}", f.seconds),
            match &f.stopped {
                Some(why) => format!("not exhaustive: {why}"),
                None if f.passed => "passed".into(),
                None => "exhaustive, did not pass".into(),
            },
        ),
        (None, reason) => (
            "-".into(),
            "-".into(),
            "-".into(),
            format!("not checked: {}", reason.as_deref().unwrap_or("")),
        ),
    };
    format!(
        "<tr id=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{states}</td><td>{depth}</td>\
         <td>{seconds}</td><td>{}</td></tr>\n",
        escape(&check_id(&c.design, &c.scenario)),
        escape(&c.design),
        escape(&c.scenario),
        if c.claims_safety { "yes" } else { "no" },
        escape(&result)
    )
}

fn findings_section(title: &str, what: &str, findings: &[Finding]) -> String {
    if findings.is_empty() {
        return String::new();
    }
    let mut html = format!(
        "<h2 id=\"{}\">{title}</h2>\n<p>{} {what}:</p>\n<ul>\n",
        title.to_lowercase(),
        findings.len()
    );
    for f in findings {
        html.push_str(&format!(
            "<li><a href=\"#{}\">{} on {}: {}</a></li>\n",
            escape(&f.id),
            escape(&f.design),
            escape(&f.scenario),
            escape(&f.property)
        ));
    }
    html.push_str("</ul>\n");
    for f in findings {
        html.push_str(&finding_html(f));
    }
    html
}

fn finding_html(f: &Finding) -> String {
    let mut html = format!(
        "<section class=\"finding\" id=\"{}\">\n<h3>{} on {}: {} <a href=\"#{}\">#</a></h3>\n\
         <p class=\"verdict\">{}</p>\n{}<p>design: <code>{}</code><br>scenario: <code>{}</code><br>\
         trace: <code>{}</code>, {} steps</p>\n<div class=\"diagram\">{}</div>\n",
        escape(&f.id),
        escape(&f.design),
        escape(&f.scenario),
        escape(&f.property),
        escape(&f.id),
        escape(&f.verdict),
        f.no_return
            .as_ref()
            .map_or_else(String::new, |(_, note)| format!(
                "<p class=\"no-return\">{}.</p>\n",
                escape(note)
            )),
        escape(&f.design_line),
        escape(&f.scenario_line),
        escape(&f.file),
        f.rows.len(),
        f.svg
    );
    html.push_str(
        "<table class=\"steps\"><tr><th>step</th><th>time</th><th>kind</th><th>from</th>\
         <th>to</th><th>message</th><th>changed</th></tr>\n",
    );
    for r in &f.rows {
        if let Some((_, note)) = f
            .no_return
            .as_ref()
            .filter(|(after, _)| *after + 1 == r.step)
        {
            html.push_str(&format!(
                "<tr class=\"no-return\"><td colspan=\"7\">{}</td></tr>\n",
                escape(note)
            ));
        }
        html.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td>\
             <td class=\"what\">{}</td></tr>\n",
            r.step,
            escape(&r.time),
            r.kind,
            escape(&r.from),
            escape(&r.to),
            escape(&r.message),
            escape(&r.changed)
        ));
    }
    if let Some((_, note)) = f
        .no_return
        .as_ref()
        .filter(|(after, _)| *after == f.rows.len())
    {
        html.push_str(&format!(
            "<tr class=\"no-return\"><td colspan=\"7\">{}</td></tr>\n",
            escape(note)
        ));
    }
    html.push_str("</table>\n");
    html.push_str(&stepper(f));
    html.push_str(&format!(
        "<details><summary>Mermaid source</summary><pre class=\"mermaid-source\">{}</pre>\
         </details>\n</section>\n",
        escape(&f.mermaid)
    ));
    html
}

/// The step-through: one hidden radio button per step, the step list (each row a label
/// that checks its button), and per step a pane with the message and each actor's changes
/// in Kafka's terms, with previous and next.
fn stepper(f: &Finding) -> String {
    let n = f.rows.len();
    if n == 0 {
        return String::new();
    }
    let radio = |k: usize| format!("st-{}-{k}", f.id);
    let mut html = format!(
        "<h4>Step through</h4>\n<div class=\"stepper\" id=\"stepper-{}\">\n",
        escape(&f.id)
    );
    for k in 1..=n {
        html.push_str(&format!(
            "<input type=\"radio\" class=\"st\" name=\"st-{}\" id=\"{}\"{}>",
            escape(&f.id),
            escape(&radio(k)),
            if k == 1 { " checked" } else { "" }
        ));
    }
    html.push_str("\n<ol class=\"step-list\">\n");
    for (k, r) in (1..).zip(&f.rows) {
        html.push_str(&format!(
            "<li><label for=\"{}\">{}. {} {}</label></li>\n",
            escape(&radio(k)),
            r.step,
            escape(&step_words(r)),
            escape(&r.message)
        ));
    }
    html.push_str("</ol>\n<div class=\"step-panes\">\n");
    for (k, r) in (1..).zip(&f.rows) {
        html.push_str(&step_pane(f, (k, r), &radio));
    }
    html.push_str("</div>\n</div>\n");
    html
}

/// A step's kind and actors: `deliver P0 → TC`, `crash SC`.
fn step_words(r: &StepRow) -> String {
    if r.to == "-" {
        format!("{} {}", r.kind, r.from)
    } else {
        format!("{} {} → {}", r.kind, r.from, r.to)
    }
}

/// One step's pane: what happened, each actor's changes, the point of no return when it
/// is this step, and previous and next.
fn step_pane(f: &Finding, (k, r): (usize, &StepRow), radio: &dyn Fn(usize) -> String) -> String {
    let n = f.rows.len();
    let mut html = format!(
        "<div class=\"step-pane\" data-step=\"{k}\"><p><b>Step {} of {n}</b>: {} \
         <code>{}</code></p>\n",
        r.step,
        escape(&step_words(r)),
        escape(&r.message)
    );
    if r.actors.is_empty() {
        html.push_str("<p class=\"what\">No actor's state changed.</p>\n");
    } else {
        html.push_str("<table class=\"actor-changes\"><tr><th>actor</th><th>changed</th></tr>\n");
        for a in &r.actors {
            let items: String = a
                .changes
                .iter()
                .map(|c| format!("<li>{}</li>", escape(c)))
                .collect();
            html.push_str(&format!(
                "<tr><td>{}</td><td><ul>{items}</ul></td></tr>\n",
                escape(&a.actor)
            ));
        }
        html.push_str("</table>\n");
    }
    if let Some((_, note)) = f.no_return.as_ref().filter(|(after, _)| *after == k) {
        html.push_str(&format!("<p class=\"no-return\">{}</p>\n", escape(note)));
    }
    let nav = |k: usize, ok: bool, text: &str, class: &str| {
        if ok {
            format!(
                "<label class=\"{class}\" for=\"{}\">{text}</label>",
                escape(&radio(k))
            )
        } else {
            format!("<label class=\"{class} off\">{text}</label>")
        }
    };
    html.push_str(&format!(
        "<p class=\"nav\">{}{}</p></div>\n",
        nav(k.saturating_sub(1), k > 1, "&larr; previous", "prev"),
        nav(k + 1, k < n, "next &rarr;", "next")
    ));
    html
}
