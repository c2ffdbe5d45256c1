//! KIP-1302's `WorkerShareSinkTask` on a KIP-1310 session (scenario `connect-share-sink`):
//! `proposed` holds every property exhaustively with every twin witnessed; reverting its
//! sink knob alone lets the poll thread's batch, polled while the commit thread's
//! transaction is ending, join that transaction (a mixed transaction); the seed fails here
//! too, first through the session's own findings.

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Report, Status};

fn system(design: Design, sets: &[&str]) -> System {
    let (mut design, mut scenario) = (design, Scenario::connect_share_sink());
    for s in sets {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    System::new(design, scenario)
}

fn message(report: &Report, name: &str) -> String {
    report
        .property(name)
        .and_then(|p| p.message.clone())
        .unwrap_or_default()
}

#[test]
fn proposed_holds_every_property_on_the_sink_task_and_is_pinned() {
    let report = check(&system(Design::proposed(), &[]), CheckOptions::default());
    assert!(report.exhaustive);
    assert_eq!(report.violated(), Vec::<&str>::new());
    assert!(report.passed(), "every applicable twin witnessed");
    assert_eq!(
        report.unique_states, 37_074,
        "pinned: a change here is a model change"
    );
    for twin in [
        "flushed_commit",
        "commit_reached",
        "share_ack_committed",
        "share_ack_aborted",
        "redelivered_after_abort",
    ] {
        assert_eq!(report.status(twin), Some(Status::Witnessed), "{twin}");
    }
}

#[test]
fn reverting_the_staged_commit_scope_alone_mixes_two_transactions() {
    let report = check(
        &system(Design::proposed(), &["sink_commit_scope=session"]),
        CheckOptions::default(),
    );
    assert!(report.exhaustive);
    assert_eq!(report.violated(), vec!["txn_atomicity"]);
    let why = message(&report, "txn_atomicity");
    // The second attempt's output went out with the first attempt's epoch while the first
    // one's abort was in flight, joined it and was aborted with it; its acknowledgement
    // then committed in its own transaction: the record is acknowledged, its output lost.
    assert!(
        why.contains("i0a1 committed on __share_group_state") && why.contains("aborted on out-0"),
        "{why}"
    );
    assert_eq!(report.unique_states, 36_057, "pinned");
}

#[test]
fn the_mixed_transaction_also_commits_an_output_without_its_acknowledgement() {
    // With a second record the poll thread takes it while the first commit is in flight:
    // its output commits with the first transaction, and its acknowledgement, staged in
    // the next one, is lost.
    let options = CheckOptions {
        focus: Some("txn_atomicity"),
        ..CheckOptions::default()
    };
    let report = check(
        &system(
            Design::proposed(),
            &["sink_commit_scope=session", "records=2"],
        ),
        options,
    );
    assert_eq!(report.status("txn_atomicity"), Some(Status::Violated));
    let why = message(&report, "txn_atomicity");
    assert!(
        why.contains("i0a1 committed on out-0") && why.contains("on __share_group_state"),
        "{why}"
    );
}

#[test]
fn the_seed_fails_on_the_sink_task() {
    for property in ["flush_before_commit", "txn_atomicity"] {
        let options = CheckOptions {
            focus: Some(property),
            ..CheckOptions::default()
        };
        let report = check(&system(Design::seed(), &[]), options);
        assert_eq!(
            report.status(property),
            Some(Status::Violated),
            "{property}"
        );
    }
}

#[test]
fn the_sink_task_is_a_session_client() {
    // Without the session the flag changes nothing: the plain KIP-1289 loop runs.
    let plain = check(
        &system(Design::proposed(), &["session=false", "stalls=0"]),
        CheckOptions::default(),
    );
    let ctp = {
        let (mut d, mut s) = (Design::proposed(), Scenario::connect_share_sink());
        for k in ["session=false", "stalls=0", "sink=false"] {
            settings::apply(&mut d, &mut s, k).unwrap();
        }
        check(&System::new(d, s), CheckOptions::default())
    };
    assert_eq!(plain.unique_states, ctp.unique_states);
}
