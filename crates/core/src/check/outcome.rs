//! Each event's outcome, read from the committed rows and the broker's messages, and the
//! run's verdict built from them.

use super::*;

/// What the checker looks at.
pub struct Observed<'a> {
    pub scopes: ScopeInputs<'a>,
    pub events: &'a [Event],
    pub accounts: &'a [Account],
    pub protocol: &'a Protocol,
    pub committed: &'a CommittedState,
    pub messages: &'a [Message],
    pub crashes: &'a [CrashRecord],
    pub external_effects: &'a [ExternalEffect],
    /// Per event: deliveries the consumer recognised as already processed.
    pub duplicates_discarded: &'a [u32],
    /// The deliveries an error policy gave up on (acked, dead-lettered or rejected after a
    /// failure), with the failed step.
    pub gave_up: &'a [GaveUpRecord],
    /// Per event: when the retention job first deleted its inbox row (empty: no retention).
    pub inbox_expired_at: &'a [Option<Tick>],
    pub stop: StopReason,
    /// Per event: its payload is invalid (`workload.invalid`); empty: none is.
    pub invalid: &'a [bool],
    /// Where a scenario's own effects are counted when not on its main database: a named
    /// database, or the calls to an external service.
    pub effect: Option<crate::model::Effect>,
}

/// The verdict on a run: every event's outcome, the counts, conservation and the guarantee
/// per boundary.
pub fn check(o: &Observed<'_>) -> Verdict {
    let reports: Vec<EventReport> = o.events.iter().map(|e| event_report(o, e)).collect();
    let intents = intent_reports(o, &reports);
    let mut boundaries = scopes(o, &reports, &intents);
    for b in boundaries
        .iter_mut()
        .filter(|b| b.boundary == Scope::LedgerPerEvent)
    {
        b.effect = o.effect;
    }
    let count = |o: Outcome| reports.iter().filter(|r| r.outcome == o).count() as u64;
    let (duplicated, exactly_once, dead_lettered, rejected, pending, stuck, wrong_effects) = (
        count(Outcome::Duplicated),
        count(Outcome::Once),
        count(Outcome::DeadLettered),
        count(Outcome::Rejected),
        count(Outcome::Pending),
        count(Outcome::Stuck),
        count(Outcome::WrongEffect),
    );
    let invalid = count(Outcome::Invalid);
    // A dead-lettered event is lost: nothing in the run redoes it.
    let lost = count(Outcome::Lost) + dead_lettered;
    // A scenario with its own schema has no balances: its invariants say what is kept.
    let accounts = if o.committed.custom { &[] } else { o.accounts };
    let balance_total_minor = o.committed.balances.values().sum();
    let opening_total_minor = accounts.iter().map(|a| a.initial_balance_minor).sum();
    let drifted_accounts: Vec<String> = accounts
        .iter()
        .filter(|a| {
            let moved = o.committed.ledger_sums.get(&a.name).copied().unwrap_or(0);
            o.committed.balances.get(&a.name).copied() != Some(a.initial_balance_minor + moved)
        })
        .map(|a| a.name.clone())
        .collect();
    Verdict {
        payload_alerts: o.committed.payload_alerts.len() as u64,
        // "Finally once" needs progress: an event stuck, or whose own effect never
        // happened, is not once, whatever else was avoided.
        guarantee: Guarantee::from_anomalies(lost + stuck + wrong_effects > 0, duplicated > 0),
        all_acked: reports.iter().all(|r| r.acked),
        conserved: balance_total_minor == opening_total_minor
            && drifted_accounts.is_empty()
            && !reports.iter().any(|r| r.torn)
            && o.committed.invariants.iter().all(|i| i.holds),
        invariants: o.committed.invariants.clone(),
        own_schema: o.committed.custom,
        drifted_accounts,
        external_effects: o.external_effects.len() as u64,
        boundaries,
        intents,
        omitted: Omitted::default(),
        events: reports,
        lost,
        duplicated,
        exactly_once,
        dead_lettered,
        stuck,
        wrong_effects,
        invalid,
        rejected,
        pending,
        balance_total_minor,
        opening_total_minor,
    }
}

/// The deliveries of event `event` an error policy gave up on.
fn gave_up_of(o: &Observed<'_>, event: EventIndex) -> Vec<GaveUpRecord> {
    o.gave_up
        .iter()
        .filter(|g| g.event == event)
        .copied()
        .collect()
}

/// Event `e`'s effects, as (the larger half, the whole ones): counted apart from the rest
/// of its report because what an effect is depends on the event type and the scenario.
fn effect_counts(
    o: &Observed<'_>,
    e: &Event,
    ledger: &crate::model::LedgerCounts,
    completion: bool,
) -> (u32, u32) {
    // An effect of a `TransferCreated` is a debit and a credit. If either half is
    // missing the transfer did not happen as the business asked (lost, even if the other
    // half is there: torn); if either half is there twice, it happened twice. The
    // effect of a `TransferCompleted` is its `completion` row.
    // With the scenario's own schema, its `check.effects_per_event` counts the effects,
    // and an effect has no halves.
    // With `check.effect: {"external"}`, the effects are the calls to that service.
    let custom = o.committed.custom.then(|| match o.effect {
        Some(Effect::External(service)) => calls_of(o, Some(service), e.index),
        _ => {
            let n = o.committed.effects.get(&e.event_id).copied().unwrap_or(0);
            u32::try_from(n).unwrap_or(u32::MAX)
        }
    });
    if let Some(n) = custom {
        (n, n)
    } else if completion {
        (ledger.completions, ledger.completions)
    } else {
        (
            ledger.debits.max(ledger.credits),
            ledger.debits.min(ledger.credits),
        )
    }
}

/// The payload alerts the consumer raised for event `e`.
fn payload_alerts_of(o: &Observed<'_>, e: &Event) -> Vec<PayloadAlert> {
    o.committed
        .payload_alerts
        .iter()
        .filter(|a| a.event_id == e.event_id)
        .map(|a: &PayloadAlertRow| PayloadAlert {
            stored_payload: a.stored_payload.clone(),
            received_payload: a.received_payload.clone(),
            refused_genuine: a.received_payload == e.payload(),
            detected_at: a.detected_at,
        })
        .collect()
}

/// What happened to event `e`: its effects counted from the committed ledger, and its
/// outcome, from those counts and what the broker still holds.
fn event_report(o: &Observed<'_>, e: &Event) -> EventReport {
    let ledger = o
        .committed
        .ledger
        .get(&e.event_id)
        .copied()
        .unwrap_or_default();
    let completion = e.event_type == EventType::TransferCompleted;
    let (effects, whole) = effect_counts(o, e, &ledger, completion);
    let pending_rows = o.committed.pending.get(&e.event_id).copied().unwrap_or(0);
    let messages: Vec<&Message> = o.messages.iter().filter(|m| m.event == e.index).collect();
    let dead_lettered = messages
        .iter()
        .any(|m| matches!(m.state, MessageState::DeadLettered { .. }));
    let counts = Counts {
        effects,
        whole,
        pending_rows,
        dead_lettered,
    };
    let outcome = outcome_of(o, e, counts, &messages);
    let acked = messages
        .iter()
        .all(|m| matches!(m.state, MessageState::Acked { .. }));
    let payload_alerts = payload_alerts_of(o, e);
    let unacked_reason = (!acked).then(|| unacked_reason(o, &messages));
    EventReport {
        event: e.index,
        event_id: e.event_id.clone(),
        transfer_id: e.transfer_id.clone(),
        effects,
        debits: ledger.debits,
        credits: ledger.credits,
        inbox_rows: o.committed.inbox.get(&e.event_id).copied().unwrap_or(0),
        external_effects: o
            .external_effects
            .iter()
            .filter(|x| x.event == e.index)
            .count() as u32,
        deliveries: messages.iter().map(|m| m.deliveries).sum(),
        duplicates_discarded: o.duplicates_discarded[e.index],
        amount_minor: e.amount_minor,
        amounts_minor: o
            .committed
            .credit_amounts
            .get(&e.event_id)
            .cloned()
            .unwrap_or_default(),
        payload_alerts,
        dead_letter_replays: messages.iter().map(|m| m.dead_letter_replays).sum(),
        outcome,
        dead_lettered,
        torn: !completion && ledger.debits != ledger.credits,
        acked,
        unacked_reason,
        crash_points: o
            .crashes
            .iter()
            .filter(|c| c.point.event == e.index)
            .map(|c| c.point)
            .collect(),
        gave_up: gave_up_of(o, e.index),
        pending_rows,
        inbox_expired_at: o.inbox_expired_at.get(e.index).copied().flatten(),
    }
}

/// What `e`'s business effect counts come to, with what the broker holds.
#[derive(Clone, Copy)]
struct Counts {
    /// Effects: the larger half of a transfer's (or its completions).
    effects: u32,
    /// Whole effects: the smaller half (or its completions).
    whole: u32,
    pending_rows: u32,
    dead_lettered: bool,
}

/// Event `e`'s outcome from its counts and its messages (`messages`, every copy's).
fn outcome_of(o: &Observed<'_>, e: &Event, counts: Counts, messages: &[&Message]) -> Outcome {
    let Counts {
        effects,
        whole,
        pending_rows,
        dead_lettered,
    } = counts;
    let completion = e.event_type == EventType::TransferCompleted;
    let rejected = o.committed.rejected.get(&e.event_id).copied().unwrap_or(0) > 0;
    let outcome = if whole == 0 && effects == 0 && pending_rows > 0 {
        Outcome::Pending
    } else if whole == 0 && effects == 0 && rejected {
        Outcome::Rejected
    } else if whole == 0 {
        Outcome::Lost
    } else if effects > 1 {
        Outcome::Duplicated
    } else {
        Outcome::Once
    };
    let by_transfer = o
        .committed
        .ledger_by_transfer
        .get(&e.transfer_id)
        .copied()
        .unwrap_or_default();
    let outcome = if outcome == Outcome::Lost
        && o.scopes.business_key
        && o.duplicates_discarded[e.index] > 0
        && effects == 0
        && !completion
        && by_transfer.debits.min(by_transfer.credits) > 0
    {
        Outcome::SameIntent
    } else {
        outcome
    };
    let outcome = if messages.is_empty() {
        assert!(
            effects == 0,
            "an event that was never published has no effect"
        );
        Outcome::Unpublished
    } else {
        outcome
    };
    let outcome = if outcome == Outcome::Lost && effects == 0 && dead_lettered {
        Outcome::DeadLettered
    } else {
        outcome
    };
    // Still the broker's to deliver: neither acked (or committed past) nor parked.
    let held = messages.iter().any(|m| {
        !matches!(
            m.state,
            MessageState::Acked { .. } | MessageState::DeadLettered { .. }
        )
    });
    let outcome = match outcome {
        Outcome::Lost | Outcome::DeadLettered if held => Outcome::Stuck,
        // One effect, but a limit stopped the run while the broker still held it: it
        // may yet be delivered and applied again.
        Outcome::Once if held && o.stop != StopReason::Quiescent => Outcome::Stuck,
        Outcome::Once if wrong_amount(e, o.committed) => Outcome::WrongEffect,
        other => other,
    };
    match outcome {
        _ if !o.invalid.get(e.index).copied().unwrap_or(false) => outcome,
        Outcome::Stuck | Outcome::Unpublished => outcome,
        _ if effects > 0 => Outcome::WrongEffect,
        _ => Outcome::Invalid,
    }
}

/// Whether `e`'s one committed credit carries another amount than `e` itself: an altered
/// copy (the only payload field an alteration changes is the amount) was applied.
pub(super) fn wrong_amount(e: &Event, committed: &CommittedState) -> bool {
    e.event_type == EventType::TransferCreated
        && committed
            .credit_amounts
            .get(&e.event_id)
            .is_some_and(|a| a.iter().any(|&x| x != e.amount_minor))
}

/// Whether the consumer's error policy, not the broker's `max_deliveries`, moved `m` to
/// the dead-letter queue: its last delivery ended so.
fn dead_lettered_by_policy(o: &Observed<'_>, m: &Message) -> bool {
    let own: Vec<GaveUpRecord> = (o.gave_up.iter())
        .filter(|g| g.event == m.event && g.copy == m.copy)
        .copied()
        .collect();
    GaveUpRecord::dead_lettered_last(&own, m.deliveries)
}

/// Why an event's message is not acked at the end of the run (as data: `report::lang`
/// words it).
pub(super) fn unacked_reason(o: &Observed<'_>, messages: &[&Message]) -> UnackedReason {
    let m = messages
        .iter()
        .find(|m| !matches!(m.state, MessageState::Acked { .. }))
        .expect("an unacked event has an unacked message");
    match (m.state, o.stop) {
        (MessageState::DeadLettered { .. }, _) if dead_lettered_by_policy(o, m) => {
            UnackedReason::DeadLetteredByPolicy {
                delivery: m.deliveries,
            }
        }
        (MessageState::DeadLettered { .. }, _) => UnackedReason::DeadLetteredByBroker {
            deliveries: m.deliveries,
        },
        (_, StopReason::Quiescent) => match m.state {
            MessageState::InFlight { .. } if !o.protocol.has(Step::Ack) => UnackedReason::NoAckStep,
            state => UnackedReason::Left { state },
        },
        (_, stop) => UnackedReason::Limit { stop },
    }
}
