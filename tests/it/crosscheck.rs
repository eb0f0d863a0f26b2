//! `crosscheck` through the real binary: the simulation against a real consumer process
//! killed with SIGKILL at every single crash point.

use super::support::*;
use delivery_sim::model::built_ins;
use std::process::Command;

/// Every point of a `crosscheck --json` report: (crash point, matched).
fn points(report: &serde_json::Value) -> Vec<(Option<String>, bool)> {
    report["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .map(|p| {
            (
                p["crash_points"][0].as_str().map(str::to_string),
                p["match"].as_bool().expect("match"),
            )
        })
        .collect()
}

#[test]
fn every_built_in_protocol_matches_a_real_process_at_every_single_crash_point() {
    for b in built_ins() {
        let out = bin(&[
            "crosscheck",
            "--protocol",
            &b.name,
            "--events",
            "3",
            "--json",
        ]);
        let report = json(&out);
        assert_eq!(out.status.code(), Some(0), "{}: {report:#}", b.name);
        assert_eq!(report["summary"]["all_match"], true, "{}", b.name);
        // The very points explore enumerates at depth 1, in its order, each with the
        // verdict explore gives it.
        let explored = json(&bin(&[
            "explore",
            "--protocol",
            &b.name,
            "--events",
            "3",
            "--json",
        ]));
        let runs = explored["runs"].as_array().expect("runs");
        let ours = report["runs"].as_array().expect("runs");
        assert_eq!(ours.len(), runs.len(), "{}", b.name);
        for (p, run) in ours.iter().zip(runs) {
            assert_eq!(p["crash_points"], run["crash_points"], "{}", b.name);
            assert!(
                p["simulated"]
                    .as_str()
                    .unwrap()
                    .starts_with(run["guarantee"].as_str().unwrap()),
                "{}: {p} vs {run}",
                b.name
            );
            assert_eq!(p["real"], p["simulated"]);
        }
    }
}

#[test]
fn a_wrong_crash_model_is_caught_at_the_points_inside_a_transaction() {
    let out = bin(&[
        "crosscheck",
        "--protocol",
        "inbox",
        "--events",
        "3",
        "--wrong-model",
        "keep-uncommitted",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let report = json(&out);
    assert_eq!(report["summary"]["all_match"], false);
    let points = points(&report);
    // Inside the transaction (after `begin`, before `commit` completes) once something
    // was written: the wrong model keeps the writes the kill lost.
    let written = [
        "after:insert_inbox",
        "before:apply_effect",
        "after:apply_effect",
        "before:commit",
    ];
    for (point, matched) in &points {
        let at = point
            .as_deref()
            .map_or("", |p| p.split_whitespace().next().unwrap());
        assert_eq!(
            *matched,
            !written.contains(&at),
            "{point:?}: only points inside a transaction with writes differ"
        );
    }
    assert_eq!(points.iter().filter(|(_, m)| !m).count(), 3 * written.len());
    // Each mismatch says what differs, on both sides, with both traces.
    let bad = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["crash_points"][0] == "before:commit e0 d1")
        .unwrap();
    let what: Vec<&str> = bad["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["what"].as_str().unwrap())
        .collect();
    assert!(what.contains(&"crash 0"), "{what:?}");
    assert!(bad["simulated_trace"].as_array().unwrap().len() > 10);
    assert!(bad["real_trace"].as_array().unwrap().len() > 10);

    let text = bin(&[
        "crosscheck",
        "--protocol",
        "inbox",
        "--events",
        "1",
        "--wrong-model",
        "keep-uncommitted",
    ]);
    assert_eq!(text.status.code(), Some(1));
    let text = stdout(&text);
    assert!(text.contains("MISMATCH at before:commit e0 d1:"), "{text}");
    assert!(text.contains("simulated consumer trace:"), "{text}");
    assert!(text.contains("real consumer trace:"), "{text}");
}

#[test]
fn the_table_shows_each_point_both_outcomes_and_the_timings() {
    let out = bin(&["crosscheck", "scenarios/crosscheck-ack-first-3-events.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let header = text
        .lines()
        .find(|l| l.starts_with("crash point"))
        .expect("a table");
    for column in ["simulated", "real", "match", "sim ms", "real ms", "ratio"] {
        assert!(header.contains(column), "{header}");
    }
    assert!(text.contains("after:ack e1 d1"), "{text}");
    assert!(text.contains("at-most-once (2 once, 1 lost)"), "{text}");
    assert!(text.contains("31 of 31 runs match"), "{text}");
    assert!(text.contains("the simulation is"), "{text}");
}

#[test]
fn what_one_real_process_cannot_reproduce_is_refused_with_a_reason() {
    for (file, reason) in [
        (
            "scenarios/inbox-lease-expiry-two-consumers.json",
            "2 consumers",
        ),
        (
            "scenarios/inbox-retention-ttl-covers-window.json",
            "retention job",
        ),
        (
            "scenarios/producer-commit-then-publish-crash-loses-intent.json",
            "producer process",
        ),
        (
            "scenarios/inbox-email-outbox-idempotency-key.json",
            "email relay",
        ),
    ] {
        let out = bin(&["crosscheck", file]);
        assert_eq!(out.status.code(), Some(2), "{file}");
        let err = stderr(&out);
        assert!(err.contains(file) && err.contains(reason), "{file}: {err}");
        assert!(stdout(&out).is_empty());
    }
}

#[test]
fn the_temporary_files_are_removed_whether_the_check_holds_or_fails() {
    for (args, code) in [
        (&["--events", "2"][..], 0),
        (
            &["--events", "2", "--wrong-model", "keep-uncommitted"][..],
            1,
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_delivery-sim"))
            .args(["crosscheck", "--protocol", "no-dedup"])
            .args(args)
            .env("TMPDIR", tmp.path())
            .current_dir(root())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
        let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
        assert!(left.is_empty(), "{args:?} left {left:?}");
    }
}

#[test]
fn the_consumer_mode_is_hidden_from_the_help() {
    let help = stdout(&bin(&["--help"]));
    assert!(help.contains("crosscheck"), "{help}");
    assert!(!help.contains("__consumer"), "{help}");
    let help = stdout(&bin(&["crosscheck", "--help"]));
    assert!(!help.contains("wrong-model"), "{help}");
    let completions = stdout(&bin(&["completions", "bash"]));
    assert!(completions.contains("crosscheck"));
    assert!(!completions.contains("__consumer"));
}

/// SQL protocols on the scenario's own schema: the real process runs the very statements,
/// and agrees at every point; the wrong crash model is caught exactly at the points where
/// an open transaction has written (after `claim` and `reserve`, before each `commit`).
#[test]
fn a_sql_protocol_matches_a_real_process_and_a_wrong_model_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        std::fs::read_to_string(root().join("scenarios/sql-mark-own-transaction-loses.json"))
            .unwrap();
    let mut spec: serde_json::Value = serde_json::from_str(&text).unwrap();
    spec["workload"]["events"] = 1.into();
    spec["faults"]["crash"][0]["event"] = 0.into();
    spec.as_object_mut().unwrap().remove("expect");
    let file = write(dir.path(), "one.json", &spec.to_string());
    let out = bin(&["crosscheck", &file, "--json"]);
    let report = json(&out);
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    assert_eq!(points(&report).len(), 17);
    assert!(report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["real"].as_str().unwrap().starts_with("at-most-once")));
    let wrong = bin(&[
        "crosscheck",
        &file,
        "--json",
        "--wrong-model",
        "keep-uncommitted",
    ]);
    assert_eq!(wrong.status.code(), Some(1));
    let missed: Vec<String> = points(&json(&wrong))
        .into_iter()
        .filter(|(_, matched)| !matched)
        .map(|(p, _)| p.unwrap())
        .collect();
    assert_eq!(
        missed,
        [
            "after:claim e0 d1",
            "before:commit e0 d1",
            "after:reserve e0 d1",
            "before:commit#2 e0 d1"
        ]
    );
}
