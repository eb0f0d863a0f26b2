//! The guarantee per boundary (the seeds' *frontera*): per event, per intent, per email,
//! per call to each external service, per output, each judged against what was owed there.

use super::*;

/// Per intent: was it committed by the producer, and how many times did its money move?
pub(super) fn intent_reports(o: &Observed<'_>, reports: &[EventReport]) -> Vec<IntentReport> {
    if !o.scopes.per_intent {
        return Vec::new();
    }
    o.events[..o.scopes.intents]
        .iter()
        .filter(|e| e.event_type == EventType::TransferCreated)
        .map(|e| {
            let ledger = o
                .committed
                .ledger_by_transfer
                .get(&e.transfer_id)
                .copied()
                .unwrap_or_default();
            // As per event: both halves or it did not happen; either half twice, twice.
            let effects = if ledger.debits.min(ledger.credits) == 0 {
                0
            } else {
                ledger.debits.max(ledger.credits)
            };
            let committed = o
                .scopes
                .committed_intents
                .is_none_or(|c| c.contains(&e.transfer_id));
            let events: Vec<&EventReport> = reports
                .iter()
                .filter(|r| {
                    r.transfer_id == e.transfer_id
                        && o.events[r.event].event_type == EventType::TransferCreated
                        && r.outcome != Outcome::Unpublished
                })
                .collect();
            // An invalid transfer is owed no effect: one would be a ghost.
            let owed = committed && !o.invalid.get(e.index).copied().unwrap_or(false);
            let outcome = match ScopeOutcome::of(owed, effects) {
                // Not moved yet, but an event of it is still the broker's: not lost.
                ScopeOutcome::Lost if events.iter().any(|r| r.outcome == Outcome::Stuck) => {
                    ScopeOutcome::Stuck
                }
                other => other,
            };
            IntentReport {
                transfer_id: e.transfer_id.clone(),
                event: e.index,
                committed,
                events: events.iter().map(|r| r.event).collect(),
                effects,
                outcome,
            }
        })
        .collect()
}

/// How many times event `event` reached the outside world through `call` (`None`: an
/// email, from the `external_effect` step or the email relay).
pub(super) fn calls_of(o: &Observed<'_>, call: Option<&str>, event: EventIndex) -> u32 {
    let n = (o.external_effects.iter())
        .filter(|x| x.event == event && x.call == call)
        .count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Whether `r`'s business effect committed, whole: a debit and a credit, or a completion.
pub(super) fn applied(o: &Observed<'_>, r: &EventReport) -> bool {
    // With the scenario's own schema there are no ledger rows: its effects are what
    // `check.effects_per_event` counts.
    if o.committed.custom || o.events[r.event].event_type == EventType::TransferCompleted {
        r.effects > 0
    } else {
        r.debits.min(r.credits) > 0
    }
}

/// The per-boundary verdicts, the ledger per event first.
pub(super) fn scopes(
    o: &Observed<'_>,
    reports: &[EventReport],
    intents: &[IntentReport],
) -> Vec<ScopeVerdict> {
    {
        let per_event: Vec<ScopeOutcome> = reports
            .iter()
            .filter_map(|r| match r.outcome {
                Outcome::Once => Some(ScopeOutcome::Once),
                Outcome::Duplicated => Some(ScopeOutcome::Duplicated),
                Outcome::Lost | Outcome::DeadLettered => Some(ScopeOutcome::Lost),
                Outcome::Stuck => Some(ScopeOutcome::Stuck),
                Outcome::WrongEffect => Some(ScopeOutcome::WrongEffect),
                // Rejected or still pending events and never-published ones are reported
                // on their own, not as this boundary's losses.
                Outcome::Rejected
                | Outcome::Invalid
                | Outcome::Pending
                | Outcome::Unpublished
                | Outcome::SameIntent => None,
            })
            .collect();
        let mut out = vec![ScopeVerdict::new(Scope::LedgerPerEvent, &per_event)];
        if o.scopes.per_intent {
            let outcomes: Vec<ScopeOutcome> = intents.iter().map(|i| i.outcome).collect();
            out.push(ScopeVerdict::new(Scope::LedgerPerIntent, &outcomes));
        }
        if let Some(key) = o.scopes.email {
            // One email per event whose effect committed; with an idempotency key the mail
            // service sends each key once, however often it is handed the email.
            let outcomes: Vec<ScopeOutcome> = reports
                .iter()
                .map(|r| {
                    let emails = calls_of(o, None, r.event);
                    let sent = if key { emails.min(1) } else { emails };
                    ScopeOutcome::of(applied(o, r), sent)
                })
                .collect();
            out.push(ScopeVerdict::new(Scope::Email, &outcomes));
        }
        for &service in o.scopes.calls {
            // One call per event whose effect committed, as for an email: a call for an
            // effect that never committed is a ghost, a second one a duplicate.
            let outcomes: Vec<ScopeOutcome> = (reports.iter())
                .filter(|r| r.outcome != Outcome::Unpublished)
                .map(|r| ScopeOutcome::of(applied(o, r), calls_of(o, Some(service), r.event)))
                .collect();
            let mut b = ScopeVerdict::new(Scope::Call, &outcomes);
            b.effect = Some(Effect::External(service));
            out.push(b);
        }
        if let Some(outputs) = o.scopes.outputs {
            let outcomes: Vec<ScopeOutcome> = reports
                .iter()
                .filter(|r| r.outcome != Outcome::Unpublished)
                // An output is owed for an applied event only: one for an event whose
                // effect never committed (a broker transaction that committed while the
                // database's did not) is a ghost.
                .map(|r| ScopeOutcome::of(applied(o, r), outputs[r.event]))
                .collect();
            out.push(ScopeVerdict::new(Scope::OutputTopic, &outcomes));
        }
        out
    }
}
