//! KIP-1289's `proposed` design at the share-partition leader, and the `draft`. Every
//! choice `proposed` makes over `seed` is one knob; each test here reverts one knob alone
//! and asserts the property that then fails. The share-coordinator side's flaws (marker
//! matching, staging without verification) are the seed's here, so the tests use bounds
//! where only the leader side is at stake, and `delivery_limit=2` so that a client that
//! aborts both of its transactions leaves the record archived rather than available (its
//! loop is bounded; see README).

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Report, Status, Strategy};

fn run(design: Design, sets: &[&str]) -> Report {
    let (mut design, mut scenario) = (design, ctp_one_record());
    for s in sets {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    let report = check(&System::new(design, scenario), CheckOptions::default());
    assert!(report.exhaustive);
    report
}

/// `ctp` at one record, the bounds these knob reverts were pinned at (`ctp`'s default has
/// two since issue 18; the claim at two is `proposed_passes_ctp_at_its_default_bounds`).
fn ctp_one_record() -> Scenario {
    Scenario {
        records: 1,
        ..Scenario::ctp()
    }
}

const CALM: &[&str] = &["timeouts=0", "delivery_limit=2", "crashes=0"];

fn with(extra: &[&'static str]) -> Vec<&'static str> {
    CALM.iter().chain(extra).copied().collect()
}

/// Safety and liveness properties that are judged, and which of them failed.
fn failed(report: &Report) -> Vec<&str> {
    report.violated()
}

#[test]
fn proposed_holds_every_property_and_is_pinned() {
    let report = run(Design::proposed(), CALM);
    assert_eq!(failed(&report), Vec::<&str>::new());
    assert_eq!(
        report.unique_states, 4_353,
        "pinned: a change here is a model change"
    );
    for twin in [
        "share_ack_committed",
        "commit_reached",
        "abort_reached",
        "limit_archived",
    ] {
        assert_eq!(report.status(twin), Some(Status::Witnessed), "{twin}");
    }
}

#[test]
fn staging_at_the_share_coordinator_processes_a_record_twice() {
    let report = run(Design::proposed(), &with(&["stage_at_leader=false"]));
    assert_eq!(
        report.status("no_duplicate_processing"),
        Some(Status::Violated)
    );
}

#[test]
fn a_leader_never_told_keeps_the_record_tx_pending() {
    let report = run(Design::proposed(), &with(&["leader_resolution=none"]));
    assert_eq!(report.status("cache_agrees"), Some(Status::Violated));
    assert_eq!(
        report.status("no_duplicate_processing"),
        Some(Status::Holds)
    );
}

#[test]
fn refresh_infers_an_abort_and_processes_a_record_twice() {
    let report = run(Design::proposed(), &with(&["leader_resolution=refresh"]));
    assert_eq!(
        report.status("no_duplicate_processing"),
        Some(Status::Violated)
    );
}

#[test]
fn a_new_leader_that_forgets_pending_acks_redelivers() {
    let report = run(
        Design::proposed(),
        &with(&[
            "rebuild_pending=false",
            "crashes=1",
            "crashable=share-partition",
        ]),
    );
    assert_eq!(
        report.status("no_duplicate_processing"),
        Some(Status::Violated)
    );
    let proposed = run(
        Design::proposed(),
        &with(&["crashes=1", "crashable=share-partition"]),
    );
    // What still fails there is the share coordinator's: a staging that arrives after the
    // abort marker is kept pending for ever (`cache_agrees` at quiescence).
    assert_eq!(
        proposed.status("no_duplicate_processing"),
        Some(Status::Holds)
    );
}

/// Member-only validation: P0 crashes with its first delivery's answer in flight; its new
/// incarnation (same member id, share session epoch 0 again) takes that stale answer for
/// its own poll, while the leader has redelivered the record to it (delivery 2). The
/// staging made for delivery 1 passes the member check and lands on delivery 2.
#[test]
fn a_member_check_stages_an_ack_made_for_an_earlier_delivery() {
    let sets = with(&["crashes=1", "crashable=producer"]);
    let mut member = sets.clone();
    member.push("stage_owner_check=member-epoch");
    let report = run(Design::proposed(), &member);
    assert_eq!(report.status("ack_owner"), Some(Status::Violated));
    let proposed = run(Design::proposed(), &sets);
    assert_eq!(proposed.status("ack_owner"), Some(Status::Holds));
}

/// The leader side alone removes the seed's two findings at ctp's own bounds, although
/// the share coordinator still matches markers by producer id (`txn_atomicity`) and stages
/// without verification (an orphaned TX_PENDING, `cache_agrees` at quiescence).
#[test]
fn the_leader_side_removes_the_seeds_lock_expiry_findings() {
    let report = run(Design::proposed(), &[]);
    assert_eq!(
        report.status("no_duplicate_processing"),
        Some(Status::Holds)
    );
    let cache = report.property("cache_agrees").unwrap();
    assert!(
        !cache
            .message
            .as_deref()
            .unwrap_or("")
            .contains("went from terminal"),
        "{:?}",
        cache.message
    );
}

/// The draft's earlier `refresh()` (`leader_resolution=refresh`) infers an abort from a
/// commit not yet applied (docs/kafka-cases.md S10).
#[test]
fn draft_refresh_infers_an_abort_from_a_commit_not_yet_applied() {
    let report = run(Design::draft(), &with(&["leader_resolution=refresh"]));
    assert_eq!(
        report.status("no_duplicate_processing"),
        Some(Status::Violated)
    );
    assert_eq!(report.status("legal_transitions"), Some(Status::Holds));
}

/// The draft's guarded refresh (its public revision, the `draft` design) infers nothing
/// from a commit not yet applied: at the same bounds no record is processed twice.
#[test]
fn draft_guarded_refresh_does_not_infer_an_abort() {
    let report = run(Design::draft(), CALM);
    assert_eq!(
        report.status("no_duplicate_processing"),
        Some(Status::Holds)
    );
    assert_eq!(report.status("legal_transitions"), Some(Status::Holds));
}

/// The claim of the design at `scenario`'s own default bounds: exhaustive, every property
/// holds, every applicable twin witnessed, and the pinned count.
fn passes_at_default_bounds(scenario: Scenario, states: u64) {
    let name = scenario.name.clone();
    let report = check(
        &System::new(Design::proposed(), scenario),
        CheckOptions::default(),
    );
    assert!(report.exhaustive, "{name}");
    assert!(report.passed(), "{name}: {:?}", report.violated());
    assert_eq!(report.unique_states, states, "{name}");
}

/// `ctp` at its default bounds (two records): seconds.
#[test]
fn proposed_passes_ctp_at_its_default_bounds() {
    passes_at_default_bounds(Scenario::ctp(), 945_516);
}

/// `ctp-race` at its default bounds (two clients, two records, one stall): 97 s and 2.0 GiB
/// in a release build with two threads (`bfs-then-dfs`); run with
/// `cargo test --release -p sharetxn-properties --test suite proposed:: -- --ignored`.
#[test]
#[ignore]
fn proposed_passes_ctp_race_at_its_default_bounds() {
    passes_at_default_bounds(Scenario::ctp_race(), 19_775_485);
}

/// One notch beyond `ctp`'s default bounds: two records and a lost message (docs/findings.md,
/// "Bounded marker resends"). Every property holds; `limit_archived` and `late_ack_rejected`
/// cannot be reached at these bounds (no record is delivered five times, no ack is late
/// without a stall, a duplicate or an early timeout). Minutes in a release build.
#[test]
#[ignore]
fn proposed_holds_on_ctp_with_two_records_and_a_loss() {
    let options = CheckOptions {
        max_states: 100_000_000,
        ..CheckOptions::default()
    };
    let sets = ["records=2", "drops=1"];
    let report = holds_beyond(Scenario::ctp(), &sets, options);
    assert_eq!(report.unique_states, 21_171_506, "pinned");
    for twin in ["limit_archived", "late_ack_rejected"] {
        assert_eq!(report.status(twin), Some(Status::Unreached), "{twin}");
    }
}

/// `proposed` on `scenario` with `sets`, checked with `options`: exhaustive, nothing
/// violated.
fn holds_beyond(mut scenario: Scenario, sets: &[&str], options: CheckOptions) -> Report {
    let mut design = Design::proposed();
    for s in sets {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    let report = check(&System::new(design, scenario), options);
    assert!(report.exhaustive);
    assert_eq!(failed(&report), Vec::<&str>::new());
    report
}

/// `ctp-race` at two records and a loss (two clients, one stall, one lost message):
/// exhaustive by depth-first search, whose visited set holds fingerprints only; breadth-first
/// search does not fit this machine (docs/findings.md, "Bounded marker resends"). Every
/// property holds; `limit_archived` cannot be reached at these bounds. The count was measured
/// with the earlier senders (`strict_wire_format=false`, the fields it trims are read by no
/// handler), so the test sets them to compare like with like. About an hour in a release
/// build and 10 GB.
#[test]
#[ignore]
fn proposed_holds_on_ctp_race_with_two_records_and_a_loss() {
    let options = CheckOptions {
        strategy: Strategy::Dfs,
        max_states: 4_000_000_000,
        ..CheckOptions::default()
    };
    let sets = ["records=2", "drops=1", "strict_wire_format=false"];
    let report = holds_beyond(Scenario::ctp_race(), &sets, options);
    assert_eq!(report.unique_states, 626_419_441, "pinned");
    assert_eq!(report.status("limit_archived"), Some(Status::Unreached));
}

/// Two transactions of one producer and one lost message: enough for the share
/// coordinator's TxnShareAcksResolved of the first transaction to be lost while the second
/// transaction resolves (found by the simulator on `ctp`, seed 440 with up to 8 records).
const TWO_OUTCOMES: &[&str] = &[
    "records=2",
    "txns=2",
    "inputs=1",
    "partitions=0",
    "drops=1",
    "crashes=0",
    "timeouts=0",
    "request_retries=0",
    "marker_retries=1",
];

#[test]
fn each_transactions_outcome_reaches_the_leader_after_a_loss() {
    let report = run(Design::proposed(), TWO_OUTCOMES);
    assert_eq!(failed(&report), Vec::<&str>::new());
    assert_eq!(
        report.status("share_ack_committed"),
        Some(Status::Witnessed)
    );
    assert_eq!(
        report.status("redelivered_after_abort"),
        Some(Status::Witnessed)
    );
}

#[test]
fn one_outcome_per_producer_loses_the_first_transactions_outcome() {
    let sets: Vec<&str> = TWO_OUTCOMES
        .iter()
        .copied()
        .chain(["outcome_per_transaction=false"])
        .collect();
    let report = run(Design::proposed(), &sets);
    assert_eq!(failed(&report), vec!["at_least_once", "cache_agrees"]);
    assert_eq!(
        report.unique_states, 57_332,
        "pinned: the counterexample's space before the fix"
    );
}
