//! The share coordinator's cases of docs/kafka-cases.md that need Kafka's routing and log
//! lifecycle: a marker for `__share_group_state` routed as `KafkaApis` routes it today
//! (S9, `sc_live_markers=false`), and a snapshot that prunes a pending staging (S11,
//! scenario field `sc_prunes`, fixed in `proposed` by `sc_prune_lso`). Each pins the
//! verdict, the shortest counterexample's length and the count of `proposed` on `ctp`.

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Report, Status};

fn run(design: Design, sets: &[&str]) -> Report {
    // One record: the bounds these cases were pinned at (`ctp`'s default has two).
    let ctp_one_record = Scenario {
        records: 1,
        ..Scenario::ctp()
    };
    let (mut design, mut scenario) = (design, ctp_one_record);
    for s in sets {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    let report = check(&System::new(design, scenario), CheckOptions::default());
    assert!(report.exhaustive);
    report
}

/// The length of `property`'s shortest counterexample.
fn steps(report: &Report, property: &str) -> usize {
    assert_eq!(
        report.status(property),
        Some(Status::Violated),
        "{property}"
    );
    report.property(property).expect("judged").actions.len()
}

/// S9: under Kafka's routing the live share coordinator never resolves a staged
/// acknowledgement, so `proposed`'s leader waits for an outcome that only a coordinator
/// restart would send: the COMMIT marker leaves the acks pending (`marker_match`, 21
/// steps), and at rest they are still pending (`no_orphan_acks`), the leader holds the
/// record TX_PENDING where the coordinator has it AVAILABLE (`cache_agrees`), the record is
/// never acknowledged (`at_least_once`) and the client waits for good (`txn_completes`).
#[test]
fn kafkas_marker_routing_leaves_proposeds_acks_pending() {
    let report = run(Design::proposed(), &["sc_live_markers=false"]);
    assert_eq!(
        report.violated(),
        [
            "txn_completes",
            "at_least_once",
            "cache_agrees",
            "marker_match",
            "no_orphan_acks"
        ]
    );
    assert_eq!(steps(&report, "marker_match"), 21);
    assert_eq!(steps(&report, "no_orphan_acks"), 26);
    assert_eq!(
        report.unique_states, 5_583,
        "pinned: a change here is a model change"
    );
}

/// S11 with one transaction: a prune after the staging and a coordinator restart before
/// the COMMIT marker lose the acknowledgement of a committed transaction
/// (`txn_atomicity`); `proposed`'s `sc_prune_lso` keeps the staging and every property
/// holds.
#[test]
fn a_prune_past_a_pending_staging_loses_a_committed_ack_unless_it_stops_there() {
    let sets = ["txns=1", "sc_prunes=1"];
    let report = run(
        Design::proposed(),
        &[&sets[..], &["sc_prune_lso=false"]].concat(),
    );
    assert_eq!(steps(&report, "txn_atomicity"), 24);
    assert_eq!(report.status("cache_agrees"), Some(Status::Violated));
    let report = run(Design::proposed(), &sets);
    assert_eq!(report.violated(), Vec::<&str>::new());
}
