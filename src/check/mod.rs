//! The checker: at the end of a run it reads the committed database, as the business would,
//! and says what happened to every event.
//!
//! Effects are counted from the ledger, never from the consumer's own account of what it
//! did: 0 effects is a lost event, 1 is once, more is duplicated. It also checks
//! conservation (balances sum to the opening total; each event's debit and credit are
//! both there or neither), counts external effects separately (they are outside the
//! database's guarantee), and checks liveness (every event acked when the run ended, or why
//! not).
//!
//! Payload alerts (the same `event_id` with another payload, refused by the inbox) are read
//! from their committed table and reported on their own, per event, with both payloads:
//! never counted as duplicates discarded, never dropped. A copy with another payload that
//! was applied (no inbox) shows as a duplicated effect whose amounts differ.

use crate::broker::{Message, MessageState};
use crate::fault::CrashRecord;
use crate::model::{
    Account, BoundaryPoint, CommittedState, Event, EventIndex, EventType, ExternalEffect,
    Guarantee, PayloadAlertRow, Protocol, Scope, Step, Tick,
};
use crate::scenario::Expect;
use crate::sim::StopReason;
use serde::Serialize;

pub mod failure;
pub use failure::{liveness_failure, FailureKind, FailureSignature};

/// What happened to one event's business effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// One committed effect, with the event's own payload, and nothing left to redo it.
    Once,
    /// No effect, and nothing in the system will ever redo it: acked, or its offset
    /// committed past it.
    Lost,
    Duplicated,
    /// No effect, and the broker gave up on it: parked in the dead-letter queue. Lost, as
    /// far as the guarantee goes (the scenario replays nothing); a person can recover it by
    /// replaying the dead-letter queue, which a silent loss does not allow.
    DeadLettered,
    /// Not resolved: the broker still holds it (unacked, or not yet delivered behind an
    /// offset nobody committed) and the run could not finish it, because a limit stopped
    /// the healing phase or nothing was left to run. A liveness failure: neither lost nor
    /// once, and no claim of more than at-most-once holds for it.
    Stuck,
    /// One effect, but with another payload than the event's: a copy with the same
    /// `event_id` and an altered payload was applied instead of the original, which the
    /// inbox then refused. The event's own effect never happened. (Also any effect of an
    /// event the scenario declares invalid.)
    WrongEffect,
    /// The scenario declares its payload invalid (`workload.invalid`), and it correctly
    /// ended with no effect, refused and no longer held (dead-lettered for a person, or
    /// acked). Not a valid event, so not part of the guarantee.
    Invalid,
    /// No effect: the projection rejected it (a completion that arrived before its
    /// transfer's creation), and recorded the rejection.
    Rejected,
    /// No effect of its own, because its transfer's money already moved under another
    /// `event_id` and the ledger's business key refused a second time: one effect per
    /// intent, by design.
    SameIntent,
    /// Never reached the broker (the producer committed the transfer and died before
    /// publishing): outside the consumer's scope, and lost per intent.
    Unpublished,
    /// No effect yet: a completion still waiting in `pending_event` for its transfer's
    /// creation when the run ended (`store.out_of_order: buffer`). Not lost, not done.
    Pending,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Once => "once",
            Outcome::Lost => "lost",
            Outcome::Duplicated => "duplicated",
            Outcome::DeadLettered => "dead-lettered",
            Outcome::Stuck => "stuck",
            Outcome::WrongEffect => "wrong effect",
            Outcome::Invalid => "invalid",
            Outcome::Rejected => "rejected",
            Outcome::Unpublished => "unpublished",
            Outcome::SameIntent => "same intent",
            Outcome::Pending => "pending",
        }
    }
}

/// One event, as the committed database and the broker see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EventReport {
    pub event: EventIndex,
    pub event_id: String,
    pub transfer_id: String,
    /// Applied effects: the larger of its debit and credit row counts. The outcome also
    /// looks at the smaller: a debit without its credit is a lost transfer.
    pub effects: u32,
    pub debits: u32,
    pub credits: u32,
    pub inbox_rows: u32,
    pub external_effects: u32,
    /// Deliveries of it (every publication, every attempt).
    pub deliveries: u32,
    /// Deliveries the consumer recognised as already processed and discarded (a copy with
    /// another payload is not one of them: see `payload_alerts`).
    pub duplicates_discarded: u32,
    /// The amount of its own payload.
    pub amount_minor: i64,
    /// The amount of each committed credit of it, in commit order: more than one amount
    /// means a copy with another payload was applied.
    pub amounts_minor: Vec<i64>,
    /// Copies with its `event_id` and another payload, refused and alerted.
    pub payload_alerts: Vec<PayloadAlert>,
    /// How many times a publication of it was replayed from the dead-letter queue.
    pub dead_letter_replays: u32,
    pub outcome: Outcome,
    /// Some publication of it went to the dead-letter queue.
    pub dead_lettered: bool,
    /// Debit and credit counts differ: half an effect is committed.
    pub torn: bool,
    pub acked: bool,
    /// Why it is not acked, when it is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unacked_reason: Option<String>,
    /// The crashes that hit a delivery of this event.
    pub crash_points: Vec<BoundaryPoint>,
    /// Its rows still waiting in `pending_event` (a buffered completion).
    pub pending_rows: u32,
    /// When the retention job first deleted its inbox row, if it did: a delivery after
    /// that is no longer recognised as a duplicate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inbox_expired_at: Option<Tick>,
}

/// One committed payload alert: a copy of an event arrived with the event's `event_id` and
/// another payload. The inbox kept `stored_payload`; `received_payload` was not applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PayloadAlert {
    pub stored_payload: String,
    pub received_payload: String,
    /// The refused payload is the event's own: an altered copy was applied before it (see
    /// [`Outcome::WrongEffect`]).
    pub refused_genuine: bool,
    /// Virtual time of the alert.
    pub detected_at: u64,
}

/// The verdict of one run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub events: Vec<EventReport>,
    /// Events with no effect that nothing will redo, the dead-lettered ones included.
    pub lost: u64,
    pub duplicated: u64,
    pub exactly_once: u64,
    /// Of the lost events, those the broker dead-lettered: not lost silently (replaying
    /// the dead-letter queue would recover them), but not processed either.
    pub dead_lettered: u64,
    /// Events the run could not resolve (see [`Outcome::Stuck`]): a liveness failure.
    pub stuck: u64,
    /// Events applied with an altered copy's payload instead of their own.
    pub wrong_effects: u64,
    /// Events declared invalid that correctly ended with no effect: shown apart, not part
    /// of the guarantee.
    pub invalid: u64,
    /// Events the projection rejected as out of order.
    pub rejected: u64,
    /// Committed payload alerts (same `event_id`, another payload), over all events.
    pub payload_alerts: u64,
    /// Completions still buffered in `pending_event` at the end.
    pub pending: u64,
    pub guarantee: Guarantee,
    pub all_acked: bool,
    /// Balances sum to the opening total, every account's balance is its opening balance
    /// plus its ledger rows (no update was lost), and no event is torn.
    pub conserved: bool,
    /// Accounts whose balance disagrees with their ledger: a lost update.
    pub drifted_accounts: Vec<String>,
    pub balance_total_minor: i64,
    pub opening_total_minor: i64,
    /// External effects per event are reported, never part of the guarantee: they are
    /// outside the database's transaction.
    pub external_effects: u64,
    /// The verdict per guarantee boundary: always the ledger per event (what `guarantee`
    /// says), and the ledger per intent, the email and the output topic when the scenario
    /// has them.
    pub boundaries: Vec<ScopeVerdict>,
    /// Per business intent (transfer), when the scenario judges intents.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub intents: Vec<IntentReport>,
    /// Event reports (and intent reports, and drifted accounts) a summary of many runs did
    /// not keep (see [`Verdict::slim`]): every count above still covers them.
    #[serde(skip_serializing_if = "Omitted::is_empty")]
    pub omitted: Omitted,
}

/// What [`Verdict::slim`] left out of a verdict: how many reports of each kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Omitted {
    pub events: usize,
    pub intents: usize,
    pub drifted_accounts: usize,
}

impl Omitted {
    pub fn is_empty(&self) -> bool {
        *self == Omitted::default()
    }
}

/// At most this many event reports of a slimmed verdict besides those of the events a crash
/// hit, and at most this many intent reports and drifted accounts (see [`Verdict::slim`]).
pub const MAX_KEPT_REPORTS: usize = 8;

/// One guarantee boundary's verdict: the seeds' "say what happens once, for what identity,
/// within what boundary".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ScopeVerdict {
    pub boundary: Scope,
    pub guarantee: Guarantee,
    pub once: u64,
    pub lost: u64,
    pub duplicated: u64,
    /// Effects with nothing behind them (see [`crate::scenario::ScopeExpect::ghost`]).
    pub ghost: u64,
    /// Units not resolved when the run ended: a liveness failure.
    pub stuck: u64,
    /// Units applied with another payload than their own.
    pub wrong_effect: u64,
}

impl ScopeVerdict {
    fn new(boundary: Scope, counts: &[ScopeOutcome]) -> ScopeVerdict {
        let n = |o: ScopeOutcome| counts.iter().filter(|&&c| c == o).count() as u64;
        let (lost, duplicated, ghost, stuck, wrong_effect) = (
            n(ScopeOutcome::Lost),
            n(ScopeOutcome::Duplicated),
            n(ScopeOutcome::Ghost),
            n(ScopeOutcome::Stuck),
            n(ScopeOutcome::WrongEffect),
        );
        ScopeVerdict {
            boundary,
            // An effect with no cause is an effect too many: it breaks "never more than
            // once" exactly as a duplicate does. A unit stuck, or whose own effect never
            // happened, breaks "finally once" as a loss does.
            guarantee: Guarantee::from_anomalies(
                lost + stuck + wrong_effect > 0,
                duplicated + ghost > 0,
            ),
            once: n(ScopeOutcome::Once),
            lost,
            duplicated,
            ghost,
            stuck,
            wrong_effect,
        }
    }

    /// `ledger per intent: at-least-once (2 once, 1 duplicated)`.
    pub fn describe(&self) -> String {
        let mut parts = vec![format!("{} once", self.once)];
        for (n, what) in [
            (self.lost, "lost"),
            (self.duplicated, "duplicated"),
            (self.ghost, "ghost"),
            (self.stuck, "stuck"),
            (self.wrong_effect, "wrong effect"),
        ] {
            if n > 0 {
                parts.push(format!("{n} {what}"));
            }
        }
        format!(
            "{}: {} ({})",
            self.boundary.name(),
            self.guarantee,
            parts.join(", ")
        )
    }
}

/// How one unit fared within one boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ScopeOutcome {
    Once,
    Lost,
    Duplicated,
    /// An effect that should not exist at all.
    Ghost,
    /// Not resolved when the run ended (see [`Outcome::Stuck`]).
    Stuck,
    /// One effect, with another payload than the unit's own.
    WrongEffect,
    /// Nothing expected and nothing happened (e.g. a request that never committed).
    NotApplicable,
}

impl ScopeOutcome {
    /// From how many effects were expected (0 or 1) and how many happened.
    fn of(expected: bool, effects: u32) -> ScopeOutcome {
        match (expected, effects) {
            (true, 0) => ScopeOutcome::Lost,
            (true, 1) => ScopeOutcome::Once,
            (true, _) => ScopeOutcome::Duplicated,
            (false, 0) => ScopeOutcome::NotApplicable,
            (false, _) => ScopeOutcome::Ghost,
        }
    }
}

/// One business intent (a transfer), end to end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IntentReport {
    pub transfer_id: String,
    /// The workload event that expresses it.
    pub event: EventIndex,
    /// Whether the producer committed the transfer (always, for a `direct` producer).
    pub committed: bool,
    /// Events published for it (distinct `event_id`s that reached the broker).
    pub events: Vec<EventIndex>,
    /// Times its money moved in the consumer's ledger.
    pub effects: u32,
    pub outcome: ScopeOutcome,
}

/// What the checker needs for the boundaries beyond the ledger per event.
#[derive(Clone, Copy, Debug, Default)]
pub struct ScopeInputs<'a> {
    /// How many of the events are the workload's (the intents); the rest were minted.
    pub intents: usize,
    /// Whether to judge intents.
    pub per_intent: bool,
    /// Whether the ledger has the business key (a second event for a transfer is refused).
    pub business_key: bool,
    /// The transfers the producer committed, when a producer process ran (`None`: every
    /// intent is committed, as with a `direct` producer).
    pub committed_intents: Option<&'a std::collections::BTreeSet<String>>,
    /// `Some(idempotency_key)` when the protocol sends emails.
    pub email: Option<bool>,
    /// Committed outputs per event, when the protocol produces outputs.
    pub outputs: Option<&'a [u32]>,
}

impl Verdict {
    /// The report of event `event`, if the verdict has it: every event's, unless it was
    /// slimmed. Reports are in event order.
    pub fn event(&self, event: EventIndex) -> Option<&EventReport> {
        match self.events.get(event) {
            Some(e) if e.event == event => Some(e),
            _ => self
                .events
                .binary_search_by_key(&event, |e| e.event)
                .ok()
                .map(|i| &self.events[i]),
        }
    }

    /// The number of events judged, whether or not their reports are kept.
    pub fn event_count(&self) -> usize {
        self.events.len() + self.omitted.events
    }

    /// Keeps what a summary of many runs (an exploration, a sweep) reads of a run, and no
    /// more than a bounded amount of it, so that memory grows with the runs and not with
    /// runs × events: every count, every boundary's verdict, the reports of the events a
    /// crash hit, and of at most [`MAX_KEPT_REPORTS`] other events, those that did not
    /// end once or show an anomaly (the first ones, in event order); at most as many
    /// intent reports that did not end once, and drifted accounts. [`Verdict::omitted`]
    /// counts what was left out.
    pub fn slim(&mut self) {
        let mut kept_others = 0;
        let mut omitted = self.omitted;
        self.events.retain(|e| {
            let notable =
                e.outcome != Outcome::Once || e.torn || !e.acked || !e.payload_alerts.is_empty();
            let keep = !e.crash_points.is_empty() || (notable && kept_others < MAX_KEPT_REPORTS);
            if e.crash_points.is_empty() && keep {
                kept_others += 1;
            }
            omitted.events += usize::from(!keep);
            keep
        });
        let before = self.intents.len();
        let mut kept_intents = 0;
        self.intents.retain(|i| {
            let keep = i.outcome != ScopeOutcome::Once && kept_intents < MAX_KEPT_REPORTS;
            kept_intents += usize::from(keep);
            keep
        });
        omitted.intents += before - self.intents.len();
        if self.drifted_accounts.len() > MAX_KEPT_REPORTS {
            omitted.drifted_accounts += self.drifted_accounts.len() - MAX_KEPT_REPORTS;
            self.drifted_accounts.truncate(MAX_KEPT_REPORTS);
        }
        self.events.shrink_to_fit();
        self.intents.shrink_to_fit();
        self.drifted_accounts.shrink_to_fit();
        self.omitted = omitted;
    }

    /// About how many bytes this verdict holds on the heap (its lists and their strings,
    /// with an allocator's overhead per allocation): what keeping it costs, for the memory
    /// budgets of commands that keep many runs.
    pub fn heap_bytes(&self) -> u64 {
        use crate::model::heap;
        use std::mem::size_of;
        let text = |s: &String| heap(s.capacity(), 1);
        let events: u64 = self
            .events
            .iter()
            .map(|e| {
                text(&e.event_id)
                    + text(&e.transfer_id)
                    + heap(e.amounts_minor.capacity(), size_of::<i64>())
                    + heap(e.payload_alerts.capacity(), size_of::<PayloadAlert>())
                    + e.payload_alerts
                        .iter()
                        .map(|a| text(&a.stored_payload) + text(&a.received_payload))
                        .sum::<u64>()
                    + e.unacked_reason.as_ref().map_or(0, text)
                    + heap(e.crash_points.capacity(), size_of::<BoundaryPoint>())
            })
            .sum();
        let intents: u64 = self
            .intents
            .iter()
            .map(|i| text(&i.transfer_id) + heap(i.events.capacity(), size_of::<EventIndex>()))
            .sum();
        heap(self.events.capacity(), size_of::<EventReport>())
            + events
            + heap(self.intents.capacity(), size_of::<IntentReport>())
            + intents
            + heap(self.drifted_accounts.capacity(), size_of::<String>())
            + self.drifted_accounts.iter().map(text).sum::<u64>()
            + heap(self.boundaries.capacity(), size_of::<ScopeVerdict>())
    }

    /// The events that were not applied exactly once, or are torn, or not acked, or had a
    /// copy with another payload.
    pub fn anomalies(&self) -> impl Iterator<Item = &EventReport> {
        self.events.iter().filter(|e| {
            e.outcome != Outcome::Once || e.torn || !e.acked || !e.payload_alerts.is_empty()
        })
    }
}

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
    /// Per event: when the retention job first deleted its inbox row (empty: no retention).
    pub inbox_expired_at: &'a [Option<Tick>],
    pub stop: StopReason,
    /// Per event: its payload is invalid (`workload.invalid`); empty: none is.
    pub invalid: &'a [bool],
}

pub fn check(o: &Observed<'_>) -> Verdict {
    let mut reports = Vec::with_capacity(o.events.len());
    for e in o.events {
        let ledger = o
            .committed
            .ledger
            .get(&e.event_id)
            .copied()
            .unwrap_or_default();
        let completion = e.event_type == EventType::TransferCompleted;
        // An effect of a `TransferCreated` is a debit and a credit. If either half is
        // missing the transfer did not happen as the business asked (lost, even if the other
        // half is there: torn); if either half is there twice, it happened twice. The
        // effect of a `TransferCompleted` is its `completion` row.
        let (effects, whole) = if completion {
            (ledger.completions, ledger.completions)
        } else {
            (
                ledger.debits.max(ledger.credits),
                ledger.debits.min(ledger.credits),
            )
        };
        let rejected = o.committed.rejected.get(&e.event_id).copied().unwrap_or(0) > 0;
        let pending_rows = o.committed.pending.get(&e.event_id).copied().unwrap_or(0);
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
        let messages: Vec<&Message> = o.messages.iter().filter(|m| m.event == e.index).collect();
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
        let dead_lettered = messages
            .iter()
            .any(|m| matches!(m.state, MessageState::DeadLettered { .. }));
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
        let outcome = match outcome {
            _ if !o.invalid.get(e.index).copied().unwrap_or(false) => outcome,
            Outcome::Stuck | Outcome::Unpublished => outcome,
            _ if effects > 0 => Outcome::WrongEffect,
            _ => Outcome::Invalid,
        };
        let acked = messages
            .iter()
            .all(|m| matches!(m.state, MessageState::Acked { .. }));
        let payload_alerts = o
            .committed
            .payload_alerts
            .iter()
            .filter(|a| a.event_id == e.event_id)
            .map(|a: &PayloadAlertRow| PayloadAlert {
                stored_payload: a.stored_payload.clone(),
                received_payload: a.received_payload.clone(),
                refused_genuine: a.received_payload == e.payload(),
                detected_at: a.detected_at,
            })
            .collect();
        let unacked_reason = (!acked).then(|| unacked_reason(o, &messages));
        reports.push(EventReport {
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
            pending_rows,
            inbox_expired_at: o.inbox_expired_at.get(e.index).copied().flatten(),
        });
    }
    let intents = intent_reports(o, &reports);
    let boundaries = scopes(o, &reports, &intents);
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
    let balance_total_minor = o.committed.balances.values().sum();
    let opening_total_minor = o.accounts.iter().map(|a| a.initial_balance_minor).sum();
    let drifted_accounts: Vec<String> = o
        .accounts
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
            && !reports.iter().any(|r| r.torn),
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

/// Whether `e`'s one committed credit carries another amount than `e` itself: an altered
/// copy (the only payload field an alteration changes is the amount) was applied.
fn wrong_amount(e: &Event, committed: &CommittedState) -> bool {
    e.event_type == EventType::TransferCreated
        && committed
            .credit_amounts
            .get(&e.event_id)
            .is_some_and(|a| a.iter().any(|&x| x != e.amount_minor))
}

/// Per intent: was it committed by the producer, and how many times did its money move?
fn intent_reports(o: &Observed<'_>, reports: &[EventReport]) -> Vec<IntentReport> {
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

/// Whether `r`'s business effect committed, whole: a debit and a credit, or a completion.
fn applied(o: &Observed<'_>, r: &EventReport) -> bool {
    if o.events[r.event].event_type == EventType::TransferCompleted {
        r.effects > 0
    } else {
        r.debits.min(r.credits) > 0
    }
}

/// The per-boundary verdicts, the ledger per event first.
fn scopes(
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
                    let sent = if key {
                        r.external_effects.min(1)
                    } else {
                        r.external_effects
                    };
                    ScopeOutcome::of(applied(o, r), sent)
                })
                .collect();
            out.push(ScopeVerdict::new(Scope::Email, &outcomes));
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

fn unacked_reason(o: &Observed<'_>, messages: &[&Message]) -> String {
    let limit = match o.stop {
        StopReason::Quiescent => None,
        StopReason::StepLimit => Some("the step limit stopped the run"),
        StopReason::TickLimit => Some("the tick limit stopped the run"),
        StopReason::TraceLimit => Some("the trace limit stopped the run"),
    };
    let m = messages
        .iter()
        .find(|m| !matches!(m.state, MessageState::Acked { .. }))
        .expect("an unacked event has an unacked message");
    match (m.state, limit) {
        (MessageState::DeadLettered { .. }, _) => format!(
            "dead-lettered after {} deliveries (broker.max_deliveries)",
            m.deliveries
        ),
        (_, Some(limit)) => format!("{limit} before it was acked"),
        (MessageState::InFlight { .. }, None) if !o.protocol.has(Step::Ack) => {
            "in flight forever: the protocol has no ack step".into()
        }
        (state, None) => format!("left {state:?} with nothing more to run"),
    }
}

/// The expectations that pin `v` as observed: the guarantee, the counts, the acks,
/// conservation, and every boundary's verdict. A scenario with this `expect` holds while its
/// run comes out exactly so; [`failed_expectations`] finds nothing against `v`.
pub fn pinned_expect(v: &Verdict, altered_republishes: usize) -> Expect {
    Expect {
        guarantee: Some(v.guarantee),
        lost: Some(v.lost),
        duplicated: Some(v.duplicated),
        rejected: Some(v.rejected),
        // Only a workload with altered copies can have alerts (and may pin them).
        payload_alerts: (altered_republishes > 0).then_some(v.payload_alerts),
        all_acked: Some(v.all_acked),
        conserved: Some(v.conserved),
        boundaries: v
            .boundaries
            .iter()
            .skip(1)
            .map(|b| {
                (
                    b.boundary,
                    crate::scenario::ScopeExpect {
                        guarantee: Some(b.guarantee),
                        lost: Some(b.lost),
                        duplicated: Some(b.duplicated),
                        ghost: Some(b.ghost),
                    },
                )
            })
            .collect(),
        ..Expect::default()
    }
}

/// Compares a verdict with what the scenario expects. Returns one line per failed
/// expectation; empty means it held.
pub fn failed_expectations(expect: &Expect, v: &Verdict) -> Vec<String> {
    let mut failed = Vec::new();
    if let Some(g) = expect.guarantee {
        if g != v.guarantee {
            failed.push(format!("expected guarantee {g}, observed {}", v.guarantee));
        }
    }
    for (what, want, got) in [
        ("lost", expect.lost, v.lost),
        ("duplicated", expect.duplicated, v.duplicated),
        ("rejected", expect.rejected, v.rejected),
        ("pending", expect.pending, v.pending),
    ] {
        if let Some(want) = want {
            if want != got {
                failed.push(format!("expected {want} {what} event(s), observed {got}"));
            }
        }
    }
    if let Some(want) = expect.payload_alerts {
        if want != v.payload_alerts {
            failed.push(format!(
                "expected {want} payload alert(s), observed {}",
                v.payload_alerts
            ));
        }
    }
    push_mismatches(
        &mut failed,
        &[
            ("all_acked", expect.all_acked, v.all_acked),
            ("conserved", expect.conserved, v.conserved),
        ],
    );
    for (scope, want) in &expect.boundaries {
        let Some(got) = v.boundaries.iter().find(|b| b.boundary == *scope) else {
            failed.push(format!(
                "expected a verdict for boundary {}, but this run has none (it has {})",
                scope.key(),
                v.boundaries
                    .iter()
                    .map(|b| b.boundary.key())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            continue;
        };
        if let Some(g) = want.guarantee {
            if g != got.guarantee {
                failed.push(format!(
                    "expected {}: {g}, observed {}",
                    scope.name(),
                    got.describe()
                ));
            }
        }
        let name = scope.key();
        push_mismatches(
            &mut failed,
            &[
                (&format!("{name}.lost"), want.lost, got.lost),
                (
                    &format!("{name}.duplicated"),
                    want.duplicated,
                    got.duplicated,
                ),
                (&format!("{name}.ghost"), want.ghost, got.ghost),
            ],
        );
    }
    failed
}

/// For each `(name, expected, observed)` with an expectation that does not hold, pushes
/// `expected NAME = X, observed Y`.
pub fn push_mismatches<T: PartialEq + Copy + std::fmt::Display>(
    failed: &mut Vec<String>,
    items: &[(&str, Option<T>, T)],
) {
    for &(what, want, got) in items {
        if let Some(want) = want {
            if want != got {
                failed.push(format!("expected {what} = {want}, observed {got}"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LedgerCounts;

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
        let accounts = [Account {
            name: "acc_00001".into(),
            initial_balance_minor: 100,
        }];
        let messages: Vec<Message> = (0..ledger.len()).map(acked).collect();
        check(&Observed {
            scopes: ScopeInputs {
                intents: events.len(),
                ..ScopeInputs::default()
            },
            events: &events,
            accounts: &accounts,
            protocol: &Protocol::built_in("inbox").unwrap(),
            committed: &committed,
            messages: &messages,
            crashes: &[],
            external_effects: &[],
            duplicates_discarded: &vec![0; ledger.len()],
            inbox_expired_at: &[],
            stop: StopReason::Quiescent,
            invalid: &[],
        })
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
        let accounts = [Account {
            name: "acc_00001".into(),
            initial_balance_minor: 100,
        }];
        let mut messages: Vec<Message> = (0..2).map(acked).collect();
        messages[0].dead_letter_replays = 1;
        let v = check(&Observed {
            scopes: ScopeInputs {
                intents: events.len(),
                ..ScopeInputs::default()
            },
            events: &events,
            accounts: &accounts,
            protocol: &Protocol::built_in("inbox").unwrap(),
            committed: &committed,
            messages: &messages,
            crashes: &[],
            external_effects: &[],
            duplicates_discarded: &[0, 0],
            inbox_expired_at: &[],
            stop: StopReason::Quiescent,
            invalid: &[],
        });
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
        let accounts = [Account {
            name: "acc_00001".into(),
            initial_balance_minor: 100,
        }];
        let mut messages: Vec<Message> = (0..2).map(acked).collect();
        messages[0].state = MessageState::DeadLettered { at: 3 };
        let v = check(&Observed {
            scopes: ScopeInputs {
                intents: events.len(),
                ..ScopeInputs::default()
            },
            events: &events,
            accounts: &accounts,
            protocol: &Protocol::built_in("inbox").unwrap(),
            committed: &committed,
            messages: &messages,
            crashes: &[],
            external_effects: &[],
            duplicates_discarded: &[0, 0],
            inbox_expired_at: &[],
            stop: StopReason::Quiescent,
            invalid: &[],
        });
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
        let v = check(&Observed {
            scopes: ScopeInputs {
                intents: events.len(),
                ..ScopeInputs::default()
            },
            events: &events,
            accounts: &[],
            protocol: &Protocol::built_in("inbox").unwrap(),
            committed: &committed,
            messages: &[acked(0)],
            crashes: &[],
            external_effects: &[],
            duplicates_discarded: &[0],
            inbox_expired_at: &[Some(35)],
            stop: StopReason::Quiescent,
            invalid: &[],
        });
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
        let accounts = [Account {
            name: "acc_00001".into(),
            initial_balance_minor: 100,
        }];
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
            check(&Observed {
                scopes: ScopeInputs {
                    intents: 3,
                    per_intent: true,
                    business_key: true,
                    committed_intents: Some(&producer_committed),
                    email: Some(key),
                    outputs: None,
                },
                events: &events,
                accounts: &accounts,
                protocol: &Protocol::built_in("inbox").unwrap(),
                committed: &committed,
                messages: &messages,
                crashes: &[],
                external_effects: &emails,
                duplicates_discarded: &[0, 0, 0, 1],
                inbox_expired_at: &[],
                stop: StopReason::Quiescent,
                invalid: &[],
            })
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
        check(&Observed {
            scopes,
            events,
            accounts: &[Account {
                name: "acc_00001".into(),
                initial_balance_minor: 100,
            }],
            protocol: &Protocol::built_in(protocol).unwrap(),
            committed,
            messages,
            crashes: &[],
            external_effects: &[],
            duplicates_discarded: &vec![0; events.len()],
            inbox_expired_at: &[],
            stop,
            invalid,
        })
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
        let v = check(&Observed {
            scopes: ScopeInputs {
                intents: 1,
                ..ScopeInputs::default()
            },
            events: &events,
            accounts: &[Account {
                name: "acc_00001".into(),
                initial_balance_minor: 100,
            }],
            protocol: &no_ack,
            committed: &committed,
            messages: &[message(0, in_flight, 1)],
            crashes: &[],
            external_effects: &[],
            duplicates_discarded: &[0],
            inbox_expired_at: &[],
            stop: StopReason::Quiescent,
            invalid: &[],
        });
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
        let v = check(&Observed {
            scopes: ScopeInputs {
                intents: events.len(),
                business_key: true,
                ..ScopeInputs::default()
            },
            events: &events,
            accounts: &accounts,
            protocol: &Protocol::built_in("inbox").unwrap(),
            committed: &committed,
            messages: &messages,
            crashes: &[crash(0), crash(0), crash(3)],
            external_effects: &[effect(0), effect(0), effect(5)],
            duplicates_discarded: &[0, 0, 0, 0, 0, 0, 1],
            inbox_expired_at: &[Some(7), None],
            stop: StopReason::Quiescent,
            invalid: &[],
        });
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
            check(&Observed {
                scopes: ScopeInputs {
                    intents: 2,
                    business_key,
                    ..ScopeInputs::default()
                },
                events: &events,
                accounts: &[Account {
                    name: "acc_00001".into(),
                    initial_balance_minor: 100,
                }],
                protocol: &Protocol::built_in("inbox").unwrap(),
                committed: &committed,
                messages: &messages,
                crashes: &[],
                external_effects: &[],
                duplicates_discarded: &[0, discarded],
                inbox_expired_at: &[],
                stop: StopReason::Quiescent,
                invalid: &[],
            })
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
        let v = check(&Observed {
            scopes: ScopeInputs {
                intents: 4,
                outputs: Some(&outputs),
                ..ScopeInputs::default()
            },
            events: &events,
            accounts: &[Account {
                name: "acc_00001".into(),
                initial_balance_minor: 100,
            }],
            protocol: &Protocol::built_in("inbox").unwrap(),
            committed: &committed,
            messages: &messages,
            crashes: &[],
            external_effects: &[],
            duplicates_discarded: &[0; 4],
            inbox_expired_at: &[],
            stop: StopReason::Quiescent,
            invalid: &[],
        });
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
        let v = check(&Observed {
            scopes: ScopeInputs {
                intents: 4,
                outputs: Some(&outputs),
                ..ScopeInputs::default()
            },
            events: &events,
            accounts: &[Account {
                name: "acc_00001".into(),
                initial_balance_minor: 100,
            }],
            protocol: &Protocol::built_in("inbox").unwrap(),
            committed: &committed,
            messages: &messages,
            crashes: &[],
            external_effects: &[],
            duplicates_discarded: &[0; 4],
            inbox_expired_at: &[],
            stop: StopReason::Quiescent,
            invalid: &[],
        });
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
}
