//! Every command at the documented bounds, under a memory limit set on the process: the
//! test runs the binary with `ulimit -v 1048576` (`setrlimit(RLIMIT_AS)`, 1 GiB), and each
//! command must end with a reported outcome, exit 0, 1 or 2 with its message, never an abort
//! ("memory allocation of N bytes failed") or a panic. The cases that take a second or two
//! run in `cargo test`; those that take most of a minute each (a run at the trace limit,
//! explorations that fill their memory budget, sweeps of thousands of events, the
//! benchmarks) run with the `bounds` feature, which `.ci/run` turns on in release.

use super::support::*;
use std::process::Output;

/// The memory every command stays within, in KiB (`ulimit -v` takes KiB).
const LIMIT_KIB: u64 = 1 << 20;

/// Runs the binary with `args` under the memory limit, from the crate root, with `env`.
fn limited(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = command("sh");
    cmd.arg("-c")
        .arg(format!("ulimit -v {LIMIT_KIB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_delivery-sim"))
        .args(args)
        .envs(env.iter().copied());
    cmd.output().expect("sh runs the binary")
}

/// `o` ended cleanly, with one of the exit codes `codes`.
fn clean(what: &str, o: &Output, codes: &[i32]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !err.contains("memory allocation") && !err.contains("panicked"),
        "{what}: {err}"
    );
    assert!(
        o.status.code().is_some_and(|c| codes.contains(&c)),
        "{what}: exit {:?}, expected one of {codes:?}: {err}",
        o.status.code()
    );
}

/// `events` events of the inbox protocol, one consumer.
fn inbox(events: u64) -> String {
    format!(
        r#"{{"name": "inbox{events}", "seed": 1, "protocol": "inbox", "workload": {{"events": {events}}}}}"#
    )
}

/// A run at the trace limit: the most consumers, events and accounts, and a lease of one
/// tick (shorter than the work), under the largest step and tick limits: it stops at
/// MAX_TRACE_ENTRIES (2,000,000 entries) and fails liveness.
#[cfg(feature = "bounds")]
const AT_THE_TRACE_LIMIT: &str = r#"{"name": "at-the-trace-limit", "seed": 1,
    "protocol": "inbox", "consumers": 8,
    "workload": {"events": 10000, "accounts": 10000},
    "broker": {"lease_ticks": 1},
    "limits": {"max_steps": 10000000, "max_ticks": 1000000000}}"#;

/// The most events and accounts, and nothing else: a long run that finishes.
const MANY: &str = r#"{"name": "many", "seed": 1, "protocol": "inbox",
    "workload": {"events": 10000, "accounts": 10000}}"#;

#[test]
fn explain_of_the_most_events_and_accounts_stays_small() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "many.json", MANY);
    let o = limited(&["explain", &file, "--lang", "es"], &[]);
    clean("explain, 10,000 events and accounts", &o, &[0]);
    assert!(stdout(&o).contains("entradas más de la traza"));
}

#[test]
fn a_page_of_the_most_events_and_accounts_stays_small() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "many.json", MANY);
    let html = dir.path().join("many.html");
    let o = limited(&["run", &file, "--html", html.to_str().unwrap()], &[]);
    clean("run --html, 10,000 events and accounts", &o, &[0]);
    let size = std::fs::metadata(&html).expect("the page").len();
    assert!(size < 8 << 20, "{size} bytes");
}

/// What could not finish in bounded time or memory is refused before it starts, saying
/// what to lower.
#[test]
fn explorations_too_large_are_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "big.json", &inbox(10_000));
    let o = limited(&["explore", &file], &[]);
    clean("explore, 10,000 events", &o, &[2]);
    assert!(stderr(&o).contains("lower --depth"), "{}", stderr(&o));
    // The cross-check of as many points in real processes would take days.
    let file = write(dir.path(), "cc.json", &inbox(200));
    let o = limited(&["crosscheck", &file], &[]);
    clean("crosscheck, 200 events", &o, &[2]);
    assert!(
        stderr(&o).contains("one crosscheck may take"),
        "{}",
        stderr(&o)
    );
    // The TTL search explores each TTL it tries: up to 43 explorations, of which one
    // would pass the bound on steps (1,000 events at depth 1: 12,001 schedules of some
    // 6,000 steps) and 43 do not.
    let ttl = write(
        dir.path(),
        "ttl.json",
        r#"{"name": "ttl", "seed": 1, "protocol": "inbox", "workload": {"events": 1000},
            "store": {"inbox_ttl_ticks": 5}}"#,
    );
    let o = limited(
        &["explore", &ttl, "--smallest-safe-ttl", "--depth", "1"],
        &[],
    );
    clean("smallest safe TTL, depth 1", &o, &[2]);
    assert!(stderr(&o).contains("each TTL it tries"), "{}", stderr(&o));
}

/// A run that a limit stops fails liveness in a folder too, whether its file states
/// expectations or not, as `run FILE` does.
#[test]
fn a_folder_fails_a_file_without_expect_whose_run_cannot_finish() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "stuck.json",
        r#"{"name": "stuck", "seed": 1, "protocol": "inbox", "consumers": 2,
            "workload": {"events": 2}, "broker": {"lease_ticks": 2},
            "limits": {"max_steps": 300}}"#,
    );
    write(dir.path(), "fine.json", &inbox(2));
    let o = limited(&["run", dir.path().to_str().unwrap()], &[]);
    clean("run DIR", &o, &[1]);
    let text = stdout(&o);
    assert!(
        text.contains("stuck.json FAILED") && text.contains("liveness"),
        "{text}"
    );
    assert!(text.contains("2 scenarios: 1 held, 1 failed"), "{text}");
}

/// The retention job idles at every tick of a replay window of a million ticks; its
/// fast-forward makes that run one of 23 trace entries, not a million job runs (it took 37
/// seconds). A property checks that the fast-forward changes no run.
#[test]
fn an_idle_retention_job_over_a_long_window_is_fast_forwarded() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "window.json",
        r#"{"name": "window", "seed": 1, "protocol": "inbox", "workload": {"events": 1},
            "broker": {"late_redelivery_ticks": 1000000},
            "store": {"inbox_ttl_ticks": 5, "cleanup_every_ticks": 1}}"#,
    );
    let o = limited(&["run", &file, "--json"], &[]);
    clean("run, a window of a million ticks", &o, &[0]);
    let j = json(&o);
    assert_eq!(j["duplicated"], 1, "the TTL is shorter than the window");
    assert!(j["end_tick"].as_u64().unwrap() > 1_000_000);
}

#[cfg(feature = "bounds")]
mod at_the_bounds {
    //! The slow cases: `cargo test --release --features bounds --test it memory`.

    use super::*;

    #[test]
    fn run_at_the_trace_limit_in_every_output_form() {
        let dir = tempfile::tempdir().unwrap();
        let file = write(dir.path(), "limit.json", AT_THE_TRACE_LIMIT);
        let svg = dir.path().join("d.svg").display().to_string();
        let junit = dir.path().join("j.xml").display().to_string();
        let html = dir.path().join("p.html").display().to_string();
        for args in [
            vec!["run", &file],
            vec!["run", &file, "--json"],
            vec!["run", &file, "--trace", "--lang", "es"],
            vec!["run", &file, "--diagram", "svg", "--out", &svg],
            vec![
                "run",
                &file,
                "--diagram",
                "mermaid",
                "--diagram-detail",
                "full",
            ],
            vec!["run", &file, "--junit", &junit],
            vec!["run", &file, "--html", &html, "--lang", "es"],
            vec!["explain", &file],
        ] {
            let o = limited(&args, &[]);
            clean(&args.join(" "), &o, &[1]);
        }
    }

    #[test]
    fn a_folder_of_runs_at_the_trace_limit_on_four_threads() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..4 {
            write(dir.path(), &format!("limit{i}.json"), AT_THE_TRACE_LIMIT);
        }
        let o = limited(
            &["run", dir.path().to_str().unwrap()],
            &[("RAYON_NUM_THREADS", "4")],
        );
        clean("run DIR", &o, &[1]);
    }

    #[test]
    fn explorations_near_their_memory_budget() {
        let dir = tempfile::tempdir().unwrap();
        let e45 = write(dir.path(), "e45.json", &inbox(45));
        let e7 = write(dir.path(), "e7.json", &inbox(7));
        let e3 = write(dir.path(), "e3.json", &inbox(3));
        let html = dir.path().join("p.html").display().to_string();
        let il = write(
            dir.path(),
            "il.json",
            r#"{"name": "il", "seed": 1, "protocol": "inbox", "consumers": 2,
                "workload": {"events": 300}}"#,
        );
        for args in [
            vec!["explore", &e45, "--depth", "2"],
            vec!["explore", &e45, "--depth", "2", "--json"],
            vec!["explore", &e45, "--depth", "2", "--html", &html],
            vec!["explore", &e7, "--depth", "3", "--no-prune"],
            vec![
                "explore",
                &e3,
                "--depth",
                "4",
                "--no-prune",
                "--max-schedules",
                "10000000",
            ],
            vec!["explore", &il, "--interleavings", "--max-preemptions", "1"],
            vec!["matrix", "--events", "40", "--depth", "2"],
            vec!["matrix", "--events", "40", "--depth", "1", "--html", &html],
        ] {
            let o = limited(&args, &[]);
            clean(&args.join(" "), &o, &[0, 1]);
        }
    }

    #[test]
    fn serve_at_its_bounds() {
        use crate::serve::{post, send, start_under};
        let server = start_under(Some(LIMIT_KIB));
        let host = format!("127.0.0.1:{}", server.port);
        let most = r#"{"name": "most", "seed": 1, "protocol": "inbox", "consumers": 8,
            "workload": {"events": 50}, "broker": {"lease_ticks": 1},
            "limits": {"max_steps": 200000}}"#;
        let many =
            r#"{"name": "many", "seed": 1, "protocol": "inbox", "workload": {"events": 50}}"#;
        let deep =
            r#"{"name": "deep", "seed": 1, "protocol": "no-dedup", "workload": {"events": 6}}"#;
        for (path, body) in [
            ("/api/run", most),
            ("/api/explore?depth=1", many),
            ("/api/explore?depth=2", deep),
            ("/api/run", many),
        ] {
            let (status, answer) = send(server.port, &post(path, &host, body.as_bytes()));
            assert_eq!(
                status,
                Some(200),
                "{path}: {}",
                &answer[..answer.len().min(400)]
            );
        }
    }

    /// A scenario's own SQL at its bounds, on eight threads: the main database and four
    /// named ones filled near `MAX_SQL_DATABASE_BYTES` (explored: each run copies five
    /// databases), a statement that sorts past its memory at every delivery, and one that
    /// runs to its step budget at every delivery. The runs of such a scenario are admitted
    /// within the SQLite memory budget and on as many threads as it holds, whatever
    /// `RAYON_NUM_THREADS` says.
    #[test]
    fn sql_at_its_bounds_on_eight_threads() {
        let dir = tempfile::tempdir().unwrap();
        let fill = "INSERT INTO big SELECT x, randomblob(900) FROM (WITH RECURSIVE c(x) AS \
                    (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 14000) SELECT x FROM c)";
        let big = "CREATE TABLE big (id INTEGER PRIMARY KEY, b BLOB NOT NULL)";
        let named: serde_json::Map<String, serde_json::Value> = (1..=4)
            .map(|k| {
                let db = serde_json::json!({"schema": [big,
                    "CREATE TABLE seen (event_id TEXT PRIMARY KEY)"], "setup": [fill]});
                (format!("db{k}"), db)
            })
            .collect();
        let mut steps = vec![
            serde_json::json!("receive"),
            serde_json::json!("begin"),
            serde_json::json!({"name": "claim", "duplicate_if": "unique_violation",
                "sql": "INSERT INTO processed_event VALUES (:event_id)"}),
            serde_json::json!({"name": "reserve",
                "sql": "INSERT INTO reservation SELECT :event_id, count(*) FROM big"}),
        ];
        for k in 1..=4 {
            steps.push(
                serde_json::json!({"name": format!("note{k}"), "db": format!("db{k}"),
                "sql": "INSERT OR IGNORE INTO seen VALUES (:event_id)"}),
            );
        }
        steps.extend([serde_json::json!("commit"), serde_json::json!("ack")]);
        let full = serde_json::json!({"name": "five-full-databases", "seed": 1,
            "store": {"schema": ["CREATE TABLE processed_event (event_id TEXT PRIMARY KEY)",
                "CREATE TABLE reservation (event_id TEXT NOT NULL, n INTEGER)", big],
                "setup": [fill], "databases": named},
            "workload": {"events": 3},
            "protocol": {"name": "five-databases", "steps": steps},
            "check": {"effects_per_event":
                "SELECT count(*) FROM reservation WHERE event_id = :event_id"}});
        let full = write(dir.path(), "full.json", &full.to_string());
        let heavy = |name: &str, sql: &str| {
            let text = serde_json::json!({"name": name, "seed": 1,
                "store": {"schema": ["CREATE TABLE r (event_id TEXT NOT NULL, n INTEGER)"]},
                "workload": {"events": 2}, "broker": {"max_deliveries": 2},
                "protocol": {"name": name, "steps": ["receive", {"name": "work", "sql": sql},
                    "ack"]},
                "check": {"effects_per_event": "SELECT count(*) FROM r WHERE event_id = :event_id"}});
            write(dir.path(), &format!("{name}.json"), &text.to_string())
        };
        let sort = heavy(
            "sort",
            "INSERT INTO r SELECT :event_id, count(*) FROM (WITH RECURSIVE \
            c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000) SELECT x, \
            randomblob(1000) AS b FROM c ORDER BY b)",
        );
        let count = heavy(
            "count",
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 \
            FROM c WHERE x < 1000000000) SELECT count(*) FROM c",
        );
        let eight = [("RAYON_NUM_THREADS", "8")];
        for (args, codes) in [
            (vec!["explore", &full, "--depth", "1"], &[0][..]),
            (vec!["run", &full, "--json"], &[0]),
            (vec!["explore", &sort, "--depth", "1"], &[0, 1]),
            (vec!["run", &count], &[0, 1]),
            (vec!["sweep", &sort, "--seeds", "0..16"], &[0, 1]),
        ] {
            let o = limited(&args, &eight);
            clean(&args.join(" "), &o, codes);
        }
    }

    #[test]
    fn sweeps_of_the_most_events_and_of_runs_at_the_trace_limit() {
        let dir = tempfile::tempdir().unwrap();
        let file = write(dir.path(), "limit.json", AT_THE_TRACE_LIMIT);
        for args in [
            vec![
                "sweep",
                "--protocol",
                "no-dedup",
                "--events",
                "10000",
                "--seeds",
                "0..256",
                "--no-shrink",
            ],
            vec!["sweep", &file, "--seeds", "0..4", "--no-shrink"],
        ] {
            let o = limited(&args, &[]);
            clean(&args.join(" "), &o, &[0, 1]);
        }
    }
}
