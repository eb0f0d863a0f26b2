//! Named databases (`store.databases`): each is a database of its own, whose transactions
//! commit, roll back and die apart from the main one's.

use super::*;
use crate::model::{SqlBinding, SqlEvent, SqlStep};

fn config() -> StoreConfig {
    StoreConfig {
        custom: Some(CustomSchema {
            schema: vec!["CREATE TABLE effect (event_id TEXT NOT NULL)".into()],
            setup: Vec::new(),
            effects_per_event: "SELECT count(*) FROM effect WHERE event_id = :event_id".into(),
            effect_call: None,
            effects_db: 0,
            invariants: vec!["SELECT count(*) <= 1 FROM seen".into()],
            invariants_db: vec![1],
            databases: vec![NamedDatabase {
                name: "dedup".into(),
                schema: vec!["CREATE TABLE seen (event_id TEXT PRIMARY KEY)".into()],
                setup: Vec::new(),
            }],
            reads_clock: false,
        }),
        ..StoreConfig::default()
    }
}

fn step(name: &'static str, sql: &str, db: u8) -> SqlStep {
    SqlStep {
        name,
        statements: vec![sql.into()],
        duplicate_if: None,
        db,
        ..SqlStep::default()
    }
}

/// Runs `step` for event `event_id` as consumer `consumer`.
fn run_as(s: &mut Store, step: &SqlStep, event_id: &str, consumer: usize) -> DbOutcome {
    let event = SqlEvent {
        event_id: event_id.into(),
        ..SqlEvent::default()
    };
    let b = SqlBinding {
        event: &event,
        now: 0,
        delivery: 1,
        consumer,
        log: None,
        named: None,
    };
    s.execute_sql(step, &b, 0)
        .expect("the statement runs")
        .outcome
}

fn run(s: &mut Store, step: &SqlStep) {
    assert_eq!(run_as(s, step, "e0", 0), DbOutcome::Ran);
}

fn rows(s: &mut Store) -> (i64, i64) {
    let tables = s.committed_snapshot().expect("nothing open").tables;
    (tables["effect"], tables["dedup.seen"])
}

fn both_open(s: &mut Store) {
    assert_eq!(s.execute(StoreOp::Begin, 0), DbOutcome::Begun);
    assert_eq!(s.execute(StoreOp::BeginOn(1), 0), DbOutcome::Begun);
    run(s, &step("mark", "INSERT INTO seen VALUES (:event_id)", 1));
    run(
        s,
        &step("apply", "INSERT INTO effect VALUES (:event_id)", 0),
    );
}

#[test]
fn a_commit_on_one_database_leaves_the_other_open() {
    let mut s = Store::open_in_memory(&config(), &[]).unwrap();
    both_open(&mut s);
    assert_eq!(s.execute(StoreOp::CommitOn(1), 0), DbOutcome::Committed);
    assert!(s.in_transaction(), "the main transaction is still open");
    assert_eq!(s.committed_part(1).unwrap().tables["dedup.seen"], 1);
    assert!(
        s.committed_part(0).is_none(),
        "main is inside a transaction"
    );
    // The process dies now: the main transaction is rolled back, the dedup row stays.
    assert!(s.drop_open_transaction());
    assert_eq!(rows(&mut s), (0, 1));
}

#[test]
fn recovery_rolls_back_every_open_transaction_and_a_timeout_only_its_own() {
    let mut s = Store::open_in_memory(&config(), &[]).unwrap();
    both_open(&mut s);
    assert_eq!(s.execute(StoreOp::Rollback, 0), DbOutcome::RolledBack);
    assert!(!s.in_transaction());
    assert_eq!(rows(&mut s), (0, 0));
    both_open(&mut s);
    assert_eq!(s.execute(StoreOp::RollbackOn(1), 0), DbOutcome::RolledBack);
    assert!(
        s.in_transaction(),
        "the main transaction is not the timed-out one"
    );
    assert_eq!(s.execute(StoreOp::Commit, 0), DbOutcome::Committed);
    assert_eq!(rows(&mut s), (1, 0));
}

#[test]
fn an_invariant_reads_its_own_database() {
    let mut s = Store::open_in_memory(&config(), &[]).unwrap();
    run(
        &mut s,
        &step("mark", "INSERT INTO seen VALUES (:event_id)", 1),
    );
    let state = s.committed_state();
    assert_eq!(state.invariants.len(), 1);
    assert!(state.invariants[0].holds, "{:?}", state.invariants);
}

#[test]
fn several_connections_share_each_named_database_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut stores = Store::open_shared(dir.path(), &config(), &[], 2).unwrap();
    assert_eq!(stores[0].execute(StoreOp::BeginOn(1), 0), DbOutcome::Begun);
    run(
        &mut stores[0],
        &step("mark", "INSERT INTO seen VALUES (:event_id)", 1),
    );
    // The other connection cannot write the dedup file while the first holds its lock,
    // but the main file is free (this write autocommits there).
    let other = &mut stores[1];
    assert_eq!(other.execute(StoreOp::BeginOn(1), 0), DbOutcome::Begun);
    let mark = step("mark", "INSERT INTO seen VALUES (:event_id)", 1);
    assert_eq!(run_as(other, &mark, "e1", 1), DbOutcome::Busy { done: 0 });
    run(
        other,
        &step("apply", "INSERT INTO effect VALUES (:event_id)", 0),
    );
    assert_eq!(other.execute(StoreOp::Rollback, 0), DbOutcome::RolledBack);
    assert_eq!(
        stores[0].execute(StoreOp::CommitOn(1), 0),
        DbOutcome::Committed
    );
    assert_eq!(rows(&mut stores[1]), (1, 1));
}
