//! Bad input exits 2 with one clear paragraph, never a panic.

use super::support::*;

/// Runs `run FILE` on each file of `tests/bad/` and checks the exit code and that the
/// message names the file and contains the words the file's name promises.
fn check(file: &str, words: &[&str]) {
    for cmd in ["run", "explore"] {
        let o = bin(&[cmd, file]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{cmd} {file}: {err}");
        assert!(o.stdout.is_empty(), "{file}: nothing on stdout");
        assert!(err.starts_with("error: invalid scenario "), "{err}");
        assert!(err.contains(file), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "one paragraph: {err}");
        for w in words {
            assert!(err.contains(w), "`{w}` missing from {err}");
        }
    }
}

#[test]
fn bad_json_names_line_and_column() {
    check(
        "tests/bad/bad-json.json",
        &["line 4, column 3", "trailing comma"],
    );
}

#[test]
fn an_unknown_field_is_named_with_its_path() {
    check(
        "tests/bad/unknown-field.json",
        &[
            "field `faults.crash[0].attempt`",
            "unknown field `attempt`",
            "delivery",
        ],
    );
}

#[test]
fn an_unknown_step_lists_the_steps() {
    check(
        "tests/bad/unknown-step.json",
        &[
            "field `protocol.steps[2]`",
            "unknown step `insert`",
            "insert_inbox",
        ],
    );
}

#[test]
fn commit_without_begin_is_rejected() {
    check(
        "tests/bad/commit-without-begin.json",
        &[
            "field `protocol.steps[2]`",
            "`commit` at 2 has no `begin` before it",
        ],
    );
}

#[test]
fn an_unknown_protocol_lists_the_built_ins() {
    check(
        "tests/bad/unknown-protocol.json",
        &[
            "field `protocol`",
            "unknown protocol `exactly-once`",
            "inbox-ack-first",
        ],
    );
}

#[test]
fn a_wrong_type_is_named() {
    check(
        "tests/bad/wrong-type.json",
        &["field `workload.events`", "invalid type: string \"ten\""],
    );
}

#[test]
fn an_impossible_value_is_named_with_its_bounds() {
    check(
        "tests/bad/impossible-value.json",
        &[
            "field `workload.events`",
            "1000000 is out of range; allowed: 1 to 10000",
        ],
    );
}

#[test]
fn a_missing_file_is_named() {
    check("tests/bad/does-not-exist.json", &["cannot read the file"]);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["run"],
        vec!["frobnicate"],
        vec!["run", "--protocol", "nope"],
        vec!["run", "--protocol", "inbox", "--crash", "after:commit"],
        vec![
            "run",
            "--protocol",
            "inbox",
            "--crash",
            "after:check_inbox e0 d1",
        ],
        vec![
            "run",
            "--protocol",
            "inbox",
            "--events",
            "3",
            "--crash",
            "after:commit e3 d1",
        ],
        vec!["matrix", "--events", "0"],
        vec![
            "run",
            "scenarios/inbox-crash-before-commit.json",
            "--seed",
            "-1",
        ],
    ] {
        let o = bin(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}");
    }
}

#[test]
fn a_producer_step_in_a_consumer_protocol_says_whose_step_it_is() {
    check(
        "tests/bad/producer-step-in-protocol.json",
        &["field `protocol.steps[4]`", "`publish`", "producer"],
    );
}

#[test]
fn an_unknown_producer_mode_lists_the_modes() {
    check(
        "tests/bad/unknown-producer-mode.json",
        &["field `producer.mode`", "two_phase_commit", "outbox"],
    );
}

#[test]
fn a_crash_at_a_step_no_actor_runs_is_rejected() {
    check(
        "tests/bad/crash-at-a-producer-step-without-producer.json",
        &["field `faults.crash[0].at`", "relay", "producer.mode"],
    );
}

#[test]
fn a_transactional_broker_needs_an_output() {
    check(
        "tests/bad/transactional-broker-without-output.json",
        &["field `broker.transactional`", "produce_output"],
    );
}

#[test]
fn an_email_outbox_row_outside_the_transaction_is_rejected() {
    check(
        "tests/bad/email-outside-transaction.json",
        &["field `protocol.steps[5]`", "inside the transaction"],
    );
}
