//! Named databases (`store.databases`, issue 15): a dedup memory in a database of its own
//! cannot commit together with the effect. The two sides of that dual-write window are
//! found (one loses, one duplicates) with the points named; bad input exits 2 naming its
//! field; such runs are never pruned (explore equals brute force); the shrunk scenario
//! written back replays; a real process agrees; and the narration says what each commit
//! made durable, on which database.

use crate::support::{bin, json, refused, root, spec, stderr, stdout, write};
use delivery_sim::scenario::Scenario;
use serde_json::{json, Value};

const BEFORE: &str = "scenarios/sql-dual-write-dedup-before-effect.json";
const AFTER: &str = "scenarios/sql-dual-write-dedup-after-effect.json";
const BOTH: &str = "scenarios/sql-dual-write-both-transactions-open.json";

#[test]
fn every_bad_database_input_is_refused_naming_its_field() {
    type Mutation = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(Mutation, &str, &str)> = vec![
        (
            Box::new(|d| d["protocol"]["steps"][2]["db"] = json!("dedupe")),
            "protocol.steps[2].db",
            "no database is called `dedupe`; the scenario's databases are main, dedup",
        ),
        (
            Box::new(|d| {
                d["protocol"]["steps"][2]["db"].take();
                d["protocol"]["steps"][2]
                    .as_object_mut()
                    .unwrap()
                    .remove("db");
            }),
            "protocol.steps[2].sql",
            "no such table: seen",
        ),
        (
            Box::new(|d| {
                d["store"]["databases"]["Dedup"] = d["store"]["databases"]["dedup"].clone()
            }),
            "store.databases.Dedup",
            "cannot name a database",
        ),
        (
            Box::new(|d| {
                d["store"]["databases"]["main"] = d["store"]["databases"]["dedup"].clone()
            }),
            "store.databases.main",
            "not `main` or `temp`",
        ),
        (
            Box::new(|d| {
                d["store"]["databases"]["dedup"]["schema"][0] = json!("CREATE TABLE seen (")
            }),
            "store.databases.dedup.schema[0]",
            "SQLite says",
        ),
        (
            Box::new(|d| d["store"]["databases"]["dedup"]["schema"] = json!([])),
            "store.databases.dedup.schema",
            "needs its CREATE TABLE statements",
        ),
        (
            Box::new(|d| d["check"]["invariants"][1]["db"] = json!("other")),
            "check.invariants[1].db",
            "no database is called `other`",
        ),
        (
            Box::new(|d| d["check"]["invariants"][1]["sql"] = json!("SELECT count(*) FROM stock")),
            "check.invariants[1].sql",
            "no such table: stock",
        ),
        (
            // The main `commit` while only the dedup transaction is open.
            Box::new(|d| d["protocol"]["steps"][3] = json!("commit")),
            "protocol.steps[3]",
            "closes no transaction on its database",
        ),
        (
            Box::new(|d| {
                d["store"].as_object_mut().unwrap().remove("schema");
            }),
            "protocol.steps[2]",
            "give `store.schema`",
        ),
        (
            // A built-in protocol on the ledger: no named database to give it.
            Box::new(|d| {
                let keep = d["store"]["databases"].take();
                *d = json!({"name": "x", "protocol": "inbox", "store": {"databases": keep}});
            }),
            "store.databases",
            "belongs to a scenario with its own schema",
        ),
        (
            Box::new(|d| {
                for n in ["a", "b", "c", "d"] {
                    d["store"]["databases"][n] = d["store"]["databases"]["dedup"].clone();
                }
            }),
            "store.databases",
            "at most 4 named databases",
        ),
    ];
    for (i, (mutate, field, needle)) in cases.iter().enumerate() {
        let mut d = spec(BEFORE);
        mutate(&mut d);
        let (f, message) = refused(&d);
        assert_eq!(f, *field, "case {i}: {message}");
        assert!(message.contains(needle), "case {i}: {message}");
    }
    // On the command line: exit 2, the file, the field and the problem in one paragraph.
    let dir = tempfile::tempdir().unwrap();
    let mut d = spec(BEFORE);
    d["protocol"]["steps"][2]["db"] = json!("dedupe");
    let file = write(dir.path(), "bad.json", &d.to_string());
    let out = bin(&["explore", &file]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("bad.json") && err.contains("protocol.steps[2].db"),
        "{err}"
    );
}

/// The failing runs of `file` at depth 1, as `point → outcome` lines.
fn failing_points(file: &str) -> Vec<String> {
    let x = json(&bin(&["explore", file, "--json"]));
    x["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["guarantee"] != "exactly-once")
        .map(|r| {
            format!(
                "{} {}",
                r["crash_points"][0].as_str().unwrap(),
                r["guarantee"]
            )
        })
        .collect()
}

#[test]
fn the_dual_write_window_loses_on_one_side_and_duplicates_on_the_other() {
    let cases: [(&str, &[&str]); 3] = [
        (
            BEFORE,
            &[
                "after:commit",
                "before:begin#2",
                "after:begin#2",
                "before:reserve",
                "after:reserve",
                "before:commit#2",
            ],
        ),
        (AFTER, &["after:commit", "before:remember"]),
        // Both transactions open does not make them one: only between the two commits.
        (BOTH, &["after:commit", "before:commit#2"]),
    ];
    for (file, points) in cases {
        let guarantee = if file == AFTER {
            "at-least-once"
        } else {
            "at-most-once"
        };
        let expected: Vec<String> = points
            .iter()
            .map(|p| format!("{p} e1 d1 \"{guarantee}\""))
            .collect();
        let e1: Vec<String> = failing_points(file)
            .into_iter()
            .filter(|p| p.contains(" e1 "))
            .collect();
        assert_eq!(e1, expected, "{file}");
    }
}

/// No state digest covers a named database, so no schedule stands in for another: the
/// exploration is the brute force one, run for run.
#[test]
fn runs_with_named_databases_are_never_pruned() {
    let dir = tempfile::tempdir().unwrap();
    let mut d = spec(BOTH);
    d["workload"]["events"] = json!(2);
    d.as_object_mut().unwrap().remove("expect");
    let file = write(dir.path(), "two.json", &d.to_string());
    let pruned = json(&bin(&["explore", &file, "--depth", "2", "--json"]));
    let whole = json(&bin(&[
        "explore",
        &file,
        "--depth",
        "2",
        "--no-prune",
        "--json",
    ]));
    assert_eq!(pruned["summary"]["equivalent_runs"], 0);
    assert_eq!(pruned["summary"]["pruned_schedules"], 0);
    let runs = |v: &Value| -> Vec<(String, String)> {
        let runs = v["runs"].as_array().unwrap();
        let key = |r: &Value| (r["crash_points"].to_string(), r["trace_hash"].to_string());
        runs.iter().map(key).collect()
    };
    assert_eq!(runs(&pruned), runs(&whole));
    assert!(runs(&whole).len() > 100, "{}", runs(&whole).len());
}

/// A shrunk counterexample is written back as a scenario, named databases and `db`s
/// included, and replays to the same trace.
#[test]
fn a_written_back_scenario_keeps_its_databases_and_replays() {
    let s = Scenario::from_file(&root().join(BOTH)).unwrap();
    let text = s.to_json();
    let again = Scenario::from_json(&text, "again.json").expect("written back, read again");
    assert_eq!(again.store, s.store);
    assert_eq!(again.protocol, s.protocol);
    let (a, b) = (delivery_sim::run(&s), delivery_sim::run(&again));
    assert_eq!(a.trace.hash_hex(), b.trace.hash_hex());
}

#[test]
fn a_real_process_agrees_and_the_wrong_crash_model_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let mut d = spec(BOTH);
    d["workload"]["events"] = json!(1);
    d["faults"]["crash"][0]["event"] = json!(0);
    d.as_object_mut().unwrap().remove("expect");
    let file = write(dir.path(), "one.json", &d.to_string());
    let out = bin(&["crosscheck", &file, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let wrong = bin(&[
        "crosscheck",
        &file,
        "--json",
        "--wrong-model",
        "keep-uncommitted",
    ]);
    assert_eq!(wrong.status.code(), Some(1), "{}", stdout(&wrong));
}

#[test]
fn the_narration_says_which_database_a_commit_made_durable() {
    let out = bin(&["explain", BOTH]);
    let text = stdout(&out)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        text.contains("opens a transaction on database dedup for e1 (BEGIN)"),
        "{text}"
    );
    assert!(
        text.contains(
            "commits on database dedup (COMMIT). Durable from now on, in dedup only: +1 row \
             in dedup.seen. Nothing in another database"
        ),
        "{text}"
    );
    let es = stdout(&bin(&["explain", BOTH, "--lang", "es"]));
    let es = es.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(es.contains("hace COMMIT en la base dedup"), "{es}");
}

#[test]
fn the_readme_shows_the_real_dual_write_run() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let run = stdout(&bin(&["run", AFTER]));
    assert!(
        readme.contains(&format!("$ delivery-sim run {AFTER}\n{run}```")),
        "README's dual-write run output is stale: paste `delivery-sim run {AFTER}`"
    );
}

/// Watches every entry, and checks what each snapshot says of the open transactions.
struct Watching {
    told: usize,
}

impl delivery_sim::world::Observer for Watching {
    fn observe(
        &mut self,
        _: &delivery_sim::sim::TraceEntry,
        after: delivery_sim::world::Snapshot,
    ) -> bool {
        self.told += 1;
        for t in &after.open {
            assert!(
                !t.databases.is_empty(),
                "an open transaction is open somewhere"
            );
        }
        true
    }
}

/// Two consumers share each database through files, where a read inside a transaction
/// could take a snapshot and change what SQLite answers later: narration must not.
#[test]
fn narrating_two_consumers_on_two_databases_never_changes_the_run() {
    // And BOTH with the reservation before the remember: the main transaction has
    // written while the dedup one is open and has not.
    for (file, swap) in [(BEFORE, false), (AFTER, false), (BOTH, false), (BOTH, true)] {
        for lease_ticks in [6, 50] {
            let mut d = spec(file);
            if swap {
                d["protocol"]["steps"].as_array_mut().unwrap().swap(3, 4);
            }
            d["consumers"] = json!(2);
            d["broker"] = json!({"lease_ticks": lease_ticks});
            d["limits"] = json!({"max_steps": 3000});
            d.as_object_mut().unwrap().remove("expect");
            let s = Scenario::from_json(&d.to_string(), "two.json").unwrap();
            let plain = delivery_sim::run(&s);
            let mut watch = Watching { told: 0 };
            let options = delivery_sim::RunOptions::default();
            let told = delivery_sim::world::run_observed(&s, options, &[], &mut watch);
            assert_eq!(
                plain.trace.hash_hex(),
                told.trace.hash_hex(),
                "{file} {lease_ticks}"
            );
            assert_eq!(watch.told, plain.trace.len(), "{file} {lease_ticks}");
        }
    }
}
