//! Scenario `spl-move`: `ctp`'s loop with the share partition's leadership moving to
//! another broker (`SP0b`) while the old leader (`SP0`) stays up and may still send.
//! `proposed` holds every applicable property exhaustively, and the old leader's late
//! staging or write is fenced by leader epoch (`stale_leader_fenced`).

use sharetxn_model::{Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Report, Status};

fn run(design: Design) -> Report {
    check(
        &System::new(design, Scenario::spl_move()),
        CheckOptions::default(),
    )
}

fn summary(r: &Report) -> String {
    let mut out = format!(
        "states {} depth {} exhaustive {}\n",
        r.unique_states, r.max_depth, r.exhaustive
    );
    for p in &r.properties {
        out.push_str(&format!("{} {:?} {:?}\n", p.name, p.status, p.message));
    }
    out
}

#[test]
fn proposed_holds_across_a_leader_move() {
    let report = run(Design::proposed());
    eprintln!("{}", summary(&report));
    assert!(report.exhaustive);
    assert!(report.passed(), "{}", summary(&report));
    assert_eq!(report.status("leader_fencing"), Some(Status::Holds));
    assert_eq!(
        report.status("stale_leader_fenced"),
        Some(Status::Witnessed)
    );
}

#[test]
fn seed_and_draft_on_a_leader_move() {
    for design in [Design::seed(), Design::draft()] {
        let r = check(
            &System::new(design, Scenario::spl_move()),
            CheckOptions {
                max_states: 200_000,
                ..CheckOptions::default()
            },
        );
        eprintln!("{}", summary(&r));
    }
}
