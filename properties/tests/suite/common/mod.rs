//! The text the pinned tests snapshot: the bounds, whether the check was exhaustive, the
//! state count and depth, and each property's status with its trace length.

use sharetxn_properties::{Report, Status};
use std::fmt::Write;

/// The pinned summary of `report`; `applicable_only` leaves out `not_applicable` rows.
pub fn summary(sets: &[&str], report: &Report, applicable_only: bool) -> String {
    let mut out = format!(
        "settings: {}\nexhaustive: {}\nunique_states: {}\nmax_depth: {}\n",
        sets.join(" "),
        report.exhaustive,
        report.unique_states,
        report.max_depth
    );
    for p in report
        .properties
        .iter()
        .filter(|p| !applicable_only || p.status != Status::NotApplicable)
    {
        writeln!(
            out,
            "{:<24} {:?} steps={}",
            p.name,
            p.status,
            p.actions.len()
        )
        .unwrap();
    }
    out
}
