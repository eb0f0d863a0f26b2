//! Protocols that repeat a step (issue 15, item 1), on the real binary: two transactions
//! run, their crash points are numbered by occurrence (`after:commit#2`) everywhere a
//! crash point appears, and an occurrence a protocol does not have is refused naming it.

use crate::support::{bin, json, stderr, stdout, write};

const SCENARIO: &str = "scenarios/mark-own-transaction-then-effect-loses.json";

/// The protocol the issue found refused: the mark commits on its own, then the effect.
const TWO_TRANSACTIONS: &str =
    r#"["receive", "begin", "insert_inbox", "commit", "begin", "apply_effect", "commit", "ack"]"#;

fn scenario(extra: &str) -> String {
    format!(
        r#"{{"name": "two", "seed": 1, "workload": {{"events": 2}},
            "protocol": {{"name": "two", "steps": {TWO_TRANSACTIONS}}}{extra}}}"#
    )
}

#[test]
fn the_refused_protocol_runs_and_explore_names_the_losing_points() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "two.json", &scenario(""));
    let out = bin(&["explore", &file, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["summary"]["guarantee"], "at-most-once");
    let mut losing = Vec::new();
    let mut safe = Vec::new();
    for r in v["runs"].as_array().unwrap() {
        let Some(point) = r["crash_points"].as_array().unwrap().first() else {
            continue;
        };
        let at = point.as_str().unwrap().to_string();
        if r["lost"].as_u64().unwrap() > 0 {
            losing.push(at);
        } else {
            safe.push(at);
        }
    }
    // Between the two commits the event is marked and has no effect: every point there
    // loses it, and no other point does.
    for at in [
        "after:commit e0 d1",
        "before:begin#2 e0 d1",
        "before:apply_effect e0 d1",
        "before:commit#2 e0 d1",
    ] {
        assert!(losing.iter().any(|l| l == at), "{at} in {losing:?}");
    }
    for at in [
        "before:commit e0 d1",
        "after:commit#2 e0 d1",
        "after:ack e0 d1",
    ] {
        assert!(safe.iter().any(|l| l == at), "{at} in {safe:?}");
    }
    assert_eq!(losing.len(), 12, "six points per event: {losing:?}");
}

#[test]
fn a_numbered_point_replays_from_the_command_line() {
    let run = |point: &str| json(&bin(&["run", SCENARIO, "--crash", point, "--json"]));
    let after_second = run("after:commit#2 e1 d1");
    assert_eq!(after_second["lost"], 0);
    assert_eq!(after_second["crashes"][0]["point"], "after:commit#2 e1 d1");
    let before_second = run("before:commit#2 e1 d1");
    assert_eq!(before_second["lost"], 1);
    // The replay command a failure prints carries the number, and replays the same run.
    let replay = before_second["replay"].as_str().unwrap();
    assert!(replay.contains("'before:commit#2 e1 d1'"), "{replay}");
}

#[test]
fn the_trace_numbers_a_repeated_step_in_both_languages() {
    for lang in ["en", "es"] {
        let out = stdout(&bin(&["run", SCENARIO, "--trace", "--lang", lang]));
        let steps: Vec<&str> = out
            .lines()
            .filter(|l| l.contains(" consumer0 ") && l.contains(" e0 d1 "))
            .filter_map(|l| l.split_whitespace().nth(2))
            .collect();
        assert_eq!(
            steps,
            [
                "receive",
                "begin",
                "insert_inbox",
                "commit",
                "begin#2",
                "apply_effect",
                "commit#2",
                "ack"
            ],
            "{lang}: {out}"
        );
    }
}

#[test]
fn explain_names_the_effects_commit_in_both_languages() {
    let es = stdout(&bin(&[
        "explain",
        SCENARIO,
        "--crash",
        "after:commit#2 e1 d1",
        "--lang",
        "es",
    ]));
    assert!(
        es.contains("after:commit#2 e1 d1 (después del commit del efecto, antes del ack)"),
        "{es}"
    );
    let en = stdout(&bin(&["explain", SCENARIO]));
    assert!(
        en.contains("after:commit e1 d1 (before the effect's commit)"),
        "{en}"
    );
}

#[test]
fn faults_can_name_one_occurrence() {
    let dir = tempfile::tempdir().unwrap();
    let lost = |extra: &str| {
        let file = write(dir.path(), "f.json", &scenario(extra));
        let out = bin(&["run", &file, "--json"]);
        assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));
        json(&out)["lost"].as_u64().unwrap()
    };
    // The second commit failing loses the event (the redelivery finds the mark); the first
    // failing only redelivers it.
    let fail = |at: &str| format!(r#", "faults": {{"fail": [{{"at": "{at}", "event": 0}}]}}"#);
    assert_eq!(lost(&fail("commit#2")), 1);
    assert_eq!(lost(&fail("commit#1")), 0);
    // A commit timeout that rolls the second commit back, abandoned: lost; the first: the
    // effect still commits in the second transaction.
    let timeout = |at: &str| {
        format!(
            r#", "consumer": {{"on_commit_timeout": "abandon"}},
               "faults": {{"commit_timeout": [{{"at": "{at}", "event": 0, "applied": false}}]}}"#
        )
    };
    assert_eq!(lost(&timeout("commit#2")), 1);
    assert_eq!(lost(&timeout("commit")), 0);
    let stall = r#", "faults": {"stall": [{"at": "before:commit#2", "event": 0, "ticks": 5}]}"#;
    assert_eq!(lost(stall), 0);
    // The explanation names the occurrence that failed.
    let file = write(dir.path(), "f.json", &scenario(&fail("commit#2")));
    let es = stdout(&bin(&["explain", &file, "--lang", "es"]));
    assert!(
        es.contains("Falla el paso commit#2 de consumer0 con e0"),
        "{es}"
    );
}

#[test]
fn an_occurrence_the_protocol_does_not_have_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let refused = |extra: &str, field: &str, says: &str| {
        let file = write(dir.path(), "bad.json", &scenario(extra));
        let out = bin(&["run", &file]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(field) && err.contains(says),
            "{field}, {says}: {err}"
        );
    };
    refused(
        r#", "faults": {"crash": [{"at": "after:commit#3"}]}"#,
        "faults.crash[0].at",
        "`after:commit#3` is never reached: protocol `two` runs `commit` 2 times",
    );
    refused(
        r#", "faults": {"stall": [{"at": "before:ack#2", "ticks": 3}]}"#,
        "faults.stall[0].at",
        "runs `ack` once",
    );
    refused(
        r#", "faults": {"fail": [{"at": "apply_effect#2"}]}"#,
        "faults.fail[0].at",
        "`apply_effect#2` is never reached",
    );
    refused(
        r#", "faults": {"commit_timeout": [{"at": "begin#2", "applied": true}]}"#,
        "faults.commit_timeout[0].at",
        "not a commit",
    );
    refused(
        r#", "faults": {"crash": [{"at": "after:commit#0"}]}"#,
        "faults.crash[0].at",
        "numbered from 1",
    );
    let file = write(dir.path(), "ok.json", &scenario(""));
    let out = bin(&["run", &file, "--crash", "after:begin#3 e0 d1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--crash: `after:begin#3` is never reached"));
    let out = bin(&[
        "run",
        "--protocol",
        "inbox",
        "--crash",
        "after:commit#2 e0 d1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("protocol `inbox` runs `commit` once"));
}

#[test]
fn nested_transactions_and_a_second_ack_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let refused = |steps: &str, field: &str, says: &str| {
        let text = format!(r#"{{"protocol": {{"name": "p", "steps": {steps}}}}}"#);
        let out = bin(&["run", &write(dir.path(), "p.json", &text)]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(field) && err.contains(says), "{err}");
    };
    refused(
        r#"["receive", "begin", "insert_inbox", "begin", "apply_effect", "commit", "commit", "ack"]"#,
        "protocol.steps[3]",
        "inside the transaction opened at 1",
    );
    refused(
        r#"["receive", "ack", "begin", "apply_effect", "commit", "ack"]"#,
        "protocol.steps[5]",
        "`ack` appears twice",
    );
}

#[test]
fn crosscheck_agrees_at_every_numbered_point() {
    let out = bin(&["crosscheck", SCENARIO, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json(&out);
    let points = v["runs"].as_array().unwrap();
    assert_eq!(points.len(), 49);
    assert!(points.iter().all(|p| p["match"] == true));
    assert!(points
        .iter()
        .any(|p| p["crash_points"][0].as_str() == Some("before:commit#2 e1 d1")));
}
