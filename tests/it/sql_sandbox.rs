//! A scenario's own SQL judged soundly and run safely (issue 32): each example of the issue
//! as a scenario file or a test. The schema is part of the exploration's state, `no_change`
//! is the statement's own row count, a commit-timeout retry runs only its own transaction
//! again, no statement writes a file or reads the wall clock or a random source the run did
//! not seed, a table-valued function runs in every command, and a run's SQL is bounded in
//! time and memory. Explorations are compared with a brute force that runs every schedule
//! on its own.

use crate::support::{bin, json, refused, spec, stderr, stdout, write};
use delivery_sim::explore::{explore, ExploreOptions};
use delivery_sim::fault::CrashSpec;
use delivery_sim::model::BoundaryPoint;
use delivery_sim::{run, RunResult, Scenario};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

fn load(file: &str) -> Scenario {
    let text = std::fs::read_to_string(crate::support::root().join(file)).unwrap();
    Scenario::from_json(&text, file).unwrap()
}

/// What a run came to, as a verdict tells it.
fn class(r: &RunResult) -> String {
    let v = &r.verdict;
    format!(
        "{:?} lost {} duplicated {} acked {} conserved {} {:?}",
        v.guarantee, v.lost, v.duplicated, v.all_acked, v.conserved, r.stop
    )
}

/// `s` with exactly the crashes of `schedule`.
fn with_crashes(s: &Scenario, schedule: &[BoundaryPoint]) -> Scenario {
    let mut s = s.clone();
    s.faults.crash = schedule.iter().map(|p| CrashSpec::exactly(*p)).collect();
    s.faults.random_crash = None;
    s
}

/// Every schedule of up to two crashes, each run on its own (no exploration involved): the
/// crash-free run's boundaries, then for each the boundaries its own run reached after it.
fn brute_force(s: &Scenario) -> BTreeMap<Vec<BoundaryPoint>, String> {
    let mut classes = BTreeMap::new();
    let base = run(&with_crashes(s, &[]));
    classes.insert(Vec::new(), class(&base));
    for first in &base.reached {
        let one = run(&with_crashes(s, &[*first]));
        classes.insert(vec![*first], class(&one));
        let at = one
            .reached
            .iter()
            .position(|p| p == first)
            .expect("reached");
        for second in &one.reached[at + 1..] {
            let two = run(&with_crashes(s, &[*first, *second]));
            let fired: Vec<BoundaryPoint> = two.crashes.iter().map(|c| c.point).collect();
            assert_eq!(fired, [*first, *second], "both crashes fire");
            classes.insert(vec![*first, *second], class(&two));
        }
    }
    classes
}

/// The pruned exploration to depth 2 finds what the brute force finds, and each run it
/// reports is the brute force's run of that schedule.
fn agrees_with_brute_force(file: &str) {
    let s = load(file);
    let brute = brute_force(&s);
    let options = ExploreOptions {
        depth: 2,
        ..ExploreOptions::default()
    };
    let x = explore(&s, options);
    for r in &x.runs {
        assert_eq!(
            brute.get(&r.crashes),
            Some(&class(&r.result)),
            "{file}: {:?}",
            r.crashes
        );
    }
    let explored: BTreeSet<String> = x.runs.iter().map(|r| class(&r.result)).collect();
    let all: BTreeSet<String> = brute.values().cloned().collect();
    assert_eq!(explored, all, "{file}: the outcomes of every schedule");
}

#[test]
fn a_dropped_trigger_is_another_state_and_the_duplicate_it_allows_is_found() {
    let file = "scenarios/sql-trigger-dropped-between-steps.json";
    agrees_with_brute_force(file);
    let x = json(&bin(&["explore", file, "--depth", "2", "--json"]));
    assert_eq!(x["summary"]["guarantee"], "at-least-once", "{x}");
}

#[test]
fn no_change_is_the_claims_own_row_count_not_its_triggers() {
    let file = "scenarios/sql-on-conflict-with-audit-trigger.json";
    agrees_with_brute_force(file);
    // The same claim with triggers that insert, update and delete on its every attempt:
    // the claim of a redelivery changes no row of its own, whatever they change.
    for trigger in [
        "INSERT INTO claim_audit VALUES (NEW.event_id, NEW.processed_at)",
        "UPDATE claim_audit SET at = at + 1",
        "DELETE FROM claim_audit WHERE at < 0",
    ] {
        let mut s = spec(file);
        s["store"]["schema"][3] = json!(format!(
            "CREATE TRIGGER audit_claim BEFORE INSERT ON processed_event BEGIN {trigger}; END"
        ));
        s["check"]["invariants"] = json!([]);
        let r = run(&Scenario::from_json(&s.to_string(), "t.json").unwrap());
        assert_eq!(r.verdict.duplicated, 0, "{trigger}");
        assert_eq!(r.verdict.guarantee, delivery_sim::Guarantee::ExactlyOnce);
    }
    // A statement that writes no row itself cannot say "no change".
    let mut s = spec(file);
    s["protocol"]["steps"][2]["sql"] = json!("SELECT 1 FROM processed_event");
    let (field, message) = refused(&s);
    assert_eq!(field, "protocol.steps[2].duplicate_if");
    assert!(message.contains("no rows itself"), "{message}");
}

#[test]
fn a_retry_runs_again_only_the_transaction_its_commit_closes() {
    for file in [
        "scenarios/sql-dual-write-retry-dedup-commit.json",
        "scenarios/sql-dual-write-retry-main-commit.json",
    ] {
        let r = run(&load(file));
        assert_eq!(
            r.verdict.guarantee,
            delivery_sim::Guarantee::ExactlyOnce,
            "{file}"
        );
        // The timed-out commit is named as its crash points are.
        let trace =
            delivery_sim::report::text::trace_text(delivery_sim::report::lang::Lang::En, &r);
        let line = trace
            .lines()
            .find(|l| l.contains("COMMIT timed out"))
            .expect("the timeout is in the trace");
        assert!(line.contains("commit#2"), "{line}");
        agrees_with_brute_force(file);
    }
}

#[test]
fn vacuum_into_is_refused_and_writes_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("copy.db");
    let mut s = spec("scenarios/sql-reserve-stock-inbox.json");
    s["protocol"]["steps"][3] = json!({"name": "backup",
        "sql": format!("VACUUM INTO '{}'", target.display())});
    let file = write(dir.path(), "vacuum.json", &s.to_string());
    for command in ["run", "explain", "explore"] {
        let out = bin(&[command, &file]);
        assert_eq!(out.status.code(), Some(2), "{command}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("VACUUM is not allowed"),
            "{}",
            stderr(&out)
        );
    }
    assert!(!target.exists(), "no file was written");
}

/// `random()` and the clock wherever SQLite calls them: a column default (behind a comment,
/// as a quoted name), a trigger a step creates, a view. Each placement runs to the same
/// trace and verdict in five fresh processes, and its values are the run's.
#[test]
fn randomness_and_the_clock_replay_wherever_sqlite_calls_them() {
    let dir = tempfile::tempdir().unwrap();
    let base = spec("scenarios/sql-reserve-stock-inbox.json");
    type Place = Box<dyn Fn(&mut Value)>;
    let placements: [(&str, Place); 4] = [
        (
            "default behind a comment",
            Box::new(|s: &mut Value| {
                s["store"]["schema"][2] = json!(
                    "CREATE TABLE reservation (event_id, sku, qty, \
                     token INTEGER DEFAULT (random/**/()), at TEXT DEFAULT CURRENT_TIMESTAMP)"
                );
                s["check"]["effects_per_event"] = json!(
                    "SELECT count(*) FROM reservation WHERE event_id = :event_id AND token > 0"
                );
                s["protocol"]["steps"][3]["sql"][1] = json!(
                    "INSERT INTO reservation (event_id, sku, qty) VALUES (:event_id, :sku, :qty)"
                );
            }),
        ),
        (
            "quoted default",
            Box::new(|s: &mut Value| {
                s["store"]["schema"][2] = json!(
                    "CREATE TABLE reservation (event_id, sku, qty, token DEFAULT (\"random\"()))"
                );
                s["check"]["effects_per_event"] = json!(
                    "SELECT count(*) FROM reservation WHERE event_id = :event_id AND token % 2 = 0"
                );
                s["protocol"]["steps"][3]["sql"][1] = json!(
                    "INSERT INTO reservation (event_id, sku, qty) VALUES (:event_id, :sku, :qty)"
                );
            }),
        ),
        (
            "trigger created by a step",
            Box::new(|s: &mut Value| {
                let steps = s["protocol"]["steps"].as_array_mut().unwrap();
                steps.insert(
                    1,
                    json!({"name": "install", "sql": "CREATE TRIGGER IF NOT EXISTS \
                    coin AFTER INSERT ON reservation BEGIN UPDATE reservation SET qty = \
                    abs(random()) % 2 WHERE rowid = NEW.rowid; END"}),
                );
            }),
        ),
        (
            "view",
            Box::new(|s: &mut Value| {
                let schema = s["store"]["schema"].as_array_mut().unwrap();
                schema.push(json!(
                    "CREATE VIEW coin AS SELECT abs(random()) % 2 AS heads, \
                    julianday('now') AS at"
                ));
                s["protocol"]["steps"][3]["sql"] = json!([
                    "UPDATE stock SET qty = qty - :qty WHERE sku = :sku",
                    "INSERT INTO reservation SELECT :event_id, :sku, :qty FROM coin WHERE heads = 1 OR at > 0"
                ]);
            }),
        ),
    ];
    for (name, place) in placements {
        let mut s = base.clone();
        s["faults"] = json!({});
        s.as_object_mut().unwrap().remove("expect");
        place(&mut s);
        let file = write(dir.path(), "placed.json", &s.to_string());
        // The whole report (trace hash, verdict, every event's effects) byte for byte.
        let runs: BTreeSet<String> = (0..5)
            .map(|_| {
                let out = bin(&["run", &file, "--json"]);
                assert_ne!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
                assert!(json(&out)["trace_hash"].is_string());
                stdout(&out)
            })
            .collect();
        assert_eq!(runs.len(), 1, "{name}: {runs:?}");
    }
    // The clock is the virtual one: a step at tick t reads 2026-01-01 00:00:00 plus t s.
    let r = run(&load("scenarios/sql-virtual-clock-and-random.json"));
    assert!(
        r.verdict.invariants.iter().all(|i| i.holds),
        "{:?}",
        r.verdict.invariants
    );
}

/// A table-valued function (json_each, pragma_table_info) in a step and in the checks, in
/// every command: each ends with its answer, never a signal.
#[test]
fn table_valued_functions_run_in_every_command() {
    let file = "scenarios/sql-table-valued-functions.json";
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html").display().to_string();
    let commands: [&[&str]; 8] = [
        &["run", file],
        &["explain", file],
        &["explain", file, "--lang", "es"],
        &["explore", file, "--depth", "2"],
        &["run", file, "--html", &page],
        &["crosscheck", file],
        &["sweep", file, "--seeds", "0..4"],
        &["run", file, "--diagram", "svg"],
    ];
    for args in commands {
        let out = bin(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
    let server = crate::serve::start();
    let host = format!("127.0.0.1:{}", server.port);
    let body = std::fs::read(crate::support::root().join(file)).unwrap();
    for path in ["/api/run", "/api/explore?depth=1"] {
        let (status, answer) =
            crate::serve::send(server.port, &crate::serve::post(path, &host, &body));
        assert_eq!(
            status,
            Some(200),
            "{path}: {}",
            answer.chars().take(300).collect::<String>()
        );
    }
}

/// A statement that runs to its own budget at every delivery ends the run at the run's SQL
/// limit: a liveness failure, after a few hundred deliveries, not a hundred thousand.
#[test]
fn a_statement_exhausting_its_budget_at_every_delivery_ends_the_run_soon() {
    let mut s = spec("scenarios/sql-reserve-stock-inbox.json");
    s["protocol"]["steps"][3] = json!({"name": "count", "sql": "WITH RECURSIVE c(x) AS \
        (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c"});
    s.as_object_mut().unwrap().remove("expect");
    let s = Scenario::from_json(&s.to_string(), "t.json").unwrap();
    let r = run(&s);
    assert_eq!(r.stop, delivery_sim::sim::StopReason::SqlLimit);
    let per_statement = u64::from(delivery_sim::scenario::bounds::MAX_SQL_VM_STEPS);
    let deliveries = delivery_sim::scenario::bounds::MAX_RUN_SQL_VM_STEPS / per_statement + 1;
    assert!(r.steps <= 10 * deliveries, "{} steps", r.steps);
    let failure = r.liveness_failure(&s.limits).expect("a liveness failure");
    assert_eq!(
        failure.stop,
        delivery_sim::sim::StopReason::SqlLimit,
        "{failure:?}"
    );
    assert_eq!(
        failure.limit,
        Some(delivery_sim::scenario::bounds::MAX_RUN_SQL_VM_STEPS)
    );
}

/// A statement that would take more memory than a statement may (a sort of 100 MB) fails,
/// the same way in every run.
#[test]
fn a_statement_past_its_memory_fails_the_same_way_every_time() {
    let mut s = spec("scenarios/sql-reserve-stock-inbox.json");
    s["protocol"]["steps"][3] = json!({"name": "sort", "sql": "INSERT INTO reservation \
        SELECT :event_id, :sku, count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL \
        SELECT x + 1 FROM c WHERE x < 100000) SELECT x, randomblob(1000) AS b FROM c ORDER BY b)"});
    s["broker"] = json!({"max_deliveries": 2});
    s.as_object_mut().unwrap().remove("expect");
    let s = Scenario::from_json(&s.to_string(), "t.json").unwrap();
    let (a, b) = (run(&s), run(&s));
    assert_eq!(a.trace.hash_hex(), b.trace.hash_hex());
    let trace = delivery_sim::report::text::trace_text(delivery_sim::report::lang::Lang::En, &a);
    assert!(
        trace.contains("MiB of memory, the limit for one statement"),
        "{trace}"
    );
}

#[test]
fn an_incomplete_interleaving_search_never_says_all() {
    let out = bin(&[
        "explore",
        "scenarios/sql-check-then-act-two-consumers.json",
        "--interleavings",
        "--max-interleavings",
        "5",
    ]);
    let text = stdout(&out);
    let verdict = text.lines().next().unwrap();
    assert!(!verdict.contains("all "), "{verdict}");
    assert!(
        verdict.contains("only the 5 interleavings explored"),
        "{verdict}"
    );
    assert!(
        verdict.contains("a limit stopped the search before its end"),
        "{verdict}"
    );
}

#[test]
fn unsupported_begin_forms_and_ledger_keys_are_refused_saying_why() {
    let mut s = spec("scenarios/sql-reserve-stock-inbox.json");
    s["protocol"]["steps"][1] = json!({"name": "begin", "sql": "BEGIN IMMEDIATE"});
    let (field, message) = refused(&s);
    assert_eq!(field, "protocol.steps[1].sql");
    assert!(
        message.contains("`BEGIN IMMEDIATE` is not supported"),
        "{message}"
    );
    for key in ["transfer_id", "account_id"] {
        let mut s = spec("scenarios/sql-reserve-stock-inbox.json");
        s["broker"] = json!({"kind": "log", "partitions": 2, "key": key});
        s.as_object_mut().unwrap().remove("expect");
        let (field, message) = refused(&s);
        assert_eq!(field, "broker.key");
        assert!(message.contains("keyed by `event_id`"), "{message}");
    }
}

/// An exploration's estimate counts what the scenario's SQL costs: a statement of a
/// million virtual-machine steps per delivery makes each run as long as thousands of steps.
#[test]
fn an_explorations_estimate_counts_the_sql_it_runs() {
    let heavy = |upto: u64| {
        let mut s = spec("scenarios/sql-reserve-stock-inbox.json");
        let count = format!(
            "INSERT INTO reservation SELECT :event_id, :sku, count(*) % 1 + :qty FROM \
             (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < {upto}) \
             SELECT x FROM c)"
        );
        s["protocol"]["steps"][3]["sql"][1] = json!(count);
        s.as_object_mut().unwrap().remove("expect");
        Scenario::from_json(&s.to_string(), "t.json").unwrap()
    };
    let (light, heavy) = (heavy(1), heavy(100_000));
    let (a, b) = (
        delivery_sim::explore::estimate(&light, 1),
        delivery_sim::explore::estimate(&heavy, 1),
    );
    assert_eq!(a.schedules, b.schedules, "the same schedules");
    let sql = run(&heavy).sql_vm_steps;
    assert!(sql >= 1_000_000, "{sql} VM steps");
    assert!(
        b.steps >= a.steps + b.schedules * u128::from(sql / 1_000),
        "{} steps estimated for the light one, {} for the heavy one",
        a.steps,
        b.steps
    );
}

/// A deferred foreign key that fails at `COMMIT`: SQLite refuses the commit and keeps the
/// transaction open; the delivery fails, rolls back and is redelivered (never a panic), in
/// every command.
#[test]
fn a_commit_a_deferred_foreign_key_refuses_fails_the_delivery() {
    let dir = tempfile::tempdir().unwrap();
    let s = json!({"name": "deferred-key", "seed": 2,
        "store": {"schema": ["CREATE TABLE parent (id TEXT PRIMARY KEY)",
            "CREATE TABLE r (event_id TEXT NOT NULL REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)"]},
        "workload": {"events": 2}, "broker": {"max_deliveries": 2},
        "protocol": {"name": "p", "steps": ["receive", "begin",
            {"name": "w", "sql": "INSERT INTO r VALUES (:event_id)"}, "commit", "ack"]},
        "check": {"effects_per_event": "SELECT count(*) FROM r WHERE event_id = :event_id"}});
    let file = write(dir.path(), "fk.json", &s.to_string());
    let r = run(&Scenario::from_json(&s.to_string(), "fk.json").unwrap());
    assert_eq!(r.verdict.lost, 2, "both dead-lettered");
    let trace = delivery_sim::report::text::trace_text(delivery_sim::report::lang::Lang::En, &r);
    assert!(
        trace.contains("COMMIT refused: FOREIGN KEY constraint failed"),
        "{trace}"
    );
    for args in [
        vec!["explain", file.as_str(), "--lang", "es"],
        vec!["explore", file.as_str(), "--depth", "2"],
        vec!["crosscheck", file.as_str()],
    ] {
        let out = bin(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
}

/// A consumer that creates its table on first use: the statements after the step that
/// creates it are checked against the schema it makes, and the exploration agrees with
/// the brute force (the table's default reads the clock: the instant is state).
#[test]
fn a_table_a_step_creates_is_there_for_the_steps_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let s = json!({"name": "lazy-table", "seed": 2,
        "store": {"schema": ["CREATE TABLE r (event_id TEXT NOT NULL)"]},
        "workload": {"events": 1},
        "protocol": {"name": "p", "steps": ["receive",
            {"name": "make_log", "sql": "CREATE TABLE IF NOT EXISTS log (id TEXT PRIMARY KEY, \
                at TEXT DEFAULT CURRENT_TIMESTAMP)"},
            "begin",
            {"name": "claim", "sql": "INSERT INTO log (id) VALUES (:event_id)",
                "duplicate_if": "unique_violation"},
            {"name": "w", "sql": "INSERT INTO r VALUES (:event_id)"}, "commit", "ack"]},
        "check": {"effects_per_event": "SELECT count(*) FROM r WHERE event_id = :event_id"}});
    let file = write(dir.path(), "lazy.json", &s.to_string());
    let loaded = Scenario::from_json(&s.to_string(), "lazy.json").unwrap();
    assert!(loaded.store.custom.as_ref().unwrap().reads_clock);
    agrees_with_brute_force(&file);
}
