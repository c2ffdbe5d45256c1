//! The hand-written declarations of which requests each actor may still send before its
//! recipient acts (`sharetxn_properties::reduction_written`) are sound on the whole state
//! graph of ctp/proposed at one record: no actor sends a request on an empty connection
//! before its recipient acts where they say it may not. The same measure finds what a
//! declaration leaves out: with the client's requests left out, or with nothing declared.
//! The same for the declarations of when an actor's due timers may change before it acts,
//! and for those of when its steps commute with the others' (judged against the ceiling
//! where no set unsets a label, as no step of this graph unsets one).
//! Where the declarations do not apply, every actor may send anything.

use crate::common::proposed_ctp;
use sharetxn_model::{Design, Scenario, System};
use sharetxn_properties::reduction_graph::{bit, Graph};
use sharetxn_properties::reduction_sizing::Visible;
use sharetxn_properties::reduction_written::{declared_for, requests_into};

#[test]
fn written_declarations_are_sound() {
    let sys = proposed_ctp(1);
    assert!(declared_for(&sys));
    let graph = Graph::of(&sys);
    let missed = graph.undeclared(|s, a| graph.written(s, a));
    assert_eq!(missed, vec![0; sys.actors.len()]);
}

#[test]
fn a_missing_declaration_is_found() {
    let sys = proposed_ctp(1);
    let graph = Graph::of(&sys);
    let client = usize::from(sys.topology.txn_clients().next().unwrap());
    let without_client = |s: usize, a: usize| graph.written(s, a) & !bit(client, a, false);
    assert!(graph.undeclared(without_client)[client] > 0);
    let missed = graph.undeclared(|_, _| 0);
    let senders = missed.iter().filter(|m| **m > 0).count();
    assert!(senders >= 4, "{missed:?}");
}

#[test]
fn written_timer_declarations_are_sound() {
    let sys = proposed_ctp(1);
    let graph = Graph::of(&sys);
    let missed = graph.undeclared_timers(|s, a| graph.written_timers_move(s, a));
    assert_eq!(missed, vec![0; sys.actors.len()]);
    // Declaring that no timer ever changes misses the ones that do.
    let missed = graph.undeclared_timers(|_, _| false);
    assert!(missed.iter().filter(|m| **m > 0).count() >= 2, "{missed:?}");
}

#[test]
fn written_commutation_is_sound() {
    let sys = proposed_ctp(1);
    let graph = Graph::of(&sys);
    // No step unsets a label here, so that ceiling judges persistence and commutation.
    assert_eq!(graph.unset(), 0);
    let refuted = graph.written_refuted(Visible::Unsets);
    assert_eq!(refuted, vec![0; sys.actors.len()]);
    // Without the commutation declarations, the persistent sets alone take sets whose
    // steps do not commute with a crash of the share coordinator.
    let refuted = graph.refuted(Visible::Unsets, |s, a| graph.written_persistent(s, a));
    assert!(refuted.iter().sum::<usize>() > 0, "{refuted:?}");
}

#[test]
fn elsewhere_every_actor_may_send_anything() {
    let sys = System::new(Design::proposed(), Scenario::by_name("session").unwrap());
    assert!(!declared_for(&sys));
    assert!(!declared_for(&System::new(Design::seed(), Scenario::ctp())));
    let state = sys.init_state();
    for a in 0..sys.actors.len() {
        let every = (0..sys.actors.len())
            .filter(|x| *x != a)
            .fold(0, |b, x| b | bit(x, a, false));
        assert_eq!(requests_into(&sys, &state, a), every);
    }
}
