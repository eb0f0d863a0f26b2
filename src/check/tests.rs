//! The checker's unit tests.

use super::*;
use crate::model::LedgerCounts;

/// The checker's input as a test builds it: `Case::new` is a quiet end (nothing crashed,
/// nothing discarded, no retention) of the inbox protocol over one account of 100, and a
/// test states only what differs, with `..Case::new(…)`.
struct Case<'a> {
    events: &'a [Event],
    committed: &'a CommittedState,
    messages: &'a [Message],
    scopes: ScopeInputs<'a>,
    accounts: Vec<Account>,
    protocol: Protocol,
    crashes: &'a [CrashRecord],
    external_effects: &'a [ExternalEffect],
    /// `None`: no delivery of any event was recognised as processed.
    duplicates_discarded: Option<&'a [u32]>,
    inbox_expired_at: &'a [Option<Tick>],
    stop: StopReason,
    invalid: &'a [bool],
}

impl<'a> Case<'a> {
    fn new(
        events: &'a [Event],
        committed: &'a CommittedState,
        messages: &'a [Message],
    ) -> Case<'a> {
        Case {
            events,
            committed,
            messages,
            scopes: ScopeInputs {
                intents: events.len(),
                ..ScopeInputs::default()
            },
            accounts: vec![Account {
                name: "acc_00001".into(),
                initial_balance_minor: 100,
            }],
            protocol: Protocol::built_in("inbox").unwrap(),
            crashes: &[],
            external_effects: &[],
            duplicates_discarded: None,
            inbox_expired_at: &[],
            stop: StopReason::Quiescent,
            invalid: &[],
        }
    }

    fn check(&self) -> Verdict {
        let none_discarded = vec![0; self.events.len()];
        check(&Observed {
            scopes: self.scopes,
            events: self.events,
            accounts: &self.accounts,
            protocol: &self.protocol,
            committed: self.committed,
            messages: self.messages,
            crashes: self.crashes,
            external_effects: self.external_effects,
            duplicates_discarded: self.duplicates_discarded.unwrap_or(&none_discarded),
            inbox_expired_at: self.inbox_expired_at,
            stop: self.stop,
            invalid: self.invalid,
        })
    }
}

fn event(index: usize) -> Event {
    Event {
        index,
        event_id: format!("id-{index}"),
        event_type: EventType::TransferCreated,
        transfer_id: format!("tr_{index:05}"),
        source: "acc_00001".into(),
        target: "acc_00002".into(),
        amount_minor: 10,
    }
}

fn acked(event: usize) -> Message {
    Message {
        event,
        copy: 0,
        state: MessageState::Acked { at: 1 },
        deliveries: 1,
        dead_letter_replays: 0,
        deliveries_before_replay: 0,
    }
}

/// Checks a committed ledger of (debits, credits) per event, all acked, with balances
/// that sum to `balance_total`.
fn verdict(ledger: &[(u32, u32)], balance_total: i64) -> Verdict {
    let events: Vec<Event> = (0..ledger.len()).map(event).collect();
    let mut committed = CommittedState::default();
    for (i, (debits, credits)) in ledger.iter().enumerate() {
        committed.ledger.insert(
            format!("id-{i}"),
            LedgerCounts {
                debits: *debits,
                credits: *credits,
                completions: 0,
            },
        );
    }
    committed.balances.insert("acc_00001".into(), balance_total);
    let messages: Vec<Message> = (0..ledger.len()).map(acked).collect();
    Case {
        ..Case::new(&events, &committed, &messages)
    }
    .check()
}

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
        ["expected 0 payload alert(s), observed 1"]
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
        ["expected 0 pending event(s), observed 1"]
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
            "expected guarantee exactly-once, observed at-most-once",
            "expected 0 lost event(s), observed 1",
        ]
    );
    assert!(failed_expectations(&Expect::default(), &v).is_empty());
}

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

/// `verdict`, with the broker's messages, the stop reason and the protocol given.
fn verdict_with(
    ledger: &[(u32, u32)],
    messages: &[Message],
    stop: StopReason,
    protocol: &str,
) -> Verdict {
    let events: Vec<Event> = (0..ledger.len()).map(event).collect();
    let mut committed = CommittedState::default();
    for (i, (debits, credits)) in ledger.iter().enumerate() {
        committed.ledger.insert(
            format!("id-{i}"),
            LedgerCounts {
                debits: *debits,
                credits: *credits,
                completions: 0,
            },
        );
    }
    committed.balances.insert("acc_00001".into(), 100);
    let scopes = ScopeInputs {
        intents: events.len(),
        ..ScopeInputs::default()
    };
    observe(&events, &committed, messages, scopes, protocol, stop, &[])
}

/// The verdict on `events` (one account, no crashes, no external effects) with these
/// committed rows, messages, boundaries, protocol, stop and invalid flags.
fn observe(
    events: &[Event],
    committed: &CommittedState,
    messages: &[Message],
    scopes: ScopeInputs<'_>,
    protocol: &str,
    stop: StopReason,
    invalid: &[bool],
) -> Verdict {
    Case {
        scopes,
        protocol: Protocol::built_in(protocol).unwrap(),
        stop,
        invalid,
        ..Case::new(events, committed, messages)
    }
    .check()
}

/// `observe` for the inbox, quiescent.
fn judged(
    events: &[Event],
    committed: &CommittedState,
    messages: &[Message],
    scopes: ScopeInputs<'_>,
    invalid: &[bool],
) -> Verdict {
    let stop = StopReason::Quiescent;
    observe(events, committed, messages, scopes, "inbox", stop, invalid)
}

fn message(event: usize, state: MessageState, deliveries: u32) -> Message {
    Message {
        event,
        copy: 0,
        state,
        deliveries,
        dead_letter_replays: 0,
        deliveries_before_replay: 0,
    }
}

#[test]
fn progress_outcomes_are_classified_and_keep_the_guarantee_below_exactly_once() {
    let in_flight = MessageState::InFlight {
        consumer: 0,
        attempt: 1,
    };
    let acked = MessageState::Acked { at: 1 };
    let parked = MessageState::DeadLettered { at: 1 };
    // Quiescent: e0 once, e1 never delivered (held, no effect) is stuck, e2 parked is
    // dead-lettered and lost, e3 applied and in flight forever is once (unacked).
    let v = verdict_with(
        &[(1, 1), (0, 0), (0, 0), (1, 1)],
        &[
            message(0, acked, 1),
            message(1, MessageState::Ready, 0),
            message(2, parked, 2),
            message(3, in_flight, 1),
        ],
        StopReason::Quiescent,
        "inbox",
    );
    let outcomes: Vec<Outcome> = v.events.iter().map(|e| e.outcome).collect();
    assert_eq!(
        outcomes,
        [
            Outcome::Once,
            Outcome::Stuck,
            Outcome::DeadLettered,
            Outcome::Once
        ]
    );
    assert_eq!((v.lost, v.dead_lettered, v.stuck), (1, 1, 1));
    assert_eq!(v.guarantee, Guarantee::AtMostOnce);
    assert_eq!(v.boundaries[0].stuck, 1);
    // Only stuck: still not exactly-once.
    let v = verdict_with(
        &[(1, 1), (0, 0)],
        &[message(0, acked, 1), message(1, MessageState::Ready, 0)],
        StopReason::Quiescent,
        "inbox",
    );
    assert_eq!(
        (v.lost, v.stuck, v.guarantee),
        (0, 1, Guarantee::AtMostOnce)
    );
    // A limit stopped the run: one effect, still held, may yet be applied again.
    let v = verdict_with(
        &[(1, 1)],
        &[message(0, in_flight, 1)],
        StopReason::StepLimit,
        "inbox",
    );
    assert_eq!(v.events[0].outcome, Outcome::Stuck);
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
fn an_unacked_event_says_why_a_limit_a_dead_letter_or_a_protocol_without_ack() {
    let at = |m: MessageState, stop, protocol| {
        let v = verdict_with(&[(1, 1)], &[message(0, m, 3)], stop, protocol);
        assert!(!v.all_acked && !v.events[0].acked);
        v.events[0].unacked_reason.clone().unwrap()
    };
    let in_flight = MessageState::InFlight {
        consumer: 0,
        attempt: 1,
    };
    assert_eq!(
        at(in_flight, StopReason::StepLimit, "inbox"),
        "the step limit stopped the run before it was acked"
    );
    assert_eq!(
        at(in_flight, StopReason::TickLimit, "inbox"),
        "the tick limit stopped the run before it was acked"
    );
    assert_eq!(
        at(in_flight, StopReason::TraceLimit, "inbox"),
        "the trace limit stopped the run before it was acked"
    );
    assert_eq!(
        at(
            MessageState::DeadLettered { at: 4 },
            StopReason::StepLimit,
            "inbox"
        ),
        "dead-lettered after 3 deliveries (broker.max_deliveries)"
    );
    assert_eq!(
        at(MessageState::Ready, StopReason::Quiescent, "inbox"),
        "left Ready with nothing more to run"
    );
    assert_eq!(
        at(in_flight, StopReason::Quiescent, "inbox"),
        "left InFlight { consumer: 0, attempt: 1 } with nothing more to run"
    );
    let mut no_ack = Protocol::built_in("inbox").unwrap();
    no_ack.steps.retain(|s| *s != Step::Ack);
    assert!(!no_ack.has(Step::Ack));
    // A protocol without an ack leaves its deliveries in flight forever.
    let events: Vec<Event> = vec![event(0)];
    let mut committed = CommittedState::default();
    committed.balances.insert("acc_00001".into(), 100);
    let v = Case {
        scopes: ScopeInputs {
            intents: 1,
            ..ScopeInputs::default()
        },
        protocol: no_ack.clone(),
        ..Case::new(&events, &committed, &[message(0, in_flight, 1)])
    }
    .check();
    assert_eq!(
        v.events[0].unacked_reason.as_deref(),
        Some("in flight forever: the protocol has no ack step")
    );
    // Acked events have no reason.
    let v = verdict_with(
        &[(1, 1)],
        &[message(0, MessageState::Acked { at: 2 }, 1)],
        StopReason::StepLimit,
        "inbox",
    );
    assert!(v.all_acked && v.events[0].unacked_reason.is_none());
}

#[test]
fn a_limit_stop_fails_liveness_naming_the_stuck_events_and_a_quiet_end_does_not() {
    let limits = crate::scenario::Limits {
        max_steps: 12,
        max_ticks: 500,
    };
    let in_flight = MessageState::InFlight {
        consumer: 0,
        attempt: 1,
    };
    let acked = MessageState::Acked { at: 1 };
    let messages: Vec<Message> = [acked, in_flight, acked, MessageState::Ready]
        .into_iter()
        .enumerate()
        .map(|(i, m)| message(i, m, 1))
        .collect();
    let quiet = verdict_with(&[(1, 1); 4], &messages, StopReason::Quiescent, "inbox");
    assert_eq!(quiet.stuck, 0, "one effect each, and nothing left to run");
    assert_eq!(
        liveness_failure(StopReason::Quiescent, false, &limits, &quiet),
        None
    );
    let v = verdict_with(&[(1, 1); 4], &messages, StopReason::StepLimit, "inbox");
    assert_eq!(
        v.stuck, 2,
        "held when a limit stopped the run: not resolved"
    );
    assert_eq!(
        liveness_failure(StopReason::StepLimit, false, &limits, &v).unwrap(),
        "liveness: the step limit (limits.max_steps = 12) stopped the run before it ended \
         by itself; 2 event(s) unresolved, still held by the broker: e1, e3"
    );
    assert_eq!(
        liveness_failure(StopReason::TickLimit, false, &limits, &v).unwrap(),
        "liveness: the tick limit (limits.max_ticks = 500) stopped the run before it ended \
         by itself; 2 event(s) unresolved, still held by the broker: e1, e3"
    );
    assert!(liveness_failure(StopReason::TraceLimit, false, &limits, &v)
        .unwrap()
        .starts_with("liveness: the trace limit (2000000 entries"));
    // Every event acked, but a limit still stopped the run.
    let all: Vec<Message> = (0..4).map(|i| message(i, acked, 1)).collect();
    let v = verdict_with(&[(1, 1); 4], &all, StopReason::TickLimit, "inbox");
    assert!(liveness_failure(StopReason::TickLimit, false, &limits, &v)
        .unwrap()
        .ends_with("every event was resolved, but work was still scheduled"));
    // Twenty are named, the rest counted.
    let stuck: Vec<Message> = (0..25).map(|i| message(i, in_flight, 1)).collect();
    let v = verdict_with(&[(1, 1); 25], &stuck, StopReason::StepLimit, "inbox");
    let named: Vec<String> = (0..20).map(|i| format!("e{i}")).collect();
    assert!(liveness_failure(StopReason::StepLimit, false, &limits, &v)
        .unwrap()
        .ends_with(&format!(
            "25 event(s) unresolved, still held by the broker: {}, and 5 more",
            named.join(", ")
        )));
    let twenty: Vec<Message> = (0..20).map(|i| message(i, in_flight, 1)).collect();
    let v = verdict_with(&[(1, 1); 20], &twenty, StopReason::StepLimit, "inbox");
    assert!(liveness_failure(StopReason::StepLimit, false, &limits, &v)
        .unwrap()
        .ends_with(&format!(
            "20 event(s) unresolved, still held by the broker: {}",
            named.join(", ")
        )));
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
    assert_eq!(failed_expectations(&held, &v), Vec::<String>::new());
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
            "expected guarantee exactly-once, observed none",
            "expected 0 lost event(s), observed 1",
            "expected 2 duplicated event(s), observed 1",
            "expected 1 rejected event(s), observed 0",
            "expected 3 pending event(s), observed 0",
            "expected 1 payload alert(s), observed 0",
            "expected all_acked = false, observed true",
            "expected conserved = false, observed true",
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
    assert!(failed_expectations(&held, &v).is_empty());
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
    assert_eq!(
        failed_expectations(&wrong, &v),
        [
            "expected ledger per event: exactly-once, observed ledger per event: \
             at-most-once (1 once, 1 lost)",
            "expected ledger_per_event.lost = 0, observed 1",
            "expected ledger_per_event.duplicated = 1, observed 0",
            "expected ledger_per_event.ghost = 2, observed 0",
            "expected a verdict for boundary email, but this run has none (it has \
             ledger_per_event)",
        ]
    );
}

#[test]
fn push_mismatches_names_only_the_stated_expectations_that_differ() {
    let mut failed = Vec::new();
    push_mismatches(
        &mut failed,
        &[("a", Some(1), 1), ("b", Some(2), 3), ("c", None, 4)],
    );
    assert_eq!(failed, ["expected b = 2, observed 3"]);
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

#[test]
fn an_event_applied_once_but_never_acked_is_an_anomaly() {
    let in_flight = MessageState::InFlight {
        consumer: 0,
        attempt: 1,
    };
    let v = verdict_with(
        &[(1, 1), (1, 1)],
        &[
            message(0, in_flight, 1),
            message(1, MessageState::Acked { at: 1 }, 1),
        ],
        StopReason::Quiescent,
        "inbox",
    );
    assert_eq!(v.events[0].outcome, Outcome::Once);
    assert!(!v.events[0].torn && !v.events[0].acked);
    let anomalies: Vec<usize> = v.anomalies().map(|e| e.event).collect();
    assert_eq!(anomalies, [0]);
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
    assert!(failed_expectations(&pinned, &v).is_empty());
    // Against another verdict, it fails.
    let other = verdict(&[(1, 1), (1, 1), (1, 1), (1, 1)], 100);
    assert!(!failed_expectations(&pinned, &other).is_empty());
}
