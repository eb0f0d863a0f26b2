//! The scenario file's JSON schema, as serde types close to the text. Unknown fields are
//! errors everywhere; every field but `protocol` has a default. Values are checked and
//! turned into a [`super::Scenario`] by `validate`, and `write` fills them back from a
//! scenario to print it (empty lists and default sections are left out).

use super::Expect;
use crate::broker::{PartitionKey, StaleAck};
use crate::consumer::CommitTimeoutStrategy;
use crate::store::{EffectMode, OutOfOrder};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[serde_with::skip_serializing_none]
#[derive(Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<RawDescription>,
    #[serde(default)]
    pub seed: Option<u64>,
    /// A built-in protocol's name, or `{"name", "description"?, "steps"}`.
    pub protocol: RawProtocol,
    #[serde(default)]
    pub consumers: Option<u64>,
    #[serde(default, skip_serializing_if = "is_default")]
    pub workload: RawWorkload,
    #[serde(default, skip_serializing_if = "is_default")]
    pub store: RawStore,
    /// With `store.schema`: how the scenario's own database is judged.
    #[serde(default)]
    pub check: Option<RawCheck>,
    #[serde(default, skip_serializing_if = "is_default")]
    pub broker: RawBroker,
    #[serde(default, skip_serializing_if = "is_default")]
    pub consumer: RawConsumer,
    #[serde(default, skip_serializing_if = "is_default")]
    pub faults: RawFaults,
    #[serde(default)]
    pub expect: Option<Expect>,
    #[serde(default, skip_serializing_if = "is_default")]
    pub limits: RawLimits,
    #[serde(default, skip_serializing_if = "is_default")]
    pub producer: RawProducer,
    #[serde(default, skip_serializing_if = "is_default")]
    pub email: RawEmail,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawCheck {
    /// Where the business effect lives, when not in the main database: `{"db": "api"}`
    /// (counted there by `effects_per_event`) or `{"external": "topup"}` (the calls to an
    /// external service, counted per event). The headline verdict is the guarantee there.
    pub effect: Option<RawEffect>,
    /// The query counting one event's effects: on the main database, or `{"sql", "db"}`
    /// on one of `store.databases` (where the effect lives: an API's records).
    pub effects_per_event: Option<RawQuery>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invariants: Vec<RawQuery>,
}

/// `check.effect`: where the business effect lives.
#[derive(Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RawEffect {
    /// One of `store.databases` (or `main`), where `effects_per_event` counts it.
    Db(String),
    /// The calls to the external service a protocol step `{"external": …}` names.
    External(String),
}

/// By hand, so that an object with both keys or neither is told what to write.
impl<'de> Deserialize<'de> for RawEffect {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Fields {
            db: Option<String>,
            external: Option<String>,
        }
        match Fields::deserialize(d)? {
            Fields {
                db: Some(db),
                external: None,
            } => Ok(RawEffect::Db(db)),
            Fields {
                db: None,
                external: Some(service),
            } => Ok(RawEffect::External(service)),
            _ => Err(serde::de::Error::custom(
                "give one of {\"db\": \"<database>\"} (the effect is rows of that database) \
                 or {\"external\": \"<service>\"} (the effect is the calls to that service)",
            )),
        }
    }
}

/// A check query: its SQL on the main database, or an object naming another database.
#[derive(Debug, PartialEq, schemars::JsonSchema)]
#[schemars(untagged)]
pub enum RawQuery {
    Main(String),
    On(RawQueryOn),
}

#[derive(Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawQueryOn {
    pub sql: String,
    pub db: String,
}

impl<'de> Deserialize<'de> for RawQuery {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NameOrObject {
            expecting: "a query (a string) or {\"sql\", \"db\"} for one on a named database",
            named: RawQuery::Main,
            object: RawQuery::On,
        })
    }
}

impl Serialize for RawQuery {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RawQuery::Main(sql) => s.serialize_str(sql),
            RawQuery::On(q) => q.serialize(s),
        }
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawProducer {
    pub mode: Option<crate::producer::ProducerMode>,
    pub identity: Option<crate::producer::Identity>,
    pub database: Option<crate::producer::ProducerDatabase>,
    pub retry: Option<bool>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawEmail {
    pub idempotency_key: Option<bool>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawPublishFault {
    pub event: Option<u64>,
    pub times: Option<u32>,
}

/// A scenario's description: one text, or one per language (`{"en": …, "es": …}`), which
/// reports show in the language they are asked for.
#[derive(Debug, PartialEq, schemars::JsonSchema)]
#[schemars(untagged)]
pub enum RawDescription {
    One(String),
    Languages(RawLanguages),
}

impl<'de> Deserialize<'de> for RawDescription {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NameOrObject {
            expecting: "a text, or one per language {\"en\", \"es\"}",
            named: RawDescription::One,
            object: RawDescription::Languages,
        })
    }
}

impl Serialize for RawDescription {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RawDescription::One(text) => s.serialize_str(text),
            RawDescription::Languages(l) => l.serialize(s),
        }
    }
}

#[derive(Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawLanguages {
    pub en: String,
    pub es: String,
}

#[derive(Debug, PartialEq, schemars::JsonSchema)]
#[schemars(untagged)]
pub enum RawProtocol {
    Named(String),
    Custom(RawCustomProtocol),
}

/// A value written as a name (a string) or as an object. By hand rather than
/// `#[serde(untagged)]`, so that an error inside the object (an unknown field, a missing
/// one) is reported as itself, with its path.
struct NameOrObject<T, O> {
    expecting: &'static str,
    named: fn(String) -> T,
    object: fn(O) -> T,
}

impl<'de, T, O: Deserialize<'de>> serde::de::Visitor<'de> for NameOrObject<T, O> {
    type Value = T;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.expecting)
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<T, E> {
        Ok((self.named)(v.to_string()))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        O::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(self.object)
    }
}

impl<'de> Deserialize<'de> for RawProtocol {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NameOrObject {
            expecting: "a built-in protocol name (a string) or an object {\"name\", \"steps\"}",
            named: RawProtocol::Named,
            object: RawProtocol::Custom,
        })
    }
}

/// A built-in protocol as its name, a custom one as its object: what the file would say.
impl Serialize for RawProtocol {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RawProtocol::Named(name) => s.serialize_str(name),
            RawProtocol::Custom(c) => c.serialize(s),
        }
    }
}

/// Whether a section equals its default, so that writing a scenario leaves it out.
fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

#[serde_with::skip_serializing_none]
#[derive(Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawCustomProtocol {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    pub steps: Vec<RawStep>,
    /// What the consumer does when a step fails: `"redeliver"` (the default), `"ack"`,
    /// `"dead_letter"`, or an object with `retry`, compensating `steps` and `then`.
    pub on_error: Option<RawOnError>,
}

/// An error policy: what ends a failed delivery, by name, or the whole policy.
#[derive(Debug, PartialEq, schemars::JsonSchema)]
#[schemars(untagged)]
pub enum RawOnError {
    Named(String),
    Policy(RawErrorPolicy),
}

impl<'de> Deserialize<'de> for RawOnError {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NameOrObject {
            expecting: "\"redeliver\", \"ack\", \"dead_letter\" or an object \
                        {\"retry\", \"steps\", \"then\"}",
            named: RawOnError::Named,
            object: RawOnError::Policy,
        })
    }
}

impl Serialize for RawOnError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RawOnError::Named(name) => s.serialize_str(name),
            RawOnError::Policy(p) => p.serialize(s),
        }
    }
}

/// An error policy in full: in-process retries, compensating steps run after the
/// rollback of every failed attempt, and what ends the delivery after the last one.
#[serde_with::skip_serializing_none]
#[derive(Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawErrorPolicy {
    pub retry: Option<RawRetry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<RawCompensation>,
    /// `"redeliver"` (the default), `"ack"` or `"dead_letter"`.
    pub then: Option<String>,
}

/// A compensating step: `begin` or `commit` by name, or a SQL step (which says nothing
/// of duplicates: it runs after a failure, to undo).
#[derive(Debug, PartialEq, schemars::JsonSchema)]
#[schemars(untagged)]
pub enum RawCompensation {
    Named(String),
    Sql(RawCompensationSql),
}

impl<'de> Deserialize<'de> for RawCompensation {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NameOrObject {
            expecting: "\"begin\", \"commit\" or a SQL step {\"name\", \"sql\"}",
            named: RawCompensation::Named,
            object: RawCompensation::Sql,
        })
    }
}

impl Serialize for RawCompensation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RawCompensation::Named(name) => s.serialize_str(name),
            RawCompensation::Sql(step) => step.serialize(s),
        }
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawCompensationSql {
    pub name: Option<String>,
    pub sql: RawSql,
    /// One of `store.databases`; the main database when absent.
    pub db: Option<String>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawRetry {
    /// Retries after the first failure (1 to 100): `times: 2` is three attempts in all.
    pub times: u64,
    /// Ticks between a failure and its retry, the delivery held meanwhile (0: at once).
    pub backoff_ticks: Option<u64>,
}

/// A step of a custom protocol: a built-in step's name, or a step written in SQL.
#[derive(Debug, PartialEq, schemars::JsonSchema)]
#[schemars(untagged)]
pub enum RawStep {
    Named(String),
    Sql(Box<RawSqlStep>),
}

impl<'de> Deserialize<'de> for RawStep {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NameOrObject {
            expecting: "a step name (a string), a SQL step {\"name\", \"sql\"} or an \
                        external call {\"external\"}",
            named: RawStep::Named,
            object: |step| RawStep::Sql(Box::new(step)),
        })
    }
}

impl Serialize for RawStep {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RawStep::Named(name) => s.serialize_str(name),
            RawStep::Sql(step) => step.serialize(s),
        }
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawSqlStep {
    pub name: Option<String>,
    /// The statements; absent only on an external call (`external`).
    pub sql: Option<RawSql>,
    /// Instead of `sql`: this step calls the external service of this name (a REST API,
    /// a mail service), outside every database; the step is named by the service.
    pub external: Option<String>,
    /// How the step tells that the event was processed before: `"unique_violation"`,
    /// `"row"`, `"no_change"`, or `{"when": "<condition>"}` over named results.
    pub duplicate_if: Option<RawDuplicateIf>,
    /// One of `store.databases`; the main database when absent.
    pub db: Option<String>,
    /// Keep the first row of the last statement under this name: later statements bind
    /// its columns as `:name.column`, conditions read them as `name.column`.
    pub into: Option<String>,
    /// Run the step only when this condition over named results holds.
    pub when: Option<String>,
    /// After the step, go on at this earlier SQL step (a loop), not the next one.
    pub goto: Option<String>,
    /// The step's own error handler: `{"continue_at": "<later step>", "rollback": true}`.
    pub on_error: Option<RawCatch>,
}

/// A step's own error handler (a try/catch around it).
#[serde_with::skip_serializing_none]
#[derive(Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawCatch {
    /// The later step the consumer goes on at after the failure.
    pub continue_at: String,
    /// Roll back the open transactions first (the default), or go on in them.
    pub rollback: Option<bool>,
}

/// `duplicate_if`: one of the database's answers by name, or a condition.
#[derive(Debug, PartialEq, schemars::JsonSchema)]
#[schemars(untagged)]
pub enum RawDuplicateIf {
    Named(crate::model::DuplicateIf),
    When(RawWhen),
}

impl RawDuplicateIf {
    /// The database's answer it names, if it names one.
    pub fn named(&self) -> Option<crate::model::DuplicateIf> {
        match self {
            RawDuplicateIf::Named(d) => Some(*d),
            RawDuplicateIf::When(_) => None,
        }
    }
}

/// `{"when": "<condition>"}`.
#[derive(Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawWhen {
    pub when: String,
}

impl<'de> Deserialize<'de> for RawDuplicateIf {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = RawDuplicateIf;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    "\"unique_violation\", \"row\", \"no_change\", or {\"when\": \"<condition>\"}",
                )
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawDuplicateIf, E> {
                use serde::de::IntoDeserializer;
                crate::model::DuplicateIf::deserialize(v.into_deserializer())
                    .map(RawDuplicateIf::Named)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<RawDuplicateIf, A::Error> {
                RawWhen::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(RawDuplicateIf::When)
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for RawDuplicateIf {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RawDuplicateIf::Named(d) => d.serialize(s),
            RawDuplicateIf::When(w) => w.serialize(s),
        }
    }
}

/// One statement, or a list run in order.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum RawSql {
    One(String),
    Many(Vec<String>),
}

impl RawSql {
    pub fn statements(&self) -> Vec<String> {
        match self {
            RawSql::One(s) => vec![s.clone()],
            RawSql::Many(v) => v.clone(),
        }
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawWorkload {
    pub events: Option<u64>,
    pub accounts: Option<u64>,
    pub amount_minor: Option<i64>,
    pub initial_balance_minor: Option<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub republish: Vec<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub republish_altered: Vec<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invalid: Vec<u64>,
    pub lifecycle: Option<bool>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub payloads: Vec<serde_json::Map<String, serde_json::Value>>,
    pub event_type: Option<String>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawStore {
    pub inbox_unique: Option<bool>,
    pub effect: Option<EffectMode>,
    pub business_key_unique: Option<bool>,
    pub inbox_ttl_ticks: Option<u64>,
    pub cleanup_every_ticks: Option<u64>,
    pub cleanup_batch: Option<u32>,
    pub out_of_order: Option<OutOfOrder>,
    pub schema: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub setup: Vec<String>,
    /// Named databases besides the main one, each its own SQLite database.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub databases: BTreeMap<String, RawDatabase>,
    /// `sqlite` (the default) or `postgres`.
    pub engine: Option<crate::store::pg::Engine>,
    /// On PostgreSQL: `read_committed` (the default, as PostgreSQL's), `repeatable_read`
    /// or `serializable`.
    pub isolation: Option<crate::store::pg::Isolation>,
}

/// A named database: its own schema and rows.
#[derive(Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawDatabase {
    pub schema: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub setup: Vec<String>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawBroker {
    pub redelivery_delay_ticks: Option<u64>,
    pub max_deliveries: Option<u32>,
    pub lease_ticks: Option<u64>,
    pub stale_ack: Option<StaleAck>,
    pub delivery_jitter_ticks: Option<u64>,
    /// `queue` (default) or `log`.
    pub kind: Option<BrokerKind>,
    pub partitions: Option<u64>,
    pub key: Option<PartitionKey>,
    pub commit_every: Option<u32>,
    pub auto_commit: Option<bool>,
    pub transactional: Option<bool>,
    pub replay_dead_letters_at_tick: Option<u64>,
    pub late_redelivery_ticks: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BrokerKind {
    Queue,
    Log,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawConsumer {
    pub restart_delay_ticks: Option<u64>,
    pub on_commit_timeout: Option<CommitTimeoutStrategy>,
    pub completion_delay_ticks: Option<u64>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawFaults {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub crash: Vec<RawCrash>,
    #[serde(default)]
    pub random_crash: Option<RawRandomCrash>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fail: Vec<RawFail>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stall: Vec<RawStall>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lose_ack: Vec<RawDeliveryFault>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub duplicate_delivery: Vec<RawDeliveryFault>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commit_timeout: Vec<RawCommitTimeout>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub publish_timeout: Vec<RawPublishFault>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawCommitTimeout {
    /// `commit#N`: only the N-th commit of a protocol that commits more than once.
    pub at: Option<String>,
    pub event: Option<u64>,
    pub delivery: Option<u32>,
    pub applied: bool,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawStall {
    pub at: String,
    pub event: Option<u64>,
    pub delivery: Option<u32>,
    pub ticks: u64,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawDeliveryFault {
    pub event: Option<u64>,
    pub delivery: Option<u32>,
    pub times: Option<u32>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawCrash {
    pub at: String,
    pub event: Option<u64>,
    pub copy: Option<u32>,
    pub delivery: Option<u32>,
}

#[derive(Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawRandomCrash {
    pub per_step_ppm: u32,
    pub max_crashes: u32,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawFail {
    pub at: String,
    pub event: Option<u64>,
    pub delivery: Option<u32>,
    pub times: Option<u32>,
    pub until_tick: Option<u64>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Default, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawLimits {
    pub max_steps: Option<u64>,
    pub max_ticks: Option<u64>,
}
