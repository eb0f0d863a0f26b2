//! Data-driven tests of scenario parsing as the command line words a refusal: each bad
//! input names its field and says what is allowed.

use crate::scenario::*;

/// The English the command line prints for `e` (worded at the edge, `report::lang`).
pub(crate) fn en(e: &ScenarioError) -> String {
    super::scenario_error(e, crate::lang::Lang::En)
}

fn parse(json: &str) -> Result<Scenario, ScenarioError> {
    Scenario::from_json(json, "test.json")
}

/// Asserts that `json` is rejected, at `field`, with a message containing every one of
/// `words`.
fn check_err(json: &str, field: &str, words: &[&str]) {
    let e = parse(json).expect_err(json);
    assert_eq!(e.field.as_deref(), Some(field), "{e:?}");
    let text = en(&e);
    assert!(text.starts_with("invalid scenario test.json"), "{text}");
    for w in words {
        assert!(text.contains(w), "`{w}` missing from: {text}");
    }
}

#[test]
fn a_custom_protocol_is_accepted() {
    let s = parse(
        r#"{"protocol": {"name": "mine", "steps": ["receive", "begin", "apply_effect", "commit", "ack"]}}"#,
    )
    .unwrap();
    assert_eq!(s.protocol.name, "mine");
    assert_eq!(s.protocol.steps.len(), 5);
}

#[test]
fn malformed_json_names_line_and_column() {
    let e = parse("{\n  \"protocol\": \"inbox\",\n}").unwrap_err();
    assert_eq!(e.location, Some((3, 1)));
    assert!(en(&e).contains("line 3, column 1"), "{e:?}");
}

#[test]
fn bad_fields_name_their_path_and_what_is_allowed() {
    check_err(r#"{}"#, ".", &["missing field `protocol`"]);
    check_err(
        r#"{"protocol": "inbox", "sede": 1}"#,
        "sede",
        &["unknown field `sede`", "seed"],
    );
    check_err(
        r#"{"protocol": "inbox", "workload": {"event": 3}}"#,
        "workload.event",
        &["unknown field `event`", "events"],
    );
    // A field renamed since: the error says what it is called now, and that it is inverted.
    check_err(
        r#"{"protocol": "inbox", "expect": {"interleavings": {"complete": true}}}"#,
        "expect.interleavings.complete",
        &[
            "unknown field `complete`",
            "it is now `truncated`, its opposite",
            "`\"complete\": true` is `\"truncated\": false`",
        ],
    );
    check_err(
        r#"{"protocol": "inbox", "seed": "seven"}"#,
        "seed",
        &["invalid type", "u64"],
    );
    check_err(
        r#"{"protocol": "inbox", "seed": -1}"#,
        "seed",
        &["invalid value"],
    );
    check_err(
        r#"{"protocol": "inboxx"}"#,
        "protocol",
        &["unknown protocol `inboxx`", "ack-first", "inbox-ack-first"],
    );
    check_err(
        r#"{"protocol": 3}"#,
        "protocol",
        &["built-in protocol name"],
    );
    check_err(
        r#"{"protocol": {"name": "p", "step": []}}"#,
        "protocol.step",
        &["unknown field `step`"],
    );
    check_err(
        r#"{"protocol": {"name": "p", "steps": ["receive", "apply_efect"]}}"#,
        "protocol.steps[1]",
        &["unknown step `apply_efect`", "apply_effect"],
    );
    check_err(
        r#"{"protocol": {"name": "p", "steps": ["receive", "apply_effect", "commit"]}}"#,
        "protocol.steps[2]",
        &["`commit` at 2 has no `begin`"],
    );
    check_err(
        r#"{"protocol": {"name": "p", "steps": ["begin", "receive"]}}"#,
        "protocol.steps[0]",
        &["first step must be `receive`"],
    );
    check_err(
        r#"{"protocol": "inbox", "expect": {"guarantee": "exactly_once"}}"#,
        "expect.guarantee",
        &["unknown variant `exactly_once`", "exactly-once"],
    );
}

#[test]
fn impossible_values_are_rejected_with_their_bounds() {
    check_err(
        r#"{"protocol": "inbox", "workload": {"events": 0}}"#,
        "workload.events",
        &["0 is out of range", "1 to 10000"],
    );
    check_err(
        r#"{"protocol": "inbox", "workload": {"accounts": 1}}"#,
        "workload.accounts",
        &["2 to"],
    );
    check_err(
        r#"{"protocol": "inbox", "workload": {"events": 3, "republish": [3]}}"#,
        "workload.republish[0]",
        &["event 3 does not exist", "0 to 2"],
    );
    check_err(
        r#"{"protocol": "inbox", "faults": {"crash": [{"at": "after:comit"}]}}"#,
        "faults.crash[0].at",
        &["unknown step `comit`"],
    );
    check_err(
        r#"{"protocol": "inbox", "faults": {"crash": [{"at": "commit"}]}}"#,
        "faults.crash[0].at",
        &["before:STEP"],
    );
    check_err(
        r#"{"protocol": "inbox", "faults": {"crash": [{"at": "after:check_inbox"}]}}"#,
        "faults.crash[0].at",
        &["has no step `check_inbox`", "receive → begin"],
    );
    check_err(
        r#"{"protocol": "inbox", "faults": {"crash": [{"at": "after:ack", "delivery": 0}]}}"#,
        "faults.crash[0].delivery",
        &["start at 1"],
    );
    check_err(
        r#"{"protocol": "inbox", "faults": {"crash": [{"at": "after:ack", "event": 1, "copy": 1}]}}"#,
        "faults.crash[0].copy",
        &["copy 1 is never published"],
    );
    check_err(
        r#"{"protocol": "inbox", "faults": {"random_crash": {"per_step_ppm": 1000001, "max_crashes": 1}}}"#,
        "faults.random_crash.per_step_ppm",
        &["0 to 1000000"],
    );
    check_err(
        r#"{"protocol": "inbox", "faults": {"fail": [{"at": "receive"}]}}"#,
        "faults.fail[0].at",
        &["`receive` cannot fail"],
    );
    check_err(
        r#"{"protocol": "inbox", "faults": {"fail": [{"at": "apply_effect", "times": 0}]}}"#,
        "faults.fail[0].times",
        &["1 to 1000"],
    );
    check_err(
        r#"{"protocol": "inbox", "limits": {"max_steps": 0}}"#,
        "limits.max_steps",
        &["out of range"],
    );
    check_err(
        r#"{"protocol": "inbox", "expect": {"lost": 4}}"#,
        "expect.lost",
        &["0 to 3"],
    );
    check_err(
        r#"{"protocol": "inbox", "consumers": 9}"#,
        "consumers",
        &["9 is out of range; allowed: 1 to 8"],
    );
    check_err(
        r#"{"protocol": "inbox", "broker": {"lease_ticks": 0}}"#,
        "broker.lease_ticks",
        &["allowed: 1 to"],
    );
    check_err(
        r#"{"protocol": "inbox", "broker": {"stale_ack": "maybe"}}"#,
        "broker.stale_ack",
        &["unknown variant `maybe`", "accept"],
    );
    check_err(
        r#"{"protocol": "inbox", "faults": {"stall": [{"at": "before:ack", "ticks": 0}]}}"#,
        "faults.stall[0].ticks",
        &["allowed: 1 to"],
    );
    // The relay runs (the producer writes an outbox): the refusal says stalls hold consumer
    // steps, not that the relay does not run.
    check_err(
        r#"{"protocol": "inbox", "producer": {"mode": "outbox"},
            "faults": {"stall": [{"at": "before:relay_publish", "ticks": 3}]}}"#,
        "faults.stall[0].at",
        &[
            "only consumer steps can be stalled",
            "`relay_publish` is the relay's",
        ],
    );
    check_err(
        r#"{"protocol": "inbox", "faults": {"lose_ack": [{"event": 5}]}}"#,
        "faults.lose_ack[0].event",
        &["event 5 does not exist"],
    );
    check_err(
        r#"{"protocol": "inbox", "broker": {"partitions": 2}}"#,
        "broker.partitions",
        &["applies to `\"kind\": \"log\"` brokers only"],
    );
    check_err(
        r#"{"protocol": "inbox", "broker": {"kind": "log", "lease_ticks": 5}}"#,
        "broker.lease_ticks",
        &["applies to queue brokers only"],
    );
    check_err(
        r#"{"protocol": "inbox", "broker": {"kind": "log", "key": "customer"}}"#,
        "broker.key",
        &["unknown variant `customer`", "transfer_id"],
    );
    check_err(
        r#"{"protocol": "inbox", "workload": {"events": 3, "lifecycle": true}}"#,
        "workload.events",
        &["3 is odd"],
    );
    check_err(
        r#"{"protocol": "inbox", "expect": {"interleavings": {"runs": 1, "breaking": 0}}}"#,
        "expect.interleavings.breaking",
        &["unknown field `breaking`", "breaking_runs"],
    );
}

#[test]
fn retention_options_are_bounded_and_checked_together() {
    check_err(
        r#"{"protocol": "inbox", "store": {"cleanup_every_ticks": 5}}"#,
        "store.cleanup_every_ticks",
        &["only with `store.inbox_ttl_ticks`"],
    );
    check_err(
        r#"{"protocol": "inbox", "store": {"cleanup_batch": 5}}"#,
        "store.cleanup_batch",
        &["only with `store.inbox_ttl_ticks`"],
    );
    check_err(
        r#"{"protocol": "inbox", "store": {"inbox_ttl_ticks": 1000001}}"#,
        "store.inbox_ttl_ticks",
        &["allowed: 0 to 1000000"],
    );
    check_err(
        r#"{"protocol": "inbox", "store": {"inbox_ttl_ticks": 5, "cleanup_every_ticks": 0}}"#,
        "store.cleanup_every_ticks",
        &["allowed: 1 to"],
    );
    check_err(
        r#"{"protocol": "inbox", "store": {"inbox_ttl_ticks": 5, "cleanup_batch": 10001}}"#,
        "store.cleanup_batch",
        &["allowed: 1 to 10000"],
    );
}

#[test]
fn late_redelivery_out_of_order_and_pending_options_are_bounded_and_checked_together() {
    check_err(
        r#"{"protocol": "inbox", "broker": {"late_redelivery_ticks": 0}}"#,
        "broker.late_redelivery_ticks",
        &["allowed: 1 to"],
    );
    check_err(
        r#"{"protocol": "inbox", "broker": {"kind": "log", "late_redelivery_ticks": 5}}"#,
        "broker.late_redelivery_ticks",
        &["applies to queue brokers only"],
    );
    check_err(
        r#"{"protocol": "inbox", "store": {"out_of_order": "buffer"}}"#,
        "store.out_of_order",
        &["lifecycle workload only"],
    );
    check_err(
        r#"{"protocol": "inbox", "workload": {"events": 2, "lifecycle": true},
            "store": {"out_of_order": "wait"}}"#,
        "store.out_of_order",
        &["unknown variant `wait`", "buffer"],
    );
    check_err(
        r#"{"protocol": "inbox", "consumer": {"completion_delay_ticks": 5}}"#,
        "consumer.completion_delay_ticks",
        &["lifecycle workload only"],
    );
    check_err(
        r#"{"protocol": "inbox", "workload": {"events": 2, "lifecycle": true},
            "consumer": {"completion_delay_ticks": 1000001}}"#,
        "consumer.completion_delay_ticks",
        &["allowed: 0 to 1000000"],
    );
    check_err(
        r#"{"protocol": "inbox", "expect": {"pending": 4}}"#,
        "expect.pending",
        &["0 to 3"],
    );
    check_err(
        r#"{"protocol": "inbox", "expect": {"smallest_safe_ttl": {"tick": 5}}}"#,
        "expect.smallest_safe_ttl.tick",
        &["unknown field `tick`", "ticks"],
    );
}

#[test]
fn a_missing_file_names_the_file() {
    let e = Scenario::from_file(std::path::Path::new("no/such/file.json")).unwrap_err();
    let text = en(&e);
    assert!(
        text.contains("no/such/file.json") && text.contains("cannot read"),
        "{text}"
    );
}

#[test]
fn workload_events_are_deterministic_and_move_money_between_distinct_accounts() {
    let w = Workload {
        events: 50,
        accounts: 2,
        ..Workload::default()
    };
    let a = w.events(9);
    assert_eq!(a, w.events(9));
    assert_ne!(a[0].event_id, w.events(10)[0].event_id);
    for e in &a {
        assert_ne!(e.source, e.target);
        assert!(["acc_00001", "acc_00002"].contains(&e.source.as_str()));
    }
    let ids: std::collections::BTreeSet<_> = a.iter().map(|e| &e.event_id).collect();
    assert_eq!(ids.len(), 50, "event ids are unique");
}

#[test]
fn payload_mismatch_commit_timeout_and_dead_letter_replay_options_parse() {
    let s = parse(
        r#"{
          "protocol": "inbox",
          "workload": { "events": 3, "republish_altered": [1, 1] },
          "consumer": { "on_commit_timeout": "lookup" },
          "broker": { "max_deliveries": 3, "replay_dead_letters_at_tick": 100 },
          "faults": {
            "commit_timeout": [ { "event": 0, "applied": true }, { "delivery": 2, "applied": false } ],
            "fail": [ { "at": "ack", "event": 1, "until_tick": 60 } ],
            "crash": [ { "at": "before:ack", "event": 1, "copy": 2 } ]
          },
          "expect": { "payload_alerts": 2 }
        }"#,
    )
    .unwrap();
    assert_eq!(s.workload.republish_altered, vec![1, 1]);
    assert_eq!(
        s.consumer.on_commit_timeout,
        crate::consumer::CommitTimeoutStrategy::Lookup
    );
    assert_eq!(s.broker.replay_dead_letters_at_tick, Some(100));
    assert_eq!(s.faults.commit_timeout.len(), 2);
    assert!(s.faults.commit_timeout[0].applied);
    assert_eq!(s.faults.commit_timeout[1].delivery, Some(2));
    assert_eq!(s.faults.fail[0].until_tick, Some(60));
    assert_eq!(s.expect.unwrap().payload_alerts, Some(2));
    let d = parse(r#"{"protocol": "inbox"}"#).unwrap();
    assert_eq!(
        d.consumer.on_commit_timeout,
        crate::consumer::CommitTimeoutStrategy::Retry,
        "retry is the default"
    );
}

#[test]
fn bad_payload_mismatch_commit_timeout_and_dead_letter_options_say_why() {
    check_err(
        r#"{"protocol": "inbox", "workload": {"events": 3, "republish_altered": [3]}}"#,
        "workload.republish_altered[0]",
        &["event 3 does not exist", "0 to 2"],
    );
    check_err(
        r#"{"protocol": "inbox", "workload": {"republish_altered": [1]}, "expect": {"payload_alerts": 2}}"#,
        "expect.payload_alerts",
        &["2 is out of range", "0 to 1"],
    );
    check_err(
        r#"{"protocol": "inbox", "consumer": {"on_commit_timeout": "hope"}}"#,
        "consumer.on_commit_timeout",
        &["unknown variant `hope`", "retry", "abandon", "lookup"],
    );
    check_err(
        r#"{"protocol": "inbox", "faults": {"commit_timeout": [{"event": 0}]}}"#,
        "faults.commit_timeout[0]",
        &["missing field `applied`"],
    );
    check_err(
        r#"{"protocol": "ack-first", "faults": {"commit_timeout": [{"event": 7, "applied": true}]}}"#,
        "faults.commit_timeout[0].event",
        &["event 7 does not exist"],
    );
    check_err(
        r#"{"protocol": {"name": "p", "steps": ["receive", "apply_effect", "ack"]},
            "faults": {"commit_timeout": [{"applied": true}]}}"#,
        "faults.commit_timeout[0]",
        &["has no step `commit`", "no commit can time out"],
    );
    check_err(
        r#"{"protocol": "inbox", "faults": {"fail": [{"at": "ack", "times": 2, "until_tick": 9}]}}"#,
        "faults.fail[0].until_tick",
        &["`times`", "`until_tick`", "not both"],
    );
    check_err(
        r#"{"protocol": "inbox", "faults": {"fail": [{"at": "ack", "until_tick": 0}]}}"#,
        "faults.fail[0].until_tick",
        &["allowed: 1 to"],
    );
    check_err(
        r#"{"protocol": "inbox", "broker": {"replay_dead_letters_at_tick": 100}}"#,
        "broker.replay_dead_letters_at_tick",
        &["without `broker.max_deliveries`"],
    );
    check_err(
        r#"{"protocol": "inbox", "broker": {"max_deliveries": 2, "replay_dead_letters_at_tick": 500},
            "limits": {"max_ticks": 400}}"#,
        "broker.replay_dead_letters_at_tick",
        &["not before the run's tick limit", "400"],
    );
    check_err(
        r#"{"protocol": "inbox", "broker": {"kind": "log", "replay_dead_letters_at_tick": 5}}"#,
        "broker.replay_dead_letters_at_tick",
        &["applies to queue brokers only"],
    );
}

#[test]
fn amounts_that_could_overflow_a_balance_are_refused_and_those_that_cannot_are_accepted() {
    // The k-th altered copy carries k + 1 times the amount: 10,000 copies of one event make
    // a payload of 10,001 times it (this panicked in the store, SQLite had made it a REAL).
    let altered = vec!["0"; 10_000].join(", ");
    check_err(
        &format!(
            r#"{{"protocol": "no-dedup", "workload": {{"events": 1,
                "amount_minor": 1000000000000, "republish_altered": [{altered}]}}}}"#
        ),
        "workload.republish_altered",
        &["altered 10000 times", "10001000000000000"],
    );
    check_err(
        r#"{"protocol": "no-dedup", "workload": {"amount_minor": 1000000000000},
            "limits": {"max_steps": 10000000}}"#,
        "limits.max_steps",
        &["64-bit range"],
    );
    assert!(parse(
        r#"{"protocol": "no-dedup", "workload": {"amount_minor": 1000000000000},
            "limits": {"max_steps": 4000000}}"#
    )
    .is_ok());
}

#[test]
fn options_that_could_do_nothing_in_their_setting_are_refused_naming_them() {
    // Found by the schema walk (tests/it/fields.rs): each was accepted and had no effect.
    check_err(
        r#"{"protocol": "inbox", "producer": {"mode": "outbox"},
            "workload": {"republish_altered": [0]}}"#,
        "workload.republish_altered",
        &["`direct` producer only"],
    );
    check_err(
        r#"{"protocol": "inbox", "producer": {"mode": "commit_then_publish"},
            "workload": {"events": 4, "lifecycle": true}}"#,
        "workload.lifecycle",
        &["never be published"],
    );
    check_err(
        r#"{"protocol": "inbox", "broker": {"kind": "log", "redelivery_delay_ticks": 3}}"#,
        "broker.redelivery_delay_ticks",
        &["queue brokers only"],
    );
    check_err(
        r#"{"protocol": "inbox", "workload": {"events": 4, "lifecycle": true},
            "broker": {"kind": "log"}, "store": {"out_of_order": "buffer"}}"#,
        "store.out_of_order",
        &["in order on one partition"],
    );
    assert!(parse(
        r#"{"protocol": "inbox", "workload": {"events": 4, "lifecycle": true},
            "broker": {"kind": "log", "partitions": 2, "key": "event_id"},
            "store": {"out_of_order": "buffer"}}"#
    )
    .is_ok());
    check_err(
        r#"{"protocol": "no-dedup", "store": {"inbox_unique": false}}"#,
        "store.inbox_unique",
        &["has none"],
    );
    check_err(
        r#"{"protocol": "ack-first", "store": {"inbox_ttl_ticks": 5}}"#,
        "store.inbox_ttl_ticks",
        &["has none"],
    );
}
