//! Generated SQL-step scenarios (issue 15): protocols drawn from a pool of steps (built-in
//! ones, and SQL ones whose statements are valid, invalid, non-deterministic, transaction
//! control, unbounded or failing at run time), with or without payloads, crashes, several
//! consumers and a named database (`store.databases`) the steps and transactions may run on,
//! an error policy (retries, compensating steps, what ends a failed delivery) and a step told
//! to fail for it to handle, and branches and values (a result kept with `into`, a step's
//! `when`, `duplicate_if: {"when"}`, a kept column bound, a `goto` back). Each one either is refused with a field, or runs without panicking,
//! twice to the same trace hash; and on the small ones the pruned exploration finds every
//! outcome the brute-force one (no pruning) finds, at depth 2.
//!
//! The cases are drawn with a fixed proptest seed, so CI checks the same inputs every
//! time; `PROPTEST_RNG_SEED=N` draws others, `SQL_FUZZ_CASES=N` draws more.

use delivery_sim::explore::{explore, ExploreOptions};
use delivery_sim::{run, RunResult, Scenario};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

const SCHEMA: [&str; 5] = [
    "CREATE TABLE wr (k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID",
    "CREATE TABLE seen (id TEXT PRIMARY KEY, at INTEGER)",
    "CREATE TABLE done (id TEXT NOT NULL, n INTEGER)",
    "CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER NOT NULL CHECK (v >= 0))",
    "CREATE TABLE tick (n INTEGER)",
];

/// Statements a step may run: the first [`VALID`] load (some fail at run time: a value
/// past its size bound, a recursion past its step budget), then ones the loader must
/// refuse. The valid ones include what users write beyond plain rows: table-valued and
/// JSON functions, window functions, CTEs, the clock and randomness (the run's own), and
/// schema changes (a trigger, an index, a view created or dropped by a step).
const STATEMENTS: [&str; 44] = [
    "INSERT INTO seen VALUES (:event_id, :now)",
    "INSERT INTO seen VALUES (:event_id, :now) ON CONFLICT DO NOTHING",
    "SELECT 1 FROM seen WHERE id = :event_id",
    "INSERT INTO done VALUES (:event_id, :n)",
    "UPDATE kv SET v = v - :n WHERE k = 'a'",
    "DELETE FROM seen WHERE id = :event_id",
    "INSERT INTO done SELECT :event_id, :delivery WHERE :consumer >= 0",
    "INSERT INTO tick VALUES (:now)",
    "DELETE FROM done WHERE id = :event_id AND n > 100",
    "SELECT count(*) FROM done",
    "INSERT INTO wr VALUES (:event_id, :delivery) ON CONFLICT(k) DO UPDATE SET v = v + 1",
    "INSERT INTO done SELECT :event_id, value FROM json_each('[1, 2]') WHERE value = 1",
    "INSERT INTO done SELECT :event_id, json_extract(json_object('d', :delivery), '$.d')",
    "INSERT INTO tick SELECT count(*) FROM pragma_table_info('done')",
    "INSERT INTO tick SELECT coalesce(max(r), 0) FROM (SELECT row_number() OVER (ORDER BY id) AS r FROM seen)",
    "WITH w AS (SELECT id FROM seen WHERE id = :event_id) SELECT count(*) FROM w",
    "INSERT INTO seen VALUES (lower(hex(randomblob(4))), abs(random()) % 7)",
    "INSERT INTO tick VALUES (unixepoch('now') - unixepoch(date('now', 'localtime')))",
    "INSERT INTO tick SELECT julianday(CURRENT_TIMESTAMP) > 0",
    "CREATE TRIGGER IF NOT EXISTS mark AFTER INSERT ON done BEGIN INSERT OR IGNORE INTO seen VALUES (NEW.id, 0); END",
    "DROP TRIGGER IF EXISTS mark",
    "CREATE UNIQUE INDEX IF NOT EXISTS one_done ON done (id)",
    "DROP INDEX IF EXISTS one_done",
    "CREATE VIEW IF NOT EXISTS seen_ids AS SELECT id FROM seen",
    "DROP VIEW IF EXISTS seen_ids",
    "CREATE TRIGGER IF NOT EXISTS stamp AFTER INSERT ON tick BEGIN UPDATE kv SET v = v + (random() & 1); END",
    "INSERT INTO done VALUES (:event_id, length(zeroblob(2000000)))",
    "INSERT INTO done SELECT :event_id, zeroblob(900000) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 40) SELECT x FROM c)",
    "INSERT INTO done SELECT :event_id, x FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c)",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
    "SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 60000) SELECT x, randomblob(1000) AS b FROM c ORDER BY b)",
    "INSERT INTO nowhere VALUES (1)",
    "SELECT :missing",
    "BEGIN",
    "COMMIT",
    "SELECT 1; SELECT 2",
    "",
    "INSERT INTO seen VALUES (?, 1)",
    "VACUUM INTO 'fuzzed-copy.db'",
    "ATTACH 'fuzzed.db' AS f",
    "SELECT load_extension('x')",
    "PRAGMA writable_schema = ON",
    "SELECT last_insert_rowid()",
    "CREATE TEMP TABLE t (a)",
];

/// The statements that load; the rest are refused (or, some, fail at run time).
const VALID: usize = 31;

/// Invariants a scenario may check, on the main database: plain, and through a table-valued
/// function, JSON, a window function or a CTE.
const INVARIANTS: [&str; 5] = [
    "SELECT (SELECT v FROM kv WHERE k = 'a') >= 0",
    "SELECT count(*) >= 2 FROM pragma_table_info('done')",
    "SELECT json_array_length(coalesce((SELECT json_group_array(id) FROM seen), '[]')) >= 0",
    "SELECT coalesce(max(r), 0) >= 0 FROM (SELECT rank() OVER (ORDER BY n) AS r FROM done)",
    "WITH c AS (SELECT count(*) AS n FROM done) SELECT n >= 0 FROM c",
];

/// Conditions a step's `when` or `duplicate_if: {"when"}` may test (issue 35): over the
/// result `got` (kept by a step with `into`), some that cannot load.
const CONDITIONS: [&str; 7] = [
    "got.n = 0",
    "got.n > 0",
    "got.top is null",
    "not got.n = 1 or got.top >= 2",
    "got.n < 2",
    "got.nope = 1",
    "got.n = = 1",
];

/// What a drawn SQL step does besides its statements: keep `got`, run only when, tell a
/// duplicate from a value, bind a kept column.
fn flow(mut step: Value, kind: u8, condition: &str) -> Value {
    match kind {
        0 => {
            step["sql"] =
                json!("SELECT count(*) AS n, max(n) AS top FROM done WHERE id = :event_id");
            step["into"] = json!("got");
            step.as_object_mut().unwrap().remove("duplicate_if");
        }
        1 => step["when"] = json!(condition),
        2 => step["duplicate_if"] = json!({"when": condition}),
        _ => step["sql"] = json!("INSERT INTO done SELECT :event_id, coalesce(:got.n, 0) + 1"),
    }
    step
}

const NAMES: [&str; 7] = [
    "claim",
    "apply",
    "check",
    "mark",
    "reserve",
    "apply_effect",
    "Bad",
];

/// A statement: mostly a valid one, sometimes one of the others.
fn statement() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        12 => prop::sample::select(STATEMENTS[..VALID].to_vec()),
        1 => prop::sample::select(STATEMENTS[VALID..].to_vec()),
    ]
}

fn sql_step() -> impl Strategy<Value = Value> {
    (
        prop_oneof![9 => prop::sample::select(NAMES[..5].to_vec()), 1 => prop::sample::select(NAMES[5..].to_vec())],
        prop::collection::vec(statement(), 1..3),
        prop::option::weighted(0.4, prop::sample::select(vec!["unique_violation", "row", "no_change"])),
        prop::bool::weighted(0.8),
        database(),
        prop::option::weighted(0.25, (0..4u8, prop::sample::select(CONDITIONS.to_vec()))),
    )
        .prop_map(|(name, mut sql, dup, single, db, branch)| {
            if single {
                sql.truncate(1);
            }
            let mut step = json!({"name": name, "sql": sql});
            if sql.len() == 1 {
                step["sql"] = json!(sql[0]);
            }
            if let Some(d) = dup {
                step["duplicate_if"] = json!(d);
            }
            if let Some(db) = db {
                step["db"] = json!(db);
            }
            match branch {
                Some((kind, condition)) => flow(step, kind, condition),
                None => step,
            }
        })
}

/// The database a step names: mostly none (the main one), sometimes the named `side` (which
/// a scenario may not have), `main` itself, or one no scenario has.
fn database() -> impl Strategy<Value = Option<&'static str>> {
    prop_oneof![
        12 => Just(None),
        4 => Just(Some("side")),
        1 => Just(Some("main")),
        1 => Just(Some("nope")),
    ]
}

/// A transaction step on `db`: the built-in name for the main one.
fn transaction(sql: &str, db: Option<&str>) -> Value {
    match db {
        None => json!(sql.to_ascii_lowercase()),
        Some(db) => json!({"name": sql.to_ascii_lowercase(), "sql": sql, "db": db}),
    }
}

/// A block of steps: SQL steps in a transaction, one in autocommit, or a built-in step
/// outside any transaction.
fn block() -> impl Strategy<Value = Vec<Value>> {
    prop_oneof![
        3 => (prop::collection::vec(sql_step(), 1..3), database()).prop_map(|(steps, db)| {
            let mut b = vec![transaction("BEGIN", db)];
            b.extend(steps);
            b.push(transaction("COMMIT", db));
            b
        }),
        2 => sql_step().prop_map(|s| vec![s]),
        1 => prop::sample::select(vec!["external_effect", "produce_output", "begin", "commit"])
            .prop_map(|s| vec![json!(s)]),
        // A call to a named service (`topup` may be declared the effect), or one whose
        // name is a built-in step's (refused).
        1 => prop::sample::select(vec!["topup", "topup", "notify", "commit"])
            .prop_map(|s| vec![json!({"external": s})]),
    ]
}

fn steps() -> impl Strategy<Value = Vec<Value>> {
    (
        prop::collection::vec(block(), 1..4),
        prop::option::of(0..4usize),
        prop::option::weighted(0.25, (0..12usize, 0..12usize, any::<bool>())),
        prop::bool::weighted(0.4),
    )
        .prop_map(|(blocks, ack, jump, load)| {
            let mut all = vec![json!("receive")];
            if load {
                // A result kept first, which later steps' conditions and bindings read.
                all.push(json!({"name": "load", "into": "got",
                    "sql": "SELECT count(*) AS n, max(n) AS top FROM done WHERE id = :event_id"}));
            }
            for (i, b) in blocks.into_iter().enumerate() {
                if ack == Some(i) {
                    all.push(json!("ack"));
                }
                all.extend(b);
            }
            // Names made distinct by position, but for the first of each (so that a repeated
            // name, defined the same or not, is drawn too).
            for (i, step) in all.iter_mut().enumerate() {
                if let Some(name) = step.get("name").and_then(Value::as_str) {
                    if i % 3 != 0 && name != "Bad" && name != "apply_effect" {
                        step["name"] = json!(format!("{name}{i}"));
                    }
                }
            }
            if ack.is_some_and(|a| a >= all.len()) || ack == Some(3) {
                all.push(json!("ack"));
            }
            if let Some((from, to, bounded)) = jump {
                go_back(&mut all, from, to, bounded);
            }
            all
        })
}

/// A `goto` on the SQL step at `from` (modulo the steps) back to the step at `to` (which
/// may come later, or be one a delivery runs once: refused), with a `when` that ends the
/// loop or none (then the pass bound does).
fn go_back(all: &mut [Value], from: usize, to: usize, bounded: bool) {
    let from = from % all.len();
    let target = &all[to % all.len()];
    let target = target
        .get("name")
        .unwrap_or(target)
        .as_str()
        .map(str::to_string);
    if let (Some(step), Some(target)) = (all[from].as_object_mut(), target) {
        step.insert("goto".into(), json!(target));
        if bounded {
            step.insert("when".into(), json!("got.n < 2"));
        }
    }
}

/// An error policy (issue 35): by name, or with retries, compensating steps (SQL steps,
/// sometimes in a transaction, sometimes not loadable) and what ends the delivery.
fn policy() -> impl Strategy<Value = Value> {
    let then = prop_oneof![
        9 => prop::sample::select(vec!["redeliver", "ack", "dead_letter"]),
        1 => Just("skip"),
    ];
    prop_oneof![
        1 => then.clone().prop_map(|t| json!(t)),
        3 => (
            prop::option::of((prop_oneof![9 => 1..4u64, 1 => Just(0)], prop::option::of(0..6u64))),
            prop::collection::vec(sql_step(), 0..3),
            any::<bool>(),
            prop::option::of(then),
        )
            .prop_map(|(retry, steps, wrap, then)| {
                let mut steps: Vec<Value> = steps
                    .into_iter()
                    .enumerate()
                    .map(|(i, mut s)| {
                        s.as_object_mut().unwrap().remove("duplicate_if");
                        s["name"] = json!(format!("undo{i}"));
                        s
                    })
                    .collect();
                if wrap && !steps.is_empty() {
                    steps.insert(0, json!("begin"));
                    steps.push(json!("commit"));
                }
                let mut p = json!({"steps": steps});
                if let Some((times, backoff)) = retry {
                    p["retry"] = json!({"times": times});
                    if let Some(b) = backoff {
                        p["retry"]["backoff_ticks"] = json!(b);
                    }
                }
                if let Some(t) = then {
                    p["then"] = json!(t);
                }
                p
            }),
    ]
}

pub(crate) fn scenario() -> impl Strategy<Value = Value> {
    (
        steps(),
        1..3u64,
        1..3u64,
        any::<bool>(),
        prop::option::of(0..20u64),
        any::<bool>(),
        0..3u64,
        prop::bool::weighted(0.4),
        prop::sample::subsequence(INVARIANTS.to_vec(), 1..3),
        prop::option::weighted(0.4, policy()),
        prop::option::weighted(0.4, (0..20usize, 1..4u32)),
        prop::bool::weighted(0.5),
    )
        .prop_map(
            |(
                steps,
                events,
                consumers,
                payloads,
                crash_at,
                effects_by_n,
                deliveries,
                side,
                invariants,
                on_error,
                fail,
                call_is_effect,
            )| {
                let all = steps;
                let mut s = json!({
                    "seed": events * 7 + consumers,
                    "consumers": consumers,
                    "protocol": {"name": "fuzzed", "steps": all},
                    "store": {"schema": SCHEMA, "setup": ["INSERT INTO kv VALUES ('a', 3)"]},
                    "workload": {"events": events},
                    "check": {
                        "effects_per_event": if effects_by_n {
                            "SELECT count(*) FROM done WHERE id = :event_id AND n = :n"
                        } else {
                            "SELECT count(*) FROM done WHERE id = :event_id"
                        },
                        "invariants": invariants
                    },
                    "limits": {"max_steps": 1000, "max_ticks": 3000}
                });
                if side {
                    s["store"]["databases"] = json!({"side": {"schema": SCHEMA}});
                    let on_side = json!({"sql": "SELECT count(*) >= 0 FROM seen", "db": "side"});
                    s["check"]["invariants"]
                        .as_array_mut()
                        .unwrap()
                        .push(on_side);
                }
                // The calls to `topup` declared the effect, when the protocol calls it
                // (else refused: no step calls it).
                if call_is_effect && s["protocol"].to_string().contains("\"topup\"") {
                    s["check"]["effect"] = json!({"external": "topup"});
                    s["check"]
                        .as_object_mut()
                        .unwrap()
                        .remove("effects_per_event");
                }
                if payloads || effects_by_n || text_mentions_n(&s) {
                    s["workload"]["payloads"] = json!([{"n": 1}, {"n": 2}]);
                }
                if deliveries > 0 {
                    s["broker"] = json!({"max_deliveries": deliveries + 1});
                }
                if let Some(i) = crash_at {
                    let steps = s["protocol"]["steps"].as_array().unwrap();
                    let at = &steps[i as usize % steps.len()];
                    let name = (at.get("name").or(at.get("external")))
                        .unwrap_or(at)
                        .as_str()
                        .unwrap_or("ack")
                        .to_string();
                    s["faults"] = json!({"crash": [{"at": format!("after:{name}"), "event": 0}]});
                }
                if let Some(policy) = on_error {
                    s["protocol"]["on_error"] = policy;
                }
                if let Some((i, times)) = fail {
                    // A step told to fail, for the error policy to handle.
                    let steps = s["protocol"]["steps"].as_array().unwrap();
                    let at = &steps[1 + i % (steps.len() - 1)];
                    let name = (at.get("name").or(at.get("external")))
                        .unwrap_or(at)
                        .as_str()
                        .unwrap_or("ack");
                    let spec = json!({"at": name, "event": 0, "times": times});
                    s["faults"]["fail"] = json!([spec]);
                }
                s
            },
        )
}

/// Whether a statement of `s` binds `:n` (then the payloads usually define it).
fn text_mentions_n(s: &Value) -> bool {
    s["protocol"].to_string().contains(":n")
}

/// What a run ended with, as a verdict sees it.
fn class(r: &RunResult) -> String {
    let v = &r.verdict;
    format!(
        "{:?} {} {} {} {} {:?}",
        v.guarantee, v.lost, v.duplicated, v.all_acked, v.conserved, r.stop
    )
}

/// 80 in `cargo test` (a fraction of a second). Some protocols fail a statement at every
/// delivery until the step limit (a value past its size bound, a recursion past its step
/// budget, a sort past its memory): `.ci/run` draws 2,000 in release, and
/// `sql_steps::a_failing_statement_fails_its_step_and_is_dead_lettered` fills the database
/// on purpose.
fn cases() -> u32 {
    std::env::var("SQL_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(80)
}

#[test]
fn generated_sql_scenarios_load_or_are_refused_run_deterministically_and_prune_soundly() {
    let config =
        crate::support::fixed_proptest(cases(), "proptest-regressions/sql_fuzz.txt", 0x5eed_0015);
    let loaded = std::cell::Cell::new(0u32);
    let explored = std::cell::Cell::new(0u32);
    let two_databases = std::cell::Cell::new(0u32);
    let with_policy = std::cell::Cell::new(0u32);
    let with_flow = std::cell::Cell::new(0u32);
    let call_effect = std::cell::Cell::new(0u32);
    TestRunner::new(config)
        .run(&scenario(), |spec| {
            let text = spec.to_string();
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                let s = match Scenario::from_json(&text, "fuzzed.json") {
                    Ok(s) => s,
                    Err(e) => {
                        assert!(e.field.is_some() || e.location.is_some(), "{e:?}");
                        return;
                    }
                };
                loaded.set(loaded.get() + 1);
                if s.store
                    .custom
                    .as_ref()
                    .is_some_and(|c| !c.databases.is_empty())
                {
                    two_databases.set(two_databases.get() + 1);
                }
                if !s.protocol.on_error.is_default() {
                    with_policy.set(with_policy.get() + 1);
                }
                if s.protocol.sql.iter().any(|d| d.has_flow()) {
                    with_flow.set(with_flow.get() + 1);
                }
                if s.store
                    .custom
                    .as_ref()
                    .is_some_and(|c| c.effect_call.is_some())
                {
                    call_effect.set(call_effect.get() + 1);
                }
                let (a, b) = (run(&s), run(&s));
                assert_eq!(a.trace.hash_hex(), b.trace.hash_hex(), "not deterministic");
                if s.consumers == 1 && s.workload.events == 1 && a.steps < 60 {
                    explored.set(explored.get() + 1);
                    let options = |prune| ExploreOptions {
                        depth: 2,
                        prune,
                        ..ExploreOptions::default()
                    };
                    let classes = |prune| -> BTreeSet<String> {
                        explore(&s, options(prune))
                            .runs
                            .iter()
                            .map(|r| class(&r.result))
                            .collect()
                    };
                    assert_eq!(classes(true), classes(false), "pruning hid an outcome");
                }
            }));
            prop_assert!(outcome.is_ok(), "panicked on {}", text);
            Ok(())
        })
        .unwrap();
    // The generator reaches both sides: loaded scenarios, some small enough to explore.
    assert!(loaded.get() > cases() / 8, "{} loaded", loaded.get());
    assert!(
        explored.get() > 0,
        "none explored of {} loaded",
        loaded.get()
    );
    assert!(two_databases.get() > 0, "none with a named database loaded");
    eprintln!(
        "POLICY {} FLOW {} CALL EFFECT {} LOADED {} EXPLORED {}",
        with_policy.get(),
        with_flow.get(),
        call_effect.get(),
        loaded.get(),
        explored.get()
    );
    assert!(with_policy.get() > 0, "none with an error policy loaded");
    assert!(
        with_flow.get() > 0,
        "none with branches or named results loaded"
    );
    assert!(
        call_effect.get() > 0,
        "none whose effect is an external call loaded"
    );
}

/// How many generated scenarios go through every command of the binary and the server: 6
/// in `cargo test`, more in `.ci/run` (`SQL_FUZZ_COMMAND_CASES`).
fn command_cases() -> usize {
    std::env::var("SQL_FUZZ_COMMAND_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(6)
}

/// Generated SQL scenarios (table-valued and JSON functions, window functions, CTEs,
/// triggers and schema changes among their statements and invariants) through every command
/// and the playground's server: each ends with an exit code of its own (0, 1 or 2), never a
/// signal, and the server answers each (200, or 400 for a scenario it refuses), never with
/// an error of its own.
#[test]
fn generated_sql_scenarios_end_cleanly_in_every_command_and_in_serve() {
    let mut runner = TestRunner::new(crate::support::fixed_proptest(
        1,
        "proptest-regressions/sql_fuzz.txt",
        0x5eed_0032,
    ));
    let strategy = scenario();
    let dir = tempfile::tempdir().unwrap();
    let server = crate::serve::start();
    let host = format!("127.0.0.1:{}", server.port);
    let mut tried = 0;
    while tried < command_cases() {
        let spec = strategy.new_tree(&mut runner).unwrap().current();
        let text = spec.to_string();
        let Ok(s) = Scenario::from_json(&text, "fuzzed.json") else {
            continue;
        };
        if run(&s).steps > 400 {
            continue; // A livelock to the step limit: long in every command, here too.
        }
        tried += 1;
        let file = crate::support::write(dir.path(), "fuzzed.json", &text);
        let page = dir.path().join("fuzzed.html").display().to_string();
        let commands: [&[&str]; 6] = [
            &["run", &file],
            &["explain", &file, "--lang", "es"],
            &["explore", &file, "--depth", "1"],
            &["run", &file, "--html", &page],
            &["crosscheck", &file],
            &["run", &file, "--diagram", "mermaid"],
        ];
        for args in commands {
            let out = crate::support::bin(args);
            assert!(
                matches!(out.status.code(), Some(0..=2)),
                "{args:?} ended with {:?}: {}\n{text}",
                out.status,
                crate::support::stderr(&out)
            );
        }
        for path in ["/api/run", "/api/explore?depth=1"] {
            let request = crate::serve::post(path, &host, text.as_bytes());
            let (status, answer) = crate::serve::send(server.port, &request);
            assert!(
                matches!(status, Some(200 | 400)),
                "{path}: {status:?} {}\n{text}",
                answer.chars().take(300).collect::<String>()
            );
        }
    }
}
