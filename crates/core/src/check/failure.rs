//! The one definition of "this run failed", used by every command: `run`, `explore`,
//! `explain`, `shrink`, `sweep`, `matrix`, `crosscheck` and the property tests.
//!
//! A run fails in two ways, reported together:
//! - it breaks a property of "exactly once": an event lost (dead-lettered included),
//!   duplicated, stuck or wrongly applied, a boundary not exactly-once, balances not
//!   conserved, an event never acked. These are the run's [`FailureSignature`]: what a sweep
//!   counts as a finding and what shrinking keeps. Whether such a run *fails its scenario*
//!   depends on what the scenario expects (`expect`); a scenario may expect duplicates.
//! - it fails liveness ([`liveness_failure`]): a limit stopped the healing phase, or an
//!   event is stuck. No scenario expects that: a run that cannot finish fails, whatever
//!   else it states, and every command exits 1 on it.

use super::{EventIndex, LivenessFailure, Outcome, Verdict};
use crate::model::{Guarantee, Scope};
use crate::scenario::Limits;
use crate::sim::StopReason;
use serde::{Serialize, Serializer};
use std::collections::BTreeSet;
use std::fmt;

/// One way a run fails: what `sweep` counts as a finding, one property at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FailureKind {
    /// An event with no committed effect that nothing will redo (ledger per event).
    Lost,
    /// An event whose effect committed more than once (ledger per event).
    Duplicated,
    /// Of the lost events, one the broker dead-lettered.
    DeadLettered,
    /// An event the run could not resolve: a liveness failure.
    Stuck,
    /// An event applied with an altered copy's payload instead of its own.
    WrongEffect,
    /// An event the projection rejected as out of order.
    Rejected,
    /// A completion still buffered when the run ended.
    Pending,
    /// Balances not conserved: a torn effect or a lost update.
    Unconserved,
    /// An event never acked.
    Unacked,
    /// A limit stopped the run (its healing phase).
    Limited,
    /// A guarantee boundary not exactly-once for another reason than those above: any
    /// boundary beyond the ledger per event, or the ledger per event broken by ghosts.
    Broken(Scope),
}

impl FailureKind {
    /// The JSON name: `lost`, `dead_lettered`, `broken_email`, …
    pub fn key(self) -> String {
        match self {
            FailureKind::Lost => "lost".into(),
            FailureKind::Duplicated => "duplicated".into(),
            FailureKind::DeadLettered => "dead_lettered".into(),
            FailureKind::Stuck => "stuck".into(),
            FailureKind::WrongEffect => "wrong_effect".into(),
            FailureKind::Rejected => "rejected".into(),
            FailureKind::Pending => "pending".into(),
            FailureKind::Unconserved => "unconserved".into(),
            FailureKind::Unacked => "unacked".into(),
            FailureKind::Limited => "limited".into(),
            FailureKind::Broken(scope) => format!("broken_{}", scope.key()),
        }
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureKind::DeadLettered => f.write_str("dead-lettered"),
            FailureKind::WrongEffect => f.write_str("wrong effect"),
            FailureKind::Broken(scope) => write!(f, "{} broken", scope.name()),
            other => f.write_str(&other.key()),
        }
    }
}

impl Serialize for FailureKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.key())
    }
}

impl schemars::JsonSchema for FailureKind {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "FailureKind".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        use crate::model::Scope;
        // The lists below name every kind: a new kind fails this match until it is added.
        let _every_kind_listed = |k: FailureKind| match k {
            FailureKind::Lost
            | FailureKind::Duplicated
            | FailureKind::DeadLettered
            | FailureKind::Stuck
            | FailureKind::WrongEffect
            | FailureKind::Rejected
            | FailureKind::Pending
            | FailureKind::Unconserved
            | FailureKind::Unacked
            | FailureKind::Limited
            | FailureKind::Broken(
                Scope::LedgerPerEvent
                | Scope::LedgerPerIntent
                | Scope::Email
                | Scope::OutputTopic
                | Scope::Call,
            ) => (),
        };
        let scopes = [
            Scope::LedgerPerEvent,
            Scope::LedgerPerIntent,
            Scope::Email,
            Scope::OutputTopic,
            Scope::Call,
        ];
        let kinds: Vec<String> = [
            FailureKind::Lost,
            FailureKind::Duplicated,
            FailureKind::DeadLettered,
            FailureKind::Stuck,
            FailureKind::WrongEffect,
            FailureKind::Rejected,
            FailureKind::Pending,
            FailureKind::Unconserved,
            FailureKind::Unacked,
            FailureKind::Limited,
        ]
        .into_iter()
        .chain(scopes.map(FailureKind::Broken))
        .map(FailureKind::key)
        .collect();
        schemars::json_schema!({
            "type": "string",
            "enum": kinds,
            "description": "A property a run breaks."
        })
    }
}

/// How a run fails: the set of properties it breaks. Two runs fail "the same way" when
/// their signatures are equal; an empty signature is a run that does not fail.
#[derive(
    Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema,
)]
#[serde(transparent)]
pub struct FailureSignature(pub BTreeSet<FailureKind>);

impl FailureSignature {
    /// The properties a run with verdict `v` that ended at `stop` breaks.
    pub fn of(v: &Verdict, stop: StopReason) -> FailureSignature {
        let mut kinds = BTreeSet::new();
        let any = |o: Outcome| v.events.iter().any(|e| e.outcome == o);
        let per_event_explained = v.lost + v.duplicated + v.stuck + v.wrong_effects > 0;
        for b in &v.boundaries {
            let explained = b.boundary == Scope::LedgerPerEvent && per_event_explained;
            if b.guarantee != Guarantee::ExactlyOnce && !explained {
                kinds.insert(FailureKind::Broken(b.boundary));
            }
        }
        for (broken, kind) in [
            (v.lost > 0, FailureKind::Lost),
            (v.duplicated > 0, FailureKind::Duplicated),
            (any(Outcome::DeadLettered), FailureKind::DeadLettered),
            (v.stuck > 0, FailureKind::Stuck),
            (v.wrong_effects > 0, FailureKind::WrongEffect),
            (v.rejected > 0, FailureKind::Rejected),
            (v.pending > 0, FailureKind::Pending),
            (!v.conserved, FailureKind::Unconserved),
            (!v.all_acked, FailureKind::Unacked),
            (stop != StopReason::Quiescent, FailureKind::Limited),
        ] {
            if broken {
                kinds.insert(kind);
            }
        }
        FailureSignature(kinds)
    }

    /// Whether the run broke nothing.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether the run failed liveness (see [`liveness_failure`]).
    pub fn fails_liveness(&self) -> bool {
        self.0.contains(&FailureKind::Stuck) || self.0.contains(&FailureKind::Limited)
    }
}

impl fmt::Display for FailureSignature {
    /// `duplicated, unacked`, or `nothing` for a run that does not fail.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("nothing");
        }
        let names: Vec<String> = self.0.iter().map(|k| k.to_string()).collect();
        f.write_str(&names.join(", "))
    }
}

/// The liveness failure of a run: a limit stopped it (`healed`: the healing phase's), or
/// events are stuck. `None` when the run ended by itself with every event resolved. Every
/// run is expected to finish, stated or not, so this is a failed expectation of every
/// scenario.
pub fn liveness_failure(
    stop: StopReason,
    healed: bool,
    limits: &Limits,
    v: &Verdict,
) -> Option<LivenessFailure> {
    let limit = match stop {
        StopReason::Quiescent if v.stuck == 0 => return None,
        StopReason::Quiescent => None,
        StopReason::StepLimit => Some(limits.max_steps),
        StopReason::TickLimit => Some(limits.max_ticks),
        StopReason::TraceLimit => Some(crate::scenario::bounds::MAX_TRACE_ENTRIES as u64),
        StopReason::SqlLimit => Some(crate::scenario::bounds::MAX_RUN_SQL_VM_STEPS),
    };
    // The stuck events, and when a limit stopped the run, every other one the broker still
    // holds (one applied twice and still redelivered is duplicated, and not done either).
    let limited = stop != StopReason::Quiescent;
    let stuck: Vec<EventIndex> = v
        .events
        .iter()
        .filter(|e| {
            e.outcome == Outcome::Stuck
                || (limited && !e.acked && e.outcome != Outcome::DeadLettered)
        })
        .map(|e| e.event)
        .collect();
    Some(LivenessFailure {
        stop,
        healing_phase: healed && limited,
        limit,
        stuck_count: stuck.len() as u64,
        stuck: stuck.into_iter().take(LivenessFailure::NAMED).collect(),
    })
}
