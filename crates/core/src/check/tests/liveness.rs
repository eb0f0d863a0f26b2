//! Progress: stuck, unacked and limited runs, and why an event is not acked.

use super::*;

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
fn an_unacked_event_says_why_a_limit_a_dead_letter_or_a_protocol_without_ack() {
    let at = |m: MessageState, stop, protocol| {
        let v = verdict_with(&[(1, 1)], &[message(0, m, 3)], stop, protocol);
        assert!(!v.all_acked && !v.events[0].acked);
        v.events[0].unacked_reason.unwrap()
    };
    let in_flight = MessageState::InFlight {
        consumer: 0,
        attempt: 1,
    };
    assert_eq!(
        at(in_flight, StopReason::StepLimit, "inbox"),
        UnackedReason::Limit {
            stop: StopReason::StepLimit
        }
    );
    assert_eq!(
        at(in_flight, StopReason::TickLimit, "inbox"),
        UnackedReason::Limit {
            stop: StopReason::TickLimit
        }
    );
    assert_eq!(
        at(in_flight, StopReason::TraceLimit, "inbox"),
        UnackedReason::Limit {
            stop: StopReason::TraceLimit
        }
    );
    assert_eq!(
        at(
            MessageState::DeadLettered { at: 4 },
            StopReason::StepLimit,
            "inbox"
        ),
        UnackedReason::DeadLetteredByBroker { deliveries: 3 }
    );
    assert_eq!(
        at(MessageState::Ready, StopReason::Quiescent, "inbox"),
        UnackedReason::Left {
            state: MessageState::Ready
        }
    );
    assert_eq!(
        at(in_flight, StopReason::Quiescent, "inbox"),
        UnackedReason::Left { state: in_flight }
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
    assert_eq!(v.events[0].unacked_reason, Some(UnackedReason::NoAckStep));
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
    let failed = |stop, v: &Verdict| liveness_failure(stop, false, &limits, v);
    let held = |stop, limit, stuck: Vec<usize>, stuck_count| LivenessFailure {
        stop,
        healing_phase: false,
        limit,
        stuck,
        stuck_count,
    };
    assert_eq!(
        failed(StopReason::StepLimit, &v),
        Some(held(StopReason::StepLimit, Some(12), vec![1, 3], 2))
    );
    assert_eq!(
        failed(StopReason::TickLimit, &v),
        Some(held(StopReason::TickLimit, Some(500), vec![1, 3], 2))
    );
    let trace = crate::scenario::bounds::MAX_TRACE_ENTRIES as u64;
    assert_eq!(
        failed(StopReason::TraceLimit, &v).and_then(|f| f.limit),
        Some(trace)
    );
    // Every event acked, but a limit still stopped the run.
    let all: Vec<Message> = (0..4).map(|i| message(i, acked, 1)).collect();
    let v = verdict_with(&[(1, 1); 4], &all, StopReason::TickLimit, "inbox");
    assert_eq!(
        failed(StopReason::TickLimit, &v),
        Some(held(StopReason::TickLimit, Some(500), vec![], 0))
    );
    // Twenty are named, the rest counted.
    let stuck: Vec<Message> = (0..25).map(|i| message(i, in_flight, 1)).collect();
    let v = verdict_with(&[(1, 1); 25], &stuck, StopReason::StepLimit, "inbox");
    let named: Vec<usize> = (0..LivenessFailure::NAMED).collect();
    assert_eq!(
        failed(StopReason::StepLimit, &v),
        Some(held(StopReason::StepLimit, Some(12), named.clone(), 25))
    );
    let twenty: Vec<Message> = (0..20).map(|i| message(i, in_flight, 1)).collect();
    let v = verdict_with(&[(1, 1); 20], &twenty, StopReason::StepLimit, "inbox");
    assert_eq!(
        failed(StopReason::StepLimit, &v),
        Some(held(StopReason::StepLimit, Some(12), named, 20))
    );
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
