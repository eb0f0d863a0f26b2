//! From a [`Scenario`] back to scenario JSON: the inverse of `validate`. What it writes is
//! what a person would: the built-in protocol by name, every value that differs from its
//! default, and nothing else, so that a shrunk counterexample reads as a small file and a
//! replay token stays short.
//!
//! The contract is the round trip: for every scenario the loader accepts,
//! `Scenario::from_json(&s.to_json(), _) == Ok(s)`. Options that a section refuses unless
//! another is set (the log's options without `kind: log`, a producer's database without a
//! producer) are written only where the loader takes them, which is the only place a
//! validated scenario can have them differ from their defaults.

use super::schema::*;
use super::{ConsumerConfig, Limits, Scenario, Workload};
use crate::broker::BrokerConfig;
use crate::fault::FaultPlan;
use crate::model::{Protocol, SqlStep, SqlValue, Step};
use crate::producer::ProducerConfig;
use crate::store::{CustomSchema, Retention, StoreConfig};

impl Scenario {
    /// The scenario as a scenario file: pretty JSON with two-space indentation and a final
    /// newline, fields in the order of the schema, defaults left out (but `name`, `seed`,
    /// `protocol` and `workload.events` always written).
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(&raw(self)).expect("a scenario serializes");
        text.push('\n');
        text
    }

    /// The same JSON on one line, without the description and the expectations: what
    /// decides the run and nothing else (what a replay token carries).
    pub fn to_json_compact(&self) -> String {
        let mut bare = self.clone();
        bare.description.clear();
        bare.description_es.clear();
        bare.expect = None;
        serde_json::to_string(&raw(&bare)).expect("a scenario serializes")
    }
}

/// `Some(value)` unless it is the default.
fn unless<T: PartialEq>(value: T, default: T) -> Option<T> {
    (value != default).then_some(value)
}

fn event(e: Option<usize>) -> Option<u64> {
    e.map(|e| e as u64)
}

fn raw(s: &Scenario) -> RawScenario {
    RawScenario {
        name: Some(s.name.clone()),
        description: match s.description_es.is_empty() {
            true => unless(s.description.clone(), String::new()).map(RawDescription::One),
            false => Some(RawDescription::Languages(RawLanguages {
                en: s.description.clone(),
                es: s.description_es.clone(),
            })),
        },
        seed: Some(s.seed),
        protocol: protocol(&s.protocol, s.store.custom.as_ref()),
        consumers: unless(s.consumers as u64, 1),
        workload: workload(&s.workload),
        store: store(&s.store),
        broker: broker(&s.broker),
        consumer: consumer(&s.consumer),
        faults: faults(s),
        expect: s.expect.clone(),
        limits: limits(&s.limits),
        producer: producer(&s.producer),
        email: RawEmail {
            idempotency_key: unless(s.email.idempotency_key, false),
        },
        check: s.store.custom.as_ref().map(|c| RawCheck {
            // A named database is said by `effects_per_event`'s own `db`.
            effect: (c.effect_call.clone()).map(RawEffect::External),
            effects_per_event: match c.effects_db {
                _ if c.effect_call.is_some() => None,
                0 => Some(RawQuery::Main(c.effects_per_event.clone())),
                db => Some(RawQuery::On(RawQueryOn {
                    sql: c.effects_per_event.clone(),
                    db: c.db_name(db).to_string(),
                })),
            },
            invariants: c
                .invariants
                .iter()
                .enumerate()
                .map(|(i, sql)| match c.invariant_db(i) {
                    0 => RawQuery::Main(sql.clone()),
                    db => RawQuery::On(RawQueryOn {
                        sql: sql.clone(),
                        db: c.db_name(db).to_string(),
                    }),
                })
                .collect(),
        }),
    }
}

fn protocol(p: &Protocol, custom: Option<&CustomSchema>) -> RawProtocol {
    if Protocol::built_in(&p.name).as_ref() == Some(p) {
        return RawProtocol::Named(p.name.clone());
    }
    let on_error = error_policy(p, custom);
    RawProtocol::Custom(RawCustomProtocol {
        name: p.name.clone(),
        description: unless(p.description.clone(), String::new()),
        steps: (0..p.steps.len())
            .map(|at| raw_step(p, custom, p.steps[at], p.db_at(at)))
            .collect(),
        on_error,
    })
}

/// The `db` of a step on database `on`: none for the main database.
fn db_name(custom: Option<&CustomSchema>, on: u8) -> Option<String> {
    match (on, custom) {
        (0, _) | (_, None) => None,
        (on, Some(c)) => Some(c.db_name(on).to_string()),
    }
}

/// Step `s` of `p`, run on database `on`, as a file writes it: a built-in step by name, a
/// scenario's own step as its SQL, a call by the service it calls.
fn raw_step(p: &Protocol, custom: Option<&CustomSchema>, s: Step, on: u8) -> RawStep {
    match s {
        // A transaction on a named database: written as the SQL step it was read from.
        Step::Begin | Step::Commit if on != 0 => RawStep::Sql(Box::new(RawSqlStep {
            name: Some(s.name().to_string()),
            sql: Some(RawSql::One(
                if s == Step::Begin { "BEGIN" } else { "COMMIT" }.into(),
            )),
            external: None,
            duplicate_if: None,
            db: db_name(custom, on),
            into: None,
            when: None,
            goto: None,
            on_error: None,
        })),
        Step::Sql(name) => raw_sql_step(p.sql_step(name), custom),
        Step::Call(service) => RawStep::Sql(Box::new(RawSqlStep {
            external: Some(service.to_string()),
            ..RawSqlStep::default()
        })),
        other => RawStep::Named(other.name().to_string()),
    }
}

/// A scenario's own SQL step, with every option it sets.
fn raw_sql_step(def: &SqlStep, custom: Option<&CustomSchema>) -> RawStep {
    RawStep::Sql(Box::new(RawSqlStep {
        name: Some(def.name.to_string()),
        sql: Some(match def.statements.as_slice() {
            [one] => RawSql::One(one.clone()),
            many => RawSql::Many(many.to_vec()),
        }),
        external: None,
        duplicate_if: match &def.duplicate_when {
            Some(c) => Some(RawDuplicateIf::When(RawWhen {
                when: c.to_string(),
            })),
            None => def.duplicate_if.map(RawDuplicateIf::Named),
        },
        db: db_name(custom, def.db),
        into: def.into.map(str::to_string),
        when: def.when.as_ref().map(ToString::to_string),
        goto: def.goto.map(str::to_string),
        on_error: def.catch.map(|c| RawCatch {
            continue_at: c.continue_at.to_string(),
            rollback: (!c.rollback).then_some(false),
        }),
    }))
}

/// `p`'s error policy, unless it is the default: its retries, its compensating steps and
/// what it does then.
fn error_policy(p: &Protocol, custom: Option<&CustomSchema>) -> Option<RawOnError> {
    let policy = &p.on_error;
    (!policy.is_default()).then(|| {
        RawOnError::Policy(RawErrorPolicy {
            retry: policy.retry.map(|r| RawRetry {
                times: u64::from(r.times),
                backoff_ticks: unless(r.backoff_ticks, 0),
            }),
            steps: (0..policy.steps.len())
                .map(
                    |k| match raw_step(p, custom, policy.steps[k], policy.db_at(k)) {
                        RawStep::Named(name) => RawCompensation::Named(name),
                        RawStep::Sql(s) => RawCompensation::Sql(RawCompensationSql {
                            name: s.name,
                            // A compensating step is SQL or built in, never an external call.
                            sql: s.sql.unwrap_or(RawSql::Many(Vec::new())),
                            db: s.db,
                        }),
                    },
                )
                .collect(),
            then: Some(policy.then.name().to_string()),
        })
    })
}

fn workload(w: &Workload) -> RawWorkload {
    let d = Workload::default();
    let events = |list: &[usize]| list.iter().map(|&e| e as u64).collect();
    RawWorkload {
        events: Some(w.events as u64),
        accounts: unless(w.accounts as u64, d.accounts as u64),
        amount_minor: unless(w.amount_minor, d.amount_minor),
        initial_balance_minor: unless(w.initial_balance_minor, d.initial_balance_minor),
        republish: events(&w.republish),
        republish_altered: events(&w.republish_altered),
        invalid: events(&w.invalid),
        lifecycle: unless(w.lifecycle, d.lifecycle),
        payloads: w
            .payloads
            .iter()
            .map(|p| {
                p.iter()
                    .map(|(k, v)| {
                        let v = match v {
                            SqlValue::Integer(i) => serde_json::Value::from(*i),
                            SqlValue::Text(s) => serde_json::Value::from(s.clone()),
                        };
                        (k.clone(), v)
                    })
                    .collect()
            })
            .collect(),
        event_type: w.event_type.clone(),
    }
}

fn store(st: &StoreConfig) -> RawStore {
    let d = StoreConfig::default();
    let retention = st.retention.as_ref();
    RawStore {
        inbox_unique: unless(st.inbox_unique, d.inbox_unique),
        effect: unless(st.effect, d.effect),
        business_key_unique: unless(st.business_key_unique, d.business_key_unique),
        // The cleanup's schedule and batch exist only with a TTL.
        inbox_ttl_ticks: retention.map(|r| r.ttl_ticks),
        cleanup_every_ticks: retention.and_then(|r| {
            unless(
                r.cleanup_every_ticks,
                Retention::DEFAULT_CLEANUP_EVERY_TICKS,
            )
        }),
        cleanup_batch: retention.and_then(|r| unless(r.batch, Retention::DEFAULT_BATCH)),
        out_of_order: unless(st.out_of_order, d.out_of_order),
        schema: st.custom.as_ref().map(|c| c.schema.clone()),
        setup: st
            .custom
            .as_ref()
            .map(|c| c.setup.clone())
            .unwrap_or_default(),
        databases: st
            .custom
            .iter()
            .flat_map(|c| &c.databases)
            .map(|d| {
                let raw = RawDatabase {
                    schema: d.schema.clone(),
                    setup: d.setup.clone(),
                };
                (d.name.clone(), raw)
            })
            .collect(),
        engine: unless(st.engine, d.engine),
        isolation: unless(st.isolation, d.isolation),
    }
}

fn broker(b: &BrokerConfig) -> RawBroker {
    let d = BrokerConfig::default();
    let log = b.log.as_ref();
    RawBroker {
        redelivery_delay_ticks: unless(b.redelivery_delay_ticks, d.redelivery_delay_ticks),
        max_deliveries: b.max_deliveries,
        lease_ticks: b.lease_ticks,
        stale_ack: unless(b.stale_ack, d.stale_ack),
        delivery_jitter_ticks: b.delivery_jitter_ticks,
        kind: log.map(|_| BrokerKind::Log),
        // The loader's defaults for a log: one partition, keyed by transfer, a commit after
        // every message, no auto-commit.
        partitions: log.and_then(|l| unless(l.partitions as u64, 1)),
        key: log.and_then(|l| unless(l.key, Default::default())),
        commit_every: log.and_then(|l| unless(l.commit_every, 1)),
        auto_commit: log.and_then(|l| unless(l.auto_commit, false)),
        transactional: unless(b.transactional, d.transactional),
        replay_dead_letters_at_tick: b.replay_dead_letters_at_tick,
        late_redelivery_ticks: b.late_redelivery_ticks,
    }
}

fn consumer(c: &ConsumerConfig) -> RawConsumer {
    let d = ConsumerConfig::default();
    RawConsumer {
        restart_delay_ticks: unless(c.restart_delay_ticks, d.restart_delay_ticks),
        on_commit_timeout: unless(c.on_commit_timeout, d.on_commit_timeout),
        completion_delay_ticks: unless(c.completion_delay_ticks, d.completion_delay_ticks),
    }
}

fn faults(s: &Scenario) -> RawFaults {
    raw_faults(&s.faults)
}

/// A fault plan as a scenario file's `faults` writes it.
pub(super) fn raw_faults(f: &FaultPlan) -> RawFaults {
    RawFaults {
        crash: f
            .crash
            .iter()
            .map(|c| RawCrash {
                at: c.at.to_string(),
                event: event(c.event),
                copy: c.copy,
                delivery: c.delivery,
            })
            .collect(),
        random_crash: f.random_crash.map(|r| RawRandomCrash {
            per_step_ppm: r.per_step_ppm,
            max_crashes: r.max_crashes,
        }),
        fail: f
            .fail
            .iter()
            .map(|x| RawFail {
                at: match x.nth {
                    None => x.step.name().to_string(),
                    Some(n) => format!("{}#{n}", x.step),
                },
                event: event(x.event),
                delivery: x.delivery,
                // `times` is ignored (and refused) with `until_tick`.
                times: x
                    .until_tick
                    .is_none()
                    .then_some(x.times)
                    .filter(|&t| t != 1),
                until_tick: x.until_tick,
            })
            .collect(),
        stall: f
            .stall
            .iter()
            .map(|x| RawStall {
                at: x.at.to_string(),
                event: event(x.event),
                delivery: x.delivery,
                ticks: x.ticks,
            })
            .collect(),
        lose_ack: delivery_faults(&f.lose_ack),
        duplicate_delivery: delivery_faults(&f.duplicate_delivery),
        commit_timeout: f
            .commit_timeout
            .iter()
            .map(|t| RawCommitTimeout {
                at: t.nth.map(|n| format!("commit#{n}")),
                event: event(t.event),
                delivery: t.delivery,
                applied: t.applied,
            })
            .collect(),
        publish_timeout: f
            .publish_timeout
            .iter()
            .map(|p| RawPublishFault {
                event: event(p.event),
                times: unless(p.times, 1),
            })
            .collect(),
    }
}

fn delivery_faults(list: &[crate::fault::DeliveryFault]) -> Vec<RawDeliveryFault> {
    list.iter()
        .map(|f| RawDeliveryFault {
            event: event(f.event),
            delivery: f.delivery,
            times: unless(f.times, 1),
        })
        .collect()
}

fn limits(l: &Limits) -> RawLimits {
    let d = Limits::default();
    RawLimits {
        max_steps: unless(l.max_steps, d.max_steps),
        max_ticks: unless(l.max_ticks, d.max_ticks),
    }
}

fn producer(p: &ProducerConfig) -> RawProducer {
    let d = ProducerConfig::default();
    // The loader refuses a database or a retry setting without a producer process.
    let active = p.active();
    RawProducer {
        mode: unless(p.mode, d.mode),
        identity: unless(p.identity, d.identity),
        database: unless(p.database, d.database).filter(|_| active),
        retry: unless(p.retry, d.retry).filter(|_| active),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::sweep::{seeded, SwarmLimits};
    use proptest::prelude::*;
    use serde_json::{json, Value};

    /// Drops the `null` members the generator below writes for an absent field.
    fn prune_nulls(value: &mut Value) {
        if let Value::Object(map) = value {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(prune_nulls);
        } else if let Value::Array(items) = value {
            items.iter_mut().for_each(prune_nulls);
        }
    }

    fn round_trips(s: &Scenario) {
        let text = s.to_json();
        let back =
            Scenario::from_json(&text, "written.json").unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        assert_eq!(&back, s, "{text}");
        assert_eq!(back.to_json(), text, "writing is stable");
        let compact = Scenario::from_json(&s.to_json_compact(), "compact.json").unwrap();
        assert_eq!(compact.description, "");
        assert_eq!(compact.expect, None);
        assert_eq!(
            Scenario {
                description: s.description.clone(),
                description_es: s.description_es.clone(),
                expect: s.expect.clone(),
                ..compact
            },
            *s
        );
    }

    #[test]
    fn every_scenario_file_round_trips() {
        // The repository's scenario files, two folders above this crate.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
        let mut n = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|x| x == "json") {
                round_trips(&Scenario::from_file(&path).unwrap());
                n += 1;
            }
        }
        assert!(n >= 20, "{n} files");
    }

    #[test]
    fn every_sweep_draw_round_trips() {
        for name in ["no-dedup", "inbox", "ack-first", "check-then-act"] {
            let mut base = Scenario::new(Protocol::built_in(name).unwrap());
            base.workload.events = 7;
            for seed in 0..40 {
                round_trips(&seeded(&base, seed, &SwarmLimits::default()).0);
            }
            base.broker.log = Some(crate::broker::LogConfig {
                partitions: 2,
                key: crate::broker::PartitionKey::EventId,
                commit_every: 2,
                auto_commit: true,
            });
            round_trips(&seeded(&base, 1, &SwarmLimits::default()).0);
        }
    }

    #[test]
    fn defaults_are_left_out_and_a_custom_protocol_is_written_in_full() {
        let s = Scenario::from_json(r#"{"protocol": "inbox"}"#, "t").unwrap();
        assert_eq!(
            s.to_json_compact(),
            r#"{"name":"inbox","seed":0,"protocol":"inbox","workload":{"events":3}}"#
        );
        let s = Scenario::from_json(
            r#"{"protocol": {"name": "inbox", "steps": ["receive", "apply_effect", "ack"]}}"#,
            "t",
        )
        .unwrap();
        assert!(s.to_json().contains(r#""steps": ["#), "{}", s.to_json());
        round_trips(&s);
    }

    /// Scenario JSON drawn field by field, within the rules as far as a generator easily
    /// can (faults at the protocol's own steps, events that exist); whatever the loader
    /// accepts must come back unchanged from `to_json`.
    fn scenario_json() -> impl Strategy<Value = Value> {
        let names = crate::model::built_ins()
            .iter()
            .map(|b| b.name.clone())
            .collect::<Vec<_>>();
        (prop::sample::select(names), 1u64..7).prop_flat_map(|(name, events)| {
            let protocol = Protocol::built_in(&name).unwrap();
            scenario_of(protocol, events)
        })
    }

    fn scenario_of(protocol: Protocol, events: u64) -> impl Strategy<Value = Value> {
        use crate::model::Step;
        let steps = protocol.steps.clone();
        let has = |s: Step| steps.contains(&s);
        let (commit, output) = (has(Step::Commit), has(Step::ProduceOutput));
        let failable: Vec<String> = steps
            .iter()
            .filter(|s| **s != Step::Receive)
            .map(|s| s.name().to_string())
            .collect();
        let boundary = (
            prop::sample::select(vec!["before", "after"]),
            prop::sample::select(steps),
        )
            .prop_map(|(side, step)| format!("{side}:{step}"));
        let ev = prop::option::of(0..events);
        let delivery = prop::option::of(1u32..4);
        let crash = (boundary.clone(), ev.clone(), prop::option::of(0u32..1), delivery.clone())
            .prop_map(|(at, event, copy, delivery)| {
                json!({"at": at, "event": event, "copy": copy, "delivery": delivery})
            });
        let fail = (
            prop::sample::select(failable),
            ev.clone(),
            delivery.clone(),
            1u32..4,
            prop::option::of(1u64..500),
        )
            .prop_map(|(at, event, delivery, times, until)| match until {
                Some(t) => json!({"at": at, "event": event, "delivery": delivery, "until_tick": t}),
                None => json!({"at": at, "event": event, "delivery": delivery, "times": times}),
            });
        let stall = (boundary, ev.clone(), delivery.clone(), 1u64..200).prop_map(
            |(at, event, delivery, ticks)| {
                json!({"at": at, "event": event, "delivery": delivery, "ticks": ticks})
            },
        );
        let delivery_fault = (ev.clone(), delivery.clone(), prop::option::of(1u32..3))
            .prop_map(|(event, delivery, times)| {
                json!({"event": event, "delivery": delivery, "times": times})
            });
        let commit_timeout = (ev.clone(), delivery, any::<bool>()).prop_map(
            move |(event, delivery, applied)| {
                json!({"event": event, "delivery": delivery, "applied": applied})
            },
        );
        let publish_timeout = (ev.clone(), prop::option::of(1u32..3))
            .prop_map(|(event, times)| json!({"event": event, "times": times}));
        let faults = (
            prop::collection::vec(crash, 0..3),
            prop::option::of((0u32..300_000, 0u32..5)),
            prop::collection::vec(fail, 0..2),
            prop::collection::vec(stall, 0..2),
            prop::collection::vec(delivery_fault.clone(), 0..2),
            prop::collection::vec(delivery_fault, 0..2),
            prop::collection::vec(commit_timeout, 0..2),
            prop::collection::vec(publish_timeout, 0..2),
        )
            .prop_map(move |(crash, random, fail, stall, lose, dup, ct, pt)| {
                json!({
                    "crash": crash,
                    "random_crash": random.map(|(ppm, max)| json!({"per_step_ppm": ppm, "max_crashes": max})),
                    "fail": fail, "stall": stall, "lose_ack": lose, "duplicate_delivery": dup,
                    "commit_timeout": if commit { ct } else { Vec::new() },
                    "publish_timeout": pt,
                })
            });
        let workload = (
            prop::option::of(2u64..6),
            prop::collection::vec(0..events, 0..3),
            prop::collection::vec(0..events, 0..2),
            prop::option::of(any::<bool>()),
            prop::option::of(1i64..50_000),
        )
            .prop_map(move |(accounts, republish, altered, lifecycle, amount)| {
                json!({"events": events, "accounts": accounts, "republish": republish,
                       "republish_altered": altered,
                       "lifecycle": lifecycle.filter(|_| events % 2 == 0),
                       "amount_minor": amount})
            });
        let log = (
            prop::option::of(1u64..4),
            prop::option::of(prop::sample::select(vec![
                "transfer_id",
                "account_id",
                "event_id",
            ])),
            prop::option::of(1u32..3),
            prop::option::of(any::<bool>()),
        );
        let broker = (
            any::<bool>(),
            prop::option::of(0u64..30),
            prop::option::of(1u32..4),
            prop::option::of(1u64..100),
            prop::option::of(prop::sample::select(vec!["accept", "reject"])),
            prop::option::of(0u64..20),
            log,
            any::<bool>(),
            prop::option::of(1u64..300),
        )
            .prop_map(
                move |(is_log, delay, max_deliveries, lease, stale, jitter, log, transactional, replay)| {
                    let (partitions, key, every, auto) = log;
                    if is_log {
                        json!({"kind": "log", "partitions": partitions,
                               "key": key, "commit_every": every, "auto_commit": auto})
                    } else {
                        json!({"redelivery_delay_ticks": delay, "max_deliveries": max_deliveries,
                               "lease_ticks": lease, "stale_ack": stale, "delivery_jitter_ticks": jitter,
                               "transactional": (output && transactional).then_some(true),
                               "replay_dead_letters_at_tick": max_deliveries.and(replay)})
                    }
                },
            );
        let producer = (
            prop::option::of(prop::sample::select(vec![
                "direct",
                "commit_then_publish",
                "publish_then_commit",
                "outbox",
            ])),
            prop::option::of(prop::sample::select(vec!["stable", "per_attempt"])),
            prop::option::of(prop::sample::select(vec!["own", "shared"])),
            prop::option::of(any::<bool>()),
        )
            .prop_map(|(mode, identity, database, retry)| {
                let active = mode.is_some_and(|m| m != "direct");
                json!({"mode": mode, "identity": identity,
                       "database": database.filter(|_| active), "retry": retry.filter(|_| active)})
            });
        let settings = (
            prop::option::of(any::<bool>()),
            prop::option::of(prop::sample::select(vec!["atomic", "read_modify_write"])),
            prop::option::of(prop::sample::select(vec!["retry", "abandon", "lookup"])),
            prop::option::of(0u64..20),
            prop::option::of((0..=events, 0..=events, any::<bool>())),
            prop::option::of(1000u64..100_000),
        );
        let later = (
            prop::option::of(0u64..100),
            prop::option::of(1u64..10),
            prop::option::of(1u32..50),
            prop::option::of(prop::sample::select(vec!["reject", "buffer"])),
            prop::option::of(0u64..10),
            prop::option::of(1u64..50),
            prop::option::of((0u64..1, 1usize..3)),
        );
        (
            any::<u64>(),
            prop::option::of(1u64..4),
            workload,
            broker,
            faults,
            producer,
            settings,
            later,
        )
            .prop_map(
                move |(seed, consumers, workload, broker, faults, producer, settings, later)| {
                    let (ttl, every, batch, out_of_order, completion_delay, late, pending) = later;
                    let (unique, effect, on_timeout, restart, expect, max_steps) = settings;
                    let mut v = json!({
                        "name": format!("case-{seed}"), "description": "drawn", "seed": seed,
                        "protocol": protocol.name, "consumers": consumers, "workload": workload,
                        "broker": broker, "faults": faults, "producer": producer,
                        "store": {"inbox_unique": unique, "effect": effect},
                        "consumer": {"on_commit_timeout": on_timeout, "restart_delay_ticks": restart},
                        "limits": {"max_steps": max_steps},
                        "expect": expect.map(|(lost, dup, acked)| json!({
                            "lost": lost, "duplicated": dup, "all_acked": acked,
                            "explore": {"depth": 1, "runs": 7},
                            "boundaries": {"email": {}}
                        })),
                    });
                    if v["broker"]["kind"] == "log" {
                        v["faults"]["lose_ack"] = json!([]);
                        v["faults"]["duplicate_delivery"] = json!([]);
                    } else {
                        v["broker"]["late_redelivery_ticks"] = json!(late);
                    }
                    if let Some(ttl) = ttl {
                        v["store"]["inbox_ttl_ticks"] = json!(ttl);
                        v["store"]["cleanup_every_ticks"] = json!(every);
                        v["store"]["cleanup_batch"] = json!(batch);
                    }
                    if v["workload"]["lifecycle"] == true {
                        v["store"]["out_of_order"] = json!(out_of_order);
                        v["consumer"]["completion_delay_ticks"] = json!(completion_delay);
                    }
                    if let (Some((pending, depth)), Some(_)) = (pending, v.get("expect")) {
                        v["expect"]["pending"] = json!(pending);
                        v["expect"]["smallest_safe_ttl"] = json!({"depth": depth, "ticks": 5});
                    }
                    prune_nulls(&mut v);
                    v
                },
            )
    }

    proptest! {
        // Many drawn combinations are refused (an option that does nothing there), and
        // drawn again.
        #![proptest_config(ProptestConfig {
            cases: 1000,
            max_global_rejects: 8192,
            ..ProptestConfig::default()
        })]
        #[test]
        fn whatever_the_loader_accepts_round_trips(v in scenario_json()) {
            let text = v.to_string();
            let parsed = Scenario::from_json(&text, "drawn.json");
            prop_assume!(parsed.is_ok());
            round_trips(&parsed.unwrap());
        }
    }
}
