//! The verdict per boundary: intents, emails, outputs, the business key.

use super::*;

/// Three intents: one applied once, one committed but never applied (lost), and one
/// applied that the producer never committed (a ghost); event 3 is a second event for
/// transfer 0 that the business key refused. Emails: one per applied event, two for
/// event 2 without a key.
#[test]
fn boundaries_judge_intents_against_committed_transfers_and_emails_against_effects() {
    let mut events: Vec<Event> = (0..3).map(event).collect();
    events.push(Event {
        index: 3,
        event_id: "id-3".into(),
        ..event(0)
    });
    let mut committed = CommittedState::default();
    let pair = LedgerCounts {
        debits: 1,
        credits: 1,
        completions: 0,
    };
    for id in ["id-0", "id-2"] {
        committed.ledger.insert(id.into(), pair);
    }
    committed.ledger_by_transfer.insert("tr_00000".into(), pair);
    committed.ledger_by_transfer.insert("tr_00002".into(), pair);
    committed.balances.insert("acc_00001".into(), 100);
    let producer_committed: std::collections::BTreeSet<String> =
        ["tr_00000", "tr_00001"].map(String::from).into();
    let messages: Vec<Message> = [0, 2, 3].map(acked).to_vec();
    let email = |event, copy| ExternalEffect {
        call: None,
        tick: 1,
        event,
        copy,
        delivery: 1,
    };
    let emails = [email(0, 0), email(2, 0), email(2, 1)];
    let observe = |key: bool| {
        Case {
            scopes: ScopeInputs {
                intents: 3,
                per_intent: true,
                business_key: true,
                committed_intents: Some(&producer_committed),
                email: Some(key),
                outputs: None,
                calls: &[],
            },
            external_effects: &emails,
            duplicates_discarded: Some(&[0, 0, 0, 1]),
            ..Case::new(&events, &committed, &messages)
        }
        .check()
    };
    let v = observe(false);
    let outcomes: Vec<Outcome> = v.events.iter().map(|e| e.outcome).collect();
    assert_eq!(
        outcomes,
        [
            Outcome::Once,
            Outcome::Unpublished,
            Outcome::Once,
            Outcome::SameIntent
        ]
    );
    assert_eq!(
        v.guarantee,
        Guarantee::ExactlyOnce,
        "per event, nothing broke"
    );
    let intent: Vec<ScopeOutcome> = v.intents.iter().map(|i| i.outcome).collect();
    assert_eq!(
        intent,
        [ScopeOutcome::Once, ScopeOutcome::Lost, ScopeOutcome::Ghost]
    );
    assert_eq!(v.intents[0].events, [0, 3]);
    let scopes: Vec<(Scope, Guarantee)> = v
        .boundaries
        .iter()
        .map(|b| (b.boundary, b.guarantee))
        .collect();
    assert_eq!(
        scopes,
        [
            (Scope::LedgerPerEvent, Guarantee::ExactlyOnce),
            (Scope::LedgerPerIntent, Guarantee::None),
            (Scope::Email, Guarantee::AtLeastOnce),
        ]
    );
    assert_eq!(v.boundaries[1].ghost, 1);
    assert_eq!(v.boundaries[1].lost, 1);
    let with_key = observe(true);
    assert_eq!(with_key.boundaries[2].guarantee, Guarantee::ExactlyOnce);
}

#[test]
fn a_boundary_is_described_with_its_non_zero_counts_only() {
    use ScopeOutcome::*;
    let v = ScopeVerdict::new(Scope::Email, &[Once, Once, Duplicated, NotApplicable]);
    assert_eq!(v.describe(), "email: at-least-once (2 once, 1 duplicated)");
    let v = ScopeVerdict::new(Scope::LedgerPerIntent, &[Lost, Ghost, Once]);
    assert_eq!(
        v.describe(),
        "ledger per intent: none (1 once, 1 lost, 1 ghost)"
    );
    assert_eq!(
        v.guarantee,
        Guarantee::None,
        "a ghost is one effect too many"
    );
    let v = ScopeVerdict::new(Scope::OutputTopic, &[Once]);
    assert_eq!(v.describe(), "output topic: exactly-once (1 once)");
    assert_eq!((v.once, v.lost, v.duplicated, v.ghost), (1, 0, 0, 0));
}

#[test]
fn a_units_outcome_follows_from_what_was_expected_and_what_happened() {
    use ScopeOutcome::*;
    let cases = [
        (true, 0, Lost),
        (true, 1, Once),
        (true, 2, Duplicated),
        (true, 7, Duplicated),
        (false, 0, NotApplicable),
        (false, 1, Ghost),
        (false, 3, Ghost),
    ];
    for (expected, effects, outcome) in cases {
        assert_eq!(
            ScopeOutcome::of(expected, effects),
            outcome,
            "{expected} {effects}"
        );
    }
}

#[test]
fn only_a_lost_event_refused_by_the_business_key_is_the_same_intent() {
    // The conditions one by one: each missing one leaves the event lost.
    let run = |business_key: bool, discarded: u32, other_half: (u32, u32)| {
        let mut events: Vec<Event> = (0..2).map(event).collect();
        events[1].transfer_id = events[0].transfer_id.clone();
        let mut committed = CommittedState::default();
        committed.balances.insert("acc_00001".into(), 100);
        committed.ledger_by_transfer.insert(
            events[0].transfer_id.clone(),
            LedgerCounts {
                debits: other_half.0,
                credits: other_half.1,
                completions: 0,
            },
        );
        let messages: Vec<Message> = (0..2).map(acked).collect();
        Case {
            scopes: ScopeInputs {
                intents: 2,
                business_key,
                ..ScopeInputs::default()
            },
            duplicates_discarded: Some(&[0, discarded]),
            ..Case::new(&events, &committed, &messages)
        }
        .check()
        .events[1]
            .outcome
    };
    assert_eq!(run(true, 1, (1, 1)), Outcome::SameIntent);
    assert_eq!(run(false, 1, (1, 1)), Outcome::Lost);
    assert_eq!(run(true, 0, (1, 1)), Outcome::Lost);
    assert_eq!(run(true, 1, (1, 0)), Outcome::Lost);
    assert_eq!(run(true, 1, (0, 1)), Outcome::Lost);
}

#[test]
fn the_output_topic_judges_published_events_only() {
    // Event 0 produced one output, event 1 two, event 2 none, event 3 was never
    // published (no message): it is not the output topic's loss.
    let events: Vec<Event> = (0..4).map(event).collect();
    let mut committed = CommittedState::default();
    committed.balances.insert("acc_00001".into(), 100);
    let messages: Vec<Message> = (0..3).map(acked).collect();
    for i in 0..3 {
        committed.ledger.insert(
            format!("id-{i}"),
            LedgerCounts {
                debits: 1,
                credits: 1,
                completions: 0,
            },
        );
    }
    let outputs = [1, 2, 0, 0];
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
    assert_eq!(v.events[3].outcome, Outcome::Unpublished);
    let topic = v
        .boundaries
        .iter()
        .find(|b| b.boundary == Scope::OutputTopic)
        .unwrap();
    assert_eq!(
        (topic.once, topic.duplicated, topic.lost, topic.ghost),
        (1, 1, 1, 0)
    );
    assert_eq!(topic.guarantee, Guarantee::None);
}

#[test]
fn an_output_for_an_event_whose_effect_never_committed_is_a_ghost() {
    // e0 applied with its output; e1 acked and its output committed by the broker, but
    // its database transaction never committed.
    let events: Vec<Event> = (0..2).map(event).collect();
    let mut committed = CommittedState::default();
    committed.balances.insert("acc_00001".into(), 100);
    committed.ledger.insert(
        "id-0".into(),
        LedgerCounts {
            debits: 1,
            credits: 1,
            completions: 0,
        },
    );
    let messages: Vec<Message> = (0..2).map(acked).collect();
    let scopes = ScopeInputs {
        intents: 2,
        outputs: Some(&[1, 1]),
        ..ScopeInputs::default()
    };
    let v = judged(&events, &committed, &messages, scopes, &[]);
    assert_eq!(v.events[1].outcome, Outcome::Lost);
    let topic = v.boundaries[1];
    assert_eq!(topic.boundary, Scope::OutputTopic);
    assert_eq!((topic.once, topic.ghost, topic.lost), (1, 1, 0));
    assert_eq!(topic.guarantee, Guarantee::AtLeastOnce);
}

/// `check.effect: {"external": "topup"}`: the events' effects are the calls to `topup`
/// (an email or a call to another service does not count), and every other service called
/// is a boundary of its own, owed one call per event whose effect happened.
#[test]
fn an_external_call_declared_the_effect_is_counted_per_event_and_other_calls_per_applied_event() {
    let events: Vec<Event> = (0..3).map(event).collect();
    let committed = CommittedState {
        custom: true,
        ..CommittedState::default()
    };
    let messages: Vec<Message> = [0, 1, 2].map(acked).to_vec();
    let call = |call, event| ExternalEffect {
        call,
        tick: 1,
        event,
        copy: 0,
        delivery: 1,
    };
    let (topup, notify) = (Some("topup"), Some("notify"));
    // e0 topped up once, e1 twice, e2 never (but an email and a notify went out for it).
    let effects = [
        call(topup, 0),
        call(notify, 0),
        call(topup, 1),
        call(topup, 1),
        call(None, 2),
        call(notify, 2),
    ];
    let v = Case {
        effect: Some(Effect::External("topup")),
        scopes: ScopeInputs {
            intents: 3,
            calls: &["notify"],
            ..ScopeInputs::default()
        },
        external_effects: &effects,
        accounts: Vec::new(),
        ..Case::new(&events, &committed, &messages)
    }
    .check();
    let per_event: Vec<(u32, Outcome)> = v.events.iter().map(|e| (e.effects, e.outcome)).collect();
    assert_eq!(
        per_event,
        [
            (1, Outcome::Once),
            (2, Outcome::Duplicated),
            (0, Outcome::Lost)
        ]
    );
    assert_eq!(v.guarantee, Guarantee::None);
    assert_eq!(v.effect(), Some(Effect::External("topup")));
    let notify = &v.boundaries[1];
    assert_eq!(
        (notify.boundary, notify.effect),
        (Scope::Call, Some(Effect::External("notify")))
    );
    // e0: once; e1 applied, never notified: lost; e2 notified though never applied: a ghost.
    assert_eq!((notify.once, notify.lost, notify.ghost), (1, 1, 1));
    assert_eq!(
        notify.describe(),
        "calls to `notify`: none (1 once, 1 lost, 1 ghost)"
    );
    assert_eq!(v.boundaries.len(), 2, "no email boundary was asked for");
}
