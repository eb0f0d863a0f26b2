//! Steps a scenario writes in SQL (issue 15): their definitions (a name, the statements run
//! in order, how the database says "already processed"), and the interned names that let a
//! SQL step be a `Copy` [`Step`](super::Step) like the built-in ones.
//!
//! A crash point names a step, and crash points are copied everywhere (plans, traces,
//! exploration's schedules), so a step is a small `Copy` value. A SQL step's identity is
//! its name; the name is interned once per process into a `&'static str`, so equal names
//! are equal steps whichever scenario defined them, and the definition (its statements)
//! stays with the protocol that owns it.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::sync::Mutex;

/// How a SQL step tells that the delivery's event was already processed. The consumer then
/// rolls back its open transaction and acks, as with the built-in inbox.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DuplicateIf {
    /// The statement failed on a `UNIQUE` or `PRIMARY KEY` constraint (an insert-first
    /// inbox: `INSERT INTO processed_event …`).
    UniqueViolation,
    /// The statement returned a row (check-then-act: `SELECT 1 FROM … WHERE event_id = …`).
    Row,
    /// The statement changed no row (`INSERT … ON CONFLICT DO NOTHING`).
    NoChange,
}

impl DuplicateIf {
    pub fn name(self) -> &'static str {
        match self {
            DuplicateIf::UniqueViolation => "unique_violation",
            DuplicateIf::Row => "row",
            DuplicateIf::NoChange => "no_change",
        }
    }
}

/// One SQL step of a protocol: run on the consumer's connection to its database (the main
/// one, or one of `store.databases`), its statements in order (crash points at the step's
/// boundaries, not between its statements), with named parameters bound from the delivery
/// and from the results earlier steps kept (`:claim.count`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SqlStep {
    pub name: &'static str,
    pub statements: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duplicate_if: Option<DuplicateIf>,
    /// The database it runs on: 0, the main one, or the `db`-th of `store.databases`.
    #[serde(skip_serializing_if = "is_main")]
    pub db: u8,
    /// The name the first row of its last statement is kept under, for later steps
    /// ([`super::named`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub into: Option<&'static str>,
    /// It runs only when this holds; else it is skipped, with no crash point.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when: Option<super::named::Condition>,
    /// `duplicate_if: {"when": …}`: after it ran (and kept its row), the event counts as
    /// processed before when this holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duplicate_when: Option<super::named::Condition>,
    /// After it ran, the protocol goes on at the earlier step of this name (a loop), not
    /// the next one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub goto: Option<&'static str>,
    /// Its own error handler (a `try`/`catch` around it): when it fails, the consumer goes
    /// on at a later step instead of following the protocol's error policy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub catch: Option<Catch>,
}

/// A step's own error handler: roll back the open transactions or not, then go on at the
/// later step `continue_at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Catch {
    pub rollback: bool,
    pub continue_at: &'static str,
}

/// What a SQL step came to: its outcome and, for a step with `into` whose statements all
/// ran, the first row of its last statement (`None`: it returned no row).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SqlRan {
    pub outcome: super::DbOutcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row: Option<super::named::Row>,
}

impl From<super::DbOutcome> for SqlRan {
    fn from(outcome: super::DbOutcome) -> SqlRan {
        SqlRan { outcome, row: None }
    }
}

impl SqlStep {
    /// Whether the consumer decides more than the statements' outcome for it: a result to
    /// keep, a condition to test, a jump.
    pub fn has_flow(&self) -> bool {
        self.into.is_some()
            || self.when.is_some()
            || self.duplicate_when.is_some()
            || self.goto.is_some()
            || self.catch.is_some()
    }
}

fn is_main(db: &u8) -> bool {
    *db == 0
}

/// The parameters every SQL statement may name, bound from the delivery in hand, besides
/// the fields of the event's payload (`workload.payloads`).
pub const DELIVERY_PARAMETERS: [&str; 5] =
    ["event_id", "event_type", "now", "delivery", "consumer"];

/// The parameters a log broker's delivery adds, Kafka's coordinates of the record in hand:
/// its partition and offset, and the topic and consumer group (one of each in a run:
/// [`LOG_TOPIC`], [`LOG_GROUP`]). Dedup keyed by them is what a Kafka consumer that stores
/// its offsets writes.
pub const LOG_PARAMETERS: [&str; 4] = ["offset", "partition", "topic", "group"];

/// The topic of a simulated log: a run has one.
pub const LOG_TOPIC: &str = "events";

/// The consumer group of a run's consumers on a log: a run has one.
pub const LOG_GROUP: &str = "delivery-sim";

/// Where a log's record sits: its partition and its offset in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogPlace {
    pub partition: u32,
    pub offset: u64,
}

/// The parameters a check query may name: the event's identity and payload, not the
/// delivery (a check reads what is committed, after every delivery).
pub const EVENT_PARAMETERS: [&str; 2] = ["event_id", "event_type"];

pub use super::value::SqlValue;

/// One workload event as SQL statements see it: its identity, its type and its payload's
/// fields (`workload.payloads`, cycled over the events).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SqlEvent {
    pub event_id: String,
    pub event_type: String,
    pub payload: Vec<(String, SqlValue)>,
}

/// Everything a SQL step's named parameters are bound from: the event, the virtual time
/// and the delivery in hand.
#[derive(Clone, Copy, Debug)]
pub struct SqlBinding<'a> {
    pub event: &'a SqlEvent,
    pub now: super::Tick,
    pub delivery: u32,
    pub consumer: usize,
    /// On a log broker, where the delivery's record sits ([`LOG_PARAMETERS`]).
    pub log: Option<LogPlace>,
    /// The results earlier steps kept (`:claim.count`), if the statement may name them.
    pub named: Option<&'a super::named::NamedResults>,
}

impl SqlBinding<'_> {
    /// The value of parameter `name` (without its `:`); `None` for a name that is neither a
    /// delivery parameter nor a payload field (refused when the scenario loads).
    pub fn get(&self, name: &str) -> Option<SqlValue> {
        Some(match name {
            "now" => SqlValue::Integer(self.now as i64),
            "delivery" => SqlValue::Integer(i64::from(self.delivery)),
            "consumer" => SqlValue::Integer(self.consumer as i64),
            "offset" => SqlValue::Integer(i64::try_from(self.log?.offset).unwrap_or(i64::MAX)),
            "partition" => SqlValue::Integer(i64::from(self.log?.partition)),
            "topic" => SqlValue::Text(self.log.map(|_| LOG_TOPIC.to_string())?),
            "group" => SqlValue::Text(self.log.map(|_| LOG_GROUP.to_string())?),
            _ => return self.event.field(name),
        })
    }
}

impl SqlBinding<'_> {
    /// The value of parameter `name`, a kept result's column (`claim.count`, `NULL` when
    /// no row was kept) included.
    pub fn value(&self, name: &str) -> Option<super::value::Value> {
        match self.named.and_then(|n| n.parameter(name)) {
            Some(v) => Some(v),
            None => self.get(name).map(super::value::Value::from),
        }
    }
}

impl SqlEvent {
    /// The value of parameter `name` for a check query, which sees the event only.
    pub fn field(&self, name: &str) -> Option<SqlValue> {
        match name {
            "event_id" => Some(SqlValue::Text(self.event_id.clone())),
            "event_type" => Some(SqlValue::Text(self.event_type.clone())),
            _ => self
                .payload
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone()),
        }
    }
}

/// The most distinct SQL step names one process interns. A scenario has at most
/// `Protocol::MAX_STEPS` of them; the bound keeps a long-lived process (a folder of
/// thousands of files) from growing without limit.
pub const MAX_INTERNED_NAMES: usize = 65_536;

static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());

/// The `&'static str` for `name`, the same one for equal names; `None` past
/// [`MAX_INTERNED_NAMES`] distinct names.
pub fn intern(name: &str) -> Option<&'static str> {
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(known) = names.get(name) {
        return Some(known);
    }
    if names.len() >= MAX_INTERNED_NAMES {
        return None;
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.insert(leaked);
    Some(leaked)
}

/// The interned name equal to `name`, if some scenario of this process defined it.
pub fn interned(name: &str) -> Option<&'static str> {
    NAMES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(name)
        .copied()
}

/// Whether `name` may name a SQL step: it must be writable in a crash point
/// (`after:NAME#2 e0 d1`), so lower-case ASCII letters, digits and `_`, starting with a
/// letter, at most 40 characters.
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase())
        && name.len() <= 40
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_names_intern_to_the_same_str() {
        let a = intern("claim_for_test").unwrap();
        let b = intern(&String::from("claim_for_test")).unwrap();
        assert!(std::ptr::eq(a, b));
        assert_eq!(interned("claim_for_test"), Some(a));
        assert_eq!(interned("never_defined_anywhere"), None);
    }

    #[test]
    fn a_log_delivery_binds_its_record_s_coordinates_and_a_queue_s_none() {
        let event = SqlEvent::default();
        let on = |log| SqlBinding {
            event: &event,
            now: 3,
            delivery: 2,
            consumer: 1,
            log,
            named: None,
        };
        let log = on(Some(LogPlace {
            partition: 2,
            offset: 41,
        }));
        assert_eq!(log.get("offset"), Some(SqlValue::Integer(41)));
        assert_eq!(log.get("partition"), Some(SqlValue::Integer(2)));
        assert_eq!(log.get("topic"), Some(SqlValue::Text(LOG_TOPIC.into())));
        assert_eq!(log.get("group"), Some(SqlValue::Text(LOG_GROUP.into())));
        let queue = on(None);
        for p in LOG_PARAMETERS {
            assert_eq!(queue.get(p), None, "{p}");
        }
        assert_eq!(queue.get("delivery"), Some(SqlValue::Integer(2)));
    }

    #[test]
    fn names_are_what_a_crash_point_can_spell() {
        for ok in ["claim", "reserve_2", "a"] {
            assert!(valid_name(ok), "{ok}");
        }
        for bad in [
            "",
            "Claim",
            "2nd",
            "claim#2",
            "after:x",
            "a b",
            &"x".repeat(41),
        ] {
            assert!(!valid_name(bad), "{bad}");
        }
    }
}
