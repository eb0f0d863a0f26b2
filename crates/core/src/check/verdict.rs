//! What the checker says: the outcome of every event, the verdict per boundary, and
//! the limits on what a kept verdict holds.

use super::*;
use std::fmt::Write as _;

/// One anomaly of one event, as the run report lists it (an event may have several: lost
/// and unacked, say): `invalid` is refused as the scenario declares it should be
/// (`workload.invalid`); `rejected`, a completion handled before its transfer's creation was
/// committed; `pending`, a completion still buffered when the run ended; `torn`, a debit
/// without its credit or the reverse; `payload_mismatch`, one per payload alert (the same
/// `event_id` arrived with another payload: refused and alerted, not applied and not
/// counted as a duplicate).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
// Inline: `kind` is a plain string in every document (a tag elsewhere), here one of these.
#[schemars(inline)]
pub enum AnomalyKind {
    Lost,
    Duplicated,
    DeadLettered,
    Invalid,
    Stuck,
    WrongEffect,
    Unpublished,
    Rejected,
    Pending,
    Torn,
    Unacked,
    PayloadMismatch,
}

/// What happened to one event's business effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
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
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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
    pub unacked_reason: Option<UnackedReason>,
    /// The crashes that hit a delivery of this event.
    pub crash_points: Vec<BoundaryPoint>,
    /// The deliveries of this event an error policy gave up on, with the failed step:
    /// what lost it, when a policy acked or dead-lettered it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gave_up: Vec<crate::model::GaveUpRecord>,
    /// Its rows still waiting in `pending_event` (a buffered completion).
    pub pending_rows: u32,
    /// When the retention job first deleted its inbox row, if it did: a delivery after
    /// that is no longer recognised as a duplicate.
    pub inbox_expired_at: Option<Tick>,
}

/// One committed payload alert: a copy of an event arrived with the event's `event_id` and
/// another payload. The inbox kept `stored_payload`; `received_payload` was not applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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
    /// With the scenario's own schema: its `check.invariants` (and a broken
    /// `effects_per_event`), each with what it gave; `conserved` says they all hold.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub invariants: Vec<crate::model::InvariantResult>,
    /// Whether the database is the scenario's own schema (then `conserved` means its
    /// invariants hold: it has no balances).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub own_schema: bool,
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

/// Why an event is not acked when the run ends: data, worded in `report::lang`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "why")]
pub enum UnackedReason {
    /// The consumer's error policy moved it to the dead-letter queue
    /// (`on_error: dead_letter`) at this delivery.
    DeadLetteredByPolicy { delivery: u32 },
    /// The broker moved it to the dead-letter queue after this many deliveries
    /// (`broker.max_deliveries`).
    DeadLetteredByBroker { deliveries: u32 },
    /// A limit stopped the run before it was acked.
    Limit { stop: StopReason },
    /// In flight forever: the protocol has no `ack` step.
    NoAckStep,
    /// Left in this state at the broker, with nothing more to run. The state is worded, not
    /// serialized: its `at` (a tick) would read as a crash point's `at` in the JSON
    /// vocabulary.
    Left {
        #[serde(skip)]
        #[schemars(skip)]
        state: MessageState,
    },
}

/// What [`Verdict::slim`] left out of a verdict: how many reports of each kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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

impl Outcome {
    /// The anomaly this outcome is, if it is one.
    pub fn anomaly(self) -> Option<AnomalyKind> {
        match self {
            Outcome::Once | Outcome::SameIntent => None,
            Outcome::Lost => Some(AnomalyKind::Lost),
            Outcome::Duplicated => Some(AnomalyKind::Duplicated),
            Outcome::DeadLettered => Some(AnomalyKind::DeadLettered),
            Outcome::Invalid => Some(AnomalyKind::Invalid),
            Outcome::Stuck => Some(AnomalyKind::Stuck),
            Outcome::WrongEffect => Some(AnomalyKind::WrongEffect),
            Outcome::Unpublished => Some(AnomalyKind::Unpublished),
            Outcome::Rejected => Some(AnomalyKind::Rejected),
            Outcome::Pending => Some(AnomalyKind::Pending),
        }
    }
}

impl EventReport {
    /// Whether the event's committed credits disagree on the amount: a copy with the same
    /// `event_id` and another payload was applied.
    pub fn amounts_differ(&self) -> bool {
        self.amounts_minor.windows(2).any(|w| w[0] != w[1])
    }
}

/// One guarantee boundary's verdict: the seeds' "say what happens once, for what identity,
/// within what boundary".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ScopeVerdict {
    pub boundary: Scope,
    /// Where the counted effect lives when not in the main database: for the effects per
    /// event, the named database `check.effects_per_event` reads or the external call
    /// `check.effect` declares; for a [`Scope::Call`] boundary, its service.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effect: Option<crate::model::Effect>,
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
    pub(super) fn new(boundary: Scope, counts: &[ScopeOutcome]) -> ScopeVerdict {
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
            effect: None,
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
        let parts = tally(
            self.once,
            &[
                (self.lost, "lost"),
                (self.duplicated, "duplicated"),
                (self.ghost, "ghost"),
                (self.stuck, "stuck"),
                (self.wrong_effect, "wrong effect"),
            ],
        );
        let scope = match self.effect {
            Some(crate::model::Effect::Db(db)) => format!("effects on `{db}` per event"),
            Some(crate::model::Effect::External(call)) => match self.boundary {
                Scope::Call => format!("calls to `{call}`"),
                _ => format!("calls to `{call}` per event"),
            },
            None => self.boundary.name().to_string(),
        };
        format!("{scope}: {} ({})", self.guarantee, parts)
    }
}

/// `3 once, 1 lost`: how many ended once, then each other count that is not zero.
pub fn tally(once: u64, others: &[(u64, &str)]) -> String {
    let mut parts = format!("{once} once");
    for (n, what) in others.iter().filter(|(n, _)| *n > 0) {
        let _ = write!(parts, ", {n} {what}");
    }
    parts
}

/// How one unit fared within one boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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
    pub(super) fn of(expected: bool, effects: u32) -> ScopeOutcome {
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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
    /// The external services called (`{"external"}` steps) whose calls are a boundary of
    /// their own: every one but the business effect's.
    pub calls: &'a [&'static str],
}

impl Verdict {
    /// The named database the effects per event were counted on, if not the main one.
    pub fn effect(&self) -> Option<crate::model::Effect> {
        (self.boundaries.iter())
            .find(|b| b.boundary == Scope::LedgerPerEvent)
            .and_then(|b| b.effect)
    }

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
            let named = !e.crash_points.is_empty() || !e.gave_up.is_empty();
            let keep = named || (notable && kept_others < MAX_KEPT_REPORTS);
            if !named && keep {
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
                    + heap(e.crash_points.capacity(), size_of::<BoundaryPoint>())
                    + heap(
                        e.gave_up.capacity(),
                        size_of::<crate::model::GaveUpRecord>(),
                    )
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
