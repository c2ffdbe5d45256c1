//! Scenario `ctp-two-groups` (issue 17): one KIP-1289 transaction carrying the
//! acknowledgements of two share groups, each group one share partition (`SP0`, `SP1`) whose
//! state the one share coordinator keeps under its own `SharePartitionKey`. Every design is
//! checked exhaustively at the scenario's bounds: `proposed` and `draft` hold every
//! applicable property with every applicable twin witnessed; the seed's exact-epoch marker
//! leaves both groups' acknowledgements pending, as on `ctp`. Before the share coordinator
//! kept its pending acknowledgements per key, group 1's staging replaced group 0's and
//! `proposed` failed `at_least_once` and `cache_agrees` (docs/findings.md).

use sharetxn_model::world::scenario::SCENARIO_NAMES;
use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::{
    check, has_share_transactions, twin_scope, CheckOptions, Report, Status,
};

fn run(design: Design) -> Report {
    let report = check(
        &System::new(design, Scenario::ctp_two_groups()),
        CheckOptions::default(),
    );
    assert!(report.exhaustive);
    report
}

fn summary(r: &Report) -> String {
    let mut out = format!("states {} depth {}\n", r.unique_states, r.max_depth);
    for p in &r.properties {
        out.push_str(&format!("{} {:?}\n", p.name, p.status));
    }
    out
}

/// What every design that resolves both keys shows: both twins of a staged acknowledgement
/// witnessed, and the redelivery twin out of scope (one transaction, one member).
fn twins_of_both_outcomes(report: &Report) {
    for twin in ["share_ack_committed", "share_ack_aborted"] {
        assert_eq!(report.status(twin), Some(Status::Witnessed), "{twin}");
    }
    assert_eq!(
        report.status("redelivered_after_abort"),
        Some(Status::NotApplicable)
    );
}

#[test]
fn proposed_holds_with_two_share_groups() {
    let report = run(Design::proposed());
    assert!(report.passed(), "{}", summary(&report));
    twins_of_both_outcomes(&report);
    assert_eq!((report.unique_states, report.max_depth), (472_060, 57));
}

#[test]
fn draft_holds_with_two_share_groups() {
    let report = run(Design::draft());
    assert!(report.violated().is_empty(), "{}", summary(&report));
    twins_of_both_outcomes(&report);
    assert_eq!((report.unique_states, report.max_depth), (795_176, 59));
}

/// The seed's marker carries the epoch EndTxn bumped (TV2), and `marker_match=exact-epoch`
/// resolves only acknowledgements staged at that epoch: both groups' stay pending.
#[test]
fn the_seeds_marker_leaves_both_groups_acknowledgements_pending() {
    let report = run(Design::seed());
    assert_eq!(report.violated(), ["marker_match", "no_orphan_acks"]);
    let steps = |p: &str| report.property(p).map(|p| p.actions.len());
    assert_eq!(steps("marker_match"), Some(33));
    assert_eq!(steps("no_orphan_acks"), Some(45));
    assert_eq!((report.unique_states, report.max_depth), (5_612, 45));
}

/// `redelivered_after_abort` is out of scope on `ctp-two-groups` alone among the default
/// scenarios where `no_lost_record` is judged, and back in scope once a second transaction
/// can poll after an abort.
#[test]
fn only_one_transaction_of_one_member_rules_the_redelivery_twin_out() {
    for name in SCENARIO_NAMES {
        let scenario = Scenario::by_name(name).unwrap();
        let sys = System::new(Design::proposed(), scenario);
        if !has_share_transactions(&sys) {
            continue;
        }
        let excluded = twin_scope::redelivered_after_abort(&sys).is_some();
        assert_eq!(excluded, *name == "ctp-two-groups", "{name}");
    }
    let (mut design, mut scenario) = (Design::proposed(), Scenario::ctp_two_groups());
    settings::apply(&mut design, &mut scenario, "txns=2").unwrap();
    let sys = System::new(design, scenario);
    assert_eq!(twin_scope::redelivered_after_abort(&sys), None);
}
