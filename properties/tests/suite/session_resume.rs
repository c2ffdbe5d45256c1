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

/// `proposed` on `session-resume` with `sets`: exhaustive, every property holds and every
/// applicable twin is witnessed; its states and depth.
fn holds(sets: &[&str]) -> (u64, u64) {
    let report = run(Design::proposed(), sets);
    assert!(report.exhaustive, "{sets:?}");
    assert_eq!(report.violated(), Vec::<&str>::new(), "{sets:?}");
    assert!(report.passed(), "every applicable twin witnessed: {sets:?}");
    (report.unique_states, report.max_depth)
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
    // from its log. A hand-off lost in the crash never votes, so the restarted application
    // presumes abort (`vote_timeout`), and a fenced session resumes again
    // (`recovery_retry`): every property holds.
    let pinned = (11_011, 35);
    assert_eq!(
        holds(&["crashable=committer"]),
        pinned,
        "pinned: a change here is a model change"
    );
}

#[test]
fn without_a_vote_timeout_a_hand_off_lost_in_the_crash_leaves_the_prepared_transaction_open() {
    // The committer crashes before the writer's committable reached its log; the writer is
    // gone, and a 2PC transaction never times out, so nothing ends it.
    let report = run(
        Design::proposed(),
        &["crashable=committer", "vote_timeout=false"],
    );
    assert!(report.exhaustive);
    assert_eq!(report.unique_states, 10_860, "pinned");
    assert_eq!(
        report.violated(),
        vec!["no_hanging_transaction", "txn_completes"]
    );
    let why = message(&report, "txn_completes");
    assert!(why.contains("Ongoing forever"), "{why}");
    // The earlier fix, `committer_recovery` (a restart with nothing logged presumes abort
    // at once), also ends it; `vote_timeout` subsumes it.
    let report = run(
        Design::proposed(),
        &[
            "crashable=committer",
            "vote_timeout=false",
            "committer_recovery=true",
        ],
    );
    assert_eq!(report.violated(), Vec::<&str>::new());
    assert_eq!(report.unique_states, 19_671, "pinned");
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
    // writer fenced before its hand-off never votes, so the committer presumes abort
    // again (`vote_timeout`): every property holds.
    let pinned = (428_220, 46);
    assert_eq!(
        holds(&["crashable=committer", "timeouts=1"]),
        pinned,
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
    assert_eq!(reverted("recovery_retry"), (258_577, 19), "pinned");
}

#[test]
fn without_a_vote_timeout_a_crashed_or_fenced_hand_off_leaves_the_transaction_open() {
    // The shortest: the writer prepares and vanishes, the committer crashes before its
    // committable arrived and restarts with nothing logged, and nothing asks for a vote
    // again. (A longer one: the first recovery's InitProducerId(keepPreparedTxn) times out
    // and reaches the coordinator late, after the writer began, and KIP-939 keeps the
    // writer's unprepared transaction and fences the writer before its hand-off.)
    assert_eq!(reverted("vote_timeout"), (369_651, 15), "pinned");
}

#[test]
fn the_earlier_fixes_also_end_the_fenced_writers_transaction() {
    // The earlier fixes for the same counterexamples: a restart presumes abort at once
    // (`committer_recovery`), and the fenced writer reports its failure so that the
    // committer presumes abort again (`writer_failover`). `vote_timeout` subsumes both (and
    // fixes a lost hand-off, which the writer cannot report), so `proposed` leaves them off.
    let report = run(
        Design::proposed(),
        &[
            "crashable=committer",
            "timeouts=1",
            "vote_timeout=false",
            "committer_recovery=true",
            "writer_failover=true",
        ],
    );
    assert!(report.exhaustive);
    assert_eq!(report.violated(), Vec::<&str>::new());
    assert_eq!(report.unique_states, 645_540, "pinned");
}

#[test]
fn a_lost_hand_off_is_presumed_aborted_under_proposed() {
    // `--set drops=1`: the writer's committable may be lost, and the writer, which thinks
    // it handed over, vanishes. The committer's vote timeout presumes abort.
    let pinned = (43_669, 36);
    assert_eq!(
        holds(&["drops=1"]),
        pinned,
        "pinned: a change here is a model change"
    );
}

#[test]
fn without_a_vote_timeout_a_lost_hand_off_leaves_the_prepared_transaction_open() {
    let report = run(Design::proposed(), &["drops=1", "vote_timeout=false"]);
    assert!(report.exhaustive);
    assert_eq!(
        report.violated(),
        vec!["no_hanging_transaction", "txn_completes"]
    );
    let why = message(&report, "txn_completes");
    assert!(why.contains("Ongoing forever"), "{why}");
    let steps = report.property("txn_completes").unwrap().actions.len();
    assert_eq!((report.unique_states, steps), (43_144, 14), "pinned");
}

#[test]
fn a_retried_init_of_the_writer_keeps_the_prepared_transaction_under_proposed() {
    // `--set request_retries=1 --set timeouts=1`: the writer's InitProducerId may time out
    // and be sent again, and the first copy may reach the coordinator late.
    let pinned = (146_032, 38);
    assert_eq!(
        holds(&["request_retries=1", "timeouts=1"]),
        pinned,
        "pinned: a change here is a model change"
    );
}

#[test]
fn without_writer_keep_prepared_a_late_init_aborts_the_committed_transaction() {
    // The late copy of the writer's InitProducerId(keepPreparedTxn=false) reaches the
    // coordinator after the committer's fence and decision: KIP-939 aborts the prepared
    // transaction, which the database commits.
    let report = run(
        Design::proposed(),
        &[
            "request_retries=1",
            "timeouts=1",
            "writer_keep_prepared=false",
        ],
    );
    assert!(report.exhaustive);
    assert_eq!(report.violated(), vec!["external_agreement"]);
    let why = message(&report, "external_agreement");
    assert!(why.contains("coordinator aborted"), "{why}");
    let steps = report.property("external_agreement").unwrap().actions.len();
    assert_eq!((report.unique_states, steps), (150_865, 21), "pinned");
}

#[test]
fn a_crashing_committer_and_a_lost_hand_off_hold_under_proposed() {
    // `--set crashable=committer --set drops=1`: the restarted committer waits for the
    // vote, and a lost hand-off is presumed aborted.
    let pinned = (139_119, 40);
    assert_eq!(
        holds(&["crashable=committer", "drops=1"]),
        pinned,
        "pinned: a change here is a model change"
    );
}

#[test]
fn a_vote_timeout_during_a_restarts_presumed_abort_aborts_again_after_it() {
    // With `committer_recovery` a restart presumes abort at once; its InitProducerId can
    // reach the coordinator before the writer began, and the vote timeout that fires while
    // it runs waits for it to end and presumes abort again (without that, `txn_completes`
    // and `no_hanging_transaction` fail: the writer's hand-off is lost and nothing ends its
    // transaction).
    let report = run(
        Design::proposed(),
        &["crashable=committer", "drops=1", "committer_recovery=true"],
    );
    assert!(report.exhaustive);
    assert_eq!(report.violated(), Vec::<&str>::new());
    assert_eq!(report.unique_states, 263_745, "pinned");
}
