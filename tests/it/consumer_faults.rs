//! The consumer-side faults of issue 5 through the real binary: a copy with a known
//! `event_id` and another payload (alerted, in text and JSON), a commit whose answer is lost
//! (each strategy's outcome, and crash points around the retry), and poison messages with
//! a dead-letter replay (dead-lettered as its own outcome, replayed once with the inbox).

use super::support::*;
use serde_json::Value;

fn anomalies_of_kind<'a>(run: &'a Value, kind: &str) -> Vec<&'a Value> {
    run["anomalies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["kind"] == kind)
        .collect()
}

#[test]
fn a_payload_mismatch_is_an_alert_with_both_payloads_in_text_and_json() {
    let file = "scenarios/inbox-payload-mismatch-alert.json";
    let out = json(&bin(&["run", file, "--json"]));
    assert_eq!(out["payload_alerts"], 1);
    assert_eq!(out["duplicated"], 0);
    let alerts = anomalies_of_kind(&out, "payload_mismatch");
    assert_eq!(alerts.len(), 1);
    let (stored, received) = (
        alerts[0]["stored_payload"].as_str().unwrap(),
        alerts[0]["received_payload"].as_str().unwrap(),
    );
    assert!(stored.contains("\"amount_minor\":10000"), "{stored}");
    assert!(received.contains("\"amount_minor\":20000"), "{received}");
    let e1 = &out["event_reports"][1];
    assert_eq!(e1["duplicates_discarded"], 0, "an alert is not a duplicate");
    assert_eq!(e1["payload_alerts"].as_array().unwrap().len(), 1);
    assert_eq!(
        e1["amounts_minor"],
        serde_json::json!([10000]),
        "not applied"
    );

    let text = stdout(&bin(&["run", file]));
    assert!(text.contains("alerts     1 payload alert(s)"), "{text}");
    assert!(
        text.contains("PAYLOAD MISMATCH: the same event_id arrived"),
        "{text}"
    );
    assert!(
        text.contains("stored {") && text.contains("received {"),
        "{text}"
    );
    assert!(text.contains("1 with another payload"), "{text}");
}

#[test]
fn a_redelivered_corrupt_copy_does_not_record_a_second_alert() {
    let file = "scenarios/inbox-payload-mismatch-redelivered-one-alert.json";
    let out = json(&bin(&["run", file, "--json"]));
    assert_eq!(out["crashes"].as_array().unwrap().len(), 1);
    assert_eq!(out["payload_alerts"], 1);
    let trace = stdout(&bin(&["run", file, "--trace"]));
    assert!(
        trace.contains("UNIQUE constraint failed: this payload was alerted before"),
        "{trace}"
    );
}

#[test]
fn without_an_inbox_the_altered_copy_is_applied_and_shown_with_both_amounts() {
    let file = "scenarios/no-dedup-payload-mismatch-applied.json";
    let out = json(&bin(&["run", file, "--json"]));
    assert_eq!(
        out["payload_alerts"], 0,
        "nothing compared, nothing alerted"
    );
    assert_eq!(out["conserved"], true);
    let dup = anomalies_of_kind(&out, "duplicated");
    assert_eq!(dup.len(), 1);
    assert!(
        dup[0]["detail"]
            .as_str()
            .unwrap()
            .contains("committed amounts 10000, 20000"),
        "{}",
        dup[0]
    );
    let text = stdout(&bin(&["run", file]));
    assert!(text.contains("DUPLICATED (amounts 10000, 20000)"), "{text}");
}

#[test]
fn every_exploration_of_the_mismatch_keeps_exactly_one_alert() {
    let out = json(&bin(&[
        "explore",
        "scenarios/inbox-payload-mismatch-alert.json",
        "--json",
    ]));
    let runs = out["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 45);
    for r in runs {
        assert_eq!(r["payload_alerts"], 1, "{}", r["replay"]);
    }
}

#[test]
fn commit_timeout_strategies_lose_or_duplicate_as_documented() {
    // (scenario, lost, duplicated): event 0's commit happened, event 1's did not.
    for (file, lost, duplicated) in [
        ("inbox-commit-timeout-retry", 0, 0),
        ("inbox-commit-timeout-lookup", 0, 0),
        ("inbox-commit-timeout-abandon-loses", 1, 0),
        ("no-dedup-commit-timeout-retry-duplicates", 0, 1),
        ("no-dedup-commit-timeout-lookup-finds-nothing", 0, 1),
    ] {
        let out = json(&bin(&["run", &format!("scenarios/{file}.json"), "--json"]));
        assert_eq!(
            (
                out["lost"].as_u64().unwrap(),
                out["duplicated"].as_u64().unwrap()
            ),
            (lost, duplicated),
            "{file}"
        );
        let events = out["event_reports"].as_array().unwrap();
        if lost > 0 {
            assert_eq!(
                events[1]["outcome"], "lost",
                "{file}: the commit that did not happen"
            );
        }
        if duplicated > 0 {
            assert_eq!(
                events[0]["outcome"], "duplicated",
                "{file}: the commit that did happen"
            );
        }
    }
}

#[test]
fn a_crash_around_a_commit_timeout_replays_to_the_same_run() {
    let file = "scenarios/inbox-commit-timeout-abandon-loses.json";
    let out = json(&bin(&["explore", file, "--json"]));
    let runs = out["runs"].as_array().unwrap();
    let crashed_after_timeout = runs
        .iter()
        .find(|r| r["crash_points"][0] == "after:commit e1 d1")
        .expect("the instant right after the timeout is a crash point");
    // A crash right after the timeout, before abandoning: the redelivery applies it.
    assert_eq!(crashed_after_timeout["lost"], 0);
    let lost = runs
        .iter()
        .find(|r| {
            r["lost"].as_u64().unwrap() > 0 && !r["crash_points"].as_array().unwrap().is_empty()
        })
        .unwrap();
    let words = shell_words(lost["replay"].as_str().unwrap());
    let mut args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    args.push("--json");
    let replayed = json(&bin(&args));
    assert_eq!(replayed["trace_hash"], lost["trace_hash"]);
}

#[test]
fn a_retry_after_a_commit_timeout_adds_no_crash_point_twice() {
    let out = json(&bin(&[
        "explore",
        "scenarios/inbox-commit-timeout-retry.json",
        "--depth",
        "2",
        "--json",
    ]));
    let runs = out["runs"].as_array().unwrap();
    let mut schedules: Vec<String> = runs.iter().map(|r| r["crash_points"].to_string()).collect();
    let all = schedules.len();
    schedules.sort();
    schedules.dedup();
    assert_eq!(schedules.len(), all, "every schedule explored once");
    assert_eq!(out["summary"]["duplicated_runs"], 0);
    assert_eq!(out["summary"]["lost_runs"], 0);
}

#[test]
fn a_poison_message_is_dead_lettered_and_counted_as_lost_in_text_and_json() {
    // Parked for a person, not a silent loss; but nothing in the run replays the queue, so
    // on that effect the inbox is only at-most-once.
    let file = "scenarios/inbox-poison-dead-lettered.json";
    let out = json(&bin(&["run", file, "--json"]));
    assert_eq!(out["lost"], 1);
    assert_eq!(out["dead_lettered"], 1);
    assert_eq!(out["guarantee"], "at-most-once");
    assert_eq!(out["event_reports"][1]["outcome"], "dead_lettered");
    assert_eq!(anomalies_of_kind(&out, "dead_lettered").len(), 1);
    assert!(
        anomalies_of_kind(&out, "lost").is_empty(),
        "reported as dead-lettered"
    );
    let text = stdout(&bin(&["run", file]));
    assert!(
        text.contains(
            "1 dead-lettered (counted as lost: replaying the dead-letter queue would recover \
             them, and this scenario does not)"
        ),
        "{text}"
    );
    assert!(
        text.contains("DEAD-LETTERED: no effect committed; dead-lettered after 3 deliveries"),
        "{text}"
    );
}

#[test]
fn a_dead_letter_replay_after_the_fix_is_once_with_the_inbox_and_duplicates_without() {
    for (file, outcome, effects) in [
        ("inbox-poison-fixed-dead-letter-replay", "once", 1),
        ("inbox-ack-fails-dead-letter-replay-absorbed", "once", 1),
        (
            "no-dedup-ack-fails-dead-letter-replay-duplicates",
            "duplicated",
            3,
        ),
    ] {
        let out = json(&bin(&["run", &format!("scenarios/{file}.json"), "--json"]));
        let e1 = &out["event_reports"][1];
        assert_eq!(e1["outcome"], outcome, "{file}");
        assert_eq!(e1["effects"], effects, "{file}");
        assert_eq!(e1["dead_letter_replays"], 1, "{file}");
        assert_eq!(e1["acked"], true, "{file}");
        assert_eq!(
            out["dead_lettered"], 0,
            "{file}: nothing left in the dead-letter queue"
        );
    }
    let trace = stdout(&bin(&[
        "run",
        "scenarios/inbox-ack-fails-dead-letter-replay-absorbed.json",
        "--trace",
    ]));
    assert!(
        trace.contains("parked until the dead-letter queue is replayed"),
        "{trace}"
    );
    assert!(
        trace.contains("back from the dead-letter queue, same event_id"),
        "{trace}"
    );
    assert!(
        trace.contains("e1 d3"),
        "attempts are numbered on after the replay: {trace}"
    );
}

/// End to end: the checker names what lost the event: the policy's dead letter (not
/// the broker's `max_deliveries`), and the failure it gave up on.
#[test]
fn a_run_names_the_policy_that_dead_lettered_an_event() {
    use delivery_sim::check::UnackedReason;
    use delivery_sim::model::{GiveUp, Step};
    let s = delivery_sim::Scenario::from_json(
        r#"{"protocol": {"name": "x", "steps": ["receive", "begin", "insert_inbox",
            "apply_effect", "commit", "ack"],
            "on_error": {"retry": {"times": 1}, "then": "dead_letter"}},
            "workload": {"events": 2},
            "faults": {"fail": [{"at": "apply_effect", "event": 1, "times": 2}]}}"#,
        "p.json",
    )
    .unwrap();
    let r = delivery_sim::run(&s);
    let e1 = &r.verdict.events[1];
    assert_eq!(r.verdict.dead_lettered, 1);
    assert!(
        matches!(
            e1.unacked_reason,
            Some(UnackedReason::DeadLetteredByPolicy { .. })
        ),
        "{:?}",
        e1.unacked_reason
    );
    let g = e1.gave_up.last().expect("named");
    assert_eq!(
        (g.step, g.nth, g.then),
        (Step::ApplyEffect, 2, GiveUp::DeadLetter)
    );
}

#[test]
fn explore_names_the_error_policy_that_lost_each_failing_run_s_event() {
    let file = "scenarios/policy-ack-on-exception-loses.json";
    let en = stdout(&bin(&["explore", file, "--depth", "1"]));
    assert!(
        en.contains(
            "(no crash) → e1 lost (`pay` failed (e1 d1) and was acked anyway (on_error: ack))"
        ),
        "{en}"
    );
    let es = stdout(&bin(&["explore", file, "--depth", "1", "--lang", "es"]));
    assert!(
        es.contains("e1 perdido (`pay` falló (e1 d1) y se confirmó igualmente"),
        "{es}"
    );
}
