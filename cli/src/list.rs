//! `sharetxn list`: everything a user can name on the command line, rendered from the
//! library's own tables (scenario and design names, the property table, the `--set`
//! keys) so the list cannot drift from what `check` accepts.

use crate::summary::{lowercase_name, table};
use sharetxn_model::design::DESIGN_NAMES;
use sharetxn_model::world::scenario::SCENARIO_NAMES;
use sharetxn_model::world::settings;
use sharetxn_model::{Design, Scenario};
use sharetxn_properties::PROPERTIES;
use sharetxn_sim::options::SIM_SETTINGS;

/// The text `sharetxn list` prints.
pub fn render() -> String {
    let mut out = String::new();

    out.push_str("scenarios:\n");
    for name in SCENARIO_NAMES {
        out.push_str(&format!("  {name}\n"));
    }

    out.push_str("\ndesigns:\n");
    for name in DESIGN_NAMES {
        let line = match Design::by_name(name) {
            Ok(design) => {
                let scenarios: Vec<&str> = SCENARIO_NAMES
                    .iter()
                    .copied()
                    .filter(|s| Scenario::by_name(s).is_ok_and(|s| design.applies_to(&s).is_ok()))
                    .collect();
                let safe = if design.claims_safety() {
                    "; claimed safe"
                } else {
                    ""
                };
                format!(
                    "{}\n    applies to: {}{safe}",
                    design.describe(),
                    scenarios.join(", ")
                )
            }
            Err(e) => format!("{name}: {e}"),
        };
        out.push_str(&format!("  {line}\n"));
    }

    out.push_str("\nproperties:\n");
    let mut rows = vec![["name", "kind", "twin", "what"].map(String::from).to_vec()];
    for p in PROPERTIES {
        rows.push(vec![
            p.name.to_string(),
            lowercase_name(&p.kind),
            p.twin.to_string(),
            p.what.to_string(),
        ]);
    }
    out.push_str(&table(&rows, "  "));

    out.push_str("\ntwins (reachability: each must be witnessed):\n");
    let rows: Vec<Vec<String>> = PROPERTIES
        .iter()
        .map(|p| vec![p.twin.to_string(), p.twin_what.to_string()])
        .collect();
    out.push_str(&table(&rows, "  "));

    out.push_str("\n--set KEY=VALUE keys:\n");
    let rows: Vec<Vec<String>> = settings::keys()
        .into_iter()
        .map(|(key, help)| vec![key.to_string(), help])
        .collect();
    out.push_str(&table(&rows, "  "));

    out.push_str("\nsim --set KEY=VALUE keys (as well as the ones above):\n");
    let rows: Vec<Vec<String>> = SIM_SETTINGS
        .iter()
        .map(|(key, help)| vec![key.to_string(), help.to_string()])
        .collect();
    out.push_str(&table(&rows, "  "));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_everything() {
        let text = render();
        for name in SCENARIO_NAMES.iter().chain(DESIGN_NAMES) {
            assert!(text.contains(name), "{name}");
        }
        for p in PROPERTIES {
            assert!(text.contains(p.name) && text.contains(p.twin), "{}", p.name);
        }
        let keys = settings::keys();
        let sim = SIM_SETTINGS.iter().map(|(k, _)| *k);
        for key in keys.iter().map(|(k, _)| *k).chain(sim) {
            assert!(text.contains(key), "{key}");
        }
    }
}
