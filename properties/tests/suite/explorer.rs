//! The Explorer (stateright's web page over `explorer::Checked`) tells the same story as
//! `check`: on `session-resume` with the seed design its own checker finds `single_writer`
//! and `external_agreement` violated (which `check` reports), it attaches exactly the
//! properties `check` judges, and its header names the scenario, design and settings.

use sharetxn_model::{Design, Scenario, System};
use sharetxn_properties::explorer::Checked;
use sharetxn_properties::{check, CheckOptions, Status};
use stateright::{Checker, Model};

fn seed_on_session_resume() -> System {
    System::new(Design::seed(), Scenario::session_resume())
}

#[test]
fn explorer_finds_what_check_finds_on_session_resume_seed() {
    let sys = seed_on_session_resume();
    let report = check(&sys, CheckOptions::default());
    assert!(report.exhaustive);
    let model = Checked(sys);
    let names: Vec<&str> = model.properties().iter().map(|p| p.name).collect();
    // The stateright checker the Explorer page runs, driven here in-process.
    let checker = model.checker().threads(1).spawn_bfs().join();
    for name in ["single_writer", "external_agreement"] {
        assert_eq!(
            report.property(name).map(|p| p.status),
            Some(Status::Violated)
        );
        assert!(
            checker.discovery(name).is_some(),
            "the Explorer finds {name} violated"
        );
    }
    // Every property check judges is attached, and no other: a not-applicable row or an
    // excluded twin is not shown as "Example not found".
    let judged: Vec<&str> = report
        .properties
        .iter()
        .filter(|p| p.status != Status::NotApplicable)
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, judged);
    for name in names {
        let status = report.property(name).map(|p| p.status);
        // A violation or a witnessed twin in `check` is a discovery in the Explorer, and
        // (its search going through every state here too) the other way round.
        let discovered = matches!(status, Some(Status::Violated | Status::Witnessed));
        assert_eq!(
            checker.discovery(name).is_some(),
            discovered,
            "{name}: {status:?}"
        );
    }
}

#[test]
fn explorer_header_names_scenario_design_and_what_is_left_out() {
    let model = Checked(seed_on_session_resume());
    let header = model.header().join("\n");
    assert!(
        header.starts_with("scenario session-resume, design seed"),
        "{header}"
    );
    assert!(header.contains("settings: "), "{header}");
    // session-resume runs no KIP-1309 heartbeats under seed: live_session_kept does not
    // apply, so it is listed as such instead of attached.
    assert!(
        header.contains("live_session_kept (twin heartbeat_abort)"),
        "{header}"
    );
    assert!(!model
        .properties()
        .iter()
        .any(|p| p.name == "live_session_kept"));
}
