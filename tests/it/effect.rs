//! The effect where it lives (issue 35, item 3): a protocol's call to a named external
//! service (`{"external": "topup"}`) and `check.effect`, which makes that service's calls,
//! or a named database's rows, the headline verdict and the exit code. Refused at load
//! when they cannot mean anything (exit 2, naming the field).

use super::support::*;
use serde_json::{json, Value};

const FILE: &str = "scenarios/external-call-inside-transaction.json";

/// The scenario file with `f` applied.
fn with(f: impl Fn(&mut Value)) -> Value {
    let mut s = spec(FILE);
    f(&mut s);
    s
}

#[test]
fn bad_calls_and_effects_are_refused_naming_the_field() {
    let call = |f: fn(&mut Value)| with(move |s| f(&mut s["protocol"]["steps"][3]));
    let mut cases: Vec<(Value, &str, &str)> = vec![
        (
            with(|s| s["check"]["effect"] = json!({"external": "pay"})),
            "check.effect.external",
            "no step of the protocol calls `pay`; it calls topup",
        ),
        (
            with(|s| s["check"]["effect"] = json!({"db": "main", "external": "topup"})),
            "check.effect",
            "give one of",
        ),
        (
            with(|s| s["check"]["effect"] = json!({"db": "api"})),
            "check.effects_per_event",
            "lives on `api`",
        ),
        (
            with(|s| {
                s["check"]["effects_per_event"] =
                    json!("SELECT count(*) FROM processed WHERE event_id = :event_id")
            }),
            "check.effects_per_event",
            "no query counts it",
        ),
        (
            call(|c| c["name"] = json!("call_api")),
            "protocol.steps[3].name",
            "named by the service it calls",
        ),
        (
            call(|c| c["sql"] = json!("SELECT 1")),
            "protocol.steps[3].sql",
            "not both",
        ),
        (
            call(|c| c["when"] = json!("1 = 1")),
            "protocol.steps[3].when",
            "means nothing on an external call",
        ),
        (
            call(|c| c["external"] = json!("Top Up")),
            "protocol.steps[3].external",
            "cannot name a service",
        ),
        (
            call(|c| c["external"] = json!("commit")),
            "protocol.steps[3].external",
            "built-in step's name",
        ),
        (
            call(|c| *c = json!({})),
            "protocol.steps[3].sql",
            "neither `sql` nor `external`",
        ),
        (
            with(|s| s["protocol"]["steps"][2]["name"] = json!("topup")),
            "protocol.steps[2].name",
            "names both this SQL step and an external call",
        ),
        (
            with(|s| s["expect"]["boundaries"] = json!({"call": {"guarantee": "exactly-once"}})),
            "expect.boundaries.call",
            "no calls boundary",
        ),
    ];
    // A database declared, and the query counting on another one.
    let mut api = spec("scenarios/sql-rest-call-inside-transaction.json");
    api["check"]["effect"] = json!({"db": "main"});
    cases.push((
        api,
        "check.effects_per_event.db",
        "lives on `main`, but effects_per_event counts on `api`",
    ));
    for (spec, field, says) in cases {
        let (got, message) = refused(&spec);
        assert_eq!(got, field, "{message}");
        assert!(message.contains(says), "{field}: {message}");
    }
}

#[test]
fn the_declared_call_is_the_headline_and_decides_the_exit_code() {
    let o = bin(&["run", FILE]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("verdict    FAIL  at-least-once (calls to `topup` per event, "),
        "{out}"
    );
    assert!(
        out.contains("DUPLICATED: `topup` was called 2 times"),
        "{out}"
    );
    // Claimed exactly-once, it fails with exit 1, naming the service.
    let o = bin(&["run", FILE, "--expect", "exactly-once"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v = json(&bin(&["run", FILE, "--json"]));
    assert_eq!(
        v["verdict"]["scope"]["effect"],
        json!({"external": "topup"})
    );
    assert_eq!(v["duplicated"], 1);
    // The crash point names the call, in a file and on the command line.
    let o = bin(&["run", FILE, "--crash", "before:topup e1 d1", "--json"]);
    assert_eq!(
        json(&o)["guarantee"],
        "exactly-once",
        "the crash came before the call"
    );
    // The file expects its own crash's duplicate: another crash fails that expectation.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let es = stdout(&bin(&["run", FILE, "--lang", "es"]));
    assert!(es.contains("llamadas a `topup` por evento"), "{es}");
    assert!(es.contains("DUPLICADO: se llamó a `topup` 2 veces"), "{es}");
}

#[test]
fn explain_tells_the_call_and_why_it_was_made_twice_in_both_languages() {
    let en = stdout(&bin(&["explain", FILE]));
    for says in [
        "consumer0 calls `topup` for e1",
        "`topup` was called for event e1, then the crash at after:topup e1 d1",
        "`topup` called once (it cannot be taken back), no ack",
    ] {
        assert!(en.contains(says), "{says}:\n{en}");
    }
    assert!(
        !en.contains("effects: none"),
        "the call is not in the database:\n{en}"
    );
    let es = stdout(&bin(&["explain", FILE, "--lang", "es"]));
    for says in [
        "consumer0 llama a `topup` por e1",
        "Se llamó a `topup` por el evento e1",
        "`topup` llamado una vez (no se puede deshacer), sin ack",
    ] {
        assert!(es.contains(says), "{says}:\n{es}");
    }
}

/// A service called besides the effect is a boundary of its own, per service: a second
/// service's calls are not the first one's sent twice.
#[test]
fn every_other_service_called_is_a_boundary_of_its_own() {
    let s = with(|s| {
        let steps = s["protocol"]["steps"].as_array_mut().unwrap();
        steps.insert(4, json!({"external": "notify"}));
        s["expect"] = json!({"boundaries": {"call": {"guarantee": "at-least-once"}}});
        s["faults"]["crash"][0]["at"] = json!("after:notify");
    });
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "notify.json", &s.to_string());
    let o = bin(&["run", &file]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(
        out.contains("calls to `notify`: at-least-once (2 once, 1 duplicated)"),
        "{out}"
    );
    assert!(out.contains("e1 notify ×2, e1 topup ×2"), "{out}");
    let x = json(&bin(&["explore", &file, "--depth", "1", "--json"]));
    assert!(
        x["summary"]["call"]["broken_runs"].as_u64() > Some(0),
        "{x}"
    );
}

/// `run DIR` over files whose effects live in different places says so, rather than
/// heading the folder with one of them (or with the ledger per event none of them counts);
/// over files that share one, it names it.
#[test]
fn a_folder_verdict_names_the_shared_effect_or_says_each_has_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let calls = serde_json::to_string_pretty(&spec(FILE)).unwrap();
    write(dir.path(), "a.json", &calls);
    let folder = format!("{}/", dir.path().display());
    let o = bin(&["run", &folder]);
    assert!(
        stdout(&o)
            .starts_with("verdict    FAIL  at-least-once (calls to `topup` per event, 1 file)"),
        "{}",
        stdout(&o)
    );
    let api = spec("scenarios/sql-rest-call-inside-transaction.json");
    write(
        dir.path(),
        "b.json",
        &serde_json::to_string_pretty(&api).unwrap(),
    );
    let o = bin(&["run", &folder]);
    let text = stdout(&o);
    assert!(
        text.starts_with("verdict    FAIL  at-least-once (each file's own effect, 2 files)"),
        "{text}"
    );
    let o = bin(&["run", &folder, "--lang", "es"]);
    assert!(stdout(&o).contains("(el efecto de cada archivo, 2 archivos)"));
    let j = json(&bin(&["run", &folder, "--json"]));
    assert_eq!(
        j["verdict"]["scope"]["effects_differ"], true,
        "{}",
        j["verdict"]
    );
    assert_eq!(j["verdict"]["scope"].get("effect"), None);
}
