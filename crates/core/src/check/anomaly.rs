//! A run's anomalies as every report lists them: each with the event report it is about,
//! in one order. The text report, explain and the JSON read the same list and word it
//! each in their own way.

use super::{AnomalyKind, EventReport, Outcome, PayloadAlert};

/// One anomaly of one event. An event may have several (lost and unacked, say).
#[derive(Clone, Copy, Debug)]
pub struct Anomaly<'a> {
    pub kind: AnomalyKind,
    /// The event's report: its id, effects, crash points, and what the error policy gave
    /// up on.
    pub event: &'a EventReport,
    /// `payload_mismatch`: the copy with another payload that the inbox refused.
    pub alert: Option<&'a PayloadAlert>,
}

/// The anomalies of every event, in the order every report lists them: per event, each
/// payload refused, then what became of its effect, a torn effect, and a missing ack.
pub fn anomalies(events: &[EventReport]) -> Vec<Anomaly<'_>> {
    let mut out = Vec::new();
    for e in events {
        for alert in &e.payload_alerts {
            out.push(Anomaly {
                kind: AnomalyKind::PayloadMismatch,
                event: e,
                alert: Some(alert),
            });
        }
        let mut push = |kind| {
            out.push(Anomaly {
                kind,
                event: e,
                alert: None,
            })
        };
        if let Some(kind) = e.outcome.anomaly() {
            push(kind);
        }
        if e.torn {
            push(AnomalyKind::Torn);
        }
        if !e.acked
            && !matches!(
                e.outcome,
                Outcome::DeadLettered | Outcome::Stuck | Outcome::Invalid
            )
        {
            push(AnomalyKind::Unacked);
        }
    }
    out
}
