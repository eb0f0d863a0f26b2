//! How a protocol's error policy (`protocol.on_error`) is refused when it cannot do what it
//! says, as the command line words it.

use crate::scenario::Scenario;

/// A SQL protocol with `on_error` and `broker` set as given, on its own schema.
fn with(on_error: &str, broker: &str, claim: &str) -> String {
    format!(
        r#"{{"protocol": {{"name": "p", "steps": ["receive", "begin",
          {{"name": "claim", "sql": "{claim}", "duplicate_if": "unique_violation"}},
          {{"name": "pay", "sql": "INSERT INTO paid VALUES (:event_id)"}}, "commit", "ack"],
          "on_error": {on_error}}},
          "broker": {broker},
          "store": {{"schema": ["CREATE TABLE seen (k TEXT PRIMARY KEY)",
                               "CREATE TABLE paid (id TEXT)"]}},
          "check": {{"effects_per_event": "SELECT count(*) FROM paid WHERE id = :event_id"}}}}"#
    )
}

const CLAIM: &str = "INSERT INTO seen VALUES (:event_id)";

fn refusal(json: &str) -> (String, String) {
    let e = Scenario::from_json(json, "p.json").expect_err(json);
    (
        e.field.clone().unwrap_or_default(),
        super::scenario_tests::en(&e),
    )
}

#[test]
fn a_bad_policy_is_refused_naming_its_field() {
    let cases = [
        (
            with(r#""skip""#, "{}", CLAIM),
            "protocol.on_error",
            "unknown error policy",
        ),
        (
            with(r#"{"retry": {"times": 0}}"#, "{}", CLAIM),
            "protocol.on_error.retry.times",
            "",
        ),
        (
            with(r#"{"steps": ["apply_effect"]}"#, "{}", CLAIM),
            "protocol.on_error.steps[0]",
            "cannot compensate",
        ),
        (
            with(
                r#"{"steps": [{"name": "claim", "sql": "DELETE FROM seen"}]}"#,
                "{}",
                CLAIM,
            ),
            "protocol.on_error.steps[0].name",
            "a name of its own",
        ),
        (
            with(
                r#"{"steps": [{"name": "undo", "sql": "DELETE FROM nowhere"}]}"#,
                "{}",
                CLAIM,
            ),
            "protocol.on_error.steps[0].sql",
            "nowhere",
        ),
        (
            with(r#""dead_letter""#, r#"{"kind": "log"}"#, CLAIM),
            "protocol.on_error.then",
            "log broker has no dead-letter queue",
        ),
        (
            with(r#""redeliver""#, "{}", "INSERT INTO seen VALUES (:offset)"),
            "protocol.steps[2].sql",
            "record's place on a log",
        ),
    ];
    for (json, field, words) in cases {
        let (got, text) = refusal(&json);
        assert_eq!(got, field, "{text}");
        assert!(text.contains(words), "{text}");
    }
}

#[test]
fn a_crash_point_of_a_retry_or_a_compensation_is_accepted_past_them_refused() {
    let faults = |at: &str| {
        let mut v: serde_json::Value = serde_json::from_str(&with(
            r#"{"retry": {"times": 1}, "steps": [{"name": "undo", "sql": "DELETE FROM seen"}]}"#,
            "{}",
            CLAIM,
        ))
        .unwrap();
        v["faults"] = serde_json::json!({"crash": [{"at": at}]});
        Scenario::from_json(&v.to_string(), "p.json")
    };
    for ok in [
        "after:pay#2",
        "before:undo#2",
        "after:begin#2",
        "before:ack",
    ] {
        faults(ok).unwrap_or_else(|e| panic!("{ok}: {e:?}"));
    }
    for bad in [
        "after:pay#3",
        "before:undo#3",
        "before:ack#2",
        "before:dead_letter",
    ] {
        let e = faults(bad).expect_err(bad);
        assert_eq!(e.field.as_deref(), Some("faults.crash[0].at"), "{e:?}");
    }
}
