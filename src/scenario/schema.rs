//! The scenario file's JSON schema, as serde types close to the text. Unknown fields are
//! errors everywhere; every field but `protocol` has a default. Values are checked and
//! turned into a [`super::Scenario`] by `validate`, and `write` fills them back from a
//! scenario to print it (empty lists and default sections are left out).

use super::Expect;
use crate::broker::{PartitionKey, StaleAck};
use crate::consumer::CommitTimeoutStrategy;
use crate::store::{EffectMode, OutOfOrder};
use serde::{Deserialize, Serialize};

#[derive(Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// A built-in protocol's name, or `{"name", "description"?, "steps"}`.
    pub protocol: RawProtocol,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consumers: Option<u64>,
    #[serde(default, skip_serializing_if = "is_default")]
    pub workload: RawWorkload,
    #[serde(default, skip_serializing_if = "is_default")]
    pub store: RawStore,
    #[serde(default, skip_serializing_if = "is_default")]
    pub broker: RawBroker,
    #[serde(default, skip_serializing_if = "is_default")]
    pub consumer: RawConsumer,
    #[serde(default, skip_serializing_if = "is_default")]
    pub faults: RawFaults,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
    #[serde(default, skip_serializing_if = "is_default")]
    pub limits: RawLimits,
    #[serde(default, skip_serializing_if = "is_default")]
    pub producer: RawProducer,
    #[serde(default, skip_serializing_if = "is_default")]
    pub email: RawEmail,
}

#[derive(Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawProducer {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<crate::producer::ProducerMode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub identity: Option<crate::producer::Identity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub database: Option<crate::producer::ProducerDatabase>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry: Option<bool>,
}

#[derive(Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawEmail {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<bool>,
}

#[derive(Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawPublishFault {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
}

#[derive(Debug, PartialEq)]
pub enum RawProtocol {
    Named(String),
    Custom(RawCustomProtocol),
}

/// By hand rather than `#[serde(untagged)]`, so that an error inside a custom protocol
/// (an unknown field, a missing `steps`) is reported as itself, with its path.
impl<'de> Deserialize<'de> for RawProtocol {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = RawProtocol;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    "a built-in protocol name (a string) or an object {\"name\", \"steps\"}",
                )
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawProtocol, E> {
                Ok(RawProtocol::Named(v.to_string()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<RawProtocol, A::Error> {
                RawCustomProtocol::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(RawProtocol::Custom)
            }
        }
        d.deserialize_any(V)
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

#[derive(Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawCustomProtocol {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub steps: Vec<String>,
}

#[derive(Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawWorkload {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accounts: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount_minor: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_balance_minor: Option<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub republish: Vec<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub republish_altered: Vec<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invalid: Vec<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lifecycle: Option<bool>,
}

#[derive(Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawStore {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inbox_unique: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effect: Option<EffectMode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub business_key_unique: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inbox_ttl_ticks: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cleanup_every_ticks: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cleanup_batch: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub out_of_order: Option<OutOfOrder>,
}

#[derive(Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawBroker {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redelivery_delay_ticks: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_deliveries: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lease_ticks: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale_ack: Option<StaleAck>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivery_jitter_ticks: Option<u64>,
    /// `queue` (default) or `log`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<BrokerKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partitions: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<PartitionKey>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit_every: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_commit: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transactional: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay_dead_letters_at_tick: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub late_redelivery_ticks: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BrokerKind {
    Queue,
    Log,
}

#[derive(Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawConsumer {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restart_delay_ticks: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_commit_timeout: Option<CommitTimeoutStrategy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completion_delay_ticks: Option<u64>,
}

#[derive(Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawFaults {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub crash: Vec<RawCrash>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
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

#[derive(Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawCommitTimeout {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivery: Option<u32>,
    pub applied: bool,
}

#[derive(Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawStall {
    pub at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivery: Option<u32>,
    pub ticks: u64,
}

#[derive(Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawDeliveryFault {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivery: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
}

#[derive(Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawCrash {
    pub at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivery: Option<u32>,
}

#[derive(Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawRandomCrash {
    pub per_step_ppm: u32,
    pub max_crashes: u32,
}

#[derive(Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawFail {
    pub at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivery: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until_tick: Option<u64>,
}

#[derive(Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawLimits {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_ticks: Option<u64>,
}
