//! Scenarios: what one run simulates. A scenario is read from JSON ([`Scenario::from_file`],
//! [`Scenario::from_json`]) or built in code ([`Scenario::new`]), and is always validated
//! plain data: holders of a `Scenario` never re-check it.
//!
//! Every bound lives here (events, accounts, delays, crash counts, steps, virtual time), so
//! that a run has a known worst case before it starts.

mod engine;
mod error;
pub mod problem;
mod reach;
mod schema;
mod strict;
mod validate;
mod write;

pub mod token;
pub use engine::{overridden as engine_overridden, override_engine};
/// Refuses a JSON text in which an object names a key twice (which `serde_json::Value`
/// keeps silently): what scenario files are held to, and what the tests hold every
/// command's JSON output to.
pub use strict::unique_keys;

pub use error::ScenarioError;
pub use reach::{missing_occurrence, Unreached};

/// A fault plan as a scenario file's `faults` section writes it: the one shape every
/// output uses for faults (a sweep's drawn plan, a shrunk run's scenario).
#[derive(Debug, Serialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct FaultsAsWritten(schema::RawFaults);

impl FaultsAsWritten {
    pub fn of(plan: &FaultPlan) -> FaultsAsWritten {
        FaultsAsWritten(write::raw_faults(plan))
    }
}

/// Serializes a fault plan as [`FaultsAsWritten`] (for `#[serde(serialize_with)]`).
pub fn serialize_faults<S: serde::Serializer>(plan: &FaultPlan, s: S) -> Result<S::Ok, S::Error> {
    FaultsAsWritten::of(plan).serialize(s)
}

/// The schema of a scenario file where an output holds one (a shrunk finding's scenario).
pub struct ScenarioFileJson;

impl schemars::JsonSchema for ScenarioFileJson {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ScenarioFile".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schema::RawScenario::json_schema(generator)
    }
}

/// The JSON Schema of a scenario file, derived from the types the loader reads it with.
pub fn file_schema() -> schemars::Schema {
    schemars::schema_for!(schema::RawScenario)
}

use crate::broker::BrokerConfig;
use crate::consumer::CommitTimeoutStrategy;
use crate::fault::FaultPlan;
use crate::model::{
    Account, Event, EventIndex, EventType, Guarantee, Protocol, Scope, SqlEvent, SqlValue, Step,
    StepActor, Tick,
};
use crate::producer::{Identity, ProducerConfig, ProducerMode};
use crate::sim::{SimRng, Stream};
use crate::store::StoreConfig;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The hard upper bounds on a scenario's values. A scenario beyond them is rejected before
/// the run, with the bound in the message. README's "Limits" table lists them with the
/// command-line flags' bounds (which sit next to their flags in `cli`); a test keeps the
/// two in step.
pub mod bounds {
    /// Workload events: each is a row in several tables and a line in reports; 10,000
    /// events run in seconds.
    pub const MAX_EVENTS: u64 = 10_000;
    pub const MAX_ACCOUNTS: u64 = 10_000;
    /// Republished copies, exact or altered, each list.
    pub const MAX_REPUBLISH: usize = 10_000;
    /// Every delay, lease, stall, TTL and window in ticks.
    pub const MAX_DELAY_TICKS: u64 = 1_000_000;
    /// Planned crashes (and commit timeouts), and a random-crash budget.
    pub const MAX_CRASHES: u32 = 1_000;
    pub const MAX_DELIVERIES: u32 = 1_000;
    /// Consumer processes: each has its own SQLite connection, and interleavings grow
    /// exponentially with them.
    pub const MAX_CONSUMERS: usize = 8;
    /// How many times one fault repeats (`times`).
    pub const MAX_FAIL_TIMES: u32 = 1_000;
    /// Entries of each other fault list (`fail`, `stall`, `lose_ack`, `duplicate_delivery`,
    /// `publish_timeout`): each is checked at every boundary, so the list is kept short.
    pub const MAX_FAULT_SPECS: usize = 1_000;
    /// Consumer steps of one run (`limits.max_steps`).
    pub const MAX_STEPS: u64 = 10_000_000;
    /// Virtual time of one run (`limits.max_ticks`).
    pub const MAX_TICKS: u64 = 1_000_000_000;
    pub const MAX_AMOUNT_MINOR: i64 = 1_000_000_000_000;
    /// Partitions of a log broker.
    pub const MAX_PARTITIONS: u64 = 64;
    /// Steps of a protocol (repeats allowed): every one is two crash points per delivery.
    pub const MAX_PROTOCOL_STEPS: usize = crate::model::Protocol::MAX_STEPS;
    /// Statements of one SQL step.
    pub const MAX_SQL_STATEMENTS: usize = 16;
    /// Bytes of one SQL statement (of a step, the schema, the setup or a check).
    pub const MAX_SQL_BYTES: usize = 4_096;
    /// Statements of `store.schema`, of `store.setup`, and invariants of `check`, each.
    pub const MAX_SCHEMA_STATEMENTS: usize = 64;
    /// Payloads of `workload.payloads`, and fields of one payload.
    pub const MAX_PAYLOADS: usize = 1_000;
    pub const MAX_PAYLOAD_FIELDS: usize = 32;
    /// SQLite virtual-machine steps of one user statement: past it the statement fails.
    pub const MAX_SQL_VM_STEPS: u32 = crate::store::MAX_VM_STEPS;
    /// SQLite virtual-machine steps of every user statement of one run together: past it
    /// the run stops (`sql_limit`), a liveness failure, in a few seconds (SQLite takes
    /// some hundred million steps a second).
    pub const MAX_RUN_SQL_VM_STEPS: u64 = 500_000_000;
    /// Bytes of memory one user statement may take while it runs: past it SQLite answers
    /// "out of memory" and the statement fails.
    pub const MAX_SQL_STATEMENT_MEMORY_BYTES: i64 = crate::store::STATEMENT_MEMORY_BYTES;
    /// Bytes a scenario's own database may grow to: past it a statement fails.
    pub const MAX_SQL_DATABASE_BYTES: i64 = crate::store::MAX_DATABASE_BYTES;
    /// Crash depth of an exploration (`explore --depth`, `expect.explore[].depth`): the
    /// schedules grow as the number of crash points to this power.
    pub const MAX_DEPTH: usize = 4;
    /// Consumer steps one exploration may need in all, estimated up front (schedules
    /// times the steps of a run): about an hour of simulation on two cores. A run that
    /// livelocks to its step limit makes every schedule that long.
    pub const MAX_EXPLORE_STEPS: u128 = 1_000_000_000;
    /// Preemptions of an interleaving exploration (`--max-preemptions`,
    /// `expect.interleavings.max_preemptions`).
    pub const MAX_PREEMPTIONS: usize = 8;
    /// Trace entries of one run: past it the run stops (`trace_limit`) and reports the
    /// events it left unacked, so that a run allowed millions of steps cannot fill the
    /// memory with its trace (an entry is about 150 bytes: at most ~300 MB).
    pub const MAX_TRACE_ENTRIES: usize = 2_000_000;
    /// The most inbox rows one run of the cleanup job deletes (the seeds' `LIMIT 10000`).
    pub const MAX_CLEANUP_BATCH: u32 = 10_000;
    /// The largest scenario file (1 MiB): the examples are a few kilobytes, and every list
    /// in one is bounded anyway; this keeps a wrong file (a log, a dump) from being read whole.
    pub const MAX_SCENARIO_BYTES: usize = 1 << 20;
}

/// The events published and the accounts they move money between.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Workload {
    pub events: usize,
    pub accounts: usize,
    pub amount_minor: i64,
    pub initial_balance_minor: i64,
    /// Events published a second time with the same `event_id` (the seeds' "exact
    /// duplicate"); an index may appear more than once.
    pub republish: Vec<EventIndex>,
    /// Events a buggy producer publishes again with the same `event_id` and another payload
    /// (the k-th altered copy of an event carries k + 1 times its amount), after the exact
    /// republishes. An index may appear more than once.
    pub republish_altered: Vec<EventIndex>,
    /// Events whose payload is invalid: the consumer refuses it every time (its
    /// `apply_effect` fails, whatever the faults), so the correct end is no effect, in the
    /// dead-letter queue for a person. Not a fault: the healing phase does not fix it. In
    /// index order, each at most once.
    pub invalid: Vec<EventIndex>,
    /// Each transfer is two events, `TransferCreated` then `TransferCompleted` (so `events`
    /// is even): a workload whose projection needs order.
    pub lifecycle: bool,
    /// With the scenario's own schema: the payloads of the events, cycled over them (event
    /// `i` carries `payloads[i % len]`), each field a named parameter of the SQL steps.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub payloads: Vec<BTreeMap<String, SqlValue>>,
    /// With the scenario's own schema: the events' type, the SQL steps' `:event_type`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_type: Option<String>,
}

impl Default for Workload {
    fn default() -> Self {
        Workload {
            events: 3,
            accounts: 4,
            amount_minor: 10_000,
            initial_balance_minor: 1_000_000,
            republish: Vec::new(),
            republish_altered: Vec::new(),
            invalid: Vec::new(),
            lifecycle: false,
            payloads: Vec::new(),
            event_type: None,
        }
    }
}

impl Workload {
    /// `events` as SQL sees them: each one's `event_id`, type (`event_type`, else the
    /// event's own) and payload fields (`payloads`, cycled).
    pub fn sql_events(&self, events: &[Event]) -> Vec<SqlEvent> {
        events
            .iter()
            .map(|e| SqlEvent {
                event_id: e.event_id.clone(),
                event_type: self
                    .event_type
                    .clone()
                    .unwrap_or_else(|| e.event_type.as_str().to_string()),
                payload: match self.payloads.len() {
                    0 => Vec::new(),
                    n => self.payloads[e.index % n]
                        .iter()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                },
            })
            .collect()
    }

    /// `acc_00001`, `acc_00002`, … with their opening balances.
    pub fn accounts(&self) -> Vec<Account> {
        (1..=self.accounts)
            .map(|i| Account {
                name: format!("acc_{i:05}"),
                initial_balance_minor: self.initial_balance_minor,
            })
            .collect()
    }

    /// The events, drawn from the workload stream of `seed`: ids are UUIDs, source and
    /// target two distinct accounts. With `lifecycle`, event 2i creates transfer i and event
    /// 2i+1 completes it.
    pub fn events(&self, seed: u64) -> Vec<Event> {
        assert!(self.accounts >= 2, "a transfer needs two accounts");
        assert!(!self.lifecycle || self.events % 2 == 0, "validated: pairs");
        let mut rng = SimRng::new(seed, Stream::Workload);
        let mut events: Vec<Event> = Vec::with_capacity(self.events);
        for index in 0..self.events {
            let event_id = rng.uuid();
            let n = self.accounts as u64;
            let source = rng.below(n);
            let target = (source + 1 + rng.below(n - 1)) % n;
            let event = match events.last() {
                Some(created) if self.lifecycle && index % 2 == 1 => Event {
                    index,
                    event_id,
                    event_type: EventType::TransferCompleted,
                    ..created.clone()
                },
                _ => Event {
                    index,
                    event_id,
                    event_type: EventType::TransferCreated,
                    transfer_id: format!(
                        "tr_{:05}",
                        if self.lifecycle { index / 2 } else { index }
                    ),
                    source: format!("acc_{:05}", source + 1),
                    target: format!("acc_{:05}", target + 1),
                    amount_minor: self.amount_minor,
                },
            };
            events.push(event);
        }
        events
    }
}

/// The consumer process's settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ConsumerConfig {
    /// How long a crashed consumer stays down before it restarts.
    pub restart_delay_ticks: Tick,
    /// What the consumer does when a `COMMIT` times out (`faults.commit_timeout`).
    pub on_commit_timeout: CommitTimeoutStrategy,
    /// How long a consumer waits after receiving a `TransferCompleted` before it processes
    /// it, "to give the `TransferCreated` time" (a sleep, holding the delivery).
    pub completion_delay_ticks: Tick,
}

impl Default for ConsumerConfig {
    fn default() -> Self {
        ConsumerConfig {
            restart_delay_ticks: 5,
            on_commit_timeout: CommitTimeoutStrategy::default(),
            completion_delay_ticks: 0,
        }
    }
}

/// Bounds on one run. Reaching one stops the run and is reported, never a hang.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Limits {
    /// Consumer steps (every protocol step, rollback and nack counts one).
    pub max_steps: u64,
    pub max_ticks: Tick,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_steps: 100_000,
            max_ticks: 10_000_000,
        }
    }
}

/// What the scenario's author expects; each field is optional and checked only if given.
/// `run` checks the top-level fields against the run; `explore --depth D` checks the
/// `explore` entry for depth D if there is one, and otherwise reads the top-level fields for
/// the set of runs.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    pub guarantee: Option<Guarantee>,
    pub lost: Option<u64>,
    pub duplicated: Option<u64>,
    /// Events the projection rejects as out of order.
    pub rejected: Option<u64>,
    /// Committed `payload_alert` rows: copies with a known `event_id` and another payload.
    #[serde(default)]
    pub payload_alerts: Option<u64>,
    /// Completions still waiting in `pending_event` when the run ends.
    #[serde(default)]
    pub pending: Option<u64>,
    pub all_acked: Option<bool>,
    pub conserved: Option<bool>,
    /// One object, or a list with one object per exploration depth.
    #[serde(
        default,
        deserialize_with = "one_or_many",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(with = "OneOrMany<ExploreExpect>")]
    pub explore: Vec<ExploreExpect>,
    /// What `explore --interleavings` should find.
    #[serde(default)]
    pub interleavings: Option<InterleavingsExpect>,
    /// Per guarantee boundary (`ledger_per_event`, `ledger_per_intent`, `email`,
    /// `output_topic`): what the run's verdict for it should be.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub boundaries: BTreeMap<Scope, ScopeExpect>,
    /// What `explore --smallest-safe-ttl` should find.
    #[serde(default)]
    pub smallest_safe_ttl: Option<TtlExpect>,
}

/// What one boundary's verdict should be.
#[serde_with::skip_serializing_none]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct ScopeExpect {
    pub guarantee: Option<Guarantee>,
    pub lost: Option<u64>,
    pub duplicated: Option<u64>,
    /// Effects with nothing behind them: a ledger effect for a transfer the producer never
    /// committed, an email for an effect that never committed.
    pub ghost: Option<u64>,
}

/// What one boundary should show over an exploration's runs.
#[serde_with::skip_serializing_none]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct ScopeRunsExpect {
    pub guarantee: Option<Guarantee>,
    pub broken_runs: Option<u64>,
}

/// Whether `step` is run by some actor, given a protocol and a producer configuration.
pub fn runs_step(protocol: &Protocol, producer: &ProducerConfig, step: Step) -> bool {
    match step.actor() {
        StepActor::Consumer => protocol.runs(step),
        StepActor::Producer => producer.mode.steps().contains(&step),
        StepActor::Relay => producer.mode == ProducerMode::Outbox,
        StepActor::EmailRelay => protocol.has(Step::EnqueueEmail),
    }
}

/// What `explore --smallest-safe-ttl` should find.
#[serde_with::skip_serializing_none]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TtlExpect {
    /// The crash depth each candidate TTL is verified to (also the search's default).
    #[serde(default = "depth_one")]
    pub depth: usize,
    /// The smallest safe TTL, in ticks.
    pub ticks: Option<u64>,
    /// How many runs the search took.
    pub runs: Option<u64>,
}

/// What `explore --interleavings` should find, in counts of interleavings.
#[serde_with::skip_serializing_none]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct InterleavingsExpect {
    /// The preemption bound these counts are for (also the default bound for this
    /// scenario's `explore --interleavings`).
    pub max_preemptions: Option<usize>,
    pub runs: Option<u64>,
    pub breaking_runs: Option<u64>,
    /// Interleavings in which the projection rejected an event as out of order.
    #[serde(default)]
    pub rejected_runs: Option<u64>,
    /// Interleavings that ended with a completion still waiting in `pending_event`.
    #[serde(default)]
    pub pending_runs: Option<u64>,
    pub guarantee: Option<Guarantee>,
    /// Whether the enumeration stopped at its limits before it was complete (the output's
    /// `summary.truncated`).
    pub truncated: Option<bool>,
}

impl Expect {
    /// The expectations for an exploration to `depth`, if the scenario states them.
    pub fn explore_at(&self, depth: usize) -> Option<&ExploreExpect> {
        self.explore.iter().find(|x| x.depth == depth)
    }
}

/// Accepts `{...}` or `[{...}, ...]`.
/// The schema of a field written as one object or a list of them ([`one_or_many`]).
#[derive(schemars::JsonSchema)]
#[schemars(untagged)]
#[allow(dead_code)] // Only its schema is used.
enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<ExploreExpect>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(ExploreExpect),
        Many(Vec<ExploreExpect>),
    }
    Ok(
        match OneOrMany::deserialize(d).map_err(|_| {
            serde::de::Error::custom(
                "expected an object {\"depth\", \"runs\", \"guarantee\", \"lost_runs\", \
             \"duplicated_runs\", \"dead_lettered_runs\", \"rejected_runs\", \"pending_runs\", \
             \"unacked_runs\", \"unconserved_runs\"} \
             or a list of them",
            )
        })? {
            OneOrMany::One(x) => vec![x],
            OneOrMany::Many(xs) => xs,
        },
    )
}

/// What `explore --depth D` should find, in counts of runs (the crash-free run included).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExploreExpect {
    /// Per guarantee boundary beyond the ledger per event: its weakest guarantee over all
    /// runs, and how many runs broke it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub boundaries: BTreeMap<Scope, ScopeRunsExpect>,
    #[serde(default = "depth_one")]
    pub depth: usize,
    pub runs: Option<u64>,
    pub guarantee: Option<Guarantee>,
    pub lost_runs: Option<u64>,
    pub duplicated_runs: Option<u64>,
    pub dead_lettered_runs: Option<u64>,
    pub rejected_runs: Option<u64>,
    #[serde(default)]
    pub pending_runs: Option<u64>,
    pub unacked_runs: Option<u64>,
    pub unconserved_runs: Option<u64>,
}

fn depth_one() -> usize {
    1
}

/// The error for a file that is not UTF-8, at the line and column of its first bad byte
/// (columns count characters, as serde_json's do).
fn not_utf8(origin: &str, bytes: &[u8], e: std::str::Utf8Error) -> ScenarioError {
    ScenarioError {
        origin: origin.to_string(),
        location: Some(validate::position(bytes, e.valid_up_to())),
        field: None,
        problem: Box::new(
            problem::Read::NotUtf8 {
                byte: bytes[e.valid_up_to()],
            }
            .into(),
        ),
    }
}

/// A validated scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    /// The description in Spanish, when the file gives one (`"description": {"en": …,
    /// "es": …}`); empty otherwise.
    pub description_es: String,
    pub seed: u64,
    pub protocol: Protocol,
    /// How many consumer processes run the protocol, each with its own connection.
    pub consumers: usize,
    pub workload: Workload,
    pub store: StoreConfig,
    pub broker: BrokerConfig,
    pub consumer: ConsumerConfig,
    pub faults: FaultPlan,
    pub expect: Option<Expect>,
    pub limits: Limits,
    /// How events get from the producer's database to the broker.
    pub producer: ProducerConfig,
    /// The mail service that receives the consumer's emails.
    pub email: EmailConfig,
}

/// The mail service outside the consumer: it sends every email it is handed, unless the
/// email carries an idempotency key (the `event_id`) it has seen before.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct EmailConfig {
    pub idempotency_key: bool,
}

/// The processes beside the consumers that have a database connection of their own.
#[derive(Clone, Copy, Debug)]
pub struct SideProcesses {
    pub retention: bool,
    pub email_relay: bool,
    pub producer: bool,
    pub event_relay: bool,
    /// Whether the producer's database is its own (else the consumers').
    pub own_database: bool,
}

impl SideProcesses {
    /// How many connections they hold.
    pub fn count(&self) -> usize {
        [
            self.retention,
            self.email_relay,
            self.producer,
            self.event_relay,
        ]
        .into_iter()
        .filter(|&b| b)
        .count()
    }
}

impl Scenario {
    /// The processes beside the consumers that connect to a database.
    pub fn side_processes(&self) -> SideProcesses {
        let producer = &self.producer;
        SideProcesses {
            retention: self.store.retention.is_some(),
            email_relay: self.protocol.has(Step::EnqueueEmail),
            producer: producer.active(),
            event_relay: producer.active()
                && producer.mode == crate::producer::ProducerMode::Outbox,
            own_database: producer.database != crate::producer::ProducerDatabase::Shared,
        }
    }

    /// Whether some actor of this scenario runs `step`: the consumer's protocol, the
    /// producer's mode, or the relay of an outbox that exists.
    pub fn runs_step(&self, step: Step) -> bool {
        runs_step(&self.protocol, &self.producer, step)
    }

    /// Whether the verdict judges effects per intent (`transfer_id`) as well as per event:
    /// when a producer process runs, when a publication can be repeated (a timeout) or mint
    /// new `event_id`s, or when the ledger has a business key.
    pub fn reports_intents(&self) -> bool {
        self.producer.active()
            || self.producer.identity == Identity::PerAttempt
            || !self.faults.publish_timeout.is_empty()
            || self.store.business_key_unique
    }

    /// A scenario with every default and no faults, for building in code.
    pub fn new(protocol: Protocol) -> Scenario {
        Scenario {
            name: protocol.name.clone(),
            description: String::new(),
            description_es: String::new(),
            seed: 0,
            protocol,
            consumers: 1,
            workload: Workload::default(),
            store: StoreConfig::default(),
            broker: BrokerConfig::default(),
            consumer: ConsumerConfig::default(),
            faults: FaultPlan::default(),
            expect: None,
            limits: Limits::default(),
            producer: ProducerConfig::default(),
            email: EmailConfig::default(),
        }
    }

    /// This scenario with `events` workload events (builder style, for code).
    pub fn with_events(mut self, events: usize) -> Scenario {
        self.workload.events = events;
        self
    }

    /// This scenario with seed `seed`.
    pub fn with_seed(mut self, seed: u64) -> Scenario {
        self.seed = seed;
        self
    }

    /// This scenario with `consumers` consumer processes.
    pub fn with_consumers(mut self, consumers: usize) -> Scenario {
        self.consumers = consumers;
        self
    }

    /// This scenario with fault plan `faults`.
    pub fn with_faults(mut self, faults: FaultPlan) -> Scenario {
        self.faults = faults;
        self
    }

    /// Reads and validates a scenario file. At most [`bounds::MAX_SCENARIO_BYTES`] (and one
    /// byte more, to know it is too long) are read, so a huge file is refused, not loaded.
    pub fn from_file(path: &Path) -> Result<Scenario, ScenarioError> {
        use std::io::Read;
        let origin = path.display().to_string();
        let cannot = |e: std::io::Error| {
            let problem = problem::Read::CannotRead {
                kind: e.kind(),
                detail: e.to_string(),
            };
            ScenarioError::whole(&origin, problem)
        };
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| {
                f.take(bounds::MAX_SCENARIO_BYTES as u64 + 1)
                    .read_to_end(&mut bytes)
            })
            .map_err(cannot)?;
        Scenario::from_bytes(&bytes, &origin)
    }

    /// Parses and validates a scenario file's bytes (UTF-8 JSON); `origin` names it in
    /// errors. What [`Scenario::from_file`] does after reading, and what the fuzz target in
    /// `fuzz/` feeds.
    pub fn from_bytes(bytes: &[u8], origin: &str) -> Result<Scenario, ScenarioError> {
        if bytes.len() > bounds::MAX_SCENARIO_BYTES {
            return Err(validate::too_long(bytes, origin));
        }
        let text = std::str::from_utf8(bytes).map_err(|e| not_utf8(origin, bytes, e))?;
        Scenario::from_json(text, origin)
    }

    /// Parses and validates scenario JSON; `origin` names it in errors.
    pub fn from_json(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        validate::parse(text, origin)
    }

    /// The events of this scenario's workload for its seed.
    pub fn events(&self) -> Vec<Event> {
        self.workload.events(self.seed)
    }

    /// `events` as the scenario's SQL sees them (see [`Workload::sql_events`]); none without
    /// its own schema, where nothing reads them.
    pub fn sql_events(&self, events: &[Event]) -> Vec<SqlEvent> {
        match self.store.custom {
            Some(_) => self.workload.sql_events(events),
            None => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests;
