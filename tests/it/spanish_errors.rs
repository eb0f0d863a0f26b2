//! Input errors speak the reader's language: every refusal the checker makes of a
//! mutated scenario file reads as Spanish under `--lang es` (no English sentence left
//! outside the names and texts it quotes), and says the same thing as the English with
//! the same names and numbers.

use super::support::*;
use delivery_sim::report::lang::{input, Lang};
use delivery_sim::scenario::Scenario;
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// Words that only English sentences have (with the spaces around them): one of them
/// outside a quoted name or text means a sentence was left in English.
const ENGLISH: [&str; 16] = [
    " the ", " is ", " are ", " must ", " allowed", " not ", " has ", " with ", " only ",
    " which ", " would ", " cannot ", " should ", " does ", " there ", " of the ",
];

/// `text` without what it quotes: `code`, «foreign words», "JSON", and `{…}` snippets.
fn unquoted(text: &str) -> String {
    let mut out = String::new();
    let mut closing: Option<char> = None;
    for c in text.chars() {
        match closing {
            Some(end) if c == end => closing = None,
            Some(_) => {}
            None => match c {
                '`' => closing = Some('`'),
                '«' => closing = Some('»'),
                '"' => closing = Some('"'),
                '{' => closing = Some('}'),
                _ => out.push(c),
            },
        }
    }
    out
}

/// The leaves of `v` with their paths, and the objects themselves.
fn paths(v: &Value, at: Vec<Value>, out: &mut Vec<Vec<Value>>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            paths(x, [at.clone(), vec![json!(k)]].concat(), out);
        }),
        Value::Array(a) => a.iter().take(2).enumerate().for_each(|(i, x)| {
            paths(x, [at.clone(), vec![json!(i)]].concat(), out);
        }),
        _ => {}
    }
}

fn set(doc: &Value, path: &[Value], to: Value) -> Value {
    let mut d = doc.clone();
    let mut cur = &mut d;
    for k in path {
        cur = match k {
            Value::String(s) => &mut cur[s.as_str()],
            _ => &mut cur[k.as_u64().unwrap() as usize],
        };
    }
    *cur = to;
    d
}

/// Every scenario file on SQLite, each leaf and object replaced by values of other kinds
/// and bounds: the refusals, in both languages.
fn refusals() -> Vec<(String, String)> {
    let bad = [
        json!(-1),
        json!(0),
        json!(99_999_999_999u64),
        json!("x"),
        json!([]),
        json!({"zz": 1}),
        json!(null),
        json!(true),
        json!("after:nope"),
        json!([0, 0]),
    ];
    let mut out = Vec::new();
    for file in scenario_files() {
        let text = std::fs::read_to_string(root().join(&file)).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        if doc["store"]["engine"] == "postgres" {
            continue;
        }
        let mut all = Vec::new();
        paths(&doc, Vec::new(), &mut all);
        // Three of the values per place, a different three at each: every value is tried
        // everywhere across the files, at a third of the cost.
        for (i, path) in all.iter().enumerate().filter(|(_, p)| !p.is_empty()) {
            for b in bad.iter().cycle().skip(i % bad.len()).take(3) {
                let mutated = set(&doc, path, b.clone()).to_string();
                if let Err(e) = Scenario::from_json(&mutated, "m.json") {
                    out.push((
                        input::scenario_error(&e, Lang::En),
                        input::scenario_error(&e, Lang::Es),
                    ));
                }
            }
        }
    }
    out
}

#[test]
fn every_refusal_of_a_mutated_scenario_reads_as_spanish() {
    let refusals = refusals();
    let distinct: BTreeSet<&String> = refusals.iter().map(|(en, _)| en).collect();
    assert!(
        distinct.len() > 300,
        "only {} distinct refusals",
        distinct.len()
    );
    let mut english_left = BTreeSet::new();
    for (en, es) in &refusals {
        assert_ne!(en, es);
        assert!(es.starts_with("escenario no válido m.json"), "{es}");
        let plain = unquoted(es);
        if ENGLISH.iter().any(|w| plain.contains(w)) {
            english_left.insert(es.clone());
        }
    }
    assert!(
        english_left.is_empty(),
        "{} Spanish refusals still have English in them, e.g.:\n{}",
        english_left.len(),
        english_left
            .iter()
            .take(15)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_command_line_prints_a_bad_file_and_a_bad_flag_in_spanish() {
    let o = bin(&["run", "tests/bad/impossible-value.json", "--lang", "es"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.starts_with("error: escenario no válido tests/bad/impossible-value.json"),
        "{err}"
    );
    assert!(!unquoted(&err).contains(" is "), "{err}");
    let o = bin(&[
        "explore",
        "tests/bad/impossible-value.json",
        "--lang",
        "es",
        "--bogus",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("error: argumento inesperado '--bogus'"),
        "{}",
        stderr(&o)
    );
    // English stays clap's own, byte for byte.
    let o = bin(&["explore", "tests/bad/impossible-value.json", "--bogus"]);
    assert!(stderr(&o).starts_with("error: unexpected argument '--bogus' found"));
}

/// Statements the load-time check refuses, one of each kind of refusal on SQLite: where
/// they go (a step's statement, a schema or a setup statement) and the SQL.
const REFUSED: [(&str, &str); 16] = [
    ("step", "SELECT qty FROM stock WHERE sku = :sku FOR UPDATE"),
    ("step", "SELECT qty FROM stock WHERE sku ILIKE :sku"),
    (
        "step",
        "INSERT INTO reservation VALUES (:event_id, :sku, now())",
    ),
    ("step", "PRAGMA journal_mode"),
    ("step", "SAVEPOINT x"),
    ("step", "SELECT changes()"),
    ("step", "SELECT load_extension('x')"),
    ("step", "VACUUM"),
    ("step", "UPDATE stock SET qty = qty - ? WHERE sku = :sku"),
    ("step", "-- only a comment"),
    ("step", "SELECT nosuch FROM stock"),
    ("schema", "CREATE TEMP TABLE t (x INTEGER)"),
    (
        "schema",
        "CREATE TABLE u (id INTEGER DEFAULT (last_insert_rowid()))",
    ),
    ("schema", "CREAT TABLE u (x)"),
    ("setup", "ATTACH DATABASE 'x.db' AS x"),
    (
        "setup",
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
    ),
];

/// A refused statement reads as Spanish under `--lang es`: the tool's rule and its hint
/// for another dialect's SQL in Spanish, the engine's own message quoted; and the English
/// is the refusal's one English text.
#[test]
fn every_kind_of_refused_statement_reads_as_spanish() {
    let text = std::fs::read_to_string(root().join("scenarios/sql-no-dedup-duplicates.json"));
    let base: Value = serde_json::from_str(&text.unwrap()).unwrap();
    let mut hints = 0;
    for (place, sql) in REFUSED {
        let mut doc = base.clone();
        match place {
            "step" => doc["protocol"]["steps"][2]["sql"][0] = json!(sql),
            _ => doc["store"][place].as_array_mut().unwrap().push(json!(sql)),
        }
        let e = Scenario::from_json(&doc.to_string(), "m.json").unwrap_err();
        let (en, es) = (
            input::scenario_error(&e, Lang::En),
            input::scenario_error(&e, Lang::Es),
        );
        assert!(es.starts_with("escenario no válido m.json"), "{sql}: {es}");
        let plain = unquoted(&es);
        assert!(
            !ENGLISH.iter().any(|w| plain.contains(w)),
            "{sql}: English left in {es}"
        );
        // Only the engine's own message is quoted; the tool's rules are Spanish sentences
        // (before, the whole English reason stood quoted in a Spanish frame).
        if ["syntax error", "no such"].iter().any(|m| en.contains(m)) {
            assert!(es.contains("SQLite dice: «"), "{sql}: {es}");
        } else {
            assert!(
                !es.contains('«'),
                "{sql}: the rule quoted, not worded: {es}"
            );
        }
        if en.contains("--engine postgres") {
            hints += 1;
            assert!(
                es.contains("o corré el SQL tal como está en PostgreSQL"),
                "{es}"
            );
        }
    }
    assert_eq!(hints, 3, "FOR UPDATE, ILIKE and now() get a hint");
}

/// A statement the tool's step budget stops during a run is the tool's rule, not the
/// engine's words: explain says so in the reader's language, and SQLite is credited only
/// with what it did (rolling the transaction back). Before, both languages said `SQLite
/// says "interrupted after …"`, and Spanish kept the English inside the quotes.
#[test]
fn a_statement_the_budget_stops_in_a_run_is_the_tools_rule_in_both_languages() {
    let text = std::fs::read_to_string(root().join("scenarios/sql-no-dedup-duplicates.json"));
    let mut doc: Value = serde_json::from_str(&text.unwrap()).unwrap();
    // Past the budget on a first delivery only, so the redelivery reserves and the run ends.
    doc["protocol"]["steps"][2]["sql"][0] = json!(
        "UPDATE stock SET qty = qty - :qty WHERE sku = :sku AND (WITH RECURSIVE c(x) AS \
         (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < CASE WHEN :delivery = 1 THEN \
         3000000 ELSE 1 END) SELECT count(*) FROM c) > 0"
    );
    doc["workload"]["events"] = json!(1);
    doc.as_object_mut().unwrap().remove("faults");
    doc.as_object_mut().unwrap().remove("expect");
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "budget.json", &doc.to_string());
    // The story wraps its lines: read it as one line of words.
    let flat = |o| stdout(&o).split_whitespace().collect::<Vec<_>>().join(" ");
    let en = flat(bin(&["explain", &file]));
    let es = flat(bin(&["explain", &file, "--lang", "es"]));
    assert!(
        en.contains("fails: interrupted after 2000000 SQLite virtual-machine steps, the limit for one statement (SQLite rolled the whole transaction back itself)."),
        "{en}"
    );
    assert!(!en.contains("SQLite says"), "{en}");
    assert!(
        es.contains("interrumpida después de 2000000 pasos de la máquina virtual de SQLite, el límite para una sentencia (SQLite ya deshizo toda la transacción por su cuenta)."),
        "{es}"
    );
    assert!(
        !es.contains("SQLite dice") && !es.contains("interrupted"),
        "{es}"
    );
}

/// A check query that broke reads in the reader's language: what it gave (a value, or the
/// engine's refusal), and a count that is not one, for which event. Before, the Spanish
/// line said "`…` gave 'many' for …, not a count" and "gave malformed JSON".
#[test]
fn a_broken_check_query_reads_as_spanish() {
    let text = std::fs::read_to_string(root().join("scenarios/sql-no-dedup-duplicates.json"));
    let mut doc: Value = serde_json::from_str(&text.unwrap()).unwrap();
    doc["check"]["effects_per_event"] = json!(
        "SELECT CASE WHEN count(*) > 1 THEN 'many' ELSE count(*) END FROM reservation \
         WHERE event_id = :event_id"
    );
    doc["check"]["invariants"] = json!([
        "SELECT CASE WHEN (SELECT count(*) FROM reservation) > 0 THEN json('x') ELSE 1 END"
    ]);
    doc.as_object_mut().unwrap().remove("expect");
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "broken-check.json", &doc.to_string());
    let es = stdout(&bin(&["run", &file, "--lang", "es"]));
    let line = es
        .lines()
        .find(|l| l.contains("INVARIANTE ROTO"))
        .expect(&es);
    assert!(line.contains("` dio 'many' para "), "{line}");
    assert!(line.contains(", que no es un conteo"), "{line}");
    assert!(line.contains("dio SQLite dice: «malformed JSON»"), "{line}");
    assert!(
        !line.contains(" gave ") && !line.contains("not a count"),
        "{line}"
    );
    let explained = stdout(&bin(&["explain", &file, "--lang", "es"]));
    assert!(explained.contains("que no es un conteo"), "{explained}");
}
