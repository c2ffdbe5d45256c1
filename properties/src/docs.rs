//! Markdown tables for the project's documentation (`README.md`, `docs/`), generated from
//! the definitions themselves so that the pages cannot drift from the tool: the property
//! table from [`PROPERTIES`], the knob table from [`KNOBS`] and each design's values, the
//! scenario table from [`sharetxn_model::world::settings::SCENARIO_SETTINGS`] and each
//! scenario's own values,
//! and the findings and verdict tables from a `sharetxn matrix --json` document. The pages hold each
//! table between `<!-- generated: NAME -->` and `<!-- end generated -->`; the tests
//! (`properties/tests/suite/docs.rs`, `cli/tests/suite/docs.rs`) compare every such region with
//! these functions' output and fail on any hand edit.

use crate::reduction_proofs::Proofs;
use crate::{Kind, PROPERTIES};
use serde_json::Value;
use sharetxn_model::design::{DESIGN_NAMES, KNOBS};
use sharetxn_model::world::scenario::SCENARIO_NAMES;
use sharetxn_model::{world::settings, Design, Scenario, System};

/// The text of a region `<!-- generated: name -->` ... `<!-- end generated -->` of
/// `page`, without the marker lines, if the page has it.
pub fn region<'a>(page: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<!-- generated: {name} -->\n");
    let start = page.find(&open)? + open.len();
    let len = page[start..].find("<!-- end generated -->")?;
    Some(&page[start..start + len])
}

/// `page` with the text of its region `name` replaced by `text` (the markers kept), if
/// the page has the region.
pub fn replace_region(page: &str, name: &str, text: &str) -> Option<String> {
    let open = format!("<!-- generated: {name} -->\n");
    let start = page.find(&open)? + open.len();
    let len = page[start..].find("<!-- end generated -->")?;
    Some(format!("{}{text}{}", &page[..start], &page[start + len..]))
}

/// A table cell: pipes escaped so that a value cannot split the cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn kind_word(kind: Kind) -> &'static str {
    match kind {
        Kind::Always => "always",
        Kind::Eventually => "eventually (at quiescence)",
        Kind::Sometimes => "sometimes",
    }
}

/// Every scenario with the design `check` takes for it by default (the first that
/// applies), as a `System`.
fn default_systems() -> Vec<System> {
    SCENARIO_NAMES
        .iter()
        .filter_map(|s| {
            let scenario = Scenario::by_name(s).ok()?;
            let design = DESIGN_NAMES
                .iter()
                .filter_map(|d| Design::by_name(d).ok())
                .find(|d| d.applies_to(&scenario).is_ok())?;
            Some(System::new(design, scenario))
        })
        .collect()
}

/// The property table: each property, its kind, what it guards, what holds, its twin and
/// the scenarios where it is judged (its `applies` on each scenario's default design).
pub fn property_table() -> String {
    let systems = default_systems();
    let mut out = String::from(
        "| property | kind | guards | what holds | twin: what it reaches | judged on |\n\
         |---|---|---|---|---|---|\n",
    );
    for p in PROPERTIES {
        let on: Vec<&str> = systems
            .iter()
            .filter(|s| (p.applies)(s))
            .map(|s| s.scenario.name.as_str())
            .collect();
        let on = if on.is_empty() {
            "no scenario by default (a `--set` knob turns it on)".to_string()
        } else {
            on.join(", ")
        };
        let stays = if p.twin_stable {
            " (stays witnessed)"
        } else {
            ""
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | `{}`: {}{stays} | {} |\n",
            p.name,
            kind_word(p.kind),
            cell(p.guards),
            cell(p.what),
            p.twin,
            cell(p.twin_what),
            on
        ));
    }
    out
}

/// A value of `settings::as_json` as a table cell.
fn value_cell(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) if s.is_empty() => "none".into(),
        Some(Value::String(s)) => cell(s),
        Some(other) => other.to_string(),
        None => "-".into(),
    }
}

/// The last column of a settings table: its heading and one cell per row.
type Extra<'a> = Option<(&'a str, &'a [String])>;

/// A table of `rows` (key, what) with the value of each named column's settings, and
/// `extra` as the last column if given.
fn settings_table(rows: &[(&str, &str)], columns: &[(&str, Value)], extra: Extra) -> String {
    let mut names: Vec<String> = columns.iter().map(|(n, _)| format!("`{n}`")).collect();
    names.extend(extra.map(|(heading, _)| heading.to_string()));
    let mut out = format!(
        "| key | what, values | {} |\n|---|---|{}\n",
        names.join(" | "),
        "---|".repeat(names.len())
    );
    for (i, (key, what)) in rows.iter().enumerate() {
        let mut values: Vec<String> = columns
            .iter()
            .map(|(_, s)| value_cell(s.get(*key)))
            .collect();
        values.extend(extra.and_then(|(_, cells)| cells.get(i)).cloned());
        out.push_str(&format!(
            "| `{key}` | {} | {} |\n",
            cell(what),
            values.join(" | ")
        ));
    }
    out
}

/// The design knobs: each row of [`KNOBS`] with every design's value and the properties
/// that fail when the knob alone is moved from `proposed`'s value.
pub fn knob_table() -> String {
    let scenario = Scenario::txn_basic();
    let columns: Vec<(&str, Value)> = DESIGN_NAMES
        .iter()
        .filter_map(|d| Some((*d, settings::as_json(&Design::by_name(d).ok()?, &scenario))))
        .collect();
    let rows: Vec<(&str, &str)> = KNOBS.iter().map(|k| (k.name, k.help)).collect();
    let reverted: Vec<String> = KNOBS
        .iter()
        .map(|k| match k.reverted {
            [] => "-".to_string(),
            names => names
                .iter()
                .map(|p| format!("`{p}`"))
                .collect::<Vec<_>>()
                .join(", "),
        })
        .collect();
    let heading = "moved alone in `proposed`, fails";
    settings_table(&rows, &columns, Some((heading, &reverted)))
}

/// The scenario fields: each `--set` scenario key with every scenario's default value.
pub fn scenario_table() -> String {
    let design = Design::seed();
    let columns: Vec<(&str, Value)> = SCENARIO_NAMES
        .iter()
        .filter_map(|s| Scenario::by_name(s).ok().map(|sc| (*s, sc)))
        .map(|(name, sc)| (name, settings::as_json(&design, &sc)))
        .collect();
    let rows: Vec<(&str, &str)> = settings::SCENARIO_SETTINGS
        .iter()
        .filter_map(|(k, what)| Some((*k, what.strip_prefix("scenario: ")?)))
        .collect();
    settings_table(&rows, &columns, None)
}

/// The findings of a `sharetxn matrix --json` document, one row per check: the scenario,
/// the design, whether it is claimed safe, what it violated, the unique states, depth and
/// whether the check was exhaustive (a capped check decides only what it found).
pub fn findings_table(matrix: &Value) -> String {
    let mut out = String::from(
        "| scenario | design | claimed safe | violated | unique states | depth | exhaustive |\n\
         |---|---|---|---|---|---|---|\n",
    );
    let cells = matrix["cells"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    for check in matrix["checks"].as_array().into_iter().flatten() {
        if check["applies"] != Value::Bool(true) {
            continue;
        }
        let (design, scenario) = (&check["design"], &check["scenario"]);
        let violated: Vec<String> = cells
            .iter()
            .filter(|c| c["design"] == *design && c["scenario"] == *scenario)
            .filter(|c| c["status"] == "violated")
            .filter_map(|c| c["property"].as_str().map(|p| format!("`{p}`")))
            .collect();
        let yes_no = |v: &Value| if v == &Value::Bool(true) { "yes" } else { "no" };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            scenario.as_str().unwrap_or("?"),
            design.as_str().unwrap_or("?"),
            yes_no(&check["claims_safety"]),
            if violated.is_empty() {
                "none".to_string()
            } else {
                violated.join(", ")
            },
            grouped(check["unique_states"].as_u64().unwrap_or(0)),
            check["max_depth"],
            match check["exhaustive"] {
                Value::Bool(true) => "yes".to_string(),
                _ => format!(
                    "no (capped at {})",
                    grouped(check["state_cap"].as_u64().unwrap_or(0))
                ),
            },
        ));
    }
    out
}

/// The verdicts of a `sharetxn matrix --json` document without its figures (as the pinned
/// snapshot of the full default matrix holds them), one row per check: the scenario, the
/// design, whether it is claimed safe, what it violated, which twins it left unreached,
/// and whether the check was exhaustive. Pairs that do not apply are left out.
pub fn verdict_table(matrix: &Value) -> String {
    let mut out = String::from(
        "| scenario | design | claimed safe | violated | unreached | exhaustive |\n\
         |---|---|---|---|---|---|\n",
    );
    let cells = matrix["cells"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    for check in matrix["checks"].as_array().into_iter().flatten() {
        if check["applies"] != Value::Bool(true) {
            continue;
        }
        let of_status = |status: &str| {
            let names: Vec<String> = cells
                .iter()
                .filter(|c| c["design"] == check["design"] && c["scenario"] == check["scenario"])
                .filter(|c| c["status"] == status)
                .filter_map(|c| c["property"].as_str().map(|p| format!("`{p}`")))
                .collect();
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        };
        let yes_no = |v: &Value| if v == &Value::Bool(true) { "yes" } else { "no" };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            check["scenario"].as_str().unwrap_or("?"),
            check["design"].as_str().unwrap_or("?"),
            yes_no(&check["claims_safety"]),
            of_status("violated"),
            of_status("unreached"),
            yes_no(&check["exhaustive"]),
        ));
    }
    out
}

/// The protocol-level measure of checker power (`docs/mutants.md`): for each property, the
/// `proposed` knobs whose reversion alone breaks it (each knob's `reverted`, pinned by
/// `properties/tests/suite/proposed.rs` and its siblings) and the designs of the full default
/// matrix that violate it, with the scenarios where they do. A property with neither is
/// one no design bug in the project breaks; only its can-fail test shows it can fail.
pub fn power_table(matrix: &Value) -> String {
    let mut out = String::from(
        "| property | reverting this `proposed` knob alone breaks it | violated in the full matrix by |\n\
         |---|---|---|\n",
    );
    let cells = matrix["cells"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    for p in PROPERTIES {
        let knobs: Vec<String> = KNOBS
            .iter()
            .filter(|k| k.reverted.contains(&p.name))
            .map(|k| format!("`{}`", k.name))
            .collect();
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            p.name,
            or_none(knobs.join(", ")),
            or_none(violating_designs(cells, p.name))
        ));
    }
    out
}

/// The designs of `cells` that violate `property`, each with its scenarios in the order
/// the matrix lists them: `seed` (session, connect-share-sink); ...
fn violating_designs(cells: &[Value], property: &str) -> String {
    let mut designs: Vec<(&str, Vec<&str>)> = Vec::new();
    let violated = cells
        .iter()
        .filter(|c| c["property"] == property && c["status"] == "violated");
    for c in violated {
        let (Some(d), Some(s)) = (c["design"].as_str(), c["scenario"].as_str()) else {
            continue;
        };
        match designs.iter_mut().find(|(name, _)| *name == d) {
            Some((_, scenarios)) => scenarios.push(s),
            None => designs.push((d, vec![s])),
        }
    }
    designs
        .iter()
        .map(|(d, s)| format!("`{d}` ({})", s.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// `text`, or "none" when it is empty.
fn or_none(text: String) -> String {
    if text.is_empty() {
        "none".to_string()
    } else {
        text
    }
}

/// A row of the reduction sizing for docs/checker.md: `case`'s states without and with
/// `rule`'s sets (`crate::reduction_sizing`), and how many times fewer.
pub fn reduction_sizing_row(case: &str, rule: &str, full: usize, reduced: usize) -> String {
    format!(
        "| {case} | {rule} | {} | {} | {:.2}x | same |\n",
        grouped(full as u64),
        grouped(reduced as u64),
        full as f64 / reduced as f64
    )
}

/// A row of the proof-based reduction for docs/checker.md: `case`'s states without and with
/// proofs of up to `cap` states (`Graph::proofs`), how many times fewer, the states the
/// proofs visited (counted per proof, and against the space) and the distinct ones.
pub fn reduction_proofs_row(case: &str, cap: usize, full: usize, p: &Proofs) -> String {
    format!(
        "| {case} | {} | {} | {} | {:.2}x | {} ({:.1}x the space) | {} |\n",
        grouped(cap as u64),
        grouped(full as u64),
        grouped(p.states as u64),
        full as f64 / p.states as f64,
        grouped(p.visits),
        p.visits as f64 / full as f64,
        grouped(p.distinct as u64)
    )
}

/// `n` with thousands separated by commas, as the CLI prints counts.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_and_counts() {
        let page = "a\n<!-- generated: t -->\n| x |\n<!-- end generated -->\nb";
        assert_eq!(region(page, "t"), Some("| x |\n"));
        assert_eq!(region(page, "u"), None);
        let replaced = replace_region(page, "t", "| y |\n").expect("the region");
        assert_eq!(region(&replaced, "t"), Some("| y |\n"));
        assert!(replaced.starts_with("a\n") && replaced.ends_with("-->\nb"));
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(grouped(999), "999");
    }
}
