//! Branches and values (issue 35): a step's `into`, `when`, `duplicate_if: {"when"}` and
//! `goto`, refused at load when they cannot mean anything (exit 2, naming the step and the
//! field), and followed in a run.

use super::support::*;
use serde_json::{json, Value};

const FILE: &str = "scenarios/state-machine-inbox-loop.json";

/// The state-machine scenario with step `name` changed by `f`.
fn with_step(name: &str, f: impl Fn(&mut Value)) -> Value {
    let mut s = spec(FILE);
    let steps = s["protocol"]["steps"].as_array_mut().unwrap();
    let step = (steps.iter_mut())
        .find(|x| x["name"] == name)
        .unwrap_or_else(|| panic!("{name}"));
    f(step);
    s
}

fn at(name: &str) -> String {
    let s = spec(FILE);
    let steps = s["protocol"]["steps"].as_array().unwrap();
    let i = steps.iter().position(|x| x["name"] == name).unwrap();
    format!("protocol.steps[{i}]")
}

#[test]
fn bad_flow_is_refused_naming_the_step_and_the_field() {
    let cases: Vec<(Value, String, &str)> = vec![
        (
            with_step("pay", |s| s["when"] = json!("claim.found = 1")),
            format!("{}.when", at("pay")),
            "no step keeps",
        ),
        (
            with_step("pay", |s| s["when"] = json!("state.found = = 1")),
            format!("{}.when", at("pay")),
            "does not parse",
        ),
        (
            with_step("pay", |s| s["when"] = json!("state.nope = 1")),
            format!("{}.when", at("pay")),
            "has no column `nope`",
        ),
        (
            with_step("create", |s| s["when"] = json!("later.x is null")),
            format!("{}.when", at("create")),
            "no step keeps",
        ),
        (
            with_step("load", |s| s["when"] = json!("state.found is null")),
            format!("{}.when", at("load")),
            "a later step keeps",
        ),
        (
            with_step("create", |s| s["goto"] = json!("reload")),
            format!("{}.goto", at("create")),
            "comes later",
        ),
        (
            with_step("reload", |s| s["goto"] = json!("nowhere")),
            format!("{}.goto", at("reload")),
            "not one of the protocol's steps",
        ),
        (
            with_step("reload", |s| s["goto"] = json!("receive")),
            format!("{}.goto", at("reload")),
            "a delivery runs once",
        ),
        (
            with_step("reload", |s| s["goto"] = json!("load")),
            format!("{}.goto", at("reload")),
            "transactions as it found them",
        ),
        (
            with_step("pay", |s| {
                s["sql"] = json!("INSERT INTO payment VALUES (:state.amount, 1)")
            }),
            format!("{}.sql", at("pay")),
            "has no column `amount`",
        ),
        (
            with_step("pay", |s| s["into"] = json!("paid")),
            format!("{}.into", at("pay")),
            "returns no rows",
        ),
        (
            with_step("pay", |s| s["into"] = json!("Paid!")),
            format!("{}.into", at("pay")),
            "cannot be a name",
        ),
        (
            with_step("load", |s| s["duplicate_if"] = json!({"when": "state.x >"})),
            format!("{}.duplicate_if.when", at("load")),
            "does not parse",
        ),
    ];
    for (spec, field, says) in cases {
        let (got, message) = refused(&spec);
        assert_eq!(got, field, "{message}");
        assert!(message.contains(says), "{field}: {message}");
    }
}

#[test]
fn begin_and_commit_take_no_flow() {
    let mut s = spec(FILE);
    let steps = s["protocol"]["steps"].as_array_mut().unwrap();
    steps[1] = json!({"name": "begin", "sql": "BEGIN", "when": "state.found is null"});
    let (field, message) = refused(&s);
    assert_eq!(field, "protocol.steps[1].when");
    assert!(
        message.contains("opens or closes the transaction"),
        "{message}"
    );
}

#[test]
fn the_binary_refuses_a_bad_condition_with_exit_2() {
    let dir = std::env::temp_dir().join(format!("flow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = with_step("pay", |s| s["when"] = json!("state.found ; 1"));
    let file = write(&dir, "bad.json", &bad.to_string());
    for cmd in ["run", "explore", "explain"] {
        let o = bin(&[cmd, &file]);
        assert_eq!(o.status.code(), Some(2), "{cmd}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains(".when") && err.contains("does not parse"),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_run_traces_what_the_consumer_kept_skipped_and_jumped_in_both_languages() {
    let o = bin(&["explain", FILE]);
    let en = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for says in ["keeps `state` empty", "skips pay", "goes back to begin"] {
        assert!(en.contains(says), "{says}: {en}");
    }
    let es = stdout(&bin(&["explain", FILE, "--lang", "es"]));
    for says in ["guarda `state` vacío", "se salta pay", "vuelve a begin"] {
        assert!(es.contains(says), "{says}");
    }
}

#[test]
fn without_the_loop_the_first_delivery_never_pays_and_the_verdict_says_so() {
    // The loop is what pays: without `goto`, a new message's first pass only creates its
    // row, and is acked.
    let s = with_step("reload", |s| {
        s.as_object_mut().unwrap().remove("goto");
    });
    let mut s = s;
    s.as_object_mut().unwrap().remove("expect");
    let dir = std::env::temp_dir().join(format!("flow-loop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = write(&dir, "no-loop.json", &s.to_string());
    let o = bin(&["run", &file, "--json"]);
    let v = json(&o);
    assert_eq!(v["guarantee"], "at-most-once", "{v}");
    std::fs::remove_dir_all(&dir).ok();
}

const CATCH: &str = "scenarios/sql-catch-duplicate-and-continue.json";

/// The catch scenario with its claim's handler set to `on_error`.
fn catching(on_error: Value) -> Value {
    let mut s = spec(CATCH);
    s.as_object_mut().unwrap().remove("expect");
    s["protocol"]["steps"][2]["on_error"] = on_error;
    s
}

#[test]
fn a_step_s_own_handler_is_refused_where_it_cannot_go_on() {
    for (on_error, says) in [
        (json!({"continue_at": "begin"}), "does not come after"),
        (json!({"continue_at": "nowhere"}), "not a step written once"),
        (
            json!({"continue_at": "pay"}),
            "after the rollback no transaction is open",
        ),
        (
            json!({"continue_at": "ack", "rollback": false}),
            "without a rollback",
        ),
        (
            json!({"continue_at": "ack", "retry": 2}),
            "unknown field `retry`",
        ),
    ] {
        let (field, message) = refused(&catching(on_error.clone()));
        assert!(
            field.starts_with("protocol.steps[2].on_error"),
            "{on_error}: {field}"
        );
        assert!(message.contains(says), "{on_error}: {message}");
    }
}

#[test]
fn a_caught_duplicate_that_goes_on_pays_twice_and_one_that_acks_pays_once() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, s: &Value| {
        let file = write(dir.path(), name, &s.to_string());
        json(&bin(&["run", &file, "--json"]))
    };
    let on = run(
        "on.json",
        &catching(json!({"continue_at": "pay", "rollback": false})),
    );
    assert_eq!(on["guarantee"], "at-least-once", "{on}");
    let ack = run("ack.json", &catching(json!({"continue_at": "ack"})));
    assert_eq!(ack["guarantee"], "exactly-once", "{ack}");
    let o = bin(&["explain", CATCH]);
    assert!(
        stdout(&o).contains("claim's own error handler catches the failure for e0"),
        "{}",
        stdout(&o)
    );
}
