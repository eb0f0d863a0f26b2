//! The shared vocabulary of the simulator: virtual time, the workload's events, the
//! consumer's steps and protocols, and the names of crash points.
//!
//! Everything here is plain data with no behaviour beyond validation and formatting, so
//! every other module may depend on it and it depends on nothing of the crate. Keeping the
//! vocabulary in one leaf module is what lets the actors stay ignorant of each other.

mod answer;
mod committed;
mod engine;
mod half_done;
pub mod handler;
mod host;
pub mod named;
mod point;
mod policy;
mod protocol;
mod refusal;
pub mod sql;
#[cfg(any(test, feature = "test-support"))]
pub use protocol::MARK_OWN_TRANSACTION;
pub mod trace;
mod value;
mod workload;

pub use answer::{AckOutcome, DbOutcome, Delivery, MessageId};
pub use committed::{CheckValue, CommittedState, InvariantResult, LedgerCounts, PayloadAlertRow};
pub use engine::{Engine, Isolation};
pub use half_done::{HalfDone, StepFaults};
pub use host::Host;
pub use named::{Condition, ConditionError, NamedResults};
pub use point::{
    occurrence, split_occurrence, Boundary, BoundaryPoint, CrashCause, PointError, Side,
};
pub use policy::{ErrorPolicy, GaveUpRecord, GiveUp, PolicyError, Retry};
pub use protocol::{
    built_ins, BuiltIn, CommitTimeoutStrategy, Protocol, ProtocolError, Step, StepActor,
};
pub use refusal::{
    BrokenTransaction, DialectHint, NoDatabase, RefusalReason, SandboxRule, SqlFailure, SqlRefusal,
};
pub use sql::{Catch, DuplicateIf, LogPlace, SqlBinding, SqlEvent, SqlRan, SqlStep, SqlValue};
pub use trace::{Confirmation, Limit, Publication, TraceKind};
pub use workload::{Account, Event, EventType};

/// Virtual time. One tick is the cost of one consumer step; nothing in the simulator reads
/// a wall clock, so a tick has no length in seconds.
pub type Tick = u64;

/// The index of a workload event in publication order (0-based), stable across runs of the
/// same scenario and the key by which crash points and anomalies name an event.
pub type EventIndex = usize;

/// The identity of one consumer process in a run (0-based).
pub type ConsumerId = usize;

/// A side effect outside the database, as the outside world saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct ExternalEffect {
    /// The service called: `None` for the built-in `external_effect` (an email) and the
    /// email relay's sends; `Some(service)` for a protocol's named call (`{"external"}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<&'static str>,
    pub tick: Tick,
    pub event: EventIndex,
    pub copy: u32,
    pub delivery: u32,
}

/// A guarantee's boundary (the seeds' *frontera*): what is counted, per what identity. A
/// verdict is given per scope, because "exactly-once" without a scope says nothing.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Ledger effects per published event (`event_id`): what an inbox protects.
    LedgerPerEvent,
    /// Ledger effects per business intent (`transfer_id`), against the transfers the
    /// producer committed: end to end.
    LedgerPerIntent,
    /// Emails the mail service accepted, per event whose effect committed.
    Email,
    /// Committed messages on the broker's output topic, per event.
    OutputTopic,
    /// Calls to one external service (a protocol's `{"external": "<service>"}` step), per
    /// event whose effect committed; the service is the verdict's [`Effect::External`].
    Call,
}

/// Where a scenario's business effect lives, when not in its main database: a named
/// database (`{"db": "api"}`) or the calls to a named external service
/// (`{"external": "topup"}`), as `check.effect` declares it. The headline verdict is the
/// guarantee there.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// Rows of one of `store.databases`, counted by `check.effects_per_event`.
    Db(&'static str),
    /// Calls to the external service of that name, counted per event.
    External(&'static str),
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::LedgerPerEvent => "ledger per event",
            Scope::LedgerPerIntent => "ledger per intent",
            Scope::Email => "email",
            Scope::OutputTopic => "output topic",
            Scope::Call => "service calls",
        }
    }

    /// The JSON name (`ledger_per_event`, …).
    pub fn key(self) -> &'static str {
        match self {
            Scope::LedgerPerEvent => "ledger_per_event",
            Scope::LedgerPerIntent => "ledger_per_intent",
            Scope::Email => "email",
            Scope::OutputTopic => "output_topic",
            Scope::Call => "call",
        }
    }
}

/// What a run, or a set of runs, guarantees about effects per event, judged from the
/// committed database: no loss and no duplicate is `exactly-once` (effectively once).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
pub enum Guarantee {
    #[serde(rename = "exactly-once")]
    ExactlyOnce,
    #[serde(rename = "at-least-once")]
    AtLeastOnce,
    #[serde(rename = "at-most-once")]
    AtMostOnce,
    #[serde(rename = "none")]
    None,
}

impl Guarantee {
    /// The guarantee that follows from whether any event was lost and any duplicated.
    pub fn from_anomalies(lost: bool, duplicated: bool) -> Guarantee {
        match (lost, duplicated) {
            (false, false) => Guarantee::ExactlyOnce,
            (false, true) => Guarantee::AtLeastOnce,
            (true, false) => Guarantee::AtMostOnce,
            (true, true) => Guarantee::None,
        }
    }

    /// The weakest of `all`: what holds of every one (exactly-once for none).
    pub fn weakest(all: impl IntoIterator<Item = Guarantee>) -> Guarantee {
        let (mut loses, mut duplicates) = (false, false);
        for g in all {
            loses |= matches!(g, Guarantee::AtMostOnce | Guarantee::None);
            duplicates |= matches!(g, Guarantee::AtLeastOnce | Guarantee::None);
        }
        Guarantee::from_anomalies(loses, duplicates)
    }

    pub fn name(self) -> &'static str {
        match self {
            Guarantee::ExactlyOnce => "exactly-once",
            Guarantee::AtLeastOnce => "at-least-once",
            Guarantee::AtMostOnce => "at-most-once",
            Guarantee::None => "none",
        }
    }
}

impl std::fmt::Display for Guarantee {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The bytes a heap allocation of `n` items of `size` bytes takes, counting an allocator's
/// usual overhead (16 bytes); none for an empty list. For the memory budgets of commands
/// that keep many runs.
pub fn heap(n: usize, size: usize) -> u64 {
    if n == 0 || size == 0 {
        0
    } else {
        (n * size) as u64 + 16
    }
}
