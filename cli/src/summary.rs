//! The human-readable form of a check report: a summary of the run, then one row per
//! property and twin with its status, message and trace file, then the verdict. It exists
//! apart from the check command so that the text is a pure function of the report (and
//! testable without running a check); `--json` bypasses it entirely.

use serde::Serialize;
use serde_json::Value;
use sharetxn_model::world::settings;
use sharetxn_properties::{Report, Status};

/// The lowercase name a value serialises to (`Kind::Always` is `always`), so the text
/// uses the same words as the JSON report.
pub fn lowercase_name<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => "?".into(),
    }
}

/// Aligns `rows` in columns, each line starting with `indent`. The last column is not
/// padded, and no line ends in spaces.
pub fn table(rows: &[Vec<String>], indent: &str) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; columns];
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = indent.to_string();
        for (i, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if i + 1 < row.len() {
                let pad = widths[i] - cell.chars().count() + 2;
                line.push_str(&" ".repeat(pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// `key=value` for every setting, in the order `sharetxn list` shows the keys, then any
/// keys the library added that the list does not know.
pub fn settings_line(settings: &Value) -> String {
    let Value::Object(map) = settings else {
        return settings.to_string();
    };
    let keys = settings::keys();
    let known = keys.iter().map(|(k, _)| *k);
    let extra = map
        .keys()
        .map(String::as_str)
        .filter(|k| !keys.iter().any(|(s, _)| s == k));
    known
        .chain(extra)
        .filter_map(|k| {
            map.get(k).map(|v| match v {
                Value::String(s) => format!("{k}={s}"),
                other => format!("{k}={other}"),
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The text `sharetxn check` prints for `report`; `design` is the design's one-line
/// description.
pub fn render(report: &Report, design: &str) -> String {
    let rate = report.states_per_second.round();
    let summary = vec![
        vec!["scenario".into(), report.scenario.clone()],
        vec!["design".into(), design.to_string()],
        vec!["settings".into(), settings_line(&report.settings)],
        vec!["strategy".into(), report.strategy.clone()],
        vec![
            "exhaustive".into(),
            if report.exhaustive {
                "yes"
            } else {
                "no (stopped at a bound)"
            }
            .into(),
        ],
        vec!["unique states".into(), report.unique_states.to_string()],
        vec!["max depth".into(), report.max_depth.to_string()],
        vec!["seconds".into(), format!("{:.2}", report.seconds)],
        vec!["states/s".into(), format!("{rate}")],
    ];
    let mut out = table(&summary, "");
    out.push('\n');

    let mut rows = vec![["property", "kind", "status", "message / trace"]
        .map(String::from)
        .to_vec()];
    for p in &report.properties {
        let head = vec![
            p.name.clone(),
            lowercase_name(&p.kind),
            lowercase_name(&p.status),
        ];
        let trace = p.trace.as_ref().map(|t| format!("trace: {t}"));
        match (p.message.clone(), trace) {
            (Some(message), Some(trace)) => {
                rows.push([head, vec![message]].concat());
                rows.push(vec![String::new(), String::new(), String::new(), trace]);
            }
            (Some(detail), None) | (None, Some(detail)) => {
                rows.push([head, vec![detail]].concat());
            }
            (None, None) => rows.push(head),
        }
    }
    out.push_str(&table(&rows, ""));
    out.push('\n');
    out.push_str(&verdict(report));
    out.push('\n');
    out
}

/// One line: pass, or which properties keep the run from passing and why.
pub fn verdict(report: &Report) -> String {
    if report.passed() {
        return "result: pass (every applicable property holds and every applicable twin is witnessed)".into();
    }
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for p in &report.properties {
        if matches!(
            p.status,
            Status::Holds | Status::Witnessed | Status::NotApplicable
        ) {
            continue;
        }
        let status = lowercase_name(&p.status);
        match groups.iter_mut().find(|(s, _)| *s == status) {
            Some((_, names)) => names.push(&p.name),
            None => groups.push((status, vec![&p.name])),
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|(status, names)| format!("{status}: {}", names.join(", ")))
        .collect();
    format!("result: FAIL ({})", parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_and_trims() {
        let rows = vec![
            vec!["a".to_string(), "bb".to_string(), "c".to_string()],
            vec!["aaa".to_string(), "b".to_string()],
            vec!["x".to_string(), String::new(), String::new()],
        ];
        assert_eq!(table(&rows, "> "), "> a    bb  c\n> aaa  b\n> x\n");
    }

    #[test]
    fn settings_follow_the_list_order() {
        let v = serde_json::json!({"zeta": 1, "tv": 2, "crashable": "producer"});
        assert_eq!(settings_line(&v), "tv=2 crashable=producer zeta=1");
    }

    #[test]
    fn names_are_the_json_names() {
        assert_eq!(lowercase_name(&Status::Violated), "violated");
        assert_eq!(
            lowercase_name(&sharetxn_properties::Kind::Sometimes),
            "sometimes"
        );
    }
}
