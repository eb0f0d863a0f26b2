//! Protocols written in SQL on the scenario's own schema (issue 15): every bad input exits
//! 2 naming its field, a failing statement is a failed step (never a panic, never a hang),
//! and pruning agrees with the brute-force exploration on every SQL scenario.

use crate::support::{bin, json, refused, root, spec, stderr};
use serde_json::{json, Value};

const RESERVE: &str = "scenarios/sql-reserve-stock-inbox.json";

fn reserve() -> Value {
    spec(RESERVE)
}

#[test]
fn every_bad_sql_input_is_refused_naming_its_field() {
    let step = |s: Value| move |d: &mut Value| d["protocol"]["steps"][3] = s.clone();
    type Mutation = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(Mutation, &str, &str)> = vec![
        (
            Box::new(step(
                json!({"name": "reserve", "sql": "UPDATE stok SET qty = 1"}),
            )),
            "protocol.steps[3].sql",
            "no such table: stok",
        ),
        (
            Box::new(step(
                json!({"name": "reserve", "sql": "UPDATE stock SET qty = :amount"}),
            )),
            "protocol.steps[3].sql",
            "unknown parameter `:amount`",
        ),
        (
            Box::new(step(
                json!({"name": "reserve", "sql": "SELECT load_extension('x')"}),
            )),
            "protocol.steps[3].sql",
            "load_extension() is not allowed",
        ),
        (
            Box::new(step(
                json!({"name": "reserve", "sql": "VACUUM INTO '/tmp/delivery-sim-vacuum.db'"}),
            )),
            "protocol.steps[3].sql",
            "VACUUM is not allowed",
        ),
        (
            Box::new(step(json!({"name": "reserve", "sql": "VACUUM"}))),
            "protocol.steps[3].sql",
            "VACUUM is not allowed",
        ),
        (
            Box::new(step(
                json!({"name": "reserve", "sql": "ATTACH 'x.db' AS x"}),
            )),
            "protocol.steps[3].sql",
            "ATTACH, DETACH and VACUUM are not allowed",
        ),
        (
            Box::new(step(
                json!({"name": "reserve", "sql": "PRAGMA writable_schema = ON"}),
            )),
            "protocol.steps[3].sql",
            "PRAGMA writable_schema is not allowed",
        ),
        (
            Box::new(step(json!({"name": "reserve", "sql": "SAVEPOINT s"}))),
            "protocol.steps[3].sql",
            "transaction statements",
        ),
        (
            Box::new(step(
                json!({"name": "reserve", "sql": "PRAGMA foreign_keys = ON"}),
            )),
            "protocol.steps[3].sql",
            "PRAGMA",
        ),
        (
            Box::new(step(
                json!({"name": "reserve", "sql": "ATTACH 'x.db' AS x"}),
            )),
            "protocol.steps[3].sql",
            "ATTACH",
        ),
        (
            Box::new(step(
                json!({"name": "reserve", "sql": "UPDATE stock SET qty = 1; DELETE FROM stock"}),
            )),
            "protocol.steps[3].sql",
            "more than one statement",
        ),
        (
            Box::new(step(json!({"name": "reserve", "sql": "-- nothing"}))),
            "protocol.steps[3].sql",
            "no statement",
        ),
        (
            Box::new(step(
                json!({"name": "reserve", "sql": "UPDATE stock SET qty = ?"}),
            )),
            "protocol.steps[3].sql",
            "positional",
        ),
        (
            Box::new(step(
                json!({"name": "apply_effect", "sql": "UPDATE stock SET qty = 1"}),
            )),
            "protocol.steps[3].name",
            "built-in step",
        ),
        (
            Box::new(step(
                json!({"name": "Reserve", "sql": "UPDATE stock SET qty = 1"}),
            )),
            "protocol.steps[3].name",
            "cannot name a step",
        ),
        (
            Box::new(step(json!({"name": "start", "sql": "BEGIN"}))),
            "protocol.steps[3].sql",
            "built-in steps `begin` and `commit`",
        ),
        (
            Box::new(step(json!({"name": "claim", "sql": "SELECT 1"}))),
            "protocol.steps[3]",
            "defined differently",
        ),
        (
            Box::new(step(json!("apply_effect"))),
            "protocol.steps[3]",
            "writes the built-in ledger",
        ),
        (
            Box::new(|d: &mut Value| d["protocol"]["steps"][2]["duplicate_if"] = "row".into()),
            "protocol.steps[2].duplicate_if",
            "returns no rows",
        ),
        (
            Box::new(|d: &mut Value| {
                d["protocol"]["steps"][3]["duplicate_if"] = "no_change".into()
            }),
            "protocol.steps[3].duplicate_if",
            "several",
        ),
        (
            Box::new(|d: &mut Value| d["protocol"]["steps"][2]["db"] = "dedup".into()),
            "protocol.steps[2].db",
            "no database is called `dedup`: the scenario has no `store.databases`",
        ),
        (
            Box::new(|d: &mut Value| d["store"]["databases"] = json!({"dedup": {}})),
            "store.databases.dedup",
            "missing field `schema`",
        ),
        (
            Box::new(|d: &mut Value| d["store"]["schema"][0] = "CREATE TABL x (a)".into()),
            "store.schema[0]",
            "syntax error",
        ),
        (
            Box::new(|d: &mut Value| {
                d["store"]["schema"][1] =
                    "CREATE TABLE stock (sku, qty, n DEFAULT (total_changes()))".into()
            }),
            "store.schema[1]",
            "the default of stock.n: total_changes() reads the connection's state",
        ),
        (
            Box::new(|d: &mut Value| {
                d["store"]["setup"][0] = "INSERT INTO stock VALUES ('a')".into()
            }),
            "store.setup[0]",
            "1 values",
        ),
        (
            Box::new(|d: &mut Value| {
                d["store"].as_object_mut().unwrap().remove("schema");
            }),
            "protocol.steps[2]",
            "store.schema",
        ),
        (
            Box::new(|d: &mut Value| {
                d.as_object_mut().unwrap().remove("check");
            }),
            "check.effects_per_event",
            "count",
        ),
        (
            Box::new(|d: &mut Value| d["check"]["effects_per_event"] = "SELECT 1, 2".into()),
            "check.effects_per_event",
            "2 columns",
        ),
        (
            Box::new(|d: &mut Value| {
                d["check"]["effects_per_event"] = "SELECT count(*) FROM reservation".into()
            }),
            "check.effects_per_event",
            "no parameter",
        ),
        (
            Box::new(|d: &mut Value| {
                d["check"]["effects_per_event"] = "SELECT 1 + 0 * length(:event_id)".into()
            }),
            "check.effects_per_event",
            "before any delivery",
        ),
        (
            Box::new(|d: &mut Value| d["check"]["invariants"][0] = "SELECT :event_id = 1".into()),
            "check.invariants[0]",
            "unknown parameter",
        ),
        (
            Box::new(|d: &mut Value| d["check"]["invariants"][0] = "DELETE FROM stock".into()),
            "check.invariants[0]",
            "writes",
        ),
        (
            Box::new(|d: &mut Value| d["workload"]["payloads"][0]["qty"] = json!(2.5)),
            "workload.payloads[0].qty",
            "integer or a string",
        ),
        (
            Box::new(|d: &mut Value| d["workload"]["payloads"][0]["now"] = json!(1)),
            "workload.payloads[0].now",
            "cannot be a parameter",
        ),
        (
            Box::new(|d: &mut Value| d["workload"]["accounts"] = json!(3)),
            "workload.accounts",
            "built-in ledger",
        ),
        (
            Box::new(|d: &mut Value| d["store"]["inbox_unique"] = json!(false)),
            "store.inbox_unique",
            "built-in ledger",
        ),
        (
            Box::new(|d: &mut Value| d["consumer"] = json!({"on_commit_timeout": "lookup"})),
            "consumer.on_commit_timeout",
            "built-in ledger",
        ),
        (
            Box::new(step(
                json!({"name": "reserve", "sql": "INSERT INTO reservation VALUES (:event_id, 'a', last_insert_rowid())"}),
            )),
            "protocol.steps[3].sql",
            "connection's state",
        ),
        (
            Box::new(step(
                json!({"name": "reserve", "sql": "CREATE TEMP TABLE t (a)"}),
            )),
            "protocol.steps[3].sql",
            "temporary",
        ),
        // A default and a trigger run where the statement does not say so; SQLite reports
        // what they call all the same.
        (
            Box::new(|d: &mut Value| {
                d["store"]["schema"][2] =
                    "CREATE TABLE reservation (event_id, sku, qty, tag DEFAULT (changes()))".into()
            }),
            "store.schema[2]",
            "the default of reservation.tag: changes()",
        ),
        (
            Box::new(|d: &mut Value| {
                let schema = d["store"]["schema"].as_array_mut().unwrap();
                schema.push(
                    "CREATE TRIGGER t AFTER INSERT ON reservation \
                     BEGIN UPDATE stock SET qty = qty + last_insert_rowid() % 2; END"
                        .into(),
                );
            }),
            "protocol.steps[3].sql[1]",
            "last_insert_rowid() reads the connection's state",
        ),
        (
            Box::new(|d: &mut Value| d["faults"]["crash"][0]["at"] = "after:clam".into()),
            "faults.crash[0].at",
            "this protocol's steps: receive → begin → claim",
        ),
    ];
    for (i, (mutate, field, fragment)) in cases.iter().enumerate() {
        let mut spec = reserve();
        mutate(&mut spec);
        let (got_field, message) = refused(&spec);
        assert_eq!(got_field, *field, "case {i}: {message}");
        assert!(
            message.contains(fragment),
            "case {i}: `{fragment}` not in: {message}"
        );
    }
    // Without a schema of its own, the scenario's SQL-only sections are refused too.
    let mut ledger = json!({"protocol": "inbox", "check": {"effects_per_event": "SELECT 0"}});
    assert_eq!(refused(&ledger).0, "check");
    ledger = json!({"protocol": "inbox", "workload": {"payloads": [{"a": 1}]}});
    assert_eq!(refused(&ledger).0, "workload.payloads");
}

#[test]
fn a_bad_sql_scenario_exits_2_and_explain_tells_a_good_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = reserve();
    spec["protocol"]["steps"][3] = json!({"name": "reserve", "sql": "UPDATE stok SET qty = 1"});
    let bad = crate::support::write(dir.path(), "bad.json", &spec.to_string());
    let out = bin(&["run", &bad]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("protocol.steps[3].sql"),
        "{}",
        stderr(&out)
    );
    // explain tells a SQL scenario with its statements, its tables and its effects.
    let out = bin(&["explain", RESERVE, "--lang", "es"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let told = crate::support::stdout(&out);
    for said in [
        "ejecuta claim para e0",
        "tablas: processed_event",
        "efectos: e0",
        "ya se procesó",
    ] {
        assert!(told.contains(said), "`{said}` not in:\n{told}");
    }
}

/// A statement that fails at run time is a failed step: rolled back, not acked, redelivered,
/// dead-lettered after `max_deliveries`; so is one past the statement budget or the value
/// size limit.
#[test]
fn a_failing_statement_fails_its_step_and_is_dead_lettered() {
    let cases = [
        // Stock for one order only: the CHECK constraint refuses the others.
        (json!(["UPDATE stock SET qty = qty - 60 WHERE sku = 'sku_1'", "INSERT INTO reservation VALUES (:event_id, :sku, :qty)"]), "CHECK constraint failed"),
        (json!("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"), "virtual-machine steps"),
        (json!("INSERT INTO reservation VALUES (:event_id, zeroblob(900000000), 1)"), "too big"),
        // A write interrupted by the budget, and one that fills the database: SQLite rolls
        // the whole transaction back itself, and the consumer's ROLLBACK finds nothing.
        (
            json!("INSERT INTO reservation SELECT :event_id, 'x', x FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c)"),
            "rolled the whole transaction back",
        ),
        (
            json!("INSERT INTO reservation SELECT :event_id, zeroblob(900000), x FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 40) SELECT x FROM c)"),
            "database or disk is full",
        ),
    ];
    for (sql, message) in cases {
        let mut spec = reserve();
        spec["protocol"]["steps"][3] = json!({"name": "reserve", "sql": sql});
        spec["broker"] = json!({"max_deliveries": 2});
        spec.as_object_mut().unwrap().remove("faults");
        spec.as_object_mut().unwrap().remove("expect");
        let dir = tempfile::tempdir().unwrap();
        let file = crate::support::write(dir.path(), "f.json", &spec.to_string());
        let trace = crate::support::stdout(&bin(&["run", &file, "--trace"]));
        assert!(
            trace.contains(message),
            "{message} not in the trace:\n{trace}"
        );
        // Explored too: every crash point, fingerprints taken after SQLite's own rollback.
        let explored = bin(&["explore", &file, "--json"]);
        let code = explored.status.code();
        assert!(
            matches!(code, Some(0 | 1)),
            "{message}: {}",
            stderr(&explored)
        );
        let explored = json(&explored);
        assert_eq!(explored["summary"]["guarantee"], "at-most-once");
        // The first run explored is the crash-free run, as `run` makes it.
        let v = &explored["runs"][0];
        assert!(v["crash_points"].as_array().unwrap().is_empty());
        assert!(v["dead_lettered"].as_u64().unwrap() >= 2, "{message}: {v}");
        assert_eq!(v["duplicated"], 0);
    }
}

/// The soundness check of pruning on SQL protocols, against brute force: the unpruned
/// exploration (every schedule run) finds no outcome the pruned one misses, and every
/// schedule both ran ends the same way, at depths 1 and 2.
#[test]
fn pruned_exploration_of_sql_scenarios_agrees_with_brute_force() {
    let class = |r: &Value| {
        let keys = [
            "guarantee",
            "lost",
            "duplicated",
            "all_acked",
            "conserved",
            "stop",
        ];
        keys.map(|k| r[k].to_string()).join(" ")
    };
    for file in [
        RESERVE,
        "scenarios/sql-mark-own-transaction-loses.json",
        "scenarios/sql-no-dedup-duplicates.json",
        "scenarios/sql-on-conflict-do-nothing.json",
    ] {
        for depth in ["1", "2"] {
            let pruned = json(&bin(&["explore", file, "--depth", depth, "--json"]));
            let whole = json(&bin(&[
                "explore",
                file,
                "--depth",
                depth,
                "--no-prune",
                "--json",
            ]));
            let runs = |v: &Value| v["runs"].as_array().unwrap().clone();
            let real: std::collections::BTreeMap<String, String> = runs(&whole)
                .iter()
                .map(|r| (r["crash_points"].to_string(), class(r)))
                .collect();
            for r in runs(&pruned) {
                let schedule = r["crash_points"].to_string();
                assert_eq!(
                    real.get(&schedule),
                    Some(&class(&r)),
                    "{file} d{depth}: {schedule}"
                );
            }
            let classes = |v: &Value| -> std::collections::BTreeSet<String> {
                runs(v).iter().map(class).collect()
            };
            assert_eq!(classes(&pruned), classes(&whole), "{file} depth {depth}");
            assert!(runs(&pruned).len() < runs(&whole).len() || depth == "1");
        }
    }
}

#[test]
fn a_sql_scenario_replays_byte_identically_from_its_token() {
    let out = bin(&[
        "sweep",
        "scenarios/sql-mark-own-transaction-loses.json",
        "--seeds",
        "0..6",
    ]);
    let text = crate::support::stdout(&out);
    let token = text
        .split_whitespace()
        .find(|w| w.starts_with("ds1:"))
        .expect("a finding with a token");
    let a = json(&bin(&["replay", token, "--json"]));
    let b = json(&bin(&["replay", token, "--json"]));
    assert_eq!(a["trace_hash"], b["trace_hash"]);
    assert_eq!(a["protocol_steps"][2], "claim");
}

#[test]
fn the_readme_shows_a_real_sql_scenario_and_its_real_run() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let file = std::fs::read_to_string(root().join(RESERVE)).unwrap();
    assert!(
        readme.contains(&format!("```json\n{file}```")),
        "README's SQL scenario differs from {RESERVE}"
    );
    let lost = "scenarios/sql-mark-own-transaction-loses.json";
    let run = crate::support::stdout(&bin(&["run", lost]));
    assert!(
        readme.contains(&format!("$ delivery-sim run {lost}\n{run}```")),
        "README's SQL run output is stale: paste `delivery-sim run {lost}`"
    );
}

/// A `WITHOUT ROWID` table has no rowid to read it in order by: exploration's fingerprint
/// reads it in the order of its columns, and prunes as soundly.
#[test]
fn a_without_rowid_table_is_fingerprinted_and_explored() {
    let mut spec = reserve();
    spec["store"]["schema"][0] = json!(
        "CREATE TABLE processed_event (event_id TEXT PRIMARY KEY, processed_at INTEGER NOT NULL) WITHOUT ROWID"
    );
    spec.as_object_mut().unwrap().remove("expect");
    let dir = tempfile::tempdir().unwrap();
    let file = crate::support::write(dir.path(), "wr.json", &spec.to_string());
    for prune in [None, Some("--no-prune")] {
        let mut args = vec!["explore", file.as_str(), "--depth", "2", "--json"];
        args.extend(prune);
        let out = bin(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(json(&out)["summary"]["guarantee"], "exactly-once");
    }
}
