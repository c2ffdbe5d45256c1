//! KIP-1310's `TransactionSession.resume` on the `session-resume` scenario (the seed's 4.1
//! writer/committer split and 4.5 custom 2PC coordinator): the seed's literal resume races
//! a zombie writer that was never fenced; `proposed` holds every property exhaustively with
//! every twin witnessed; each of its resume choices, and KIP-939's 2PC, reverted alone gives
//! its counterexample.

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Report, Status};

fn run(design: Design, sets: &[&str]) -> Report {
    let (mut design, mut scenario) = (design, Scenario::session_resume());
    for s in sets {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    check(&System::new(design, scenario), CheckOptions::default())
}

fn message(report: &Report, name: &str) -> String {
    report
        .property(name)
        .and_then(|p| p.message.clone())
        .unwrap_or_default()
}

#[test]
fn proposed_holds_every_property_on_session_resume_and_is_pinned() {
    let report = run(Design::proposed(), &[]);
    assert!(report.exhaustive);
    assert_eq!(report.violated(), Vec::<&str>::new());
    assert!(report.passed(), "every applicable twin witnessed");
    assert_eq!(
        (report.unique_states, report.max_depth),
        (3_572, 31),
        "pinned: a change here is a model change"
    );
    for twin in [
        "resumed_writer_fenced",
        "external_commit",
        "commit_reached",
        "abort_reached",
        "commit_after_fault",
    ] {
        assert_eq!(report.status(twin), Some(Status::Witnessed), "{twin}");
    }
}

#[test]
fn the_seeds_resume_races_a_zombie_writer_that_was_never_fenced() {
    let report = run(Design::seed(), &[]);
    assert!(report.exhaustive);
    assert_eq!(report.unique_states, 13_668, "pinned");
    assert_eq!(
        report.violated(),
        vec!["single_writer", "external_agreement"]
    );
    let why = message(&report, "single_writer");
    assert!(why.contains("D0 accepted the writer's Produce"), "{why}");
    let why = message(&report, "external_agreement");
    assert!(
        why.contains("aborted") && why.contains("committed"),
        "{why}"
    );
    let steps = report.property("single_writer").unwrap().actions.len();
    assert_eq!(steps, 18, "the shortest trace");
}

#[test]
fn resume_install_alone_lets_the_zombie_abort_the_resumed_transaction() {
    let report = run(Design::proposed(), &["resume=install"]);
    assert_eq!(report.status("single_writer"), Some(Status::Violated));
    let why = message(&report, "single_writer");
    assert!(why.contains("TC accepted the writer's EndTxn"), "{why}");
    assert_eq!(report.status("external_agreement"), Some(Status::Violated));
}

#[test]
fn without_the_send_check_the_zombies_produce_joins_the_kept_transaction() {
    // The fence bumps the epoch at the coordinator only: D0 has the transaction open at the
    // old epoch and takes the zombie's batch without verifying it again.
    let report = run(Design::proposed(), &["session_send_check=false"]);
    assert_eq!(report.violated(), vec!["single_writer"]);
    let why = message(&report, "single_writer");
    assert!(why.contains("D0 accepted the writer's Produce"), "{why}");
}

#[test]
fn deciding_before_the_fence_lets_the_zombie_abort_a_committed_decision() {
    let report = run(Design::proposed(), &["decide_after_resume=false"]);
    assert_eq!(report.violated(), vec!["external_agreement"]);
}

#[test]
fn without_two_phase_commit_the_timeout_aborts_what_the_database_committed() {
    let report = run(Design::proposed(), &["two_phase_commit=false"]);
    assert_eq!(report.violated(), vec!["external_agreement"]);
    let why = message(&report, "external_agreement");
    assert!(why.contains("coordinator aborted"), "{why}");
}

#[test]
fn a_crashing_committer_recovers_from_its_decision_log_under_proposed() {
    // `--set crashable=committer`: the coordinator application crashes once and restarts
    // from its log. Its recovery aborts what a lost hand-off left prepared and resumes
    // again after a fence, so every property holds.
    let report = run(Design::proposed(), &["crashable=committer"]);
    assert!(report.exhaustive);
    assert_eq!(report.violated(), Vec::<&str>::new());
    assert!(report.passed(), "every applicable twin witnessed");
    assert_eq!(
        (report.unique_states, report.max_depth),
        (19_894, 36),
        "pinned: a change here is a model change"
    );
}

#[test]
fn without_committer_recovery_a_lost_hand_off_leaves_the_prepared_transaction_open() {
    // The committer crashes before the writer's committable reached its log; the writer is
    // gone, and a 2PC transaction never times out, so nothing ends it.
    let report = run(
        Design::proposed(),
        &["crashable=committer", "committer_recovery=false"],
    );
    assert!(report.exhaustive);
    assert_eq!(report.unique_states, 10_860, "pinned");
    assert_eq!(
        report.violated(),
        vec!["no_hanging_transaction", "txn_completes"]
    );
    let why = message(&report, "txn_completes");
    assert!(why.contains("Ongoing forever"), "{why}");
}

#[test]
fn the_seed_with_a_crashing_committer_keeps_its_two_violations() {
    let report = run(Design::seed(), &["crashable=committer"]);
    assert!(report.exhaustive);
    assert_eq!(report.unique_states, 31_639, "pinned");
    assert_eq!(
        report.violated(),
        vec!["single_writer", "external_agreement"]
    );
}

#[test]
fn a_crashing_committer_whose_requests_time_out_recovers_under_proposed() {
    // `--set crashable=committer --set timeouts=1`: one coordinator request may time out.
    // A session gone fatal is replaced on a fresh connection (`recovery_retry`), and a
    // writer failed before its hand-off makes the committer run the presumed abort again
    // (`writer_failover`), so every property holds.
    let report = run(Design::proposed(), &["crashable=committer", "timeouts=1"]);
    assert!(report.exhaustive);
    assert_eq!(report.violated(), Vec::<&str>::new());
    assert!(report.passed(), "every applicable twin witnessed");
    assert_eq!(
        (report.unique_states, report.max_depth),
        (639_696, 46),
        "pinned: a change here is a model change"
    );
}

/// The reverted knob's shortest `txn_completes` trace, which `no_hanging_transaction`
/// shares: the writer's transaction is left Ongoing for ever.
fn reverted(knob: &str) -> (u64, usize) {
    let off = format!("{knob}=false");
    let report = run(
        Design::proposed(),
        &["crashable=committer", "timeouts=1", off.as_str()],
    );
    assert!(report.exhaustive);
    assert_eq!(
        report.violated(),
        vec!["no_hanging_transaction", "txn_completes"],
        "{knob}"
    );
    let why = message(&report, "txn_completes");
    assert!(why.contains("Ongoing forever"), "{why}");
    let steps = report.property("txn_completes").unwrap().actions.len();
    (report.unique_states, steps)
}

#[test]
fn a_timed_out_recovery_leaves_the_prepared_transaction_open_without_recovery_retry() {
    // The recovery's InitProducerId times out: the session is fatal, the committer never
    // runs the recovery again, and the writer's prepared 2PC transaction never ends.
    assert_eq!(reverted("recovery_retry"), (444_803, 18), "pinned");
}

#[test]
fn a_late_recovery_fences_the_unprepared_writer_without_writer_failover() {
    // The first recovery's InitProducerId(keepPreparedTxn) times out and reaches the
    // coordinator late, after the retried recovery found nothing and the writer began:
    // KIP-939 keeps the ongoing transaction and bumps the epoch, the writer is fenced before
    // its hand-off, and nothing completes the transaction.
    assert_eq!(reverted("writer_failover"), (630_814, 23), "pinned");
}
