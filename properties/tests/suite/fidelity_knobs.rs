//! What the fidelity knobs of `docs/fidelity.md` change: the same share-basic space with
//! the model's rule and with Kafka's. Ignored (a measurement, not a pin): run with
//! `cargo test -p sharetxn-properties --test suite fidelity_knobs:: -- --ignored --nocapture`.

use sharetxn_model::{world::settings, Design, Scenario, System};
use sharetxn_properties::{check, CheckOptions, Status};

fn run(sets: &[&str]) {
    let mut design = Design::consumer_offsets();
    let mut scenario = Scenario::share_basic();
    for s in sets {
        settings::apply(&mut design, &mut scenario, s).unwrap();
    }
    let report = check(
        &System::new(design, scenario),
        CheckOptions {
            max_states: 400_000,
            threads: 1,
            ..Default::default()
        },
    );
    let violated: Vec<&str> = report
        .properties
        .iter()
        .filter(|p| p.status == Status::Violated)
        .map(|p| p.name.as_str())
        .collect();
    println!(
        "{}: unique_states={} exhaustive={} violated={violated:?}",
        sets.join(" "),
        report.unique_states,
        report.exhaustive
    );
}

#[test]
#[ignore]
fn start_offset_from_write() {
    for sets in [
        &["duplicates=1", "drops=0", "stalls=0"][..],
        &[
            "duplicates=1",
            "drops=0",
            "stalls=0",
            "sc_start_offset_from_write=true",
        ][..],
        &["duplicates=0", "drops=1", "stalls=0", "timeouts=1"][..],
        &[
            "duplicates=0",
            "drops=1",
            "stalls=0",
            "timeouts=1",
            "sc_start_offset_from_write=true",
        ][..],
    ] {
        run(sets);
    }
}
