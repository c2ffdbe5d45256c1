//! KIP-1309 heartbeats owned by a KIP-1310 session (knob `txn_heartbeat`), on scenarios
//! `session` and `connect-share-sink`: with the heartbeat on, `proposed` keeps every
//! property and the state counts of the heartbeat-free runs (a heartbeat the coordinator
//! answers without error changes nothing); a session that is slow past the heartbeat
//! timeout (`timeouts=1`) has its transaction aborted by the coordinator and fails instead
//! of committing it (told by its next heartbeat's PRODUCER_FENCED, it fails on the
//! answer); and a heartbeat owned by the producer, idle while the application is in a
//! long `task.put()`, lets the coordinator abort a live task's transaction.

use crate::common;
use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::props::live_session_kept;
use sharetxn_properties::{check, CheckOptions, Report, Status, View};

fn run(scenario: Scenario, sets: &[&str], focus: Option<&str>) -> Report {
    let (mut design, mut scenario) = (Design::proposed(), scenario);
    for s in sets {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    let options = CheckOptions {
        focus,
        ..CheckOptions::default()
    };
    check(&System::new(design, scenario), options)
}

#[test]
fn the_heartbeat_changes_nothing_while_the_session_is_alive() {
    let report = run(Scenario::session(), &["txn_heartbeat=true"], None);
    assert!(report.exhaustive);
    assert!(report.passed(), "{:?}", report.violated());
    assert_eq!(report.status("live_session_kept"), Some(Status::Holds));
    assert_eq!(
        report.unique_states, 4_353,
        "the same states as without the heartbeat"
    );
}

#[test]
fn a_session_slow_past_the_heartbeat_timeout_is_aborted() {
    // One early timeout: the coordinator's heartbeat deadline fires while the session is
    // alive but its heartbeats are late (a pause longer than the heartbeat timeout). The
    // full check of these bounds (every safety property holding) is the
    // CLI's; here the search stops at the first abort.
    let report = run(
        Scenario::session(),
        &["txn_heartbeat=true", "timeouts=1"],
        Some("heartbeat_abort"),
    );
    assert_eq!(report.status("heartbeat_abort"), Some(Status::Witnessed));
}

#[test]
fn a_heartbeat_in_the_producer_lets_a_long_put_abort_a_live_task() {
    let report = run(
        Scenario::connect_share_sink(),
        &["txn_heartbeat=true", "heartbeat_owner=producer"],
        Some("live_session_kept"),
    );
    assert_eq!(report.status("live_session_kept"), Some(Status::Violated));
    let p = report.property("live_session_kept").unwrap();
    let why = p.message.clone().unwrap_or_default();
    assert!(why.contains("P0 was up and in task.put()"), "{why}");
    assert_eq!(
        p.actions.len(),
        9,
        "the shortest trace: poll, add, stall, expiry"
    );
}

/// A session slow past the heartbeat timeout (one early firing of the coordinator's
/// deadline) has its transaction aborted and its epoch bumped, so its next heartbeat is
/// answered PRODUCER_FENCED: the session fails (FATAL_ERROR) on that answer instead of
/// going on with the aborted transaction. One transaction and no output partition keep
/// the full check small; the fence clause's own reachability is searched for on the same
/// bounds.
#[test]
fn a_session_told_its_transaction_was_fenced_fails_instead_of_going_on() {
    let sets = ["txn_heartbeat=true", "timeouts=1", "txns=1", "partitions=0"];
    let report = run(Scenario::session(), &sets, None);
    assert!(report.exhaustive);
    assert_eq!(report.violated(), Vec::<&str>::new());
    assert_eq!(report.status("live_session_kept"), Some(Status::Holds));
    assert_eq!(report.status("heartbeat_abort"), Some(Status::Witnessed));
    assert_eq!(report.unique_states, 10_188);
    let (mut design, mut scenario) = (Design::proposed(), Scenario::session());
    for s in sets {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    let sys = System::new(design, scenario);
    let told = common::first_reached(&sys, |s| {
        live_session_kept::told_fenced(&View::new(&sys, s)).then_some(())
    });
    assert!(told.is_some(), "a session fails on a fenced heartbeat");
}
