//! A scenario `expect` against a verdict, and the `expect` that pins one.

use super::*;

#[test]
fn expectations_report_each_mismatch() {
    let v = verdict(&[(0, 0), (1, 1)], 100);
    let expect = Expect {
        guarantee: Some(Guarantee::ExactlyOnce),
        lost: Some(0),
        duplicated: Some(0),
        rejected: None,
        payload_alerts: None,
        pending: None,
        all_acked: Some(true),
        conserved: Some(true),
        explore: Vec::new(),
        interleavings: None,
        boundaries: Default::default(),
        smallest_safe_ttl: None,
    };
    assert_eq!(
        failed_expectations(&expect, &v),
        [
            guarantee(Guarantee::ExactlyOnce, Guarantee::AtMostOnce),
            count(Counted::Lost, 0, 1),
        ]
    );
    assert!(failed_expectations(&Expect::default(), &v).is_empty());
}

#[test]
fn each_failed_expectation_is_one_line_and_a_held_one_none() {
    let v = verdict(&[(1, 1), (0, 0), (2, 2)], 100);
    assert!(failed_expectations(&Expect::default(), &v).is_empty());
    let held = Expect {
        guarantee: Some(Guarantee::None),
        lost: Some(1),
        duplicated: Some(1),
        rejected: Some(0),
        pending: Some(0),
        payload_alerts: Some(0),
        all_acked: Some(true),
        conserved: Some(true),
        ..Expect::default()
    };
    assert_eq!(failed_expectations(&held, &v), []);
    let wrong = Expect {
        guarantee: Some(Guarantee::ExactlyOnce),
        lost: Some(0),
        duplicated: Some(2),
        rejected: Some(1),
        pending: Some(3),
        payload_alerts: Some(1),
        all_acked: Some(false),
        conserved: Some(false),
        ..Expect::default()
    };
    assert_eq!(
        failed_expectations(&wrong, &v),
        [
            guarantee(Guarantee::ExactlyOnce, Guarantee::None),
            count(Counted::Lost, 0, 1),
            count(Counted::Duplicated, 2, 1),
            count(Counted::Rejected, 1, 0),
            count(Counted::Pending, 3, 0),
            count(Counted::PayloadAlerts, 1, 0),
            field("all_acked", false, true),
            field("conserved", false, true),
        ]
    );
}

#[test]
fn boundary_expectations_name_the_boundary_and_a_missing_one_lists_those_there_are() {
    let v = verdict(&[(1, 1), (0, 0)], 100);
    let mut boundaries = std::collections::BTreeMap::new();
    boundaries.insert(
        Scope::LedgerPerEvent,
        crate::scenario::ScopeExpect {
            guarantee: Some(Guarantee::AtMostOnce),
            lost: Some(1),
            duplicated: Some(0),
            ghost: Some(0),
        },
    );
    let held = Expect {
        boundaries: boundaries.clone(),
        ..Expect::default()
    };
    assert_eq!(failed_expectations(&held, &v), []);
    boundaries.insert(
        Scope::LedgerPerEvent,
        crate::scenario::ScopeExpect {
            guarantee: Some(Guarantee::ExactlyOnce),
            lost: Some(0),
            duplicated: Some(1),
            ghost: Some(2),
        },
    );
    boundaries.insert(Scope::Email, crate::scenario::ScopeExpect::default());
    let wrong = Expect {
        boundaries,
        ..Expect::default()
    };
    let observed = v.boundaries[0];
    assert_eq!(
        (
            observed.boundary,
            observed.guarantee,
            observed.once,
            observed.lost
        ),
        (Scope::LedgerPerEvent, Guarantee::AtMostOnce, 1, 1)
    );
    assert_eq!(
        failed_expectations(&wrong, &v),
        [
            ExpectationFailure::BoundaryGuarantee {
                want: Guarantee::ExactlyOnce,
                observed,
            },
            field("ledger_per_event.lost", 0u64, 1u64),
            field("ledger_per_event.duplicated", 1u64, 0u64),
            field("ledger_per_event.ghost", 2u64, 0u64),
            ExpectationFailure::MissingBoundary {
                scope: Scope::Email,
                present: Some(vec![Scope::LedgerPerEvent]),
            },
        ]
    );
}

#[test]
fn push_mismatch_names_only_the_stated_expectations_that_differ() {
    let mut failed = Vec::new();
    push_mismatch(&mut failed, "a", Some(1u64), 1);
    push_mismatch(&mut failed, "b", Some(2u64), 3);
    push_mismatch(&mut failed, "c", None, 4u64);
    push_mismatch(&mut failed, "d", Some(true), false);
    assert_eq!(failed, [field("b", 2u64, 3u64), field("d", true, false)]);
}

#[test]
fn a_pinned_expect_states_every_count_of_the_verdict_and_holds_only_against_it() {
    // Event 0 once, event 1 lost, event 2 duplicated, event 3 unacked; an output topic.
    let in_flight = MessageState::InFlight {
        consumer: 0,
        attempt: 1,
    };
    let acked = MessageState::Acked { at: 1 };
    let events: Vec<Event> = (0..4).map(event).collect();
    let mut committed = CommittedState::default();
    for (i, n) in [(0, 1), (2, 2), (3, 1)] {
        committed.ledger.insert(
            format!("id-{i}"),
            LedgerCounts {
                debits: n,
                credits: n,
                completions: 0,
            },
        );
    }
    committed.balances.insert("acc_00001".into(), 100);
    let messages = [
        message(0, acked, 1),
        message(1, acked, 1),
        message(2, acked, 1),
        message(3, in_flight, 1),
    ];
    let outputs = [1, 0, 1, 1];
    let v = Case {
        scopes: ScopeInputs {
            intents: 4,
            outputs: Some(&outputs),
            ..ScopeInputs::default()
        },
        duplicates_discarded: Some(&[0; 4]),
        ..Case::new(&events, &committed, &messages)
    }
    .check();
    let pinned = pinned_expect(&v, 0);
    assert_eq!(pinned.guarantee, Some(Guarantee::None));
    assert_eq!(
        (pinned.lost, pinned.duplicated, pinned.rejected),
        (Some(1), Some(1), Some(0))
    );
    assert_eq!(
        (pinned.all_acked, pinned.conserved),
        (Some(false), Some(true))
    );
    assert_eq!(
        pinned.payload_alerts, None,
        "no altered copies: alerts not pinned"
    );
    assert_eq!(pinned_expect(&v, 2).payload_alerts, Some(0));
    assert_eq!(
        pinned.boundaries.keys().copied().collect::<Vec<_>>(),
        [Scope::OutputTopic],
        "the ledger per event is the top level's"
    );
    let topic = pinned.boundaries[&Scope::OutputTopic];
    assert_eq!(
        (topic.guarantee, topic.lost, topic.duplicated, topic.ghost),
        (Some(Guarantee::ExactlyOnce), Some(0), Some(0), Some(0)),
        "e1, never applied, owes no output"
    );
    assert_eq!(failed_expectations(&pinned, &v), []);
    // Against another verdict, it fails.
    let other = verdict(&[(1, 1), (1, 1), (1, 1), (1, 1)], 100);
    assert_ne!(failed_expectations(&pinned, &other), []);
}
