//! The matrix as text: one table per scenario, a row per property and twin (twins indented
//! under their property) and a column per design checked there, then the check's figures
//! as rows of the same table, the designs that do not apply with the reason, and the
//! verdict on the designs claimed safe. A pure function of the [`Matrix`], so it is tested
//! without running a check.

use crate::matrix::{CheckRow, Matrix};
use crate::summary::table;
use sharetxn_properties::{Status, PROPERTIES};

/// The word a status shows as: a violation shouts, what does not apply is `n/a`.
pub fn status_word(status: Status) -> &'static str {
    match status {
        Status::Holds => "holds",
        Status::Violated => "VIOLATED",
        Status::Witnessed => "witnessed",
        Status::Unreached => "unreached",
        Status::Unknown => "unknown",
        Status::NotApplicable => "n/a",
    }
}

/// `n` with a comma every three digits (`206,623`), as the README writes counts.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    // The leading group holds 1 to 3 digits; every later one exactly 3.
    let mut end = match digits.len() % 3 {
        0 => 3,
        r => r,
    };
    let mut out = digits[..end].to_string();
    while end < digits.len() {
        out.push(',');
        out.push_str(&digits[end..end + 3]);
        end += 3;
    }
    out
}

/// One scenario's table.
fn scenario_table(matrix: &Matrix, scenario: &str) -> String {
    let checks: Vec<&CheckRow> = matrix
        .checks
        .iter()
        .filter(|c| c.scenario == scenario)
        .collect();
    let checked: Vec<&CheckRow> = checks.iter().copied().filter(|c| c.applies).collect();
    let mut out = format!("{scenario}\n");
    if !checked.is_empty() {
        let mut rows = vec![std::iter::once("property".to_string())
            .chain(checked.iter().map(|c| c.design.clone()))
            .collect::<Vec<_>>()];
        for p in PROPERTIES {
            for (label, name) in [
                (p.name.to_string(), p.name),
                (format!("  {}", p.twin), p.twin),
            ] {
                let mut row = vec![label];
                for c in &checked {
                    let status = matrix
                        .cell(&c.design, scenario, name)
                        .map_or("-", |cell| status_word(cell.status));
                    row.push(status.to_string());
                }
                rows.push(row);
            }
        }
        let figure = |label: &str, show: &dyn Fn(&CheckRow) -> String| {
            std::iter::once(label.to_string())
                .chain(checked.iter().map(|c| show(c)))
                .collect::<Vec<_>>()
        };
        let with = |show: fn(&crate::matrix::Figures) -> String| {
            move |c: &CheckRow| c.figures.as_ref().map_or("-".to_string(), show)
        };
        rows.push(figure("unique states", &with(|f| grouped(f.unique_states))));
        rows.push(figure("depth", &with(|f| f.max_depth.to_string())));
        rows.push(figure("seconds", &with(|f| format!("{:.1}", f.seconds))));
        rows.push(figure(
            "states/s",
            &with(|f| grouped(f.states_per_second.round() as u64)),
        ));
        rows.push(figure(
            "exhaustive",
            &with(|f| if f.exhaustive { "yes" } else { "NO" }.to_string()),
        ));
        rows.push(figure("state cap", &with(|f| grouped(f.state_cap))));
        out.push_str(&table(&rows, "  "));
    }
    for c in &checked {
        if let Some(why) = c.figures.as_ref().and_then(|f| f.stopped.as_deref()) {
            out.push_str(&format!(
                "  {}: {why}; what it did not decide is unknown\n",
                c.design
            ));
        }
    }
    for c in checks.iter().filter(|c| !c.applies) {
        let reason = c.reason.as_deref().unwrap_or("does not apply");
        out.push_str(&format!("  {}: n/a ({reason})\n", c.design));
    }
    out
}

/// The whole matrix as text.
pub fn render(matrix: &Matrix) -> String {
    let checked = matrix.checks.iter().filter(|c| c.applies).count();
    let skipped = matrix.checks.len() - checked;
    let mut out = format!(
        "matrix: {checked} {} run, {skipped} {} not applicable",
        if checked == 1 { "check" } else { "checks" },
        if skipped == 1 { "pair" } else { "pairs" },
    );
    if !matrix.sets.is_empty() {
        out.push_str(&format!(", --set {}", matrix.sets.join(" ")));
    }
    out.push_str("\n\n");
    for scenario in matrix.scenarios() {
        out.push_str(&scenario_table(matrix, scenario));
        out.push('\n');
    }
    let figures = matrix.checks.iter().filter_map(|c| c.figures.as_ref());
    let (states, seconds) =
        figures.fold((0, 0.0), |(n, s), f| (n + f.unique_states, s + f.seconds));
    out.push_str(&format!(
        "total: {} states in {seconds:.1} s\n",
        grouped(states)
    ));
    let claimed: Vec<String> = matrix
        .checks
        .iter()
        .filter(|c| c.claims_safety)
        .map(|c| format!("{} on {}", c.design, c.scenario))
        .collect();
    let verdict = match (claimed.is_empty(), matrix.passed) {
        (true, _) => "verdict: no design claimed safe was checked".to_string(),
        (false, true) => format!(
            "verdict: every design claimed safe passed ({})",
            claimed.join(", ")
        ),
        (false, false) => format!("verdict: NOT PASSED: {}", matrix.broken_claims().join("; ")),
    };
    out.push_str(&verdict);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::{Bounds, Figures};
    use sharetxn_properties::Report;

    const EXHAUSTIVE: Bounds = Bounds {
        state_cap: u64::MAX,
        unclaimed_cap: false,
    };

    fn report(design: &str, violated: &[&str], exhaustive: bool) -> Report {
        let properties = PROPERTIES
            .iter()
            .flat_map(|p| {
                let status = if violated.contains(&p.name) {
                    Status::Violated
                } else if exhaustive {
                    Status::Holds
                } else {
                    Status::Unknown
                };
                [
                    (p.name, p.kind, status),
                    (
                        p.twin,
                        sharetxn_properties::Kind::Sometimes,
                        Status::Witnessed,
                    ),
                ]
            })
            .map(|(name, kind, status)| sharetxn_properties::PropertyReport {
                name: name.into(),
                kind,
                status,
                message: None,
                trace: None,
                actions: Vec::new(),
            })
            .collect();
        Report {
            scenario: "s".into(),
            design: design.into(),
            settings: serde_json::Value::Null,
            strategy: "bfs".into(),
            exhaustive,
            unique_states: 1234567,
            max_depth: 9,
            seconds: 2.0,
            states_per_second: 617283.5,
            properties,
        }
    }

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(206623), "206,623");
        assert_eq!(grouped(2632382), "2,632,382");
    }

    #[test]
    fn a_table_per_scenario_with_figures_and_the_pairs_that_do_not_apply() {
        let mut matrix = Matrix::new(vec!["timeouts=0".into()]);
        matrix.push_not_applicable("base", "s", "base means nothing on s".into());
        matrix.push_report(
            &report("kip", &[PROPERTIES[0].name], true),
            false,
            &EXHAUSTIVE,
        );
        let text = render(&matrix);
        assert!(text.starts_with("matrix: 1 check run, 1 pair not applicable, --set timeouts=0\n"));
        let first = format!("  {}", PROPERTIES[0].name);
        let row = text.lines().find(|l| l.starts_with(&first)).unwrap();
        assert!(row.ends_with("VIOLATED"), "{row}");
        let twin = format!("    {}", PROPERTIES[0].twin);
        assert!(text
            .lines()
            .any(|l| l.starts_with(&twin) && l.ends_with("witnessed")));
        for figure in ["1,234,567", "617,284", "2.0"] {
            assert!(text.contains(figure), "{figure}: {text}");
        }
        assert!(
            text.contains("  base: n/a (base means nothing on s)\n"),
            "{text}"
        );
        assert!(
            text.ends_with("verdict: no design claimed safe was checked\n"),
            "{text}"
        );
    }

    /// A design not claimed safe whose check stopped at its cap: its discoveries stand,
    /// and what it did not decide (a property, a twin the library calls unreached) is
    /// unknown with the reason, in the cells, the row and the table; the verdict on the
    /// designs claimed safe does not move.
    #[test]
    fn a_capped_check_reports_what_it_did_not_decide_as_unknown_with_the_reason() {
        let mut capped = report("kip", &[PROPERTIES[0].name], false);
        let twin = PROPERTIES[1].twin;
        capped
            .properties
            .iter_mut()
            .find(|p| p.name == twin)
            .unwrap()
            .status = Status::Unreached;
        let bounds = Bounds::of(false, 20_000_000, 1_000_000);
        assert_eq!(bounds.state_cap, 1_000_000);
        assert_eq!(
            Bounds::of(true, 20_000_000, 1_000_000).state_cap,
            20_000_000
        );
        let mut matrix = Matrix::new(Vec::new());
        matrix.push_report(&capped, false, &bounds);
        assert!(matrix.passed);
        let cell = |name: &str| matrix.cell("kip", "s", name).unwrap().clone();
        assert_eq!(cell(PROPERTIES[0].name).status, Status::Violated);
        assert_eq!(cell(PROPERTIES[0].name).reason, None);
        for name in [PROPERTIES[1].name, twin] {
            assert_eq!(cell(name).status, Status::Unknown, "{name}");
            let reason = cell(name).reason.unwrap_or_default();
            assert!(
                reason.contains("stopped at 1,000,000 states (--unclaimed-max-states"),
                "{reason}"
            );
        }
        let figures = matrix.checks[0].figures.clone().unwrap();
        assert_eq!(figures.state_cap, 1_000_000);
        assert!(figures.stopped.is_some() && !figures.exhaustive);
        let text = render(&matrix);
        assert!(
            text.contains("  kip: stopped at 1,000,000 states (--unclaimed-max-states, the cap for a design not claimed safe); what it did not decide is unknown\n"),
            "{text}"
        );
        assert!(text
            .lines()
            .any(|l| l.starts_with("  state cap") && l.ends_with("1,000,000")));
        let json = serde_json::to_value(&matrix).unwrap();
        assert_eq!(json["checks"][0]["state_cap"], 1_000_000);
        assert!(json["checks"][0]["stopped"].is_string());
        // An exhaustive check names its cap but no reason, and its cells none.
        let mut whole = Matrix::new(Vec::new());
        whole.push_report(&report("kip", &[], true), false, &bounds);
        assert!(whole.cells.iter().all(|c| c.reason.is_none()));
        let json = serde_json::to_value(&whole).unwrap();
        assert!(json["checks"][0].get("stopped").is_none());
        assert!(json["cells"][0].get("reason").is_none());
    }

    #[test]
    fn a_design_claimed_safe_that_does_not_pass_fails_the_matrix() {
        let mut matrix = Matrix::new(Vec::new());
        matrix.push_report(&report("safe", &[], true), true, &EXHAUSTIVE);
        assert!(matrix.passed);
        assert!(render(&matrix).contains("every design claimed safe passed (safe on s)"));
        matrix.push_report(&report("safe", &[], false), true, &EXHAUSTIVE);
        assert!(!matrix.passed);
        let broken = matrix.broken_claims();
        assert_eq!(broken.len(), 1);
        assert!(broken[0].contains("unknown"), "{broken:?}");
        let mut violated = Matrix::new(Vec::new());
        violated.push_report(
            &report("safe", &[PROPERTIES[0].name], true),
            true,
            &EXHAUSTIVE,
        );
        let text = render(&violated);
        let expect = format!(
            "verdict: NOT PASSED: safe on s: {} VIOLATED",
            PROPERTIES[0].name
        );
        assert!(text.contains(&expect), "{text}");
        let figures: Vec<&Figures> = violated
            .checks
            .iter()
            .filter_map(|c| c.figures.as_ref())
            .collect();
        assert!(!figures[0].passed);
    }
}
