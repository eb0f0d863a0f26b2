//! The transfer lifecycle and the producer with its relay on PostgreSQL (feature
//! `postgres`). With one consumer at a time they end every schedule as on SQLite; with two,
//! PostgreSQL's READ COMMITTED lets a completion and its creation commit beside each other
//! without seeing each other's rows, where SQLite's single writer made one wait.

#![cfg(feature = "postgres")]

use super::postgres::server::json;
use super::postgres_jobs::explored as every;
use super::support::*;

#[test]
fn the_lifecycle_with_one_consumer_ends_every_schedule_as_on_sqlite() {
    for file in [
        "scenarios/inbox-lifecycle-reordered-deliveries.json",
        "scenarios/inbox-lifecycle-buffer-reordered-deliveries.json",
        "scenarios/inbox-lifecycle-buffer-creation-dead-lettered.json",
    ] {
        let sqlite = every(file, "sqlite", &["--depth", "1"]);
        assert!(sqlite.len() > 20, "{file}");
        assert_eq!(every(file, "postgres", &["--depth", "1"]), sqlite, "{file}");
    }
}

#[test]
fn a_buffered_completion_is_stranded_by_write_skew_at_read_committed_only() {
    let file = "scenarios/postgres/lifecycle-buffer-read-committed.json";
    let run = |args: &[&str]| json(&bin(&[&["run", file, "--json"][..], args].concat()));
    // The default schedule: each consumer's transaction misses the other's uncommitted row.
    let read_committed = run(&[]);
    assert_eq!(read_committed["pending"], 2, "{read_committed}");
    assert_eq!(read_committed["once"], 2);
    for args in [
        &["--isolation", "serializable"][..],
        &["--engine", "sqlite"],
    ] {
        let v = run(args);
        assert_eq!(
            (v["pending"].as_u64(), v["once"].as_u64()),
            (Some(0), Some(4)),
            "{args:?}"
        );
    }
    // Every interleaving: the ladder names serializable as the weakest level that holds.
    let o = bin(&["explore", file, "--isolation-ladder", "--json"]);
    let ladder = json(&o);
    assert_eq!(ladder["weakest_holding"], "serializable", "{ladder}");
    assert_eq!(ladder["sqlite_differs"], true, "{ladder}");
}

#[test]
fn the_producer_and_its_relay_end_every_schedule_as_on_sqlite() {
    // The outbox in the producer's own database and in the consumers', and a dual write
    // that loses an intent: the intents boundary included.
    for (file, breaks) in [
        (
            "scenarios/outbox-relay-crash-no-dedup-duplicates.json",
            true,
        ),
        ("scenarios/outbox-shared-database-inbox.json", false),
        (
            "scenarios/producer-commit-then-publish-crash-loses-intent.json",
            true,
        ),
    ] {
        let sqlite = every(file, "sqlite", &["--depth", "1", "--no-prune"]);
        // Some schedule ends otherwise than the crash-free run (a duplicate, a lost
        // intent): the comparison is not of runs that all look alike.
        let outcomes: std::collections::BTreeSet<_> = sqlite.values().collect();
        assert_eq!(outcomes.len() > 1, breaks, "{file}: {outcomes:?}");
        // A run with the producer on PostgreSQL is not pruned: every schedule runs.
        assert_eq!(every(file, "postgres", &["--depth", "1"]), sqlite, "{file}");
    }
}
