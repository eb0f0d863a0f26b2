//! No option silently ignored: every field of the scenario schema either changes what a
//! run does or is refused with exit 2 naming it, in every broker kind and producer mode.
//!
//! The fields are not a hand list: they are read from the schema types themselves, by
//! asking serde (an object with an unknown key is refused with the list of the keys it
//! takes, at every level). The examples below are the hand part, one per field, and the
//! test fails when a field has none: a new field cannot be added without showing what it
//! does. Each example is a scenario that sets its field; the same scenario without the
//! field (or without the list item the field is in, when the field is required there) is
//! the baseline. Setting the field must change the run's trace hash (metadata and
//! expectations: what is printed, what is judged), or be refused naming it. Then the same
//! pair is tried under every producer mode × broker kind (replacing the example's own),
//! with every built-in protocol, and with the inbox written as SQL steps over its own
//! schema and as a Rust handler: where both load, the hash still differs, or the pair is
//! listed as unreached with why. A last test shows the walks catch a field made to do
//! nothing.

use delivery_sim::scenario::problem::{Problem, Read};
use delivery_sim::scenario::Scenario;
use delivery_sim::world;
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// The keys an object at `path` takes, from the refusal of an unknown one; `None` when
/// `path` is not an object (a leaf).
fn keys_at(path: &[&str]) -> Option<Vec<String>> {
    let mut doc = if path.first() == Some(&"protocol") {
        json!({})
    } else {
        json!({"protocol": "inbox"})
    };
    let mut cur = &mut doc;
    for (i, k) in path.iter().enumerate() {
        if *k == "[]" {
            continue;
        }
        let list = path.get(i + 1) == Some(&"[]");
        cur = &mut cur[*k];
        if list {
            *cur = json!([{}]);
            cur = &mut cur[0];
        } else if !cur.is_object() {
            *cur = json!({});
        }
    }
    cur["zzz_unknown"] = json!(1);
    let e = Scenario::from_json(&doc.to_string(), "probe.json").expect_err("an unknown key");
    // Another refusal than serde's took the key: `path` is a map whose keys are the file's
    // own (a payload's fields), a leaf of the schema.
    let Problem::Read(Read::Json { message, .. }) = &*e.problem else {
        return None;
    };
    let rest = message
        .split("unknown field `zzz_unknown`, expected ")
        .nth(1)?;
    Some(
        rest.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect(),
    )
}

/// Every leaf field of the schema, as `broker.lease_ticks` or `faults.crash[].at`
/// (`expect` is one: its fields are what a run is judged by, not what it does).
fn schema_fields() -> BTreeSet<String> {
    fn walk(path: Vec<String>, out: &mut BTreeSet<String>) {
        let at = |p: &[String]| keys_at(&p.iter().map(String::as_str).collect::<Vec<_>>());
        for k in at(&path).expect("an object") {
            let mut p = path.clone();
            p.push(k.clone());
            let mut item = p.clone();
            item.push("[]".into());
            if path.is_empty() && k == "expect" {
                out.insert(k);
            } else if at(&p).is_some() {
                walk(p, out);
            } else if at(&item).is_some() {
                walk(item, out);
            } else {
                out.insert(p.join(".").replace(".[]", "[]"));
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(Vec::new(), &mut out);
    out
}

/// One example per field: a scenario that sets it. The baseline is the same without it.
const EXAMPLES: &[(&str, &str)] = &[
    (
        "check.effect.db",
        r#"{"protocol": {"name": "sql", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, {"name": "call", "sql": "INSERT INTO calls VALUES (:event_id)", "db": "api"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE calls (id TEXT)"], "databases": {"api": {"schema": ["CREATE TABLE calls (id TEXT)"]}}}, "check": {"effect": {"db": "api"}, "effects_per_event": "SELECT count(*) FROM calls WHERE id = :event_id"}}"#,
    ),
    (
        "check.effect.external",
        r#"{"protocol": {"name": "calls", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, {"external": "topup"}, {"external": "notify"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)"]}, "check": {"effect": {"external": "topup"}}, "faults": {"crash": [{"at": "after:notify", "event": 0, "delivery": 1}]}}"#,
    ),
    (
        "protocol.steps[].external",
        r#"{"protocol": {"name": "calls", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, {"external": "notify"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}}"#,
    ),
    ("name", r#"{"name": "other", "protocol": "inbox"}"#),
    (
        "description.en",
        r#"{"description": {"en": "told", "es": "dicho"}, "protocol": "inbox"}"#,
    ),
    (
        "description.es",
        r#"{"description": {"en": "told", "es": "dicho"}, "protocol": "inbox"}"#,
    ),
    (
        "seed",
        r#"{"seed": 9, "protocol": "inbox", "broker": {"delivery_jitter_ticks": 5}}"#,
    ),
    (
        "protocol.name",
        r#"{"protocol": {"name": "mine", "steps": ["receive", "begin", "insert_inbox", "apply_effect", "commit", "ack"]}}"#,
    ),
    (
        "protocol.description",
        r#"{"protocol": {"name": "mine", "description": "told", "steps": ["receive", "begin", "insert_inbox", "apply_effect", "commit", "ack"]}}"#,
    ),
    (
        "protocol.steps[].into",
        r#"{"protocol": {"name": "flow", "steps": ["receive", "begin", {"name": "look", "sql": "SELECT count(*) AS n FROM done WHERE id = :event_id", "into": "prior"}, {"name": "apply", "sql": "INSERT INTO done SELECT :event_id WHERE coalesce(:prior.n, 0) = 0"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE done (id TEXT)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "workload": {"republish": [0]}}"#,
    ),
    (
        "protocol.steps[].when",
        r#"{"protocol": {"name": "flow", "steps": ["receive", "begin", {"name": "look", "sql": "SELECT count(*) AS n FROM done WHERE id = :event_id", "into": "prior"}, {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)", "when": "prior.n = 0"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE done (id TEXT)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "workload": {"republish": [0]}}"#,
    ),
    (
        "protocol.steps[].duplicate_if.when",
        r#"{"protocol": {"name": "flow", "steps": ["receive", "begin", {"name": "look", "sql": "SELECT count(*) AS n FROM done WHERE id = :event_id", "into": "prior", "duplicate_if": {"when": "prior.n > 0"}}, {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE done (id TEXT)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "workload": {"republish": [0]}}"#,
    ),
    (
        "protocol.steps[].goto",
        r#"{"protocol": {"name": "flow", "steps": ["receive", "begin", {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", {"name": "look", "sql": "SELECT count(*) AS n FROM done WHERE id = :event_id", "into": "prior"}, {"name": "again", "sql": "SELECT 1", "when": "prior.n < 2", "goto": "begin"}, "ack"]}, "store": {"schema": ["CREATE TABLE done (id TEXT)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "workload": {"republish": [0]}}"#,
    ),
    (
        "protocol.steps[].on_error.continue_at",
        r#"{"protocol": {"name": "catch", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO inbox VALUES (:event_id)", "on_error": {"continue_at": "ack"}}, {"name": "pay", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE inbox (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "workload": {"republish": [0]}, "broker": {"max_deliveries": 2}}"#,
    ),
    (
        "protocol.steps[].on_error.rollback",
        r#"{"protocol": {"name": "catch", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO inbox VALUES (:event_id)", "on_error": {"continue_at": "pay", "rollback": false}}, {"name": "pay", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE inbox (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "workload": {"republish": [0]}, "broker": {"max_deliveries": 2}}"#,
    ),
    (
        "protocol.steps[].name",
        r#"{"protocol": {"name": "sql", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)", "CREATE TABLE cfg (n INTEGER)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}}"#,
    ),
    (
        "protocol.steps[].sql",
        r#"{"protocol": {"name": "sql", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)", "CREATE TABLE cfg (n INTEGER)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}}"#,
    ),
    (
        "store.schema",
        r#"{"protocol": {"name": "sql", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)", "CREATE TABLE cfg (n INTEGER)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}}"#,
    ),
    (
        "store.setup",
        r#"{"protocol": {"name": "sql", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, {"name": "apply", "sql": "INSERT INTO done SELECT :event_id FROM cfg"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)", "CREATE TABLE cfg (n INTEGER)"], "setup": ["INSERT INTO cfg VALUES (1)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}}"#,
    ),
    (
        "check.effects_per_event.sql",
        r#"{"protocol": {"name": "sql", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)", "CREATE TABLE cfg (n INTEGER)"]}, "check": {"effects_per_event": {"sql": "SELECT count(*) FROM done WHERE id = :event_id", "db": "main"}}}"#,
    ),
    (
        "check.effects_per_event.db",
        r#"{"protocol": {"name": "sql", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, {"name": "call", "sql": "INSERT INTO calls VALUES (:event_id)", "db": "api"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE calls (id TEXT)"], "databases": {"api": {"schema": ["CREATE TABLE calls (id TEXT)"]}}}, "check": {"effects_per_event": {"sql": "SELECT count(*) FROM calls WHERE id = :event_id", "db": "api"}}}"#,
    ),
    (
        "check.invariants[].sql",
        r#"{"protocol": {"name": "sql", "steps": ["receive", {"name": "begin", "sql": "BEGIN", "db": "dedup"}, {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation", "db": "dedup"}, {"name": "commit", "sql": "COMMIT", "db": "dedup"}, "begin", {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE done (id TEXT)"], "databases": {"dedup": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)"]}}}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id", "invariants": [{"sql": "SELECT count(*) = 99 FROM seen", "db": "dedup"}]}, "workload": {"republish": [0]}}"#,
    ),
    (
        "check.invariants[].db",
        r#"{"protocol": {"name": "sql", "steps": ["receive", {"name": "begin", "sql": "BEGIN", "db": "dedup"}, {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation", "db": "dedup"}, {"name": "commit", "sql": "COMMIT", "db": "dedup"}, "begin", {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE done (id TEXT)"], "databases": {"dedup": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)"]}}}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id", "invariants": [{"sql": "SELECT count(*) = 99 FROM seen", "db": "dedup"}]}, "workload": {"republish": [0]}}"#,
    ),
    (
        "protocol.steps[].db",
        r#"{"protocol": {"name": "sql", "steps": ["receive", {"name": "begin", "sql": "BEGIN", "db": "dedup"}, {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation", "db": "dedup"}, {"name": "commit", "sql": "COMMIT", "db": "dedup"}, "begin", {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE done (id TEXT)"], "databases": {"dedup": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)"]}}}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id", "invariants": [{"sql": "SELECT count(*) = 99 FROM seen", "db": "dedup"}]}, "workload": {"republish": [0]}}"#,
    ),
    (
        "store.databases",
        r#"{"protocol": {"name": "sql", "steps": ["receive", {"name": "begin", "sql": "BEGIN", "db": "dedup"}, {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation", "db": "dedup"}, {"name": "commit", "sql": "COMMIT", "db": "dedup"}, "begin", {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE done (id TEXT)"], "databases": {"dedup": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)"]}}}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id", "invariants": [{"sql": "SELECT count(*) = 99 FROM seen", "db": "dedup"}]}, "workload": {"republish": [0]}}"#,
    ),
    (
        "workload.payloads",
        r#"{"protocol": {"name": "sql", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, {"name": "apply", "sql": "INSERT INTO done SELECT :event_id WHERE :n = 1"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)", "CREATE TABLE cfg (n INTEGER)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "workload": {"payloads": [{"n": 1}]}}"#,
    ),
    (
        "workload.event_type",
        r#"{"protocol": {"name": "sql", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, {"name": "apply", "sql": "INSERT INTO done SELECT :event_id WHERE :event_type = 'Custom'"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)", "CREATE TABLE cfg (n INTEGER)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "workload": {"event_type": "Custom"}}"#,
    ),
    (
        "protocol.on_error.then",
        r#"{"protocol": {"name": "sql", "steps": ["receive", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, "begin", {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"], "on_error": {"then": "ack"}}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)", "CREATE TABLE cfg (n INTEGER)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "faults": {"fail": [{"at": "apply", "event": 0, "times": 1}]}}"#,
    ),
    (
        "protocol.on_error.retry.times",
        r#"{"protocol": {"name": "sql", "steps": ["receive", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, "begin", {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"], "on_error": {"retry": {"times": 1}}}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)", "CREATE TABLE cfg (n INTEGER)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "faults": {"fail": [{"at": "apply", "event": 0, "times": 1}]}}"#,
    ),
    (
        "protocol.on_error.retry.backoff_ticks",
        r#"{"protocol": {"name": "sql", "steps": ["receive", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, "begin", {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"], "on_error": {"retry": {"times": 1, "backoff_ticks": 7}}}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)", "CREATE TABLE cfg (n INTEGER)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "faults": {"fail": [{"at": "apply", "event": 0, "times": 1}]}}"#,
    ),
    (
        "protocol.on_error.steps[].name",
        r#"{"protocol": {"name": "sql", "steps": ["receive", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, "begin", {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"], "on_error": {"steps": [{"name": "unclaim", "sql": "DELETE FROM seen WHERE id = :event_id"}]}}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)", "CREATE TABLE cfg (n INTEGER)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "faults": {"fail": [{"at": "apply", "event": 0, "times": 1}]}}"#,
    ),
    (
        "protocol.on_error.steps[].sql",
        r#"{"protocol": {"name": "sql", "steps": ["receive", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, "begin", {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"], "on_error": {"steps": [{"name": "unclaim", "sql": "DELETE FROM seen WHERE id = :event_id"}]}}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)", "CREATE TABLE cfg (n INTEGER)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "faults": {"fail": [{"at": "apply", "event": 0, "times": 1}]}}"#,
    ),
    (
        "protocol.on_error.steps[].db",
        r#"{"protocol": {"name": "sql", "steps": ["receive", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation", "db": "dedup"}, "begin", {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"], "on_error": {"steps": [{"name": "unclaim", "sql": "DELETE FROM seen WHERE id = :event_id", "db": "dedup"}]}}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)"], "databases": {"dedup": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)"]}}}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "faults": {"fail": [{"at": "apply", "event": 0, "times": 1}]}}"#,
    ),
    ("consumers", r#"{"protocol": "inbox", "consumers": 2}"#),
    (
        "workload.events",
        r#"{"protocol": "inbox", "workload": {"events": 5}}"#,
    ),
    (
        "workload.accounts",
        r#"{"protocol": "inbox", "workload": {"accounts": 2}}"#,
    ),
    (
        "workload.amount_minor",
        r#"{"protocol": "inbox", "workload": {"amount_minor": 7}}"#,
    ),
    (
        "workload.initial_balance_minor",
        r#"{"protocol": "inbox", "workload": {"initial_balance_minor": 7}}"#,
    ),
    (
        "workload.republish",
        r#"{"protocol": "inbox", "workload": {"republish": [0]}}"#,
    ),
    (
        "workload.republish_altered",
        r#"{"protocol": "inbox", "workload": {"republish_altered": [0]}}"#,
    ),
    (
        "workload.invalid",
        r#"{"protocol": "inbox", "workload": {"invalid": [0]}, "broker": {"max_deliveries": 2}}"#,
    ),
    (
        "workload.lifecycle",
        r#"{"protocol": "inbox", "workload": {"events": 4, "lifecycle": true}}"#,
    ),
    (
        "store.inbox_unique",
        r#"{"protocol": "inbox", "store": {"inbox_unique": false}, "faults": {"crash": [{"at": "after:commit", "event": 0}]}}"#,
    ),
    (
        "store.effect",
        r#"{"protocol": "inbox", "store": {"effect": "read_modify_write"}}"#,
    ),
    (
        "store.business_key_unique",
        r#"{"protocol": "inbox", "store": {"business_key_unique": true}, "producer": {"identity": "per_attempt", "mode": "commit_then_publish"}, "faults": {"publish_timeout": [{"event": 0, "times": 1}]}}"#,
    ),
    (
        "store.inbox_ttl_ticks",
        r#"{"protocol": "inbox", "store": {"inbox_ttl_ticks": 3}, "broker": {"late_redelivery_ticks": 20}}"#,
    ),
    (
        "store.engine",
        r#"{"consumers": 2, "protocol": {"name": "c4", "steps": ["receive", "begin", {"name": "seen", "sql": "SELECT 1 FROM mark WHERE id = :event_id", "duplicate_if": "row"}, {"name": "claim", "sql": "INSERT INTO mark VALUES (:event_id)"}, {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"engine": "postgres", "schema": ["CREATE TABLE mark (id TEXT NOT NULL)", "CREATE TABLE done (id TEXT NOT NULL)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "faults": {"duplicate_delivery": [{"event": 0}]}}"#,
    ),
    (
        "store.isolation",
        r#"{"consumers": 2, "protocol": {"name": "c4", "steps": ["receive", "begin", {"name": "seen", "sql": "SELECT 1 FROM mark WHERE id = :event_id", "duplicate_if": "row"}, {"name": "claim", "sql": "INSERT INTO mark VALUES (:event_id)"}, {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"engine": "postgres", "isolation": "serializable", "schema": ["CREATE TABLE mark (id TEXT NOT NULL)", "CREATE TABLE done (id TEXT NOT NULL)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "faults": {"duplicate_delivery": [{"event": 0}]}}"#,
    ),
    (
        "store.cleanup_every_ticks",
        r#"{"protocol": "inbox", "store": {"inbox_ttl_ticks": 3, "cleanup_every_ticks": 2}, "broker": {"late_redelivery_ticks": 20}}"#,
    ),
    (
        "store.cleanup_batch",
        r#"{"protocol": "inbox", "store": {"inbox_ttl_ticks": 1, "cleanup_batch": 1}, "workload": {"events": 4}, "broker": {"late_redelivery_ticks": 30}}"#,
    ),
    (
        "store.out_of_order",
        r#"{"seed": 7, "protocol": "inbox", "consumers": 2, "workload": {"events": 4, "lifecycle": true}, "faults": {"stall": [{"at": "before:begin", "event": 0, "ticks": 20}]}, "store": {"out_of_order": "buffer"}}"#,
    ),
    (
        "broker.redelivery_delay_ticks",
        r#"{"protocol": "inbox", "broker": {"redelivery_delay_ticks": 3}, "faults": {"crash": [{"at": "before:commit", "event": 0}]}}"#,
    ),
    (
        "broker.max_deliveries",
        r#"{"protocol": "inbox", "broker": {"max_deliveries": 1}, "faults": {"crash": [{"at": "before:commit", "event": 0}]}}"#,
    ),
    (
        "broker.lease_ticks",
        r#"{"protocol": "inbox", "broker": {"lease_ticks": 2}}"#,
    ),
    (
        "broker.stale_ack",
        r#"{"protocol": "no-dedup", "consumers": 2, "broker": {"lease_ticks": 3, "stale_ack": "accept"}}"#,
    ),
    (
        "broker.delivery_jitter_ticks",
        r#"{"protocol": "inbox", "broker": {"delivery_jitter_ticks": 5}}"#,
    ),
    (
        "broker.kind",
        r#"{"protocol": "inbox", "broker": {"kind": "log"}}"#,
    ),
    (
        "broker.partitions",
        r#"{"protocol": "inbox", "seed": 2, "consumers": 2, "workload": {"events": 4}, "broker": {"kind": "log", "partitions": 2}}"#,
    ),
    (
        "broker.key",
        r#"{"protocol": "inbox", "consumers": 2, "workload": {"events": 4}, "broker": {"kind": "log", "partitions": 2, "key": "event_id"}}"#,
    ),
    (
        "broker.commit_every",
        r#"{"protocol": "inbox", "workload": {"events": 4}, "broker": {"kind": "log", "commit_every": 3}, "faults": {"crash": [{"at": "after:ack", "event": 1}]}}"#,
    ),
    (
        "broker.auto_commit",
        r#"{"protocol": "inbox", "broker": {"kind": "log", "auto_commit": true}, "faults": {"crash": [{"at": "before:commit", "event": 0}]}}"#,
    ),
    (
        "broker.transactional",
        r#"{"protocol": {"name": "out", "steps": ["receive", "begin", "insert_inbox", "apply_effect", "commit", "produce_output", "ack"]}, "broker": {"transactional": true}, "faults": {"crash": [{"at": "after:produce_output", "event": 0}]}}"#,
    ),
    (
        "broker.replay_dead_letters_at_tick",
        r#"{"protocol": "inbox", "broker": {"max_deliveries": 1, "replay_dead_letters_at_tick": 40}, "faults": {"crash": [{"at": "before:commit", "event": 0}]}}"#,
    ),
    (
        "broker.late_redelivery_ticks",
        r#"{"protocol": "inbox", "broker": {"late_redelivery_ticks": 5}}"#,
    ),
    (
        "consumer.restart_delay_ticks",
        r#"{"protocol": "inbox", "consumer": {"restart_delay_ticks": 7}, "faults": {"crash": [{"at": "before:commit", "event": 0}]}}"#,
    ),
    (
        "consumer.on_commit_timeout",
        r#"{"protocol": "inbox", "consumer": {"on_commit_timeout": "abandon"}, "faults": {"commit_timeout": [{"event": 0, "applied": false}]}}"#,
    ),
    (
        "consumer.completion_delay_ticks",
        r#"{"seed": 7, "protocol": "inbox", "consumers": 2, "workload": {"events": 4, "lifecycle": true}, "consumer": {"completion_delay_ticks": 5}, "faults": {"stall": [{"at": "before:begin", "event": 0, "ticks": 20}]}}"#,
    ),
    (
        "faults.crash[].at",
        r#"{"protocol": "inbox", "faults": {"crash": [{"at": "before:commit"}]}}"#,
    ),
    (
        "faults.crash[].event",
        r#"{"protocol": "inbox", "faults": {"crash": [{"at": "before:commit", "event": 1}]}}"#,
    ),
    (
        "faults.crash[].copy",
        r#"{"protocol": "inbox", "workload": {"republish": [0]}, "faults": {"crash": [{"at": "before:commit", "event": 0, "copy": 1}]}}"#,
    ),
    (
        "faults.crash[].delivery",
        r#"{"protocol": "inbox", "faults": {"crash": [{"at": "before:commit", "event": 0, "delivery": 2}]}}"#,
    ),
    (
        "faults.random_crash.per_step_ppm",
        r#"{"protocol": "inbox", "workload": {"events": 10}, "faults": {"random_crash": {"per_step_ppm": 300000, "max_crashes": 3}}}"#,
    ),
    (
        "faults.random_crash.max_crashes",
        r#"{"protocol": "inbox", "workload": {"events": 10}, "faults": {"random_crash": {"per_step_ppm": 300000, "max_crashes": 1}}}"#,
    ),
    (
        "faults.fail[].at",
        r#"{"protocol": "inbox", "faults": {"fail": [{"at": "apply_effect"}]}}"#,
    ),
    (
        "faults.fail[].event",
        r#"{"protocol": "inbox", "faults": {"fail": [{"at": "apply_effect", "event": 1}]}}"#,
    ),
    (
        "faults.fail[].delivery",
        r#"{"protocol": "inbox", "faults": {"fail": [{"at": "apply_effect", "event": 0, "times": 2, "delivery": 2}]}}"#,
    ),
    (
        "faults.fail[].times",
        r#"{"protocol": "inbox", "faults": {"fail": [{"at": "apply_effect", "event": 0, "times": 3}]}}"#,
    ),
    (
        "faults.fail[].until_tick",
        r#"{"protocol": "inbox", "faults": {"fail": [{"at": "apply_effect", "event": 0, "until_tick": 30}]}}"#,
    ),
    (
        "faults.stall[].at",
        r#"{"protocol": "inbox", "faults": {"stall": [{"at": "before:commit", "ticks": 5}]}}"#,
    ),
    (
        "faults.stall[].event",
        r#"{"protocol": "inbox", "faults": {"stall": [{"at": "before:commit", "event": 1, "ticks": 5}]}}"#,
    ),
    (
        "faults.stall[].delivery",
        r#"{"protocol": "inbox", "faults": {"stall": [{"at": "before:commit", "event": 0, "delivery": 2, "ticks": 5}]}}"#,
    ),
    (
        "faults.stall[].ticks",
        r#"{"protocol": "inbox", "faults": {"stall": [{"at": "before:commit", "event": 0, "ticks": 5}]}}"#,
    ),
    (
        "faults.lose_ack[].event",
        r#"{"protocol": "inbox", "broker": {"lease_ticks": 20}, "faults": {"lose_ack": [{"event": 1, "times": 1}]}}"#,
    ),
    (
        "faults.lose_ack[].delivery",
        r#"{"protocol": "inbox", "broker": {"lease_ticks": 20}, "faults": {"lose_ack": [{"event": 0, "times": 2, "delivery": 2}]}}"#,
    ),
    (
        "faults.lose_ack[].times",
        r#"{"protocol": "inbox", "broker": {"lease_ticks": 20}, "faults": {"lose_ack": [{"event": 0, "times": 2}]}}"#,
    ),
    (
        "faults.duplicate_delivery[].event",
        r#"{"protocol": "inbox", "consumers": 2, "faults": {"duplicate_delivery": [{"event": 1, "times": 1}]}}"#,
    ),
    (
        "faults.duplicate_delivery[].delivery",
        r#"{"protocol": "inbox", "consumers": 2, "faults": {"duplicate_delivery": [{"event": 0, "times": 2, "delivery": 2}]}}"#,
    ),
    (
        "faults.duplicate_delivery[].times",
        r#"{"protocol": "inbox", "consumers": 2, "faults": {"duplicate_delivery": [{"event": 0, "times": 2}]}}"#,
    ),
    (
        "faults.commit_timeout[].at",
        r#"{"protocol": {"name": "two", "steps": ["receive", "begin", "insert_inbox", "commit", "begin", "apply_effect", "commit", "ack"]}, "faults": {"commit_timeout": [{"at": "commit#2", "event": 0, "applied": false}]}}"#,
    ),
    (
        "faults.commit_timeout[].event",
        r#"{"protocol": "inbox", "faults": {"commit_timeout": [{"event": 1, "applied": true}]}}"#,
    ),
    (
        "faults.commit_timeout[].delivery",
        r#"{"protocol": "inbox", "faults": {"commit_timeout": [{"event": 0, "delivery": 2, "applied": true}]}}"#,
    ),
    (
        "faults.commit_timeout[].applied",
        r#"{"protocol": "inbox", "faults": {"commit_timeout": [{"event": 0, "applied": true}]}}"#,
    ),
    (
        "faults.publish_timeout[].event",
        r#"{"protocol": "inbox", "producer": {"mode": "commit_then_publish"}, "faults": {"publish_timeout": [{"event": 1, "times": 1}]}}"#,
    ),
    (
        "faults.publish_timeout[].times",
        r#"{"protocol": "inbox", "producer": {"mode": "commit_then_publish"}, "faults": {"publish_timeout": [{"event": 0, "times": 2}]}}"#,
    ),
    (
        "expect",
        r#"{"protocol": "inbox", "expect": {"guarantee": "at-least-once"}}"#,
    ),
    (
        "limits.max_steps",
        r#"{"protocol": "inbox", "limits": {"max_steps": 5}}"#,
    ),
    (
        "limits.max_ticks",
        r#"{"protocol": "inbox", "limits": {"max_ticks": 5}}"#,
    ),
    (
        "producer.mode",
        r#"{"protocol": "inbox", "producer": {"mode": "outbox"}}"#,
    ),
    (
        "producer.identity",
        r#"{"protocol": "inbox", "producer": {"mode": "commit_then_publish", "identity": "per_attempt"}, "faults": {"publish_timeout": [{"event": 0, "times": 1}]}}"#,
    ),
    (
        "producer.database",
        r#"{"protocol": "inbox", "producer": {"mode": "outbox", "database": "shared"}, "workload": {"events": 3}}"#,
    ),
    (
        "producer.retry",
        r#"{"protocol": "inbox", "producer": {"mode": "commit_then_publish", "retry": false}, "faults": {"crash": [{"at": "before:publish", "event": 0}]}}"#,
    ),
    (
        "email.idempotency_key",
        r#"{"protocol": {"name": "mail", "steps": ["receive", "begin", "insert_inbox", "apply_effect", "enqueue_email", "commit", "ack"]}, "email": {"idempotency_key": true}, "faults": {"crash": [{"at": "after:send_email", "event": 0}]}}"#,
    ),
];

/// Removes the field at `path` from `doc`; when it is required in its list item, the
/// whole item. Returns whether it was there.
fn remove(doc: &mut Value, path: &str) -> bool {
    let parts: Vec<&str> = path.split('.').collect();
    fn go(v: &mut Value, parts: &[&str]) -> bool {
        let (head, rest) = (parts[0], &parts[1..]);
        let (key, list) = match head.strip_suffix("[]") {
            Some(k) => (k, true),
            None => (head, false),
        };
        let Some(obj) = v.as_object_mut() else {
            return false;
        };
        if rest.is_empty() {
            return obj.remove(key).is_some();
        }
        let Some(child) = obj.get_mut(key) else {
            return false;
        };
        if list {
            // The last item that has the field: without it, or without the item.
            let items = child.as_array_mut().expect("a list");
            let Some(i) = items.iter().rposition(|it| it.get(rest[0]).is_some()) else {
                return false;
            };
            let mut without = items[i].clone();
            go(&mut without, rest);
            items[i] = without;
            return true;
        }
        go(child, rest)
    }
    go(doc, &parts)
}

/// What a scenario does, as far as the field can change it: the trace hash, and for the
/// metadata and expectations, what is printed and what is judged.
fn observed(s: &Scenario) -> String {
    let r = world::run(s);
    let held = s
        .expect
        .as_ref()
        .map(|e| delivery_sim::check::failed_expectations(e, &r.verdict));
    // The trace does not carry amounts or account names: the verdict (committed amounts,
    // balances) does.
    format!(
        "{} {} {:?} {:?} {:?} {} {} {:?}",
        r.trace.hash_hex(),
        s.name,
        s.description,
        s.description_es,
        held,
        s.protocol.name,
        s.protocol.description,
        r.verdict
    )
}

fn load(v: &Value) -> Result<Scenario, delivery_sim::scenario::ScenarioError> {
    let mut v = v.clone();
    v.as_object_mut()
        .unwrap()
        .entry("workload")
        .or_insert(json!({}));
    if v["workload"].get("events").is_none() {
        v["workload"]["events"] = json!(2);
    }
    Scenario::from_json(&v.to_string(), "field.json")
}

/// Baselines for fields that cannot be left out (a custom protocol needs a name and steps):
/// the same scenario with another value.
const BASELINES: &[(&str, &str)] = &[
    (
        "check.effect.db",
        r#"{"protocol": {"name": "sql", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, {"name": "call", "sql": "INSERT INTO calls VALUES (:event_id)", "db": "api"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE calls (id TEXT)"], "databases": {"api": {"schema": ["CREATE TABLE calls (id TEXT)"]}}}, "check": {"effect": {"db": "main"}, "effects_per_event": "SELECT count(*) FROM calls WHERE id = :event_id"}}"#,
    ),
    (
        "check.effect.external",
        r#"{"protocol": {"name": "calls", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, {"external": "topup"}, {"external": "notify"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)"]}, "check": {"effect": {"external": "notify"}}, "faults": {"crash": [{"at": "after:notify", "event": 0, "delivery": 1}]}}"#,
    ),
    (
        "protocol.steps[].external",
        r#"{"protocol": {"name": "calls", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, {"external": "mail"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}}"#,
    ),
    (
        "protocol.steps[].on_error.continue_at",
        r#"{"protocol": {"name": "catch", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO inbox VALUES (:event_id)"}, {"name": "pay", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE inbox (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "workload": {"republish": [0]}, "broker": {"max_deliveries": 2}}"#,
    ),
    (
        "protocol.steps[].on_error.rollback",
        r#"{"protocol": {"name": "catch", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO inbox VALUES (:event_id)", "on_error": {"continue_at": "ack"}}, {"name": "pay", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE inbox (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "workload": {"republish": [0]}, "broker": {"max_deliveries": 2}}"#,
    ),
    (
        "protocol.steps[].into",
        r#"{"protocol": {"name": "flow", "steps": ["receive", "begin", {"name": "look", "sql": "SELECT count(*) AS n FROM done WHERE id = :event_id"}, {"name": "apply", "sql": "INSERT INTO done SELECT :event_id WHERE 0 = 0"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE done (id TEXT)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "workload": {"republish": [0]}}"#,
    ),
    (
        "protocol.steps[].when",
        r#"{"protocol": {"name": "flow", "steps": ["receive", "begin", {"name": "look", "sql": "SELECT count(*) AS n FROM done WHERE id = :event_id", "into": "prior"}, {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE done (id TEXT)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "workload": {"republish": [0]}}"#,
    ),
    (
        "protocol.steps[].duplicate_if.when",
        r#"{"protocol": {"name": "flow", "steps": ["receive", "begin", {"name": "look", "sql": "SELECT count(*) AS n FROM done WHERE id = :event_id", "into": "prior"}, {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE done (id TEXT)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "workload": {"republish": [0]}}"#,
    ),
    (
        "protocol.steps[].goto",
        r#"{"protocol": {"name": "flow", "steps": ["receive", "begin", {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", {"name": "look", "sql": "SELECT count(*) AS n FROM done WHERE id = :event_id", "into": "prior"}, {"name": "again", "sql": "SELECT 1", "when": "prior.n < 2"}, "ack"]}, "store": {"schema": ["CREATE TABLE done (id TEXT)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "workload": {"republish": [0]}}"#,
    ),
    (
        "protocol.on_error.steps[].sql",
        r#"{"protocol": {"name": "sql", "steps": ["receive", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, "begin", {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"], "on_error": {"steps": [{"name": "unclaim", "sql": "DELETE FROM cfg"}]}}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)", "CREATE TABLE cfg (n INTEGER)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "faults": {"fail": [{"at": "apply", "event": 0, "times": 1}]}}"#,
    ),
    (
        "protocol.name",
        r#"{"protocol": {"name": "theirs", "steps": ["receive", "begin", "insert_inbox", "apply_effect", "commit", "ack"]}}"#,
    ),
    (
        "store.schema",
        r#"{"protocol": {"name": "sql", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT CHECK (id = 'x'))", "CREATE TABLE cfg (n INTEGER)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}}"#,
    ),
    (
        "check.effects_per_event.sql",
        r#"{"protocol": {"name": "sql", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)", "CREATE TABLE cfg (n INTEGER)"]}, "check": {"effects_per_event": {"sql": "SELECT 2 * count(*) FROM done WHERE id = :event_id", "db": "main"}}}"#,
    ),
    (
        "check.effects_per_event.db",
        r#"{"protocol": {"name": "sql", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, {"name": "call", "sql": "INSERT INTO calls VALUES (:event_id)", "db": "api"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE calls (id TEXT)"], "databases": {"api": {"schema": ["CREATE TABLE calls (id TEXT)"]}}}, "check": {"effects_per_event": {"sql": "SELECT count(*) FROM calls WHERE id = :event_id", "db": "main"}}}"#,
    ),
    (
        "workload.payloads",
        r#"{"protocol": {"name": "sql", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, {"name": "apply", "sql": "INSERT INTO done SELECT :event_id WHERE :n = 1"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE seen (id TEXT PRIMARY KEY)", "CREATE TABLE done (id TEXT)", "CREATE TABLE cfg (n INTEGER)"]}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id"}, "workload": {"payloads": [{"n": 0}]}}"#,
    ),
    (
        "store.databases",
        r#"{"protocol": {"name": "sql", "steps": ["receive", {"name": "begin", "sql": "BEGIN", "db": "dedup"}, {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation", "db": "dedup"}, {"name": "commit", "sql": "COMMIT", "db": "dedup"}, "begin", {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}, "store": {"schema": ["CREATE TABLE done (id TEXT)"], "databases": {"dedup": {"schema": ["CREATE TABLE seen (id TEXT)"]}}}, "check": {"effects_per_event": "SELECT count(*) FROM done WHERE id = :event_id", "invariants": [{"sql": "SELECT count(*) = 99 FROM seen", "db": "dedup"}]}, "workload": {"republish": [0]}}"#,
    ),
];

/// The fields whose examples run on PostgreSQL: a machine without it refuses them.
const NEEDS_SERVER: [&str; 2] = ["store.engine", "store.isolation"];

/// With the field and without it (the item it is in may then be invalid: without it).
fn pair(example: &str, path: &str) -> (Value, Value) {
    let with: Value = serde_json::from_str(example).unwrap();
    if let Some((_, base)) = BASELINES.iter().find(|(p, _)| p == &path) {
        return (with, serde_json::from_str(base).unwrap());
    }
    let mut without = with.clone();
    assert!(remove(&mut without, path), "{path}: the example sets it");
    if load(&without).is_err() && !path.contains("[]") {
        // Required in its object: the baseline has no such object.
        let parent = &path[..path.rfind('.').expect("a nested field")];
        without = with.clone();
        assert!(remove(&mut without, parent), "{parent}");
    } else if load(&without).is_err() && path.contains("[]") {
        // Required in its item: the baseline has no such item.
        let list = path.split("[]").next().unwrap();
        let mut w = with.clone();
        let (section, key) = list.split_once('.').unwrap();
        let items = w[section][key].as_array_mut().unwrap();
        items.pop();
        without = w;
    }
    (with, without)
}

#[test]
fn every_field_of_the_schema_has_an_example() {
    let fields = schema_fields();
    assert!(fields.len() > 60, "{fields:?}");
    let examples: BTreeSet<String> = EXAMPLES.iter().map(|(p, _)| p.to_string()).collect();
    let missing: Vec<_> = fields.difference(&examples).collect();
    let stale: Vec<_> = examples.difference(&fields).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "fields without an example: {missing:?}; examples of no field: {stale:?}"
    );
}

#[test]
fn every_field_changes_the_run_or_is_refused_naming_it() {
    let mut silent = Vec::new();
    for (path, example) in EXAMPLES {
        let (with, without) = pair(example, path);
        let base = load(&without).unwrap_or_else(|e| panic!("{path}: baseline: {e:?}"));
        match load(&with) {
            // No PostgreSQL here: the example is refused naming the engine, and shown to
            // act by `.ci/run`, which installs one (feature `postgres`).
            Err(e) if NEEDS_SERVER.contains(path) && !cfg!(feature = "postgres") => {
                assert!(
                    super::support::en(&e).contains("store.engine"),
                    "{path}: {e:?}"
                )
            }
            Err(e) => silent.push(format!("{path}: its own example is refused: {e:?}")),
            Ok(s) if observed(&s) == observed(&base) => {
                silent.push(format!("{path}: setting it changes nothing in {example}"))
            }
            Ok(_) => {}
        }
    }
    assert!(silent.is_empty(), "{silent:#?}");
}

/// Every producer mode × broker kind, laid over an example (replacing the example's own
/// mode or kind, except where the field walked is that mode or kind), but the example's own
/// combination, which the first walk tried.
fn variants(v: &Value, path: &str) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let own_mode = v["producer"]["mode"]
        .as_str()
        .unwrap_or("direct")
        .to_string();
    let own_kind = v["broker"]["kind"].as_str().unwrap_or("queue").to_string();
    let modes = [
        "direct",
        "commit_then_publish",
        "publish_then_commit",
        "outbox",
    ];
    for mode in modes {
        for kind in ["queue", "log"] {
            let mode = if path.starts_with("producer.mode") {
                own_mode.as_str()
            } else {
                mode
            };
            let kind = if path.starts_with("broker.kind") {
                own_kind.as_str()
            } else {
                kind
            };
            let label = format!("producer.mode {mode}, broker.kind {kind}");
            if (mode == own_mode && kind == own_kind) || out.iter().any(|(l, _)| *l == label) {
                continue;
            }
            let mut w = v.clone();
            match mode {
                "direct" => remove_key(&mut w, "producer", "mode"),
                _ => w["producer"]["mode"] = json!(mode),
            }
            match kind {
                "queue" => remove_key(&mut w, "broker", "kind"),
                _ => w["broker"]["kind"] = json!(kind),
            }
            out.push((label, w));
        }
    }
    out
}

/// Removes `section.key`, and the section if that leaves it empty.
fn remove_key(v: &mut Value, section: &str, key: &str) {
    if let Some(obj) = v.get_mut(section).and_then(Value::as_object_mut) {
        obj.remove(key);
        if obj.is_empty() {
            v.as_object_mut().unwrap().remove(section);
        }
    }
}

/// Which fields change nothing under some producer mode × broker kind; `load` reads a
/// scenario (the walk's own test gives it one that ignores a field), `only` keeps the
/// fields whose path starts so (all with "").
fn silent_in_variants(load: &dyn Fn(&Value) -> Option<Scenario>, only: &str) -> Vec<String> {
    let mut silent = Vec::new();
    for (path, example) in EXAMPLES.iter().filter(|(p, _)| p.starts_with(only)) {
        let (with, without) = pair(example, path);
        let with_variants = variants(&with, path);
        let without_variants = variants(&without, path);
        for ((label, w), (_, b)) in with_variants.iter().zip(&without_variants) {
            let (Some(ws), Some(bs)) = (load(w), load(b)) else {
                // Refused (with the field, or already without it): nothing silent.
                continue;
            };
            if observed(&ws) == observed(&bs) {
                silent.push(format!("{path} under {label}"));
            }
        }
    }
    silent
}

#[test]
fn in_every_broker_kind_and_producer_mode_a_field_changes_the_run_or_is_refused() {
    let silent = silent_in_variants(&|v| load(v).ok(), "");
    assert!(silent.is_empty(), "{silent:#?}");
}

/// The walks catch a field made to do nothing: here `faults.publish_timeout` under the
/// outbox relay (as it was before the relay heard of it) and `faults.crash` in a protocol
/// of SQL steps, each dropped as the scenario is read.
#[test]
fn the_walks_find_a_field_made_to_do_nothing() {
    let outbox_ignores_timeouts = |v: &Value| {
        let mut v = v.clone();
        if v["producer"]["mode"] == json!("outbox") {
            remove_key(&mut v, "faults", "publish_timeout");
        }
        load(&v).ok()
    };
    let silent = silent_in_variants(&outbox_ignores_timeouts, "faults.publish_timeout");
    for kind in ["queue", "log"] {
        let label = format!(
            "faults.publish_timeout[].times under producer.mode outbox, broker.kind {kind}"
        );
        assert!(silent.contains(&label), "{label} not found in {silent:#?}");
    }
    let sql_ignores_crashes = |v: &Value| {
        let mut v = v.clone();
        if v["protocol"].is_object() {
            remove_key(&mut v, "faults", "crash");
        }
        load(&v).ok()
    };
    let silent = silent_in_sql_and_handler(&sql_ignores_crashes);
    assert!(
        silent.contains(&"faults.crash[].at with the inbox as SQL steps".to_string()),
        "{silent:#?}"
    );
}

/// Fields whose example cannot reach them under some protocol, though the field does act
/// there in other runs: each with why. A pair not listed must change the run or be refused.
const UNREACHED: &[(&str, &str, &str)] = &[
    ("store.inbox_unique", "effect-then-mark", "the crash before the mark leaves no row for the constraint to meet; two concurrent marks would"),
    ("store.inbox_unique", "check-then-act", "the redelivery's SELECT finds the row first; a race between two consumers reaches the constraint"),
    ("store.inbox_unique", "inbox-ack-first", "acked before the crash: no redelivery; a lost ack or a broker duplicate redelivers"),
    ("broker.redelivery_delay_ticks", "ack-first", "acked on receipt, the crash releases nothing; a failed step's rejection is redelivered after the delay"),
    ("broker.redelivery_delay_ticks", "inbox-ack-first", "acked on receipt, as for ack-first"),
    ("broker.max_deliveries", "ack-first", "acked on receipt: never released; a rejection counts against it"),
    ("broker.max_deliveries", "inbox-ack-first", "acked on receipt, as for ack-first"),
    ("broker.lease_ticks", "ack-first", "acked on receipt, before any lease ends; a lost ack lets it end"),
    ("broker.lease_ticks", "inbox-ack-first", "acked on receipt, as for ack-first"),
    ("broker.auto_commit", "ack-first", "the ack already commits the offset on receipt, as auto-commit would"),
    ("broker.auto_commit", "inbox-ack-first", "as for ack-first"),
    ("faults.fail[].times", "ack-first", "acked before the failing step: the event is not redelivered to fail again"),
    ("faults.fail[].times", "inbox-ack-first", "as for ack-first"),
    ("faults.fail[].times", "mark-then-effect", "the mark commits before the effect fails: the redelivery is discarded as a duplicate, failing again or not"),
    ("faults.fail[].until_tick", "ack-first", "as for `times`"),
    ("faults.fail[].until_tick", "inbox-ack-first", "as for `times`"),
    ("faults.fail[].until_tick", "mark-then-effect", "as for `times`"),
];

#[test]
fn with_every_built_in_protocol_a_field_changes_the_run_or_is_refused() {
    let protocols: Vec<String> = delivery_sim::Protocol::all_built_in()
        .into_iter()
        .map(|p| p.name)
        .collect();
    let mut silent = Vec::new();
    for (path, example) in EXAMPLES {
        let (with, without) = pair(example, path);
        if with["protocol"] != json!("inbox") || without["protocol"] != json!("inbox") {
            continue;
        }
        for p in &protocols {
            let (mut w, mut b) = (with.clone(), without.clone());
            w["protocol"] = json!(p);
            b["protocol"] = json!(p);
            let (Ok(ws), Ok(bs)) = (load(&w), load(&b)) else {
                continue;
            };
            let excused = UNREACHED.iter().any(|(f, q, _)| f == path && q == p);
            if (observed(&ws) == observed(&bs)) != excused {
                silent.push(format!(
                    "{path} with protocol {p}: {}",
                    if excused {
                        "listed as unreached, but it changes the run: unlist it"
                    } else {
                        "accepted and without effect"
                    }
                ));
            }
        }
    }
    assert!(silent.is_empty(), "{silent:#?}");
}

/// The inbox protocol written as SQL steps over its own schema: what `"protocol": "inbox"`
/// does, as a user would write it.
const SQL_INBOX: &str = r#"{"name": "inbox-sql", "steps": ["receive", "begin", {"name": "claim", "sql": "INSERT INTO seen VALUES (:event_id)", "duplicate_if": "unique_violation"}, {"name": "apply", "sql": "INSERT INTO done VALUES (:event_id)"}, "commit", "ack"]}"#;

/// The same inbox as a Rust handler: the claim, then the effect, in one transaction.
#[derive(Clone, Default)]
struct InboxHandler;

impl delivery_sim::handler::Handler for InboxHandler {
    fn handle(
        &mut self,
        ctx: &mut delivery_sim::handler::Context<'_>,
    ) -> Result<(), delivery_sim::handler::HandlerError> {
        use delivery_sim::handler::HandlerError;
        ctx.begin()?;
        match ctx.execute("claim", "INSERT INTO seen VALUES (:event_id)", &[]) {
            Err(HandlerError::Sql(e)) if e.is_unique_violation() => {
                ctx.rollback()?;
                return ctx.ack();
            }
            other => other?,
        };
        ctx.execute("apply", "INSERT INTO done VALUES (:event_id)", &[])?;
        ctx.commit()?;
        ctx.ack()
    }
}

/// An example over the built-in inbox, rewritten with the inbox as SQL steps over its own
/// schema (the example's own `store` and `check` keys kept: those the SQL protocol cannot
/// take are refused, which is not silence).
fn as_sql(v: &Value) -> Value {
    let mut w = v.clone();
    w["protocol"] = serde_json::from_str(SQL_INBOX).unwrap();
    w["store"]["schema"] = json!([
        "CREATE TABLE seen (id TEXT PRIMARY KEY)",
        "CREATE TABLE done (id TEXT)"
    ]);
    w["check"]["effects_per_event"] = json!("SELECT count(*) FROM done WHERE id = :event_id");
    w
}

/// Fields an inbox written as SQL steps or as a handler cannot reach in their example,
/// though they act there in other runs: each with why.
const UNREACHED_SQL: &[(&str, &str, &str)] = &[
    ("broker.key", "SQL steps", "with its own schema a log is keyed by event_id already, the value the example sets; the other keys are refused there"),
    ("broker.key", "a Rust handler", "as for SQL steps"),
];

/// Which fields, set on an example of the built-in inbox, change nothing once the inbox is
/// written as SQL steps, or as a Rust handler; `load` reads a scenario (the walk's own test
/// gives it one that ignores a field).
fn silent_in_sql_and_handler(load: &dyn Fn(&Value) -> Option<Scenario>) -> Vec<String> {
    let mut silent = Vec::new();
    for (path, example) in EXAMPLES {
        let (with, without) = pair(example, path);
        if with["protocol"] != json!("inbox") || without["protocol"] != json!("inbox") {
            continue;
        }
        let (Some(ws), Some(bs)) = (load(&as_sql(&with)), load(&as_sql(&without))) else {
            continue;
        };
        let handler = |s: &Scenario| {
            let mut s = s.clone();
            s.protocol = delivery_sim::Protocol::handler("inbox-handler", || InboxHandler);
            s
        };
        for (kind, same) in [
            ("SQL steps", observed(&ws) == observed(&bs)),
            (
                "a Rust handler",
                observed(&handler(&ws)) == observed(&handler(&bs)),
            ),
        ] {
            let excused = UNREACHED_SQL
                .iter()
                .any(|(f, k, _)| f == path && *k == kind);
            if same != excused {
                silent.push(format!("{path} with the inbox as {kind}"));
            }
        }
    }
    silent
}

#[test]
fn with_the_inbox_as_sql_steps_or_a_handler_a_field_changes_the_run_or_is_refused() {
    let silent = silent_in_sql_and_handler(&|v| load(v).ok());
    assert!(silent.is_empty(), "{silent:#?}");
}
