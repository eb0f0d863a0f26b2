//! Each event outcome, read from committed rows and messages, and conservation.

use super::*;

#[test]
fn effects_are_classified_from_the_committed_ledger() {
    let v = verdict(&[(1, 1), (0, 0), (2, 2)], 100);
    let outcomes: Vec<Outcome> = v.events.iter().map(|e| e.outcome).collect();
    assert_eq!(
        outcomes,
        [Outcome::Once, Outcome::Lost, Outcome::Duplicated]
    );
    assert_eq!((v.exactly_once, v.lost, v.duplicated), (1, 1, 1));
    assert_eq!(v.guarantee, Guarantee::None);
    assert!(v.conserved);
}

#[test]
fn half_a_transfer_is_lost_and_torn() {
    let v = verdict(&[(1, 0)], 90);
    assert_eq!(v.events[0].outcome, Outcome::Lost);
    assert!(v.events[0].torn);
    assert!(!v.conserved);
    assert_eq!(v.guarantee, Guarantee::AtMostOnce);
    let v = verdict(&[(2, 1)], 90);
    assert_eq!(v.events[0].outcome, Outcome::Duplicated);
    assert!(v.events[0].torn && !v.conserved);
}

#[test]
fn an_unconserved_total_is_caught_even_without_a_torn_event() {
    let v = verdict(&[(1, 1)], 99);
    assert!(!v.conserved);
    assert_eq!(v.guarantee, Guarantee::ExactlyOnce);
}

#[test]
fn payload_alerts_are_reported_per_event_and_never_as_discarded_duplicates() {
    let events: Vec<Event> = (0..2).map(event).collect();
    let mut committed = CommittedState::default();
    for i in 0..2 {
        committed.ledger.insert(
            format!("id-{i}"),
            LedgerCounts {
                debits: 1,
                credits: 1,
                completions: 0,
            },
        );
    }
    committed.balances.insert("acc_00001".into(), 100);
    committed.payload_alerts.push(PayloadAlertRow {
        event_id: "id-1".into(),
        stored_payload: "stored".into(),
        received_payload: "received".into(),
        detected_at: 9,
    });
    let mut messages: Vec<Message> = (0..2).map(acked).collect();
    messages[0].dead_letter_replays = 1;
    let v = Case {
        ..Case::new(&events, &committed, &messages)
    }
    .check();
    assert_eq!(v.payload_alerts, 1);
    assert_eq!(
        v.guarantee,
        Guarantee::ExactlyOnce,
        "an alert is not a duplicate"
    );
    assert_eq!(v.events[1].payload_alerts[0].received_payload, "received");
    assert_eq!(v.events[1].duplicates_discarded, 0);
    assert!(v.events[0].payload_alerts.is_empty());
    assert_eq!(v.events[0].dead_letter_replays, 1);
    let anomalous: Vec<usize> = v.anomalies().map(|e| e.event).collect();
    assert_eq!(anomalous, [1], "an alert is an anomaly, a replay is not");
    let expect = Expect {
        payload_alerts: Some(0),
        ..Expect::default()
    };
    assert_eq!(
        failed_expectations(&expect, &v),
        [count(Counted::PayloadAlerts, 0, 1)]
    );
}

#[test]
fn a_completion_still_buffered_is_pending_not_lost_nor_once() {
    let created = event(0);
    let completed = Event {
        index: 1,
        event_id: "id-1".into(),
        event_type: EventType::TransferCompleted,
        ..created.clone()
    };
    let events = [created, completed];
    let mut committed = CommittedState::default();
    committed.pending.insert("id-1".into(), 1);
    committed.balances.insert("acc_00001".into(), 100);
    let mut messages: Vec<Message> = (0..2).map(acked).collect();
    messages[0].state = MessageState::DeadLettered { at: 3 };
    let v = Case {
        ..Case::new(&events, &committed, &messages)
    }
    .check();
    assert_eq!(v.events[1].outcome, Outcome::Pending);
    assert_eq!(v.events[1].pending_rows, 1);
    // e0, dead-lettered and never replayed, is lost; e1 is pending, not lost.
    assert_eq!((v.pending, v.lost, v.exactly_once), (1, 1, 0));
    assert_eq!(v.events[0].outcome, Outcome::DeadLettered);
    assert!(v.anomalies().any(|e| e.outcome == Outcome::Pending));
    let expect = Expect {
        pending: Some(0),
        ..Expect::default()
    };
    assert_eq!(
        failed_expectations(&expect, &v),
        [count(Counted::Pending, 0, 1)]
    );
}

#[test]
fn a_duplicate_after_its_inbox_row_expired_says_when() {
    let events = [event(0)];
    let mut committed = CommittedState::default();
    committed.ledger.insert(
        "id-0".into(),
        LedgerCounts {
            debits: 2,
            credits: 2,
            completions: 0,
        },
    );
    committed.balances.insert("acc_00001".into(), 100);
    let v = Case {
        accounts: Vec::new(),
        inbox_expired_at: &[Some(35)],
        ..Case::new(&events, &committed, &[acked(0)])
    }
    .check();
    assert_eq!(v.events[0].outcome, Outcome::Duplicated);
    assert_eq!(v.events[0].inbox_expired_at, Some(35));
}

#[test]
fn an_altered_payload_applied_instead_is_a_wrong_effect_and_an_invalid_one_is_apart() {
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
    committed
        .credit_amounts
        .insert("id-0".into(), vec![events[0].amount_minor * 2]);
    let acked = MessageState::Acked { at: 1 };
    let parked = MessageState::DeadLettered { at: 1 };
    let messages = [message(0, acked, 1), message(1, parked, 2)];
    let scopes = ScopeInputs {
        intents: 2,
        ..ScopeInputs::default()
    };
    let judge = |invalid: &[bool]| judged(&events, &committed, &messages, scopes, invalid);
    let v = judge(&[]);
    assert_eq!(v.events[0].outcome, Outcome::WrongEffect);
    assert_eq!(v.events[1].outcome, Outcome::DeadLettered);
    assert_eq!((v.wrong_effects, v.lost), (1, 1));
    assert_eq!(v.guarantee, Guarantee::AtMostOnce);
    // e1 declared invalid: parked with no effect is its correct end, outside the
    // guarantee; the wrong effect still counts.
    let v = judge(&[false, true]);
    assert_eq!(v.events[1].outcome, Outcome::Invalid);
    assert_eq!((v.invalid, v.lost), (1, 0));
    assert_eq!(v.guarantee, Guarantee::AtMostOnce);
}

#[test]
fn every_outcome_has_its_own_name() {
    let names: Vec<&str> = [
        Outcome::Once,
        Outcome::Lost,
        Outcome::Duplicated,
        Outcome::DeadLettered,
        Outcome::Rejected,
        Outcome::Unpublished,
        Outcome::SameIntent,
        Outcome::Pending,
        Outcome::Stuck,
        Outcome::WrongEffect,
        Outcome::Invalid,
    ]
    .map(Outcome::name)
    .to_vec();
    assert_eq!(
        names,
        [
            "once",
            "lost",
            "duplicated",
            "dead-lettered",
            "rejected",
            "unpublished",
            "same intent",
            "pending",
            "stuck",
            "wrong effect",
            "invalid"
        ]
    );
}

/// Six events, one per way of not being "once", through `check` itself: rejected,
/// pending, dead-lettered, unpublished, the same intent (refused by the business key)
/// and a completion applied once; plus what each report counts.
#[test]
fn every_outcome_is_classified_from_rows_and_messages_and_reported_with_its_counts() {
    let mut events: Vec<Event> = (0..7).map(event).collect();
    events[5].event_type = EventType::TransferCompleted;
    events[6].transfer_id = events[0].transfer_id.clone();
    let mut committed = CommittedState::default();
    let counts = |debits, credits, completions| LedgerCounts {
        debits,
        credits,
        completions,
    };
    committed.ledger.insert("id-0".into(), counts(1, 1, 0));
    committed.rejected.insert("id-1".into(), 1);
    committed.pending.insert("id-2".into(), 2);
    committed.ledger.insert("id-5".into(), counts(0, 0, 1));
    committed
        .ledger_by_transfer
        .insert(events[0].transfer_id.clone(), counts(1, 1, 0));
    committed.inbox.insert("id-0".into(), 1);
    committed.credit_amounts.insert("id-0".into(), vec![10]);
    committed.payload_alerts.push(PayloadAlertRow {
        event_id: "id-0".into(),
        stored_payload: "a".into(),
        received_payload: "b".into(),
        detected_at: 9,
    });
    // acc_00001 paid 10 out, acc_00002 did not get it: both drift, the total does not.
    committed.ledger_sums.insert("acc_00001".into(), -10);
    committed.balances.insert("acc_00001".into(), 90);
    committed.balances.insert("acc_00002".into(), 110);
    let accounts = [
        Account {
            name: "acc_00001".into(),
            initial_balance_minor: 100,
        },
        Account {
            name: "acc_00002".into(),
            initial_balance_minor: 100,
        },
    ];
    let acked = MessageState::Acked { at: 1 };
    let mut messages = vec![
        message(0, acked, 2),
        message(0, acked, 1),
        message(1, acked, 1),
        message(2, acked, 1),
        message(3, MessageState::DeadLettered { at: 4 }, 3),
        message(5, acked, 1),
        message(6, acked, 1),
    ];
    messages[1].copy = 1;
    messages[1].dead_letter_replays = 1;
    let crash = |event| CrashRecord {
        tick: 3,
        point: BoundaryPoint {
            boundary: crate::model::Boundary::after(Step::Commit),
            event,
            copy: 0,
            delivery: 1,
        },
        cause: crate::fault::CrashCause::Planned(0),
        dropped_transaction: false,
        confirmed: crate::fault::Confirmed {
            ledger_rows: 0,
            inbox_rows: 0,
            acked: false,
        },
    };
    let effect = |event| ExternalEffect {
        call: None,
        tick: 2,
        event,
        copy: 0,
        delivery: 1,
    };
    let v = Case {
        accounts: accounts.to_vec(),
        scopes: ScopeInputs {
            intents: events.len(),
            business_key: true,
            ..ScopeInputs::default()
        },
        crashes: &[crash(0), crash(0), crash(3)],
        external_effects: &[effect(0), effect(0), effect(5)],
        duplicates_discarded: Some(&[0, 0, 0, 0, 0, 0, 1]),
        inbox_expired_at: &[Some(7), None],
        ..Case::new(&events, &committed, &messages)
    }
    .check();
    let outcomes: Vec<Outcome> = v.events.iter().map(|e| e.outcome).collect();
    assert_eq!(
        outcomes,
        [
            Outcome::Once,
            Outcome::Rejected,
            Outcome::Pending,
            Outcome::DeadLettered,
            Outcome::Unpublished,
            Outcome::Once,
            Outcome::SameIntent,
        ]
    );
    assert_eq!(
        (
            v.exactly_once,
            v.lost,
            v.duplicated,
            v.rejected,
            v.pending,
            v.dead_lettered
        ),
        (2, 1, 0, 1, 1, 1),
        "the dead-lettered event is counted as lost"
    );
    assert_eq!(v.guarantee, Guarantee::AtMostOnce);
    let e0 = &v.events[0];
    assert_eq!((e0.deliveries, e0.dead_letter_replays), (3, 1));
    assert_eq!((e0.external_effects, e0.inbox_rows), (2, 1));
    assert_eq!(e0.crash_points.len(), 2);
    assert_eq!(e0.amounts_minor, [10]);
    assert_eq!(e0.payload_alerts.len(), 1);
    assert_eq!(e0.inbox_expired_at, Some(7));
    assert_eq!(v.events[1].inbox_expired_at, None);
    assert_eq!(v.events[2].pending_rows, 2);
    assert_eq!(v.events[3].crash_points.len(), 1);
    assert!(v.events[3].dead_lettered && !v.events[3].acked);
    assert_eq!(v.events[5].effects, 1);
    assert!(
        !v.events[5].torn,
        "a completion has no debit and credit to tear"
    );
    assert_eq!(v.events[6].duplicates_discarded, 1);
    assert_eq!((v.payload_alerts, v.external_effects), (1, 3));
    // Unacked (dead-lettered, unpublished has no message so is acked vacuously), not
    // once, or alerted: the anomalies.
    let anomalies: Vec<usize> = v.anomalies().map(|e| e.event).collect();
    assert_eq!(anomalies, [0, 1, 2, 3, 4, 6]);
    assert!(!v.all_acked);
    assert_eq!(v.drifted_accounts, ["acc_00002"]);
    assert!(!v.conserved, "a drifted account breaks conservation");
    assert_eq!((v.balance_total_minor, v.opening_total_minor), (200, 200));
}
