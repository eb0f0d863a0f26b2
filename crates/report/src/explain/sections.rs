//! The sections after the story: every anomaly in plain words, the verdict per boundary,
//! and the run's failure-point table (the seeds' table).

use super::*;
use crate::check::AnomalyKind as K;

/// Per event, what in the trace of `r` made it come again without a crash: expired leases,
/// the broker's own duplicates, lost acks, republications, dead-letter replays, commit
/// timeouts, each once, in that order. One pass over the trace, for every event at once.
pub(super) fn dup_causes(r: &RunResult) -> BTreeMap<EventIndex, Vec<DupCause>> {
    let mut by_event: BTreeMap<EventIndex, BTreeSet<DupCause>> = BTreeMap::new();
    for e in r.trace.entries() {
        let Some(event) = e.event else { continue };
        let cause = match (e.actor, &e.kind) {
            (Actor::Broker, TraceKind::LeaseExpired) => DupCause::LeaseExpired,
            (Actor::Broker, TraceKind::BrokerDuplicate) => DupCause::BrokerDuplicate,
            (Actor::Broker, TraceKind::DeadLetterReplayed) => DupCause::DeadLetterReplay,
            (Actor::Consumer(_), TraceKind::AckLost) => DupCause::AckLost,
            (Actor::Consumer(_), TraceKind::CommitTimeout { .. }) => DupCause::CommitTimeout,
            (_, TraceKind::Published { how, .. } | TraceKind::RelayPublished { how, .. })
                if matches!(how, Publication::Again | Publication::Altered { .. })
                    || e.copy > 0 =>
            {
                DupCause::Republished
            }
            _ => continue,
        };
        by_event.entry(event).or_default().insert(cause);
    }
    by_event
        .into_iter()
        .map(|(event, mut causes)| {
            // A lost ack comes back through the lease that expires for want of it: one cause.
            if causes.contains(&DupCause::AckLost) {
                causes.remove(&DupCause::LeaseExpired);
            }
            (event, causes.into_iter().collect())
        })
        .collect()
}

/// Every anomaly of the verdict, in plain words: why it happened, not only what.
pub(super) fn anomaly_sentences(n: &Narrator<'_>) -> Vec<String> {
    let l = n.lang;
    let r = n.r;
    let v = &r.verdict;
    let mut sentences: Vec<String> = Vec::new();
    let mut causes_by_event = None;
    // The business effect's service, when the effect is the calls to one.
    let call = match n.scenario.store.custom.as_ref().and_then(|c| c.effect()) {
        Some(crate::model::Effect::External(service)) => Some(service),
        _ => None,
    };
    for a in anomalies(&v.events) {
        let e = a.event;
        let ev = l.ev(e.event, 0);
        let crashes: Vec<&CrashRecord> = r
            .crashes
            .iter()
            .filter(|c| c.point.event == e.event)
            .collect();
        let causes = || {
            causes_by_event
                .get_or_insert_with(|| dup_causes(r))
                .get(&e.event)
                .cloned()
                .unwrap_or_default()
        };
        let sentence = match a.kind {
            K::Lost | K::Duplicated if call.is_some() => {
                let service = call.unwrap_or_default();
                call_sentence(l, e, &ev, service, &crashes, causes)
            }
            K::Lost => lost_sentence(l, e, &ev, &crashes),
            K::Duplicated if e.inbox_expired_at.is_some() => {
                l.duplicated_after_expiry(&ev, e.inbox_expired_at.unwrap_or(0), e.effects)
            }
            K::Duplicated => duplicated_sentence(l, e, &ev, &crashes, causes),
            K::DeadLettered => {
                let by_policy =
                    crate::model::GaveUpRecord::dead_lettered_last(&e.gave_up, e.deliveries);
                l.dead_lettered_anomaly(&ev, e.deliveries, by_policy)
            }
            K::Pending => l.pending_anomaly(&ev),
            K::Rejected => l.rejected_anomaly(&ev),
            K::Unpublished => l.unpublished_anomaly(&ev),
            K::PayloadMismatch => l.payload_anomaly(
                &ev,
                a.alert.map_or("", |p| p.stored_payload.as_str()),
                a.alert.map_or("", |p| p.received_payload.as_str()),
            ),
            // A torn event that is lost was told with the loss.
            K::Torn if e.outcome == Outcome::Lost => continue,
            K::Torn => l.torn_anomaly(&ev, e.debits, e.credits),
            _ => {
                let has_ack = n.scenario.protocol.has(Step::Ack);
                l.unacked_anomaly(&ev, r.stop, has_ack)
            }
        };
        sentences.push(sentence);
    }
    sentences.extend(intent_sentences(l, v));
    sentences.extend(run_sentences(l, r));
    sentences
}

/// Why event `e` was lost: acked or marked processed before its effect committed, when a
/// crash came in between; torn; or else what is known.
fn lost_sentence(
    l: Lang,
    e: &crate::check::EventReport,
    ev: &str,
    crashes: &[&CrashRecord],
) -> String {
    if let Some(c) = crashes
        .iter()
        .find(|c| c.confirmed.acked && c.confirmed.ledger_rows == 0)
    {
        l.lost_acked_first(ev, &c.point.to_string())
    } else if let Some(c) = crashes
        .iter()
        .find(|c| c.confirmed.inbox_rows > 0 && c.confirmed.ledger_rows == 0)
    {
        l.lost_marked_first(ev, &c.point.to_string())
    } else if e.torn {
        l.lost_torn(ev, e.debits, e.credits)
    } else {
        l.lost_other(ev, e.acked)
    }
}

/// The anomalies of the run as a whole rather than of one event: a boundary past the
/// event's that did not hold exactly once, accounts that drifted, a run that did not end.
fn run_sentences(l: Lang, r: &RunResult) -> Vec<String> {
    let v = &r.verdict;
    let mut sentences = Vec::new();
    let several_events = v.intents.iter().any(|i| i.events.len() > 1);
    for b in v.boundaries.iter().skip(1) {
        if b.guarantee != Guarantee::ExactlyOnce {
            sentences.push(l.boundary_anomaly(b, several_events));
        }
    }
    if !v.drifted_accounts.is_empty() {
        sentences.push(l.lost_update(&v.drifted_accounts));
    }
    if r.stop != StopReason::Quiescent {
        sentences.push(l.stopped_anomaly(r.stop == StopReason::StepLimit));
    }
    sentences
}

/// The anomalies section of `explain`'s text.
pub(super) fn anomalies_text(out: &mut String, l: Lang, sentences: &[String], paint: Paint) {
    let _ = writeln!(out, "\n{}\n", paint.strong(l.section_anomalies()));
    if sentences.is_empty() {
        out.push_str(&paint_lines(&wrap(&l.no_anomalies(), "", 0), |line| {
            paint.good(line)
        }));
    }
    for s in sentences {
        out.push_str(&paint_lines(&wrap(s, "- ", 2), |line| paint.bad(line)));
    }
}

/// Why event `e` (`ev`) was applied more than once: the crash that hit it after its commit
/// and before its ack, or what made it come again without one (`causes`, asked only then).
fn duplicated_sentence(
    l: Lang,
    e: &crate::check::EventReport,
    ev: &str,
    crashes: &[&CrashRecord],
    causes: impl FnOnce() -> Vec<DupCause>,
) -> String {
    let mut s = match crashes
        .iter()
        .find(|c| c.confirmed.ledger_rows > 0 && !c.confirmed.acked)
    {
        Some(c) => l.duplicated_after_crash(ev, &c.point.to_string(), e.effects),
        None => {
            let causes = causes();
            if e.deliveries <= 1 && causes.contains(&DupCause::CommitTimeout) {
                l.duplicated_by_commit_timeout(ev, e.effects)
            } else {
                let causes: Vec<String> = causes.into_iter().map(|c| l.dup_cause(c)).collect();
                l.duplicated_delivered_twice(ev, e.deliveries, e.effects, &causes)
            }
        }
    };
    if e.amounts_minor.windows(2).any(|w| w[0] != w[1]) {
        let amounts: Vec<String> = e.amounts_minor.iter().map(|a| a.to_string()).collect();
        s.push(' ');
        s.push_str(&l.duplicated_amounts(&amounts.join(", ")));
    }
    s
}

/// Why the external call that is the business effect was not made once for `e`.
fn call_sentence(
    l: Lang,
    e: &crate::check::EventReport,
    ev: &str,
    service: &str,
    crashes: &[&CrashRecord],
    causes: impl FnOnce() -> Vec<DupCause>,
) -> String {
    if e.outcome != Outcome::Duplicated {
        return l.call_never_made(ev, service, e.acked);
    }
    match (crashes.iter()).find(|c| c.confirmed.ledger_rows > 0 && !c.confirmed.acked) {
        Some(c) => l.call_again_after_crash(ev, service, &c.point.to_string(), e.effects),
        None => {
            let causes: Vec<String> = causes().into_iter().map(|c| l.dup_cause(c)).collect();
            l.call_delivered_twice(ev, service, e.deliveries, e.effects, &causes)
        }
    }
}

/// The intents (transfers) that did not happen once, in plain words.
fn intent_sentences(l: Lang, v: &crate::check::Verdict) -> Vec<String> {
    let mut out = Vec::new();
    for intent in &v.intents {
        let events: Vec<String> = intent.events.iter().map(|e| l.ev(*e, 0)).collect();
        let s = match intent.outcome {
            ScopeOutcome::Lost => l.intent_lost(&intent.transfer_id),
            ScopeOutcome::Duplicated => l.intent_duplicated(
                &intent.transfer_id,
                intent.effects,
                &l.list(&events),
                events.len() > 1,
            ),
            ScopeOutcome::Ghost => l.intent_ghost(&intent.transfer_id),
            ScopeOutcome::Stuck => l.intent_stuck(&intent.transfer_id),
            ScopeOutcome::WrongEffect | ScopeOutcome::Once | ScopeOutcome::NotApplicable => {
                continue
            }
        };
        out.push(s);
    }
    out
}

pub(super) fn verdict_section(out: &mut String, r: &RunResult, l: Lang, paint: Paint) {
    let v = &r.verdict;
    let _ = writeln!(out, "\n{}\n", paint.strong(l.section_verdict()));
    let g = v.guarantee.name();
    let g = if v.guarantee == Guarantee::ExactlyOnce {
        paint.good(g)
    } else {
        paint.bad(g)
    };
    let _ = writeln!(
        out,
        "{}",
        l.verdict_sentence(&g, v.exactly_once, v.lost, v.duplicated)
    );
    for b in &v.boundaries {
        let _ = writeln!(out, "  {}", l.describe_scope(b));
    }
}

/// The seeds' table for this run: one row per crash.
pub(super) fn failure_points(n: &Narrator<'_>) -> Vec<FailurePoint> {
    let l = n.lang;
    let r = n.r;
    r.crashes
        .iter()
        .map(|c| {
            let outcome = r
                .verdict
                .event(c.point.event)
                .expect("the report of an event a crash hit is always kept")
                .outcome;
            let point = match phase_words(l, &n.scenario.protocol, c.point.boundary) {
                Some(p) => format!("{} ({p})", c.point),
                None => c.point.to_string(),
            };
            FailurePoint {
                point,
                confirmed: n.confirmed(&c.confirmed),
                recovery: l.recovery(&Recovery::after(r, c), &c.confirmed),
                outcome: l.outcome(outcome),
                once: outcome == Outcome::Once,
            }
        })
        .collect()
}

/// The failure-point section of `explain`'s text: one block per crash.
pub(super) fn failure_points_text(
    out: &mut String,
    l: Lang,
    points: &[FailurePoint],
    paint: Paint,
) {
    let _ = writeln!(out, "\n{}\n", paint.strong(l.section_failure_points()));
    if points.is_empty() {
        out.push_str(&wrap(&l.no_failure_points(), "", 0));
        return;
    }
    let labels = l.failure_point_labels();
    let width = labels.iter().map(|s| s.chars().count()).max().unwrap_or(0) + 2;
    for (i, p) in points.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let outcome = if p.once {
            paint.good(&p.outcome)
        } else {
            paint.bad(&p.outcome)
        };
        for (label, value) in labels
            .iter()
            .zip([&p.point, &p.confirmed, &p.recovery, &outcome])
        {
            let prefix = format!("  {label:<width$}");
            out.push_str(&wrap(value, &prefix, width + 2));
        }
    }
}
