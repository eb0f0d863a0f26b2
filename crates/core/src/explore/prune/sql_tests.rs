//! The pruning property on protocols written in SQL that change their own schema (issue 32):
//! steps that drop and create a trigger the deduplication rests on, a unique index, a view
//! a step reads. Two states with the same rows and another schema do not have the same
//! future, so the digest includes the schema; with it left out, the property finds a
//! counterexample.

use super::tests::{disagreement, knob};
use crate::scenario::Scenario;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde_json::{json, Value};

const SCHEMA: [&str; 3] = [
    "CREATE TABLE processed_event (event_id TEXT PRIMARY KEY, at INTEGER NOT NULL)",
    "CREATE TABLE reservation (event_id TEXT NOT NULL, qty INTEGER NOT NULL)",
    "CREATE TRIGGER mark AFTER INSERT ON reservation \
     BEGIN INSERT OR IGNORE INTO processed_event VALUES (NEW.event_id, 0); END",
];

/// Steps that change the schema, each with the statement that undoes it.
const SCHEMA_CHANGES: [(&str, &str); 4] = [
    ("drop_mark", "DROP TRIGGER IF EXISTS mark"),
    (
        "make_mark",
        "CREATE TRIGGER IF NOT EXISTS mark AFTER INSERT ON reservation \
         BEGIN INSERT OR IGNORE INTO processed_event VALUES (NEW.event_id, 0); END",
    ),
    (
        "make_unique",
        "CREATE UNIQUE INDEX IF NOT EXISTS one_reservation ON reservation (event_id)",
    ),
    ("drop_unique", "DROP INDEX IF EXISTS one_reservation"),
];

/// How a protocol tells a duplicate: by the mark the trigger writes (read first), by the
/// unique index on the reservation, or through a view over the inbox.
fn check_step() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        Just(None),
        Just(Some(json!({"name": "seen", "duplicate_if": "row",
            "sql": "SELECT 1 FROM processed_event WHERE event_id = :event_id"}))),
        Just(Some(json!({"name": "seen_view", "duplicate_if": "row",
            "sql": "SELECT 1 FROM seen_ids WHERE event_id = :event_id"}))),
    ]
}

/// A protocol: an optional check, the reservation in a transaction (a unique violation
/// is a duplicate), the ack, and schema changes drawn among its steps.
fn protocol() -> impl Strategy<Value = Value> {
    (
        check_step(),
        prop::collection::vec(
            (prop::sample::select(SCHEMA_CHANGES.to_vec()), 0..4usize),
            1..3,
        ),
        any::<bool>(),
    )
        .prop_map(|(check, changes, view_step)| {
            let mut steps = vec![json!("receive")];
            steps.extend(check);
            steps.extend([
                json!("begin"),
                json!({"name": "reserve", "duplicate_if": "unique_violation",
                    "sql": "INSERT INTO reservation VALUES (:event_id, 1)"}),
                json!("commit"),
                json!("ack"),
            ]);
            for (k, ((name, sql), at)) in changes.into_iter().enumerate() {
                // After `receive`, at one of the next places (never inside the transaction).
                let places = [1, steps.len() - 1, steps.len(), 1];
                let step = json!({"name": format!("{name}{k}"), "sql": sql});
                steps.insert(places[at].min(steps.len()), step);
            }
            if view_step {
                let view = json!({"name": "make_view", "sql":
                    "CREATE VIEW IF NOT EXISTS seen_ids AS SELECT event_id FROM processed_event"});
                steps.insert(steps.len() - 1, view);
            }
            json!({"name": "schema-changing", "steps": steps})
        })
}

fn scenario() -> impl Strategy<Value = Value> {
    (protocol(), 1u64..=2, any::<bool>(), 0u64..100).prop_map(|(protocol, events, view, seed)| {
        let mut schema: Vec<Value> = SCHEMA.iter().map(|s| json!(s)).collect();
        if view {
            schema.push(json!(
                "CREATE VIEW seen_ids AS SELECT event_id FROM processed_event"
            ));
        }
        json!({
            "name": "generated",
            "seed": seed,
            "store": {"schema": schema},
            "workload": {"events": events},
            "protocol": protocol,
            "broker": {"max_deliveries": 3},
            "check": {"effects_per_event":
                "SELECT count(*) FROM reservation WHERE event_id = :event_id"},
            "limits": {"max_steps": 300, "max_ticks": 300},
        })
    })
}

/// A generated scenario, loaded; `None` when the validator refuses it (a view the step
/// reads that the schema lacks) or when it is too large to explore twice here.
fn load(value: &Value) -> Option<Scenario> {
    let s = Scenario::from_json(&value.to_string(), "generated").ok()?;
    let limit = u128::from(knob("DS_PRUNE_SQL_MAX_ESTIMATE", 1_500));
    (crate::explore::estimate_schedules(&s, 2) <= limit).then_some(s)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: knob("DS_PRUNE_SQL_CASES", 24) as u32,
        max_global_rejects: 10_000,
        rng_seed: proptest::test_runner::RngSeed::Fixed(knob("DS_PRUNE_SEED", 32)),
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::SourceParallel("proptest-regressions"),
        )),
        ..ProptestConfig::default()
    })]

    #[test]
    fn pruning_agrees_with_the_brute_force_on_protocols_that_change_their_schema(
        value in scenario()
    ) {
        let s = load(&value);
        prop_assume!(s.is_some(), "refused, or too large");
        if let Some(why) = disagreement(&s.unwrap(), 2) {
            prop_assert!(false, "{why}\nscenario: {value}");
        }
    }
}

/// With the schema left out of the digest, generated schema-changing protocols give a
/// counterexample: a state after `DROP TRIGGER` taken for the state before it.
#[test]
fn without_the_schema_in_the_digest_the_property_finds_a_counterexample() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = scenario();
    let tries = 200;
    let found = (0..tries).find_map(|_| {
        let mut value = strategy.new_tree(&mut runner).unwrap().current();
        value["name"] = json!(crate::world::OMIT_SCHEMA);
        let s = load(&value)?;
        disagreement(&s, 2)
    });
    assert!(
        found.is_some(),
        "{tries} generated scenarios and no counterexample"
    );
}

/// The example, with and without the schema in the digest.
#[test]
fn a_trigger_dropped_between_two_steps_is_another_state() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/sql-trigger-dropped-between-steps.json"
    );
    let mut value: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    value.as_object_mut().unwrap().remove("expect");
    let sound = Scenario::from_json(&value.to_string(), "test").unwrap();
    assert_eq!(disagreement(&sound, 2), None);
    value["name"] = json!(crate::world::OMIT_SCHEMA);
    let broken = Scenario::from_json(&value.to_string(), "test").unwrap();
    let why = disagreement(&broken, 2).expect("the schema-blind digest prunes a duplicate");
    assert!(why.contains("pruned ExactlyOnce"), "{why}");
}
