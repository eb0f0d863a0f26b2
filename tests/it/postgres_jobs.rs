//! The email relay and the inbox retention job on PostgreSQL (feature `postgres`), each with
//! a connection of its own. The relay ends every schedule as on SQLite. The retention job,
//! deleting expired inbox rows while consumers work: where SQLite's job waits for the
//! write lock a consumer holds (and may starve), PostgreSQL's deletes concurrently, so a
//! TTL shorter than what the broker's replays need duplicates at least as often.

#![cfg(feature = "postgres")]

use super::postgres::server::{json, outcome};
use super::support::*;

/// Every schedule of an exploration to depth 1, with its outcome.
pub(crate) fn schedules(file: &str, engine: &str) -> std::collections::BTreeMap<String, String> {
    explored(file, engine, &["--depth", "1"])
}

/// Every schedule of an exploration (`args` after `explore FILE`), with its outcome.
pub(crate) fn explored(
    file: &str,
    engine: &str,
    args: &[&str],
) -> std::collections::BTreeMap<String, String> {
    let all = [&["explore", file, "--engine", engine, "--json"][..], args].concat();
    let o = bin(&all);
    assert_eq!(o.status.code(), Some(0), "{all:?}: {}", stderr(&o));
    let v = json(&o);
    (v["runs"].as_array().unwrap().iter())
        .map(|r| (r["crash_points"].to_string(), outcome(r)))
        .collect()
}

#[test]
fn retention_on_postgres_ends_as_on_sqlite_where_no_wait_changed_the_outcome() {
    for file in [
        "scenarios/inbox-retention-ttl-covers-crashes.json",
        "scenarios/inbox-retention-ttl-shorter-than-window.json",
    ] {
        let sqlite = schedules(file, "sqlite");
        assert!(sqlite.len() > 100, "{file}");
        assert_eq!(schedules(file, "postgres"), sqlite, "{file}");
    }
}

#[test]
fn a_job_that_never_waits_for_a_lock_duplicates_where_sqlites_starved() {
    let file = "scenarios/inbox-retention-ttl-covers-window.json";
    let duplicated = |engine| {
        let o = bin(&[
            "explore", file, "--depth", "1", "--engine", engine, "--json",
        ]);
        let v = json(&o);
        (v["runs"].as_array().unwrap().iter())
            .filter(|r| r["duplicated"].as_u64() > Some(0))
            .map(|r| r["crash_points"].to_string())
            .collect::<std::collections::BTreeSet<_>>()
    };
    let (sqlite, postgres) = (duplicated("sqlite"), duplicated("postgres"));
    assert!(sqlite.is_subset(&postgres), "{sqlite:?} {postgres:?}");
    assert!(postgres.len() > sqlite.len(), "{}", postgres.len());
    // One of them: the row SQLite's job could not delete (a consumer held the write
    // lock), PostgreSQL's deletes, and the late replay applies the transfer again.
    let run = |engine| {
        let o = bin(&[
            "run",
            file,
            "--engine",
            engine,
            "--crash",
            "after:insert_inbox e0 d2",
            "--trace",
        ]);
        stdout(&o)
    };
    let (on_sqlite, on_postgres) = (run("sqlite"), run("postgres"));
    assert!(on_sqlite.contains("SQLITE_BUSY"), "{on_sqlite}");
    assert!(!on_postgres.contains("SQLITE_BUSY"), "{on_postgres}");
    assert!(
        on_postgres.contains("inbox row(s) processed before t=5 (TTL 60 ticks): e0"),
        "{on_postgres}"
    );
}

#[test]
fn the_email_relay_on_postgres_ends_schedule_for_schedule_as_on_sqlite() {
    // Every schedule, the email boundary included (an email sent twice, or never).
    let every = |file: &str, engine: &str| {
        let args = [
            "explore", file, "--depth", "1", "--engine", engine, "--json",
        ];
        let o = bin(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        let v = json(&o);
        let runs: std::collections::BTreeMap<String, String> = (v["runs"].as_array().unwrap())
            .iter()
            .map(|r| (r["crash_points"].to_string(), outcome(r)))
            .collect();
        (runs, v["summary"]["email"].clone())
    };
    for file in [
        "scenarios/inbox-email-after-commit-crash-loses-email.json",
        "scenarios/inbox-email-outbox-without-key-duplicates.json",
    ] {
        let (sqlite, email) = every(file, "sqlite");
        assert!(email["broken_runs"].as_u64() > Some(0), "{file}: {email}");
        assert_eq!(every(file, "postgres"), (sqlite, email), "{file}");
    }
}
