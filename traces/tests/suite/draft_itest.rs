//! The schedule of the public KIP-1289 draft's `ShareGroupTransactionIntegrationTest` on
//! scenario `draft-itest`: each of its three tests is a trace in `traces/schedules/` for
//! designs `draft` and `proposed`, made by the policy below and replayed here on the
//! current model, and the last state is judged by the test's assertions (six
//! transactions committed, the aborted input delivered again, no committed input
//! delivered again, a `read_committed` reader of the sink sees exactly the six) and by
//! the properties. On `draft` (the draft's guarded refresh, its marker matching and its
//! TX_PENDING persisted state) and on `proposed` the schedule meets every assertion of the
//! test with no property violated (docs/findings.md, "The draft's integration test").
//!
//! The test's loop, one record at a time (`max.poll.records=1`, explicit acknowledgement):
//! poll, `beginTransaction`, send to the sink partition of the record's index, acknowledge
//! ACCEPT, `sendShareAcknowledgementsToTransaction`, optionally shut down the record's
//! source leader, abort the first transaction and commit every later one. The shutdown is
//! the model's share-partition leader crash and restart (a failover that reloads the
//! share coordinator's state with a bumped leader epoch), taken just before the decision.
//!
//! `SHARETXN_BLESS=1` writes the schedules again (they must then be reviewed).

use sharetxn_model::partition::partition_log::{Payload, RecordStatus};
use sharetxn_model::protocol::msg::{ClientChoice, Timer};
use sharetxn_model::protocol::width::Offset;
use sharetxn_model::{Action, Design, Scenario, System, SystemState};
use sharetxn_traces::{load, record, replay, Origin, Outcome, Verdict};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Which of the draft's three tests.
#[derive(Clone, Copy, Debug)]
enum Variant {
    /// `testCommitAndAbortAcrossThreeSourceLeaders`: no shutdown.
    NoShutdown,
    /// `testAbortAfterSourceLeaderShutdown`: the first record's leader is shut down
    /// before the abort.
    ShutdownBeforeAbort,
    /// `testCommitAfterSourceLeaderShutdown`: after the abort, the leader of the record
    /// of the first commit is shut down before that commit.
    ShutdownBeforeFirstCommit,
}

impl Variant {
    fn file(self) -> &'static str {
        match self {
            Variant::NoShutdown => "draft-itest-commit-and-abort.json",
            Variant::ShutdownBeforeAbort => "draft-itest-abort-after-leader-shutdown.json",
            Variant::ShutdownBeforeFirstCommit => "draft-itest-commit-after-leader-shutdown.json",
        }
    }

    fn scenario(self) -> Scenario {
        let mut scenario = Scenario::draft_itest();
        if !matches!(self, Variant::NoShutdown) {
            // The `--set` the docs give for the shutdown variants.
            scenario.budget.crashes = 1;
        }
        scenario
    }

    /// Whether the leader is shut down before the decision of transaction `decided`
    /// (0 for the first).
    fn shuts_down_before(self, decided: usize) -> bool {
        match self {
            Variant::NoShutdown => false,
            Variant::ShutdownBeforeAbort => decided == 0,
            Variant::ShutdownBeforeFirstCommit => decided == 1,
        }
    }
}

fn system(variant: Variant, design: &Design) -> System {
    System::new(design.clone(), variant.scenario())
}

/// The share partition whose record `P0` holds now, from its state.
fn held_partition(sys: &System, state: &SystemState) -> u8 {
    let p0 = sys.topology.producers[0];
    state
        .node(p0)
        .producer()
        .and_then(|p| p.role.share())
        .and_then(|sh| sh.fetched)
        .map(|r| sys.scenario.share_partition_of(r.offset))
        .expect("P0 holds a record when it decides")
}

/// Whether `a` fires a share-partition leader's refresh.
fn refresh(a: &Action) -> bool {
    matches!(
        a,
        Action::Fire {
            timer: Timer::TxnRefresh,
            ..
        }
    )
}

/// Whether the client can decide its transaction (commit or abort) now.
fn decision_enabled(enabled: &[Action]) -> bool {
    enabled.iter().any(|a| {
        matches!(
            a,
            Action::Choose {
                choice: ClientChoice::Commit | ClientChoice::Abort,
                ..
            }
        )
    })
}

/// The test's schedule: every message delivered in the order the network offers it,
/// every due timer fired, and only then the application's decision (abort the first
/// transaction, commit the others), with the shutdown of the record's leader first when
/// the variant asks. The share-partition leader's refresh (`leader_resolution=refresh-guarded`)
/// fires only when nothing else, the decision included, can: the test calls
/// `commitTransaction` right after `sendShareAcknowledgementsToTransaction`, and the
/// draft's caller of `refresh()` is not in its tests, so a refresh re-read while the
/// transaction is still open would only delay the decision (and, taken first for ever,
/// never let it come).
fn schedule(variant: Variant, design: &Design) -> Vec<Action> {
    let sys = system(variant, design);
    let mut state = sys.init_state();
    let mut actions = Vec::new();
    let mut decided = 0;
    let mut shut_down = false;
    for _ in 0..2_000 {
        let mut enabled = Vec::new();
        sys.enabled_progress(&state, &mut enabled);
        let pick = |f: fn(&Action) -> bool| enabled.iter().find(|a| f(a)).cloned();
        let next = pick(|a| matches!(a, Action::Deliver(_)))
            .or_else(|| pick(|a| matches!(a, Action::Restart(_))))
            .or_else(|| pick(|a| matches!(a, Action::Fire { .. }) && !refresh(a)));
        let next = match next {
            Some(a) => a,
            None if !decision_enabled(&enabled) => match pick(refresh) {
                Some(a) => a,
                None => break,
            },
            None => {
                let Some(Action::Choose { actor, .. }) = pick(|a| {
                    matches!(
                        a,
                        Action::Choose {
                            choice: ClientChoice::Commit | ClientChoice::Abort,
                            ..
                        }
                    )
                }) else {
                    break;
                };
                if variant.shuts_down_before(decided) && !shut_down {
                    shut_down = true;
                    let k = held_partition(&sys, &state);
                    let leader = sys.topology.share_partition_leader(k).expect("a leader");
                    Action::Crash(leader)
                } else {
                    let choice = if decided == 0 {
                        ClientChoice::Abort
                    } else {
                        ClientChoice::Commit
                    };
                    decided += 1;
                    Action::Choose { actor, choice }
                }
            }
        };
        assert!(sys.is_enabled(&state, &next), "{}", sys.describe(&next));
        state = sys.step(&state, &next);
        actions.push(next);
    }
    assert!(sys.is_quiescent(&state), "the schedule ends at rest");
    actions
}

/// The committed outputs on the sink partitions: what `readCommitted(sink)` returns, as
/// the inputs they were derived from.
fn read_committed(sys: &System, state: &SystemState) -> Vec<Offset> {
    let mut visible = Vec::new();
    for leader in &sys.topology.partitions {
        if let Some(d) = state.node(*leader).data_partition() {
            for (_, _, payload, status) in d.log.data() {
                if let (Payload::Output(r), RecordStatus::Committed) = (payload, status) {
                    visible.push(r.input);
                }
            }
        }
    }
    visible
}

/// The draft test's assertions on the run's last state, the first that fails as the
/// test's message; `aborted` is the input of the first (aborted) transaction.
fn the_tests_assertions(sys: &System, state: &SystemState, aborted: Offset) -> Result<(), String> {
    let visible = read_committed(sys, state);
    let committed: BTreeSet<Offset> = visible.iter().copied().collect();
    let deliveries = &state.ghost.share.deliveries;
    // `assertTrue(committed.add(identity), "Committed input was redelivered: ...")`: a
    // second committed transaction for one input, or a delivery after its commit.
    if committed.len() != visible.len() {
        return Err(format!(
            "Committed input was redelivered (committed outputs {visible:?})"
        ));
    }
    if deliveries.get(&aborted) != Some(&2) {
        return Err(format!(
            "Aborted input must become available again ({deliveries:?})"
        ));
    }
    if let Some(o) = (0..6).find(|o| *o != aborted && deliveries.get(o) != Some(&1)) {
        return Err(format!(
            "Committed input was redelivered: offset {o} ({deliveries:?})"
        ));
    }
    // `assertEquals(6, visible.size())` and `assertEquals(committed, visible)`.
    if visible.len() != 6 || committed != (0..6).collect() {
        return Err(format!(
            "expected the 6 inputs committed, read_committed shows {visible:?}"
        ));
    }
    Ok(())
}

/// The input of the first transaction `P0` began: the first record it acquired.
fn first_input(sys: &System, actions: &[Action]) -> Offset {
    let states = sharetxn_traces::walk::states(sys, actions).expect("the schedule runs");
    states
        .iter()
        .find_map(|s| s.ghost.share.deliveries.keys().next().copied())
        .expect("a record was delivered")
}

fn check(variant: Variant, design: &Design) -> Outcomes {
    let sys = system(variant, design);
    let actions = schedule(variant, design);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("schedules")
        .join(format!("{}-{}", design.name, variant.file()));
    if std::env::var_os("SHARETXN_BLESS").is_some() || !path.exists() {
        let trace = record(
            &sys,
            Origin::Check {
                strategy: "schedule".into(),
                max_depth: None,
            },
            Outcome::Witness {
                property: "redelivered_after_abort".into(),
            },
            &actions,
            &[],
        )
        .expect("the schedule records");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, trace.to_json().unwrap() + "\n").unwrap();
    }
    let trace = load(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        trace.actions(),
        actions,
        "the checked-in trace is the test's schedule"
    );
    let run = replay(&trace).expect("the trace replays");
    assert!(
        matches!(run.verdict, Verdict::Reproduced { .. }),
        "{:?}",
        run.verdict
    );
    assert!(run.divergence.is_none(), "{:?}", run.divergence);
    let states = sharetxn_traces::walk::states(&sys, &actions).expect("the schedule runs");
    let last = states.last().expect("a state");
    let verdict = the_tests_assertions(&sys, last, first_input(&sys, &actions));
    // What the properties see on the same run, which the test's assertions do not.
    let violated: Vec<(usize, &str)> = run
        .steps
        .iter()
        .flat_map(|s| s.new_violations.iter().map(|(p, _)| (s.step, p.as_str())))
        .collect();
    (
        actions.len(),
        verdict,
        violated.iter().map(|(s, p)| (*s, p.to_string())).collect(),
    )
}

/// The schedule's length, the test's verdict and each property violated with its first
/// step, for `variant` on `design`.
type Outcomes = (usize, Result<(), String>, Vec<(usize, String)>);

fn violations(list: &[(usize, &str)]) -> Vec<(usize, String)> {
    list.iter().map(|(s, p)| (*s, p.to_string())).collect()
}

/// The test's schedule meets every assertion of the test on `design`; the properties
/// violated on the way (with their first step) are `expected`.
fn meets_the_test(design: Design, variant: Variant, steps: usize, expected: &[(usize, &str)]) {
    let (len, verdict, violated) = check(variant, &design);
    assert_eq!(len, steps, "{}", design.name);
    assert_eq!(verdict, Ok(()), "{}", design.name);
    assert_eq!(violated, violations(expected), "{}", design.name);
}

#[test]
fn commit_and_abort_across_three_source_leaders() {
    meets_the_test(Design::draft(), Variant::NoShutdown, 173, &[]);
    meets_the_test(Design::proposed(), Variant::NoShutdown, 175, &[]);
}

#[test]
fn abort_after_source_leader_shutdown() {
    meets_the_test(Design::draft(), Variant::ShutdownBeforeAbort, 179, &[]);
    meets_the_test(Design::proposed(), Variant::ShutdownBeforeAbort, 181, &[]);
}

#[test]
fn commit_after_source_leader_shutdown() {
    meets_the_test(
        Design::draft(),
        Variant::ShutdownBeforeFirstCommit,
        174,
        &[],
    );
    meets_the_test(
        Design::proposed(),
        Variant::ShutdownBeforeFirstCommit,
        181,
        &[],
    );
}
