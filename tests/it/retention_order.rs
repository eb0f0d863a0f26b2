//! Inbox retention and out-of-order lifecycles through the real binary: the smallest safe
//! TTL search and its evidence, the checker naming expired rows and pending completions,
//! and a sleep against a pending table under the same schedules.

use super::support::*;
use serde_json::Value;

fn spec(file: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join(file)).unwrap()).unwrap()
}

/// Runs a replay command as printed (`delivery-sim run …`), with `--json`.
fn replay(command: &str) -> Value {
    let words = shell_words(command);
    assert_eq!(words[0], "delivery-sim", "{command}");
    let mut args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    args.push("--json");
    json(&bin(&args))
}

#[test]
fn every_ttl_search_finds_what_its_scenario_pins_and_its_evidence_replays() {
    let mut checked = 0;
    for file in scenario_files() {
        let expect = &spec(&file)["expect"]["smallest_safe_ttl"];
        if expect.is_null() {
            continue;
        }
        let depth = expect["depth"].as_u64().unwrap_or(1).to_string();
        let o = bin(&[
            "explore",
            &file,
            "--smallest-safe-ttl",
            "--depth",
            &depth,
            "--json",
        ]);
        assert_eq!(o.status.code(), Some(0), "{file}: {}", stdout(&o));
        let out = json(&o);
        let ttl = out["smallest_safe_ttl_ticks"].as_u64().unwrap();
        assert_eq!(out["smallest_safe_ttl_ticks"], expect["ticks"], "{file}");
        assert_eq!(out["summary"]["runs"], expect["runs"], "{file}");
        assert_eq!(out["boundary_verified"], true, "{file}");
        assert_eq!(out["largest_unsafe_ttl_ticks"], ttl - 1, "{file}");
        assert_eq!(out["expect"]["held"], true, "{file}");
        let total: u64 = out["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["runs"].as_u64().unwrap())
            .sum();
        assert_eq!(
            out["summary"]["runs"], total,
            "{file}: the run count adds up"
        );
        // The evidence: the largest unsafe TTL's failing run replays to the same duplicate,
        // and the same run with the smallest safe TTL duplicates nothing.
        let command = out["replay"].as_str().unwrap();
        assert!(
            command.ends_with(&format!("--inbox-ttl-ticks {}", ttl - 1)),
            "{command}"
        );
        let unsafe_run = replay(command);
        let failing = out["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["ttl_ticks"] == ttl - 1)
            .unwrap()["failing"]
            .clone();
        assert_eq!(unsafe_run["trace_hash"], failing["trace_hash"], "{command}");
        assert!(unsafe_run["duplicated"].as_u64().unwrap() > 0);
        let safe_command = command.replace(
            &format!("--inbox-ttl-ticks {}", ttl - 1),
            &format!("--inbox-ttl-ticks {ttl}"),
        );
        assert_eq!(replay(&safe_command)["duplicated"], 0, "{safe_command}");
        checked += 1;
    }
    assert!(checked >= 2);
}

#[test]
fn crashes_raise_the_smallest_safe_ttl_above_the_crash_free_one() {
    let file = "scenarios/inbox-retention-ttl-covers-crashes.json";
    let search = |depth: &str| {
        json(&bin(&[
            "explore",
            file,
            "--smallest-safe-ttl",
            "--depth",
            depth,
            "--json",
        ]))["smallest_safe_ttl_ticks"]
            .as_u64()
            .unwrap()
    };
    let (without, with) = (search("0"), search("1"));
    let window = spec(file)["broker"]["late_redelivery_ticks"]
        .as_u64()
        .unwrap();
    assert!(
        window < without && without < with,
        "{window} < {without} < {with}"
    );
    // The scenario's own TTL sits between them for the scenario that covers the window
    // only, and above both for the one that covers crashes.
    let ttl = |f: &str| spec(f)["store"]["inbox_ttl_ticks"].as_u64().unwrap();
    let covers_window = ttl("scenarios/inbox-retention-ttl-covers-window.json");
    assert!(without <= covers_window && covers_window < with);
    assert!(ttl(file) >= with);
    assert!(ttl("scenarios/inbox-retention-ttl-shorter-than-window.json") < window);
}

#[test]
fn the_text_of_the_search_names_the_answer_and_the_evidence() {
    let o = bin(&[
        "explore",
        "scenarios/inbox-retention-ttl-shorter-than-window.json",
        "--smallest-safe-ttl",
        "--depth",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    for words in [
        "smallest   55 ticks = the 50-tick replay window + 5 ticks of lag",
        "unsafe     54 ticks: the scenario's own run duplicated",
        "delivery-sim run scenarios/inbox-retention-ttl-shorter-than-window.json --seed 7 --inbox-ttl-ticks 54",
        "boundary   verified: 54 unsafe, 55 safe",
        "expect     held",
    ] {
        assert!(out.contains(words), "`{words}` missing from:\n{out}");
    }
}

#[test]
fn the_search_needs_retention_and_refuses_interleavings() {
    let o = bin(&[
        "explore",
        "scenarios/inbox-crash-before-commit.json",
        "--smallest-safe-ttl",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("has no inbox retention"),
        "{}",
        stderr(&o)
    );
    let o = bin(&[
        "explore",
        "scenarios/inbox-retention-ttl-covers-window.json",
        "--smallest-safe-ttl",
        "--interleavings",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = bin(&[
        "run",
        "scenarios/inbox-retention-ttl-covers-window.json",
        "--inbox-ttl-ticks",
        "1000001",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("allowed: 0 to 1000000"));
}

#[test]
fn a_ttl_shorter_than_the_window_duplicates_and_the_checker_says_the_row_had_expired() {
    let file = "scenarios/inbox-retention-ttl-shorter-than-window.json";
    let out = json(&bin(&["run", file, "--json"]));
    assert_eq!(out["duplicated"], 8);
    assert!(out["inbox_rows_deleted"].as_u64().unwrap() > 0);
    for a in out["anomalies"].as_array().unwrap() {
        assert_eq!(a["kind"], "duplicated");
        assert!(
            a["detail"]
                .as_str()
                .unwrap()
                .contains("deleted by the retention job"),
            "{a}"
        );
    }
    let trace = stdout(&bin(&["run", file, "--trace"]));
    assert!(trace.contains("cleanup    delete expired"), "{trace}");
    assert!(trace.contains("broker     late replay"), "{trace}");
    // Overriding the TTL from the command line is the same as editing the file: the TTL
    // that covers the window absorbs every replay, and the job still deletes rows.
    let covered = json(&bin(&["run", file, "--inbox-ttl-ticks", "60", "--json"]));
    assert_eq!(covered["duplicated"], 0);
    assert!(covered["inbox_rows_deleted"].as_u64().unwrap() > 0);
    assert!(covered["replay"]
        .as_str()
        .unwrap()
        .ends_with("--inbox-ttl-ticks 60"));
}

#[test]
fn a_completion_left_pending_is_its_own_outcome_in_text_and_json() {
    let file = "scenarios/inbox-lifecycle-buffer-creation-dead-lettered.json";
    let out = json(&bin(&["run", file, "--json"]));
    // The completion is pending, not lost; its creation, dead-lettered and never
    // replayed, is the one lost event.
    assert_eq!(
        (
            out["pending"].as_u64(),
            out["lost"].as_u64(),
            out["dead_lettered"].as_u64()
        ),
        (Some(1), Some(1), Some(1))
    );
    assert_eq!(out["once"], 0, "pending is not once");
    let kinds: Vec<&str> = out["anomalies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["dead_lettered", "pending"]);
    assert_eq!(out["event_reports"][1]["outcome"], "pending");
    assert_eq!(out["event_reports"][1]["pending_rows"], 1);
    let text = stdout(&bin(&["run", file]));
    assert!(text.contains("1 still pending"), "{text}");
    assert!(text.contains("PENDING: a completion still waiting in pending_event"));
}

#[test]
fn a_sleep_is_a_slow_race_and_the_pending_table_is_not_a_race() {
    let interleave = |file: &str| {
        let out = json(&bin(&["explore", file, "--interleavings", "--json"]));
        assert_eq!(out["summary"]["truncated"], false, "{file}");
        (
            out["summary"]["runs"].as_u64().unwrap(),
            out["summary"]["rejected_runs"].as_u64().unwrap(),
        )
    };
    // Under the very same schedules: with the sleep alone, every interleaving rejects the
    // completion of the stalled creation; with the pending table, none does.
    let (runs, rejected) =
        interleave("scenarios/inbox-lifecycle-completion-delay-stalled-creation.json");
    assert!(runs > 1);
    assert_eq!(rejected, runs);
    assert_eq!(
        interleave("scenarios/inbox-lifecycle-buffer-stalled-creation.json"),
        (runs, 0)
    );
    // Without a stall the sleep hides the race from every interleaving…
    assert_eq!(
        interleave("scenarios/inbox-lifecycle-completion-delay-two-consumers.json").1,
        0
    );
    // …but a crash is a pause too, longer than the sleep.
    let x = json(&bin(&[
        "explore",
        "scenarios/inbox-lifecycle-completion-delay-two-consumers.json",
        "--json",
    ]));
    assert!(x["summary"]["rejected_runs"].as_u64().unwrap() > 0);
    // The pending table fixes the interleavings that reject without it.
    let (runs, rejected) = interleave("scenarios/inbox-lifecycle-two-consumers.json");
    assert!(rejected > 0);
    assert_eq!(
        interleave("scenarios/inbox-lifecycle-buffer-two-consumers.json"),
        (runs, 0)
    );
    let (runs, rejected) = interleave("scenarios/log-partitioned-by-event-id-out-of-order.json");
    assert_eq!(rejected, runs);
    assert_eq!(
        interleave("scenarios/log-partitioned-by-event-id-buffer.json"),
        (runs, 0)
    );
}

#[test]
fn with_one_consumer_a_sleep_changes_nothing_and_the_buffer_everything() {
    let rejected = |file: &str| json(&bin(&["run", file, "--json"]))["rejected"].clone();
    assert_eq!(
        rejected("scenarios/inbox-lifecycle-reordered-deliveries.json"),
        1
    );
    assert_eq!(
        rejected("scenarios/inbox-lifecycle-completion-delay-reordered-deliveries.json"),
        1
    );
    assert_eq!(
        rejected("scenarios/inbox-lifecycle-buffer-reordered-deliveries.json"),
        0
    );
    let trace = stdout(&bin(&[
        "run",
        "scenarios/inbox-lifecycle-completion-delay-reordered-deliveries.json",
        "--trace",
    ]));
    assert!(trace.contains("sleeps 5 ticks to give its TransferCreated time"));
    let trace = stdout(&bin(&[
        "run",
        "scenarios/inbox-lifecycle-buffer-reordered-deliveries.json",
        "--trace",
    ]));
    assert!(
        trace.contains("completion kept in pending_event"),
        "{trace}"
    );
    assert!(trace.contains("and the completion that waited in pending_event"));
}

#[test]
fn run_dir_checks_the_pinned_smallest_safe_ttl_and_says_when_it_is_wrong() {
    let dir = std::env::temp_dir().join(format!("delivery-sim-ttl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut s = spec("scenarios/inbox-retention-ttl-shorter-than-window.json");
    let file = dir.join("ttl.json");
    std::fs::write(&file, s.to_string()).unwrap();
    let out = json(&bin(&["run", dir.to_str().unwrap(), "--json"]));
    let checks = out["scenarios"][0]["checks"].as_array().unwrap();
    let ttl = checks
        .iter()
        .find(|c| c["name"] == "smallest safe TTL")
        .expect("the pinned search is one of the checks");
    assert_eq!(ttl["failures"].as_array().unwrap().len(), 0);
    // A wrong pin fails the folder (exit 1) and names what differed.
    s["expect"]["smallest_safe_ttl"]["ticks"] = 54.into();
    std::fs::write(&file, s.to_string()).unwrap();
    let o = bin(&["run", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("expected smallest_safe_ttl.ticks = 54, observed 55"),
        "{}",
        stdout(&o)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
