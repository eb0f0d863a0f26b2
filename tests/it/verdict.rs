//! One verdict nobody can misread (issue 33, item 1): every command that judges leads with
//! the same verdict line, PASS, FAIL or UNKNOWN first, in English and in Spanish, and its
//! JSON carries the same verdict as data. The issue's examples, which used to read as safe
//! (a guarantee word over runs that broke something), are FAIL.

use super::support::*;

/// A run whose outbox relay's publication times out: it publishes again.
const OUTBOX_TIMEOUT: &str = r#"{"name":"x","seed":0,"protocol":"no-dedup","producer":{"mode":"outbox"},"workload":{"events":2},"faults":{"publish_timeout":[{"event":1,"times":3}]}}"#;

/// The status word of the first line of a text report, in its language.
fn status(text: &str) -> (&str, &str) {
    let first = text.lines().next().unwrap_or_default();
    let mut words = first.split_whitespace();
    (
        words.next().unwrap_or_default(),
        words.next().unwrap_or_default(),
    )
}

/// `args` in English, Spanish and JSON: the first line's status in each, and the JSON's.
fn judged(args: &[&str]) -> [String; 3] {
    let run = |extra: &[&str]| {
        let mut all = args.to_vec();
        all.extend(extra);
        bin(&all)
    };
    let (en, es, json_out) = (run(&[]), run(&["--lang", "es"]), run(&["--json"]));
    let en_text = stdout(&en);
    let (label, en_status) = status(&en_text);
    assert_eq!(label, "verdict", "{args:?}: the verdict leads\n{en_text}");
    let es_text = stdout(&es);
    let (label, es_status) = status(&es_text);
    assert_eq!(label, "veredicto", "{args:?}: the verdict leads\n{es_text}");
    let spanish = match es_status {
        "PASA" => "PASS",
        "FALLA" => "FAIL",
        "INCIERTO" => "UNKNOWN",
        other => panic!("{args:?}: {other} is no Spanish status"),
    };
    assert_eq!(
        spanish, en_status,
        "{args:?}: the same verdict in both languages"
    );
    let v = json(&json_out);
    let data = v["verdict"]["status"].as_str().unwrap().to_uppercase();
    [en_status.to_string(), spanish.to_string(), data]
}

#[test]
fn the_issues_examples_fail_in_text_and_json_in_both_languages() {
    let dir = tempfile::tempdir().unwrap();
    let outbox = write(dir.path(), "outbox.json", OUTBOX_TIMEOUT);
    for args in [
        vec![
            "explore",
            "scenarios/log-partitioned-by-event-id-out-of-order.json",
            "--interleavings",
        ],
        vec![
            "explore",
            "scenarios/autocommit-read-modify-write-lost-update.json",
            "--interleavings",
        ],
        vec![
            "explore",
            "scenarios/inbox-lifecycle-completion-delay-stalled-creation.json",
        ],
        vec!["run", outbox.as_str()],
    ] {
        assert_eq!(judged(&args), ["FAIL", "FAIL", "FAIL"], "{args:?}");
    }
    // A guarantee word never leads: the lost update is exactly-once per event, and FAIL.
    let text = stdout(&bin(&[
        "explore",
        "scenarios/autocommit-read-modify-write-lost-update.json",
        "--interleavings",
    ]));
    assert!(
        text.starts_with("verdict    FAIL  exactly-once (ledger per event, all 62 interleavings): 38 of 62 runs broke conservation or an invariant\n"),
        "{text}"
    );
}

#[test]
fn every_command_that_judges_leads_with_the_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let two = r#"{"name": "two", "protocol": "inbox", "consumers": 2, "workload": {"events": 2}}"#;
    let two = write(dir.path(), "two.json", two);
    for (args, want) in [
        (vec!["run", "--protocol", "inbox"], "PASS"),
        (
            vec![
                "run",
                "scenarios/no-dedup-crash-between-commit-and-ack.json",
            ],
            "FAIL",
        ),
        (vec!["explore", "--protocol", "inbox"], "PASS"),
        (vec!["explore", "--protocol", "ack-first"], "FAIL"),
        (
            vec![
                "explore",
                "scenarios/inbox-broker-duplicate-two-consumers.json",
                "--interleavings",
                "--max-preemptions",
                "1",
            ],
            "PASS",
        ),
        // Nothing broke in what was run, and a limit stopped the enumeration.
        (
            vec![
                "explore",
                two.as_str(),
                "--interleavings",
                "--max-interleavings",
                "3",
            ],
            "UNKNOWN",
        ),
        (
            vec![
                "explore",
                "scenarios/inbox-retention-ttl-shorter-than-window.json",
                "--smallest-safe-ttl",
            ],
            "PASS",
        ),
        (vec!["matrix", "--events", "1", "--depth", "1"], "FAIL"),
        (
            vec!["crosscheck", "--protocol", "inbox", "--events", "1"],
            "PASS",
        ),
        (
            vec![
                "explain",
                "--protocol",
                "no-dedup",
                "--crash",
                "after:commit e0 d1",
            ],
            "FAIL",
        ),
    ] {
        assert_eq!(judged(&args), [want; 3], "{args:?}");
    }
}
