//! From JSON text to a [`Scenario`]: parse with serde (keeping the path to the field that
//! failed), then check every value against the bounds and the protocol rules.

use super::schema::*;
use super::{bounds, ConsumerConfig, Limits, Scenario, ScenarioError, Workload};
use crate::broker::{BrokerConfig, LogConfig};
use crate::fault::{
    CommitTimeoutSpec, CrashSpec, DeliveryFault, FailSpec, FaultPlan, PublishFault, RandomCrash,
    StallSpec,
};
use crate::model::{Boundary, Protocol, Step};
use crate::producer::{Identity, ProducerConfig};
use crate::store::{OutOfOrder, Retention, StoreConfig};

pub fn parse(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
    if text.len() > bounds::MAX_SCENARIO_BYTES {
        return Err(too_long(text.as_bytes(), origin));
    }
    let located = |e: serde_path_to_error::Error<serde_json::Error>| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = strip_location(&inner.to_string());
        // A repeated key is named in the field path, after the object that repeats it.
        let field = match super::strict::duplicate_key_of(&message) {
            Some(key) if path.is_empty() || path == "." => key.to_string(),
            Some(key) => format!("{path}.{key}"),
            None => path,
        };
        ScenarioError {
            origin: origin.to_string(),
            location: (inner.line() > 0).then(|| (inner.line(), inner.column())),
            field: Some(field),
            message,
        }
    };
    let de = &mut serde_json::Deserializer::from_str(text);
    let raw: RawScenario = serde_path_to_error::deserialize(de).map_err(located)?;
    // serde refuses a repeated struct field but keeps a map's last value; refuse both.
    super::strict::unique_keys(text).map_err(located)?;
    Checker { origin }.scenario(raw)
}

/// The error for a scenario `bytes` long, over [`bounds::MAX_SCENARIO_BYTES`], located
/// where it goes past the bound.
pub fn too_long(bytes: &[u8], origin: &str) -> ScenarioError {
    ScenarioError {
        origin: origin.to_string(),
        location: Some(position(bytes, bounds::MAX_SCENARIO_BYTES)),
        field: None,
        message: format!(
            "{} bytes is over the limit of {} bytes for a scenario file, which this line \
             crosses (the largest example is a few kilobytes; every list in a scenario has \
             its own bound)",
            bytes.len(),
            bounds::MAX_SCENARIO_BYTES
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
}

impl Checker<'_> {
    /// Refuses the first of `fields` that is set, with `why`: options that mean nothing in
    /// the scenario's other settings.
    fn refuse_set(
        &self,
        fields: &[(&str, bool)],
        why: impl Into<String>,
    ) -> Result<(), ScenarioError> {
        match fields.iter().find(|(_, set)| *set) {
            Some((field, _)) => Err(self.err(*field, why)),
            None => Ok(()),
        }
    }

    fn err(&self, field: impl Into<String>, message: impl Into<String>) -> ScenarioError {
        ScenarioError::field(self.origin, field, message)
    }

    fn range<T: PartialOrd + std::fmt::Display + Copy>(
        &self,
        field: &str,
        value: T,
        min: T,
        max: T,
    ) -> Result<T, ScenarioError> {
        if value < min || value > max {
            Err(self.err(
                field,
                format!("{value} is out of range; allowed: {min} to {max}"),
            ))
        } else {
            Ok(value)
        }
    }

    fn scenario(&self, raw: RawScenario) -> Result<Scenario, ScenarioError> {
        let protocol = self.protocol(raw.protocol)?;
        let workload = self.workload(raw.workload)?;
        if !workload.invalid.is_empty() && !protocol.has(Step::ApplyEffect) {
            return Err(self.missing_step(
                "workload.invalid",
                &protocol,
                Step::ApplyEffect,
                ", so an invalid payload is never refused: it is where the consumer refuses it",
            ));
        }
        let log = self.log(&raw.broker, &raw.faults)?;
        let producer = self.producer(&raw.producer, &workload)?;
        let faults = self.faults(raw.faults, &workload, &protocol, &producer)?;
        if producer.identity == Identity::PerAttempt {
            let budget = faults
                .republication_budget(workload.republish.len() + workload.republish_altered.len());
            let room = bounds::MAX_EVENTS * 2 - workload.events as u64;
            if budget > room {
                return Err(self.err(
                    "producer.identity",
                    format!(
                        "under `per_attempt` every publication after an intent's first mints \
                         a new event, and this scenario's faults and republications allow \
                         {budget} of them (crashes, publish timeouts, republish entries), \
                         over the {room} new events that fit beside its {} ({} events in \
                         all, twice MAX_EVENTS); lower `faults.publish_timeout[].times`, \
                         the crash budgets or the republish lists",
                        workload.events,
                        bounds::MAX_EVENTS * 2
                    ),
                ));
            }
        }
        if raw.broker.transactional == Some(true) && log.is_some() {
            return Err(self.err(
                "broker.transactional",
                "a transactional broker is modelled for the queue broker only; remove \
                 `broker.kind: log` or `broker.transactional`",
            ));
        }
        if raw.broker.transactional == Some(true) && !protocol.has(Step::ProduceOutput) {
            return Err(self.err(
                "broker.transactional",
                format!(
                    "protocol `{}` has no `produce_output` step, so the broker transaction \
                     would have nothing in it; its steps are {}",
                    protocol.name,
                    protocol.arrow_list()
                ),
            ));
        }
        if raw.email.idempotency_key.is_some()
            && !protocol.has(Step::ExternalEffect)
            && !protocol.has(Step::EnqueueEmail)
        {
            return Err(self.err(
                "email.idempotency_key",
                format!(
                    "protocol `{}` sends no email (no `external_effect` or `enqueue_email` \
                     step); its steps are {}",
                    protocol.name,
                    protocol.arrow_list()
                ),
            ));
        }
        let d = Limits::default();
        let limits = Limits {
            max_steps: self.range(
                "limits.max_steps",
                raw.limits.max_steps.unwrap_or(d.max_steps),
                1,
                bounds::MAX_STEPS,
            )?,
            max_ticks: self.range(
                "limits.max_ticks",
                raw.limits.max_ticks.unwrap_or(d.max_ticks),
                1,
                bounds::MAX_TICKS,
            )?,
        };
        self.amounts_fit(&workload, &limits)?;
        if !protocol.has(Step::InsertInbox) && !protocol.has(Step::CheckInbox) {
            self.refuse_set(
                &[
                    ("store.inbox_unique", raw.store.inbox_unique.is_some()),
                    ("store.inbox_ttl_ticks", raw.store.inbox_ttl_ticks.is_some()),
                ],
                format!(
                    "configures the inbox, and protocol `{}` has none (no \
                             `insert_inbox` or `check_inbox` step); its steps are {}",
                    protocol.name,
                    protocol.arrow_list()
                ),
            )?;
        }
        let retention = self.retention(&raw.store)?;
        let (out_of_order, completion_delay_ticks) =
            self.out_of_order(&raw.store, &raw.consumer, &workload, log.as_ref())?;
        let late_redelivery_ticks = raw
            .broker
            .late_redelivery_ticks
            .map(|w| {
                self.range(
                    "broker.late_redelivery_ticks",
                    w,
                    1,
                    bounds::MAX_DELAY_TICKS,
                )
            })
            .transpose()?;
        let expect = raw.expect;
        if let Some(e) = &expect {
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
        }
        let replay_dead_letters_at_tick = raw
            .broker
            .replay_dead_letters_at_tick
            .map(|t| {
                if raw.broker.max_deliveries.is_none() {
                    return Err(self.err(
                        "broker.replay_dead_letters_at_tick",
                        "nothing is ever dead-lettered without `broker.max_deliveries`; \
                         set it too",
                    ));
                }
                if t >= limits.max_ticks {
                    return Err(self.err(
                        "broker.replay_dead_letters_at_tick",
                        format!(
                            "{t} is not before the run's tick limit (limits.max_ticks = {}); \
                             the replay would never happen",
                            limits.max_ticks
                        ),
                    ));
                }
                self.range(
                    "broker.replay_dead_letters_at_tick",
                    t,
                    1,
                    bounds::MAX_TICKS,
                )
            })
            .transpose()?;
        Ok(Scenario {
            name: raw.name.unwrap_or_else(|| protocol.name.clone()),
            description: raw.description.unwrap_or_default(),
            seed: raw.seed.unwrap_or(0),
            store: StoreConfig {
                inbox_unique: raw.store.inbox_unique.unwrap_or(true),
                effect: raw.store.effect.unwrap_or_default(),
                business_key_unique: raw.store.business_key_unique.unwrap_or(false),
                out_of_order,
                retention,
                ..StoreConfig::default()
            },
            producer,
            email: super::EmailConfig {
                idempotency_key: raw.email.idempotency_key.unwrap_or(false),
            },
            broker: BrokerConfig {
                redelivery_delay_ticks: self.range(
                    "broker.redelivery_delay_ticks",
                    raw.broker
                        .redelivery_delay_ticks
                        .unwrap_or(BrokerConfig::default().redelivery_delay_ticks),
                    0,
                    bounds::MAX_DELAY_TICKS,
                )?,
                max_deliveries: raw
                    .broker
                    .max_deliveries
                    .map(|m| self.range("broker.max_deliveries", m, 1, bounds::MAX_DELIVERIES))
                    .transpose()?,
                lease_ticks: raw
                    .broker
                    .lease_ticks
                    .map(|l| self.range("broker.lease_ticks", l, 1, bounds::MAX_DELAY_TICKS))
                    .transpose()?,
                stale_ack: raw.broker.stale_ack.unwrap_or_default(),
                delivery_jitter_ticks: raw
                    .broker
                    .delivery_jitter_ticks
                    .map(|j| {
                        self.range(
                            "broker.delivery_jitter_ticks",
                            j,
                            0,
                            bounds::MAX_DELAY_TICKS,
                        )
                    })
                    .transpose()?,
                log,
                replay_dead_letters_at_tick,
                transactional: raw.broker.transactional.unwrap_or(false),
                late_redelivery_ticks,
            },
            consumer: ConsumerConfig {
                restart_delay_ticks: self.range(
                    "consumer.restart_delay_ticks",
                    raw.consumer
                        .restart_delay_ticks
                        .unwrap_or(ConsumerConfig::default().restart_delay_ticks),
                    0,
                    bounds::MAX_DELAY_TICKS,
                )?,
                on_commit_timeout: raw.consumer.on_commit_timeout.unwrap_or_default(),
                completion_delay_ticks,
            },
            consumers: self.range(
                "consumers",
                raw.consumers.unwrap_or(1),
                1,
                bounds::MAX_CONSUMERS as u64,
            )? as usize,
            protocol,
            workload,
            faults,
            expect,
            limits,
        })
    }

    /// The exploration settings an `expect` block pins are the ones `run DIR` explores
    /// with: bounded here, at load, with their field, rather than refused later as flags.
    fn expect_bounds(&self, e: &super::Expect) -> Result<(), ScenarioError> {
        for (i, x) in e.explore.iter().enumerate() {
            let field = format!("expect.explore[{i}].depth");
            self.range(&field, x.depth, 1, bounds::MAX_DEPTH)?;
            if let Some(j) = e.explore[..i].iter().position(|y| y.depth == x.depth) {
                return Err(self.err(
                    field,
                    format!(
                        "depth {} is already pinned by expect.explore[{j}]; one entry per \
                         depth, or one of them would never be checked",
                        x.depth
                    ),
                ));
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

    /// At most `max` entries in the list `field`.
    fn at_most(&self, field: &str, len: usize, max: usize) -> Result<(), ScenarioError> {
        if len > max {
            return Err(self.err(
                field,
                format!(
                    "{len} entries is over the limit of {max}; each is checked at every step \
                     boundary (scenario::bounds)"
                ),
            ));
        }
        Ok(())
    }

    /// The inbox retention policy, when `store.inbox_ttl_ticks` is given; its schedule and
    /// batch are refused without it.
    fn retention(&self, st: &RawStore) -> Result<Option<Retention>, ScenarioError> {
        let Some(ttl) = st.inbox_ttl_ticks else {
            self.refuse_set(
                &[
                    (
                        "store.cleanup_every_ticks",
                        st.cleanup_every_ticks.is_some(),
                    ),
                    ("store.cleanup_batch", st.cleanup_batch.is_some()),
                ],
                "configures the inbox cleanup job, which runs only with \
                         `store.inbox_ttl_ticks`",
            )?;
            return Ok(None);
        };
        Ok(Some(Retention {
            ttl_ticks: self.range("store.inbox_ttl_ticks", ttl, 0, bounds::MAX_DELAY_TICKS)?,
            cleanup_every_ticks: self.range(
                "store.cleanup_every_ticks",
                st.cleanup_every_ticks
                    .unwrap_or(Retention::DEFAULT_CLEANUP_EVERY_TICKS),
                1,
                bounds::MAX_DELAY_TICKS,
            )?,
            batch: self.range(
                "store.cleanup_batch",
                st.cleanup_batch.unwrap_or(Retention::DEFAULT_BATCH),
                1,
                bounds::MAX_CLEANUP_BATCH,
            )?,
        }))
    }

    /// How completions that arrive before their transfer are handled: both options only
    /// mean something for the lifecycle workload.
    fn out_of_order(
        &self,
        st: &RawStore,
        c: &RawConsumer,
        workload: &Workload,
        log: Option<&LogConfig>,
    ) -> Result<(OutOfOrder, u64), ScenarioError> {
        let set = [
            ("store.out_of_order", st.out_of_order.is_some()),
            (
                "consumer.completion_delay_ticks",
                c.completion_delay_ticks.is_some(),
            ),
        ];
        if !workload.lifecycle {
            self.refuse_set(
                &set,
                "applies to the lifecycle workload only (`workload.lifecycle`: true), where a \
                 TransferCompleted can arrive before its TransferCreated",
            )?;
        }
        // A log keyed by transfer (or source account) puts a transfer's two events on one
        // partition, read in order by one consumer at a time: a completion never arrives
        // before its creation, so what to do when it does could never happen.
        if log.is_some_and(|l| l.key != crate::broker::PartitionKey::EventId) {
            self.refuse_set(
                &set,
                "a log keyed by transfer_id or account_id delivers a transfer's two events in \
                 order on one partition, so a completion never arrives before its creation; \
                 set `broker.key` to event_id to see it happen",
            )?;
        }
        Ok((
            st.out_of_order.unwrap_or_default(),
            self.range(
                "consumer.completion_delay_ticks",
                c.completion_delay_ticks.unwrap_or(0),
                0,
                bounds::MAX_DELAY_TICKS,
            )?,
        ))
    }

    /// The log broker's settings, when `broker.kind` is `log`; the queue's own options and
    /// the queue-only faults are refused with it, and the log's options without it.
    fn log(&self, b: &RawBroker, f: &RawFaults) -> Result<Option<LogConfig>, ScenarioError> {
        if b.kind != Some(BrokerKind::Log) {
            self.refuse_set(
                &[
                    ("broker.partitions", b.partitions.is_some()),
                    ("broker.key", b.key.is_some()),
                    ("broker.commit_every", b.commit_every.is_some()),
                    ("broker.auto_commit", b.auto_commit.is_some()),
                ],
                "applies to `\"kind\": \"log\"` brokers only",
            )?;
            return Ok(None);
        }
        self.refuse_set(
            &[
                (
                    "broker.redelivery_delay_ticks",
                    b.redelivery_delay_ticks.is_some(),
                ),
                ("broker.lease_ticks", b.lease_ticks.is_some()),
                ("broker.stale_ack", b.stale_ack.is_some()),
                ("broker.max_deliveries", b.max_deliveries.is_some()),
                (
                    "broker.replay_dead_letters_at_tick",
                    b.replay_dead_letters_at_tick.is_some(),
                ),
                (
                    "broker.delivery_jitter_ticks",
                    b.delivery_jitter_ticks.is_some(),
                ),
                (
                    "broker.late_redelivery_ticks",
                    b.late_redelivery_ticks.is_some(),
                ),
                ("faults.lose_ack", !f.lose_ack.is_empty()),
                (
                    "faults.duplicate_delivery",
                    !f.duplicate_delivery.is_empty(),
                ),
            ],
            "applies to queue brokers only; a log has offsets, not per-message acks",
        )?;
        Ok(Some(LogConfig {
            partitions: self.range(
                "broker.partitions",
                b.partitions.unwrap_or(1),
                1,
                bounds::MAX_PARTITIONS,
            )? as usize,
            key: b.key.unwrap_or_default(),
            commit_every: self.range(
                "broker.commit_every",
                b.commit_every.unwrap_or(1),
                1,
                bounds::MAX_EVENTS as u32,
            )?,
            auto_commit: b.auto_commit.unwrap_or(false),
        }))
    }

    fn protocol(&self, raw: RawProtocol) -> Result<Protocol, ScenarioError> {
        match raw {
            RawProtocol::Named(name) => Protocol::built_in(&name).ok_or_else(|| {
                self.err(
                    "protocol",
                    format!(
                        "unknown protocol `{name}`; the built-in protocols are {} \
                         (or give an object {{\"name\", \"steps\"}})",
                        Protocol::built_in_names()
                    ),
                )
            }),
            RawProtocol::Custom(c) => {
                if c.name.trim().is_empty() {
                    return Err(self.err("protocol.name", "a custom protocol needs a name"));
                }
                let steps = c
                    .steps
                    .iter()
                    .enumerate()
                    .map(|(i, s)| {
                        Step::parse(s).ok_or_else(|| {
                            self.err(
                                format!("protocol.steps[{i}]"),
                                format!(
                                    "unknown step `{s}`; the steps are {}",
                                    Step::allowed_names()
                                ),
                            )
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Protocol::new(c.name, c.description.unwrap_or_default(), steps).map_err(|e| {
                    let field = match e.position() {
                        Some(i) => format!("protocol.steps[{i}]"),
                        None => "protocol.steps".to_string(),
                    };
                    self.err(field, e.to_string())
                })
            }
        }
    }

    fn workload(&self, raw: RawWorkload) -> Result<Workload, ScenarioError> {
        let d = Workload::default();
        let events = self.range(
            "workload.events",
            raw.events.unwrap_or(d.events as u64),
            1,
            bounds::MAX_EVENTS,
        )? as usize;
        let accounts = self.range(
            "workload.accounts",
            raw.accounts.unwrap_or(d.accounts as u64),
            2,
            bounds::MAX_ACCOUNTS,
        )? as usize;
        let amount_minor = self.range(
            "workload.amount_minor",
            raw.amount_minor.unwrap_or(d.amount_minor),
            1,
            bounds::MAX_AMOUNT_MINOR,
        )?;
        let initial_balance_minor = self.range(
            "workload.initial_balance_minor",
            raw.initial_balance_minor.unwrap_or(d.initial_balance_minor),
            0,
            bounds::MAX_AMOUNT_MINOR,
        )?;
        if raw.republish.len() > bounds::MAX_REPUBLISH {
            return Err(self.err(
                "workload.republish",
                format!("at most {} republishes", bounds::MAX_REPUBLISH),
            ));
        }
        let republish = raw
            .republish
            .iter()
            .enumerate()
            .map(|(i, &e)| self.event_index(&format!("workload.republish[{i}]"), e, events))
            .collect::<Result<Vec<_>, _>>()?;
        if raw.republish_altered.len() > bounds::MAX_REPUBLISH {
            return Err(self.err(
                "workload.republish_altered",
                format!("at most {} altered republishes", bounds::MAX_REPUBLISH),
            ));
        }
        let republish_altered = raw
            .republish_altered
            .iter()
            .enumerate()
            .map(|(i, &e)| self.event_index(&format!("workload.republish_altered[{i}]"), e, events))
            .collect::<Result<Vec<_>, _>>()?;
        let mut invalid = raw
            .invalid
            .iter()
            .enumerate()
            .map(|(i, &e)| self.event_index(&format!("workload.invalid[{i}]"), e, events))
            .collect::<Result<Vec<_>, _>>()?;
        let listed = invalid.len();
        invalid.sort_unstable();
        invalid.dedup();
        if invalid.len() != listed {
            return Err(self.err(
                "workload.invalid",
                "an event is listed twice; each invalid event is named once".to_string(),
            ));
        }
        let lifecycle = raw.lifecycle.unwrap_or(false);
        if lifecycle && events % 2 == 1 {
            return Err(self.err(
                "workload.events",
                format!(
                    "{events} is odd; with `lifecycle` each transfer is two events \
                     (TransferCreated, TransferCompleted), so the count must be even"
                ),
            ));
        }
        Ok(Workload {
            events,
            accounts,
            amount_minor,
            initial_balance_minor,
            republish,
            republish_altered,
            invalid,
            lifecycle,
        })
    }

    /// Balances stay in `i64` whatever happens: one payload's amount is at most
    /// `MAX_AMOUNT_MINOR` (the k-th altered copy of an event carries k + 1 times its
    /// amount), and even if every step of both phases applied the largest payload to one
    /// account, its balance would not overflow. Past that, SQLite would turn the sum into
    /// a REAL and the ledger would no longer be exact.
    fn amounts_fit(&self, workload: &Workload, limits: &Limits) -> Result<(), ScenarioError> {
        let most_altered = (0..workload.events)
            .map(|e| {
                workload
                    .republish_altered
                    .iter()
                    .filter(|&&a| a == e)
                    .count()
            })
            .max()
            .unwrap_or(0) as i128;
        let largest = i128::from(workload.amount_minor) * (most_altered + 1);
        if largest > i128::from(bounds::MAX_AMOUNT_MINOR) {
            return Err(self.err(
                "workload.republish_altered",
                format!(
                    "an event altered {most_altered} times has a copy of {largest} minor \
                     units (the k-th altered copy carries k + 1 times workload.amount_minor), \
                     over the {} a payload may carry; fewer altered copies of one event, or a \
                     smaller amount",
                    bounds::MAX_AMOUNT_MINOR
                ),
            ));
        }
        let worst =
            i128::from(workload.initial_balance_minor) + 2 * i128::from(limits.max_steps) * largest;
        if worst > i128::from(i64::MAX) {
            return Err(self.err(
                "limits.max_steps",
                format!(
                    "{} steps in each of the two phases, each able to apply a payload of up to \
                     {largest} minor units to one account, could take a balance past the \
                     64-bit range ({}); lower limits.max_steps or workload.amount_minor",
                    limits.max_steps,
                    i64::MAX
                ),
            ));
        }
        Ok(())
    }

    fn event_index(&self, field: &str, e: u64, events: usize) -> Result<usize, ScenarioError> {
        if e >= events as u64 {
            Err(self.err(
                field,
                format!(
                    "event {e} does not exist; events are numbered 0 to {} in publication order",
                    events - 1
                ),
            ))
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
        consequence: &str,
    ) -> ScenarioError {
        if step.actor() != crate::model::StepActor::Consumer {
            return self.err(
                field,
                format!(
                    "`{step}` is a step of the {}, which this scenario does not run{consequence}; \
                     `producer.mode` decides it (the producer runs in commit_then_publish, \
                     publish_then_commit and outbox, the relay in outbox; the email relay runs \
                     when the protocol has `enqueue_email`)",
                    step.actor().name()
                ),
            );
        }
        self.err(
            field,
            format!(
                "protocol `{}` has no step `{step}`{consequence}; its steps are {}",
                protocol.name,
                protocol.arrow_list()
            ),
        )
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
            Some(0) => Err(self.err(field, "delivery attempts start at 1 (the first delivery)")),
            other => Ok(other),
        }
    }

    fn faults(
        &self,
        raw: RawFaults,
        workload: &Workload,
        protocol: &Protocol,
        producer: &ProducerConfig,
    ) -> Result<FaultPlan, ScenarioError> {
        // Events minted by a per-attempt identity are numbered after the workload's.
        let crash_events = if producer.identity == Identity::PerAttempt {
            bounds::MAX_EVENTS as usize * 2
        } else {
            workload.events
        };
        if raw.crash.len() > bounds::MAX_CRASHES as usize {
            return Err(self.err(
                "faults.crash",
                format!("at most {} planned crashes", bounds::MAX_CRASHES),
            ));
        }
        let mut crash = Vec::new();
        for (i, c) in raw.crash.into_iter().enumerate() {
            let at =
                Boundary::parse(&c.at).map_err(|m| self.err(format!("faults.crash[{i}].at"), m))?;
            if !super::runs_step(protocol, producer, at.step) {
                return Err(self.missing_step(
                    format!("faults.crash[{i}].at"),
                    protocol,
                    at.step,
                    &format!(", so `{}` is never reached", c.at),
                ));
            }
            let event =
                self.opt_event(&format!("faults.crash[{i}].event"), c.event, crash_events)?;
            let republished = || workload.republish.iter().chain(&workload.republish_altered);
            let copies = event.map_or(republished().count(), |e| {
                republished().filter(|&&r| r == e).count()
            });
            if let Some(copy) = c
                .copy
                .filter(|_| at.step.actor() == crate::model::StepActor::Consumer)
            {
                if copy as usize > copies {
                    return Err(self.err(
                        format!("faults.crash[{i}].copy"),
                        format!(
                            "copy {copy} is never published: 0 is the original and the \
                             workload republishes this event {copies} time(s)"
                        ),
                    ));
                }
            }
            crash.push(CrashSpec {
                at,
                event,
                copy: c.copy,
                delivery: self.delivery(&format!("faults.crash[{i}].delivery"), c.delivery)?,
            });
        }
        let random_crash = match raw.random_crash {
            None => None,
            Some(r) => Some(RandomCrash {
                per_step_ppm: self.range(
                    "faults.random_crash.per_step_ppm",
                    r.per_step_ppm,
                    0,
                    1_000_000,
                )?,
                max_crashes: self.range(
                    "faults.random_crash.max_crashes",
                    r.max_crashes,
                    0,
                    bounds::MAX_CRASHES,
                )?,
            }),
        };
        self.at_most("faults.fail", raw.fail.len(), bounds::MAX_FAULT_SPECS)?;
        self.at_most("faults.stall", raw.stall.len(), bounds::MAX_FAULT_SPECS)?;
        self.at_most(
            "faults.lose_ack",
            raw.lose_ack.len(),
            bounds::MAX_FAULT_SPECS,
        )?;
        self.at_most(
            "faults.duplicate_delivery",
            raw.duplicate_delivery.len(),
            bounds::MAX_FAULT_SPECS,
        )?;
        self.at_most(
            "faults.publish_timeout",
            raw.publish_timeout.len(),
            bounds::MAX_FAULT_SPECS,
        )?;
        let mut fail = Vec::new();
        for (i, f) in raw.fail.into_iter().enumerate() {
            let field = format!("faults.fail[{i}].at");
            let step = Step::parse(&f.at).ok_or_else(|| {
                self.err(
                    &field,
                    format!(
                        "unknown step `{}`; the steps are {}",
                        f.at,
                        Step::allowed_names()
                    ),
                )
            })?;
            if step.actor() != crate::model::StepActor::Consumer {
                return Err(self.err(
                    &field,
                    format!(
                        "only consumer steps can be told to fail; `{step}` is the {}'s (crash \
                         it with `faults.crash`, or time its publication out with \
                         `faults.publish_timeout`)",
                        step.actor().name()
                    ),
                ));
            }
            if step == Step::Receive {
                return Err(self.err(
                    &field,
                    "`receive` cannot fail; to lose a delivery on the wire, crash at `before:receive`",
                ));
            }
            if !protocol.has(step) {
                return Err(self.missing_step(&field, protocol, step, ""));
            }
            if f.times.is_some() && f.until_tick.is_some() {
                return Err(self.err(
                    format!("faults.fail[{i}].until_tick"),
                    "give `times` (fails that many times) or `until_tick` (fails every time \
                     until that tick, a poison message until its fix), not both",
                ));
            }
            fail.push(FailSpec {
                step,
                event: self.opt_event(
                    &format!("faults.fail[{i}].event"),
                    f.event,
                    workload.events,
                )?,
                delivery: self.delivery(&format!("faults.fail[{i}].delivery"), f.delivery)?,
                times: self.range(
                    &format!("faults.fail[{i}].times"),
                    f.times.unwrap_or(1),
                    1,
                    bounds::MAX_FAIL_TIMES,
                )?,
                until_tick: f
                    .until_tick
                    .map(|t| {
                        self.range(
                            &format!("faults.fail[{i}].until_tick"),
                            t,
                            1,
                            bounds::MAX_TICKS,
                        )
                    })
                    .transpose()?,
            });
        }
        let mut stall = Vec::new();
        for (i, st) in raw.stall.into_iter().enumerate() {
            let field = format!("faults.stall[{i}]");
            let at = Boundary::parse(&st.at).map_err(|m| self.err(format!("{field}.at"), m))?;
            if !protocol.has(at.step) {
                return Err(self.missing_step(format!("{field}.at"), protocol, at.step, ""));
            }
            stall.push(StallSpec {
                at,
                event: self.opt_event(&format!("{field}.event"), st.event, workload.events)?,
                delivery: self.delivery(&format!("{field}.delivery"), st.delivery)?,
                ticks: self.range(
                    &format!("{field}.ticks"),
                    st.ticks,
                    1,
                    bounds::MAX_DELAY_TICKS,
                )?,
            });
        }
        let lose_ack = self.delivery_faults("faults.lose_ack", raw.lose_ack, workload)?;
        let duplicate_delivery = self.delivery_faults(
            "faults.duplicate_delivery",
            raw.duplicate_delivery,
            workload,
        )?;
        if raw.commit_timeout.len() > bounds::MAX_CRASHES as usize {
            return Err(self.err(
                "faults.commit_timeout",
                format!("at most {} commit timeouts", bounds::MAX_CRASHES),
            ));
        }
        let mut commit_timeout = Vec::new();
        for (i, t) in raw.commit_timeout.into_iter().enumerate() {
            let field = format!("faults.commit_timeout[{i}]");
            if !protocol.has(Step::Commit) {
                return Err(self.missing_step(
                    field,
                    protocol,
                    Step::Commit,
                    ", so no commit can time out",
                ));
            }
            commit_timeout.push(CommitTimeoutSpec {
                event: self.opt_event(&format!("{field}.event"), t.event, workload.events)?,
                delivery: self.delivery(&format!("{field}.delivery"), t.delivery)?,
                applied: t.applied,
            });
        }
        let mut publish_timeout = Vec::new();
        for (i, f) in raw.publish_timeout.into_iter().enumerate() {
            let field = format!("faults.publish_timeout[{i}]");
            publish_timeout.push(PublishFault {
                event: self.opt_event(&format!("{field}.event"), f.event, workload.events)?,
                times: self.range(
                    &format!("{field}.times"),
                    f.times.unwrap_or(1),
                    1,
                    bounds::MAX_FAIL_TIMES,
                )?,
            });
        }
        Ok(FaultPlan {
            crash,
            random_crash,
            fail,
            stall,
            lose_ack,
            duplicate_delivery,
            commit_timeout,
            publish_timeout,
        })
    }

    fn producer(
        &self,
        raw: &RawProducer,
        workload: &Workload,
    ) -> Result<ProducerConfig, ScenarioError> {
        let d = ProducerConfig::default();
        let config = ProducerConfig {
            mode: raw.mode.unwrap_or(d.mode),
            identity: raw.identity.unwrap_or(d.identity),
            database: raw.database.unwrap_or(d.database),
            retry: raw.retry.unwrap_or(d.retry),
        };
        if config.active() && workload.lifecycle {
            return Err(self.err(
                "workload.lifecycle",
                "a transfer's two events are published by the `direct` producer only: a \
                 producer process makes one request per transfer, and answers the completion's \
                 from the transfer it already committed, so the completion would never be \
                 published; remove `producer.mode` or `lifecycle`",
            ));
        }
        if config.active() && !workload.republish_altered.is_empty() {
            return Err(self.err(
                "workload.republish_altered",
                "altered copies are published by the `direct` producer only: a producer \
                 process publishes the transfer it committed (or its outbox row), so it has \
                 no other payload to send; remove `producer.mode` or the altered copies",
            ));
        }
        if !config.active() {
            self.refuse_set(
                &[
                    ("producer.database", raw.database.is_some()),
                    ("producer.retry", raw.retry.is_some()),
                ],
                "the `direct` producer has no process and no database; set \
                         `producer.mode` to commit_then_publish, publish_then_commit or outbox",
            )?;
        }
        Ok(config)
    }

    fn delivery_faults(
        &self,
        name: &str,
        raw: Vec<RawDeliveryFault>,
        workload: &Workload,
    ) -> Result<Vec<DeliveryFault>, ScenarioError> {
        raw.into_iter()
            .enumerate()
            .map(|(i, f)| {
                let field = format!("{name}[{i}]");
                Ok(DeliveryFault {
                    event: self.opt_event(&format!("{field}.event"), f.event, workload.events)?,
                    delivery: self.delivery(&format!("{field}.delivery"), f.delivery)?,
                    times: self.range(
                        &format!("{field}.times"),
                        f.times.unwrap_or(1),
                        1,
                        bounds::MAX_FAIL_TIMES,
                    )?,
                })
            })
            .collect()
    }
}
