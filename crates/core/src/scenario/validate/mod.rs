//! From JSON text to a [`Scenario`]: parse with serde (keeping the path to the field that
//! failed), then check every value against the bounds and the protocol rules.

mod broker;
mod call;
mod databases;
mod faults;
mod flow;
mod policy;
mod sql;
mod store;
mod workload;

use super::problem::{Consequence, Problem, Read, Setting, Shape, Value};
use super::schema::*;
use super::{bounds, ConsumerConfig, Limits, Scenario, ScenarioError, Workload};
use crate::broker::{BrokerConfig, LogConfig};
use crate::fault::{
    CommitTimeoutSpec, CrashSpec, DeliveryFault, FailSpec, FaultPlan, PublishFault, RandomCrash,
    StallSpec,
};
use crate::model::{Boundary, Protocol, Step, Tick};
use crate::producer::{Identity, ProducerConfig};
use crate::store::{CustomSchema, OutOfOrder, Retention, StoreConfig};

pub fn parse(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
    if text.len() > bounds::MAX_SCENARIO_BYTES {
        return Err(too_long(text.as_bytes(), origin));
    }
    let located = |e: serde_path_to_error::Error<serde_json::Error>| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = strip_location(&inner.to_string());
        // A repeated key is named in the field path, after the object that repeats it.
        let repeated = super::strict::duplicate_key_of(&message);
        let field = match repeated {
            Some(key) if path.is_empty() || path == "." => key.to_string(),
            Some(key) => format!("{path}.{key}"),
            None => path,
        };
        let problem = match repeated {
            Some(key) => Read::DuplicateKey {
                key: key.to_string(),
            },
            None => Read::Json {
                renamed: renamed_field(&field),
                message,
            },
        };
        ScenarioError {
            origin: origin.to_string(),
            location: (inner.line() > 0).then(|| (inner.line(), inner.column())),
            field: Some(field),
            problem: Box::new(problem.into()),
        }
    };
    let de = &mut serde_json::Deserializer::from_str(text);
    let raw: RawScenario = serde_path_to_error::deserialize(de).map_err(located)?;
    // serde refuses a repeated struct field but keeps a map's last value; refuse both.
    super::strict::unique_keys(text).map_err(located)?;
    let value: serde_json::Value = serde_json::from_str(text).expect("it parsed just above");
    if let Some(field) = super::strict::list_for_an_object(&value) {
        return Err(ScenarioError {
            origin: origin.to_string(),
            location: None,
            field: Some(field),
            problem: Box::new(Read::Shape(Shape::ListForObject).into()),
        });
    }
    let (engine, isolation) = super::engine::of(&raw);
    Checker {
        origin,
        engine,
        isolation,
    }
    .scenario(raw)
}

/// Whether an unknown field is one an earlier version of the format had. Read from the
/// error's path alone, never from its words: the format has no field at that path, so the
/// only error serde can report there is that the field is unknown.
fn renamed_field(field: &str) -> bool {
    field == "expect.interleavings.complete"
}

/// The scenario's description in English and in Spanish (empty where the file gives none;
/// one text is the English one).
fn descriptions(raw: &Option<RawDescription>) -> (String, String) {
    match raw {
        None => (String::new(), String::new()),
        Some(RawDescription::One(text)) => (text.clone(), String::new()),
        Some(RawDescription::Languages(l)) => (l.en.clone(), l.es.clone()),
    }
}

/// The error for a scenario `bytes` long, over [`bounds::MAX_SCENARIO_BYTES`], located
/// where it goes past the bound.
pub fn too_long(bytes: &[u8], origin: &str) -> ScenarioError {
    ScenarioError {
        origin: origin.to_string(),
        location: Some(position(bytes, bounds::MAX_SCENARIO_BYTES)),
        field: None,
        problem: Box::new(
            Read::TooLong {
                bytes: bytes.len(),
                limit: bounds::MAX_SCENARIO_BYTES,
            }
            .into(),
        ),
    }
}

/// The line and column (1-based, columns in characters as serde_json counts them) of byte
/// `offset` of `bytes`.
pub fn position(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = 1 + String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count();
    (line, column)
}

/// serde_json appends " at line L column C" to its messages; we print the location once,
/// in front.
fn strip_location(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

struct Checker<'a> {
    origin: &'a str,
    /// The engine the scenario runs on: its `store.engine`, or `--engine`'s.
    engine: crate::store::pg::Engine,
    isolation: Option<crate::store::pg::Isolation>,
}

impl Checker<'_> {
    /// Refuses the first of `fields` that is set, with `why`: options that mean nothing in
    /// the scenario's other settings.
    fn refuse_set(
        &self,
        fields: &[(&str, bool)],
        why: impl Into<Problem>,
    ) -> Result<(), ScenarioError> {
        match fields.iter().find(|(_, set)| *set) {
            Some((field, _)) => Err(self.err(*field, why)),
            None => Ok(()),
        }
    }

    fn err(&self, field: impl Into<String>, problem: impl Into<Problem>) -> ScenarioError {
        ScenarioError::field(self.origin, field, problem)
    }

    fn range<T: PartialOrd + TryInto<i128> + Copy>(
        &self,
        field: &str,
        value: T,
        min: T,
        max: T,
    ) -> Result<T, ScenarioError> {
        if value < min || value > max {
            Err(self.err(
                field,
                Value::OutOfRange {
                    value: wide(value),
                    min: wide(min),
                    max: wide(max),
                },
            ))
        } else {
            Ok(value)
        }
    }

    fn scenario(&self, raw: RawScenario) -> Result<Scenario, ScenarioError> {
        let databases: Vec<&str> = raw.store.databases.keys().map(String::as_str).collect();
        let (protocol, origins) = self.protocol(&raw.protocol, &databases)?;
        let mut workload = self.workload(&raw.workload)?;
        self.engine_fits(&raw)?;
        let changed = self.engine_changed(&raw);
        let custom = self.custom_store(&raw, &protocol, &origins, &mut workload)?;
        if !workload.invalid.is_empty() && !protocol.has(Step::ApplyEffect) {
            return Err(self.missing_step(
                "workload.invalid",
                &protocol,
                Step::ApplyEffect,
                Consequence::InvalidNeverRefused,
            ));
        }
        let log = self.log(&raw.broker, &raw.faults, custom.is_some())?;
        self.policy_fits_broker(&protocol, log.is_some())?;
        let producer = self.producer(&raw.producer, &workload)?;
        let faults = self.faults(raw.faults, &workload, &protocol, &producer)?;
        self.identity_budget(&producer, &faults, &workload)?;
        self.broker_and_email(&raw.broker, &raw.email, &protocol, log.is_some())?;
        let limits = self.limits(&raw.limits)?;
        self.amounts_fit(&workload, &limits)?;
        self.inbox_fields(&raw.store, &protocol)?;
        let retention = self.retention(&raw.store)?;
        let (out_of_order, completion_delay_ticks) =
            self.out_of_order(&raw.store, &raw.consumer, &workload, log.as_ref())?;
        let late_redelivery_ticks = self.late_redelivery(&raw.broker)?;
        // Expectations describe the file's own engine and level: another one chosen on the
        // command line is a question of its own (the ladder asks it of every level).
        let expect = raw.expect.filter(|_| !changed);
        if let Some(e) = &expect {
            self.expect_counts(e, &workload)?;
            self.call_expectations_fit(e, &protocol, custom.as_ref())?;
        }
        let dead_letters = protocol.on_error.then == crate::model::GiveUp::DeadLetter;
        let replay_dead_letters_at_tick =
            self.dead_letter_replay(&raw.broker, &limits, dead_letters)?;
        let broker = self.broker(
            &raw.broker,
            log,
            replay_dead_letters_at_tick,
            late_redelivery_ticks,
        )?;
        let consumer = self.consumer_config(&raw.consumer, completion_delay_ticks)?;
        let consumers = self.range(
            "consumers",
            raw.consumers.unwrap_or(1),
            1,
            bounds::MAX_CONSUMERS as u64,
        )? as usize;
        let (description, description_es) = descriptions(&raw.description);
        Ok(Scenario {
            name: raw.name.unwrap_or_else(|| protocol.name.clone()),
            description,
            description_es,
            seed: raw.seed.unwrap_or(0),
            store: self.store_config(&raw.store, out_of_order, retention, custom),
            producer,
            email: super::EmailConfig {
                idempotency_key: raw.email.idempotency_key.unwrap_or(false),
            },
            broker,
            consumer,
            consumers,
            protocol,
            workload,
            faults,
            expect,
            limits,
        })
    }

    /// The store's settings, from the file's (checked before) and the engine and level the
    /// command line chose.
    fn store_config(
        &self,
        raw: &RawStore,
        out_of_order: OutOfOrder,
        retention: Option<Retention>,
        custom: Option<CustomSchema>,
    ) -> StoreConfig {
        StoreConfig {
            inbox_unique: raw.inbox_unique.unwrap_or(true),
            effect: raw.effect.unwrap_or_default(),
            business_key_unique: raw.business_key_unique.unwrap_or(false),
            out_of_order,
            retention,
            custom,
            engine: self.engine,
            isolation: self.isolation.unwrap_or_default(),
            ..StoreConfig::default()
        }
    }

    /// The consumer's settings: its restart delay checked against its bound, the others
    /// as written (or their defaults).
    fn consumer_config(
        &self,
        raw: &RawConsumer,
        completion_delay_ticks: Tick,
    ) -> Result<ConsumerConfig, ScenarioError> {
        Ok(ConsumerConfig {
            restart_delay_ticks: self.range(
                "consumer.restart_delay_ticks",
                raw.restart_delay_ticks
                    .unwrap_or(ConsumerConfig::default().restart_delay_ticks),
                0,
                bounds::MAX_DELAY_TICKS,
            )?,
            on_commit_timeout: raw.on_commit_timeout.unwrap_or_default(),
            completion_delay_ticks,
        })
    }

    /// The broker transaction and the email key, refused where they would mean nothing.
    fn broker_and_email(
        &self,
        broker: &RawBroker,
        email: &RawEmail,
        protocol: &Protocol,
        log: bool,
    ) -> Result<(), ScenarioError> {
        if broker.transactional == Some(true) && log {
            return Err(self.err("broker.transactional", Setting::TransactionalLog));
        }
        if broker.transactional == Some(true) && !protocol.has(Step::ProduceOutput) {
            let problem = Setting::TransactionalWithoutOutput {
                protocol: protocol.name.clone(),
                steps: protocol.arrow_list(),
            };
            return Err(self.err("broker.transactional", problem));
        }
        if email.idempotency_key.is_some()
            && !protocol.has(Step::ExternalEffect)
            && !protocol.has(Step::EnqueueEmail)
        {
            let problem = Setting::EmailKeyWithoutEmail {
                protocol: protocol.name.clone(),
                steps: protocol.arrow_list(),
            };
            return Err(self.err("email.idempotency_key", problem));
        }
        Ok(())
    }

    /// The run's step and tick limits.
    fn limits(&self, raw: &RawLimits) -> Result<Limits, ScenarioError> {
        let d = Limits::default();
        Ok(Limits {
            max_steps: self.range(
                "limits.max_steps",
                raw.max_steps.unwrap_or(d.max_steps),
                1,
                bounds::MAX_STEPS,
            )?,
            max_ticks: self.range(
                "limits.max_ticks",
                raw.max_ticks.unwrap_or(d.max_ticks),
                1,
                bounds::MAX_TICKS,
            )?,
        })
    }

    /// The counts an `expect` block states, each at most the events there are.
    fn expect_counts(&self, e: &super::Expect, workload: &Workload) -> Result<(), ScenarioError> {
        self.expect_bounds(e)?;
        for (field, v) in [
            ("expect.lost", e.lost),
            ("expect.duplicated", e.duplicated),
            ("expect.rejected", e.rejected),
            ("expect.pending", e.pending),
        ] {
            if let Some(v) = v {
                self.range(field, v, 0, workload.events as u64)?;
            }
        }
        if let Some(v) = e.payload_alerts {
            self.range(
                "expect.payload_alerts",
                v,
                0,
                // Each altered copy is one payload more than the event had: at most one
                // alert each, whichever copy came first.
                workload.republish_altered.len() as u64,
            )?;
        }
        Ok(())
    }

    /// The exploration settings an `expect` block pins are the ones `run DIR` explores
    /// with: bounded here, at load, with their field, rather than refused later as flags.
    fn expect_bounds(&self, e: &super::Expect) -> Result<(), ScenarioError> {
        for (i, x) in e.explore.iter().enumerate() {
            let field = format!("expect.explore[{i}].depth");
            self.range(&field, x.depth, 1, bounds::MAX_DEPTH)?;
            if let Some(j) = e.explore[..i].iter().position(|y| y.depth == x.depth) {
                let problem = Setting::DepthPinnedTwice {
                    depth: x.depth,
                    first: j,
                };
                return Err(self.err(field, problem));
            }
        }
        if let Some(p) = e.interleavings.and_then(|x| x.max_preemptions) {
            self.range(
                "expect.interleavings.max_preemptions",
                p,
                0,
                bounds::MAX_PREEMPTIONS,
            )?;
        }
        if let Some(t) = e.smallest_safe_ttl {
            self.range(
                "expect.smallest_safe_ttl.depth",
                t.depth,
                0,
                bounds::MAX_DEPTH,
            )?;
        }
        Ok(())
    }

    fn event_index(&self, field: &str, e: u64, events: usize) -> Result<usize, ScenarioError> {
        if e >= events as u64 {
            Err(self.err(field, Value::NoSuchEvent { event: e, events }))
        } else {
            Ok(e as usize)
        }
    }

    /// `protocol` has no `step`, so a fault there could never happen.
    fn missing_step(
        &self,
        field: impl Into<String>,
        protocol: &Protocol,
        step: Step,
        consequence: Consequence,
    ) -> ScenarioError {
        let actor = step.actor();
        let problem = Value::MissingStep {
            step,
            actor: (actor != crate::model::StepActor::Consumer).then_some(actor),
            protocol: protocol.name.clone(),
            steps: protocol.arrow_list(),
            consequence,
        };
        self.err(field, problem)
    }

    /// An optional event index, checked like [`Checker::event_index`].
    fn opt_event(
        &self,
        field: &str,
        e: Option<u64>,
        events: usize,
    ) -> Result<Option<usize>, ScenarioError> {
        e.map(|e| self.event_index(field, e, events)).transpose()
    }

    fn delivery(&self, field: &str, d: Option<u32>) -> Result<Option<u32>, ScenarioError> {
        match d {
            Some(0) => Err(self.err(field, Value::DeliveryZero)),
            other => Ok(other),
        }
    }
}

/// An integer of the format (at most 64 bits) as the problems hold it.
fn wide<T: TryInto<i128>>(value: T) -> i128 {
    value.try_into().unwrap_or(i128::MAX)
}

/// Where a SQL step was written: its first place (`protocol.steps[3]`, or
/// `protocol.on_error.steps[0]` for a compensating step), and whether its `sql` was a list
/// (so that a statement's field is `sql[j]`, else `sql`).
struct SqlOrigin {
    pub name: &'static str,
    pub step: String,
    pub list: bool,
}

impl SqlOrigin {
    fn field(&self, j: usize) -> String {
        statement_field(&self.step, self.list, j)
    }
}

/// The field of statement `j` of the SQL step written at `step`.
fn statement_field(step: &str, list: bool, j: usize) -> String {
    match list {
        true => format!("{step}.sql[{j}]"),
        false => format!("{step}.sql"),
    }
}
