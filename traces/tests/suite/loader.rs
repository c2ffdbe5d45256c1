//! Bad trace files: every problem is one line that says what is wrong, and nothing the
//! loader is given makes it (or a replay or rendering of what it accepts) panic.

use proptest::prelude::*;
use serde_json::Value;
use sharetxn_traces::render::{mermaid, text};
use sharetxn_traces::{load, parse, replay, shrink};
use std::path::PathBuf;

fn corpus_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("counterexamples/txn_atomicity--consumer-offsets-no-flush-before-end-txn.json")
}

fn valid_text() -> String {
    std::fs::read_to_string(corpus_file()).unwrap()
}

fn valid_value() -> Value {
    serde_json::from_str(&valid_text()).unwrap()
}

/// The problem `parse` reports for `text`, which must be one line.
fn problem(text: &str) -> String {
    let e = parse(text).expect_err("the trace must be refused");
    assert!(!e.contains('\n'), "{e}");
    e
}

fn edited(edit: impl FnOnce(&mut Value)) -> String {
    let mut v = valid_value();
    edit(&mut v);
    serde_json::to_string_pretty(&v).unwrap()
}

#[test]
fn each_kind_of_bad_trace_is_named() {
    let text = valid_text();
    let cases: Vec<(String, &str)> = vec![
        ("this is not json".into(), "not JSON"),
        (text[..text.len() / 2].to_string(), "not JSON"),
        ("[1, 2]".into(), "not a sharetxn trace"),
        (
            edited(|v| v["format"] = "other".into()),
            "not a sharetxn trace",
        ),
        (
            edited(|v| v["version"] = 0.into()),
            "trace format version 0; this sharetxn reads version 1",
        ),
        (
            edited(|v| v["version"] = 7.into()),
            "trace format version 7",
        ),
        (
            edited(|v| v["design"]["name"] = "nope".into()),
            "unknown design 'nope'",
        ),
        (
            edited(|v| v["scenario"]["name"] = "nope".into()),
            "unknown scenario 'nope'",
        ),
        (edited(|v| v["design"]["tv"] = 9.into()), "tv=9"),
        (
            edited(|v| v["scenario"]["partitions"] = 4.into()),
            "partitions=4",
        ),
        (
            edited(|v| v["design"]["verification"] = "yes".into()),
            "bad trace: invalid type",
        ),
        (
            edited(|v| v["steps"][0]["action"]["Deliver"]["src"] = 9.into()),
            "unknown actor id 9",
        ),
        (
            edited(|v| {
                let msg = &mut v["steps"][0]["action"]["Deliver"]["msg"];
                let body = msg["InitProducerId"].take();
                *msg = serde_json::json!({ "NoSuchRpc": body });
            }),
            "unknown variant `NoSuchRpc`",
        ),
        (edited(|v| v["steps"][1]["step"] = 5.into()), "numbered 5"),
        (
            edited(|v| v["steps"][0]["digest"] = "xyz".into()),
            "bad digest",
        ),
        (
            edited(|v| v["outcome"]["violation"]["property"] = "nope".into()),
            "unknown property 'nope'",
        ),
        (
            edited(|v| v["outcome"]["violation"]["kind"] = "eventually".into()),
            "is always, not eventually",
        ),
        (
            edited(|v| v["surprise"] = 1.into()),
            "unknown field `surprise`",
        ),
        (
            edited(|v| v["origin"] = serde_json::json!({"kind": "guess"})),
            "unknown variant `guess`",
        ),
    ];
    for (text, expected) in cases {
        let e = problem(&text);
        assert!(e.contains(expected), "expected '{expected}' in: {e}");
    }
}

#[test]
fn file_errors_name_the_file() {
    let missing = PathBuf::from("no/such/trace.json");
    let e = load(&missing).unwrap_err();
    assert_eq!(e.file, "no/such/trace.json");
    assert!(
        e.to_string().starts_with("no/such/trace.json: cannot read"),
        "{e}"
    );
    assert!(load(&corpus_file()).is_ok());
}

#[test]
fn an_action_the_model_cannot_take_is_reported_not_run() {
    // Swap two steps: the response now comes before its request.
    let text = edited(|v| {
        let steps = v["steps"].as_array_mut().unwrap();
        let (a, b) = (steps[0]["action"].take(), steps[1]["action"].take());
        steps[0]["action"] = b;
        steps[1]["action"] = a;
    });
    let trace = parse(&text).unwrap();
    let result = replay(&trace).unwrap();
    match result.verdict {
        sharetxn_traces::Verdict::Blocked { step, problem } => {
            assert_eq!(step, 1);
            assert!(problem.contains("not enabled"), "{problem}");
        }
        other => panic!("{other:?}"),
    }
    assert!(text::render(&trace).unwrap_err().contains("step 1"));
    assert!(shrink(&trace).is_err());
}

#[test]
fn a_changed_state_is_reported_where_it_first_differs() {
    // A recorded digest that the model does not produce: the replay names the step and
    // the part, and still runs to the verdict.
    let text = edited(|v| {
        v["steps"][4]["digest"] = "0000000000000000".into();
        v["steps"][4]["parts"]["GC"] = "0000000000000000".into();
    });
    let trace = parse(&text).unwrap();
    let result = replay(&trace).unwrap();
    let d = result.divergence.expect("a divergence");
    assert_eq!((d.step, d.parts.clone()), (5, vec!["GC".to_string()]));
    assert!(
        d.detail.contains("GC: the step now changes"),
        "{}",
        d.detail
    );
    assert!(!result.steps[4].matches);
    assert!(matches!(
        result.verdict,
        sharetxn_traces::Verdict::Reproduced { .. }
    ));
}

/// Anything the loader accepts can be replayed and rendered without a panic.
fn exercise(text: &str) {
    if let Ok(trace) = parse(text) {
        let _ = replay(&trace);
        let _ = sharetxn_traces::render::text::render(&trace);
        let _ = mermaid::render(&trace);
    }
}

/// How many leaves (scalars) a JSON value has.
fn count_leaves(v: &Value) -> usize {
    match v {
        Value::Object(m) => m.values().map(count_leaves).sum(),
        Value::Array(a) => a.iter().map(count_leaves).sum(),
        _ => 1,
    }
}

/// Replaces leaf number `want` (in document order) with `with`.
fn replace_leaf(v: &mut Value, want: usize, seen: &mut usize, with: &Value) {
    match v {
        Value::Object(m) => m
            .values_mut()
            .for_each(|x| replace_leaf(x, want, seen, with)),
        Value::Array(a) => a.iter_mut().for_each(|x| replace_leaf(x, want, seen, with)),
        leaf => {
            if *seen == want {
                *leaf = with.clone();
            }
            *seen += 1;
        }
    }
}

/// A JSON value with one leaf, chosen by `pick`, replaced.
fn mutate(value: &mut Value, pick: usize, replacement: &Value) {
    let n = count_leaves(value);
    replace_leaf(value, pick % n.max(1), &mut 0, replacement);
}

fn replacement() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (0u64..8).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[A-Za-z_]{0,12}".prop_map(Value::from),
        Just(serde_json::json!({})),
        Just(serde_json::json!([])),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let text = String::from_utf8_lossy(&bytes);
        prop_assert!(parse(&text).is_err());
    }

    #[test]
    fn byte_mutations_never_panic(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 1..6)
    ) {
        let mut bytes = valid_text().into_bytes();
        for (at, byte, how) in edits {
            let at = at % (bytes.len() + 1);
            match how {
                0 if at < bytes.len() => bytes[at] = byte,
                1 if at < bytes.len() => { bytes.remove(at); }
                _ => bytes.insert(at, byte),
            }
        }
        exercise(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn leaf_mutations_never_panic(pick in any::<usize>(), with in replacement()) {
        let mut v = valid_value();
        mutate(&mut v, pick, &with);
        exercise(&serde_json::to_string_pretty(&v).unwrap());
    }
}
