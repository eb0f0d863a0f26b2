//! The details of a run's anomalies as JSON gives them (`anomalies[].detail`), in English
//! like every sentence of a JSON document; the text reports word each anomaly in their own
//! language (`Lang::run_anomaly`).

use super::*;
use crate::check::{AnomalyKind, EventReport, PayloadAlert};

impl Lang {
    /// The detail of anomaly `kind` of event `e` as JSON gives it; `alert` is the copy
    /// refused, for a payload mismatch.
    pub fn detail_of(
        kind: AnomalyKind,
        e: &EventReport,
        alert: Option<&PayloadAlert>,
    ) -> Option<String> {
        match alert {
            Some(alert) => Some(Lang::payload_alert_detail(alert)),
            None => Lang::anomaly_detail(kind, e),
        }
    }

    /// Why anomaly `kind` of event `e` is one, when more than its kind says.
    pub fn anomaly_detail(kind: AnomalyKind, e: &EventReport) -> Option<String> {
        let why = || e.unacked_reason.map(|why| Lang::En.unacked_reason(why));
        match kind {
            AnomalyKind::Lost | AnomalyKind::PayloadMismatch => None,
            AnomalyKind::Duplicated => e
                .inbox_expired_at
                .map(|at| {
                    format!(
                        "its inbox row was deleted by the retention job at t={at}, so a later \
                         delivery was not recognised as a duplicate"
                    )
                })
                .or_else(|| amounts_detail(e)),
            AnomalyKind::DeadLettered => Some(format!(
                "{}: lost, unless the dead-letter queue is replayed, which this run did not do",
                why().unwrap_or_else(|| "dead-lettered".into())
            )),
            AnomalyKind::Invalid => Some(format!(
                "the scenario declares its payload invalid (workload.invalid): refused on every \
                 delivery and never applied, as it should be{}",
                if e.dead_lettered {
                    "; in the dead-letter queue for a person"
                } else {
                    ""
                }
            )),
            AnomalyKind::Stuck => Some(format!(
                "not resolved when the run ended ({} effect(s)): {}",
                e.effects,
                why().unwrap_or_else(|| "the broker still holds it".into())
            )),
            AnomalyKind::WrongEffect => Some(format!(
                "applied with amount {} instead of its own {}: a copy with the same event_id \
                 and an altered payload arrived first",
                e.amounts_minor.first().copied().unwrap_or_default(),
                e.amount_minor
            )),
            _ => fixed_detail(kind, e),
        }
    }

    /// A payload alert's detail: when the other payload came, both payloads, and which
    /// was the event's own.
    pub fn payload_alert_detail(a: &PayloadAlert) -> String {
        let whose = if a.refused_genuine {
            "the event's own payload was the one refused: an altered copy came first"
        } else {
            "the refused one is an altered copy"
        };
        format!(
            "the same event_id arrived with another payload at t={}: refused and alerted, not \
             applied; stored {}, received {} ({whose})",
            a.detected_at, a.stored_payload, a.received_payload
        )
    }
}

/// The details that do not depend on why the event is where it is.
fn fixed_detail(kind: AnomalyKind, e: &EventReport) -> Option<String> {
    match kind {
        AnomalyKind::Unpublished => {
            Some("the producer committed its transfer but never published it".into())
        }
        AnomalyKind::Rejected => Some(
            "the projection rejected it: its transaction saw no committed creation of its \
             transfer"
                .into(),
        ),
        AnomalyKind::Pending => Some(
            "still waiting in pending_event when the run ended: no creation of its transfer \
             released it (none took effect, or, on PostgreSQL, one committed beside it without \
             seeing its row)"
                .into(),
        ),
        AnomalyKind::Torn => Some(format!("{} debit(s), {} credit(s)", e.debits, e.credits)),
        AnomalyKind::Unacked => e.unacked_reason.map(|why| Lang::En.unacked_reason(why)),
        _ => None,
    }
}

/// `committed amounts 10000, 20000: …` when the event's committed credits disagree on the
/// amount.
fn amounts_detail(e: &EventReport) -> Option<String> {
    if !e.amounts_differ() {
        return None;
    }
    let amounts: Vec<String> = e.amounts_minor.iter().map(|a| a.to_string()).collect();
    Some(format!(
        "committed amounts {}: a copy with the same event_id and another payload was applied",
        amounts.join(", ")
    ))
}
