//! Hardening: a run stopped by a limit fails liveness and names its stuck events; every
//! bound is in README's "Limits" table; Ctrl-C during a sweep keeps every finding and
//! prints a resume command that loses and repeats nothing; runs leave no temporary files;
//! no field of a scenario is used as a path.

use super::support::*;
use delivery_sim::scenario::bounds;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

#[test]
fn a_run_stopped_by_the_step_or_tick_limit_fails_liveness_naming_the_stuck_events() {
    let dir = tempfile::tempdir().unwrap();
    let steps = write(
        dir.path(),
        "steps.json",
        r#"{"protocol": "inbox", "workload": {"events": 5}, "limits": {"max_steps": 6}}"#,
    );
    let o = bin(&["run", &steps]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(out.contains("stopped: STEP LIMIT REACHED"), "{out}");
    assert!(
        out.contains(
            "liveness: the step limit of the healing phase (limits.max_steps = 6) stopped the \
             run before it ended by itself; 3 event(s) unresolved, still held by the broker: \
             e2, e3, e4"
        ),
        "{out}"
    );
    // The JSON report carries it as a failed expectation, though the file states none.
    let j = json(&bin(&["run", &steps, "--json"]));
    assert_eq!(j["stop"], "step_limit");
    assert!(
        j["expect"]
            .to_string()
            .contains("unresolved, still held by the broker: e2, e3, e4"),
        "{j}"
    );

    // A consumer that never acks and a lease that keeps redelivering: only the tick limit
    // ends it.
    let ticks = write(
        dir.path(),
        "ticks.json",
        r#"{"protocol": {"name": "never-acks", "steps": ["receive", "apply_effect"]},
            "workload": {"events": 2}, "broker": {"lease_ticks": 10},
            "limits": {"max_ticks": 500}}"#,
    );
    let o = bin(&["run", &ticks]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("TICK LIMIT REACHED"), "{out}");
    assert!(
        out.contains("liveness: the tick limit of the healing phase (limits.max_ticks = 500)")
            && out.contains("2 event(s) unresolved, still held by the broker: e0, e1"),
        "{out}"
    );
    // The same scenarios with room to finish pass.
    let done = write(
        dir.path(),
        "done.json",
        r#"{"protocol": "inbox", "workload": {"events": 5}, "limits": {"max_steps": 1000}}"#,
    );
    assert_eq!(bin(&["run", &done]).status.code(), Some(0));
}

/// `10000` → `10,000`, as README writes numbers.
fn grouped(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn readme_lists_every_bound_with_its_value() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let table = readme
        .split("## Limits")
        .nth(1)
        .expect("README has a Limits section")
        .split("\n## ")
        .next()
        .unwrap();
    let bounds: [(&str, u128); 30] = [
        ("MAX_EVENTS", bounds::MAX_EVENTS.into()),
        ("MAX_ACCOUNTS", bounds::MAX_ACCOUNTS.into()),
        ("MAX_REPUBLISH", bounds::MAX_REPUBLISH as u128),
        ("MAX_DELAY_TICKS", bounds::MAX_DELAY_TICKS.into()),
        ("MAX_CRASHES", bounds::MAX_CRASHES.into()),
        ("MAX_DELIVERIES", bounds::MAX_DELIVERIES.into()),
        ("MAX_CONSUMERS", bounds::MAX_CONSUMERS as u128),
        ("MAX_FAIL_TIMES", bounds::MAX_FAIL_TIMES.into()),
        ("MAX_FAULT_SPECS", bounds::MAX_FAULT_SPECS as u128),
        ("MAX_STEPS", bounds::MAX_STEPS.into()),
        ("MAX_TICKS", bounds::MAX_TICKS.into()),
        ("MAX_AMOUNT_MINOR", bounds::MAX_AMOUNT_MINOR as u128),
        ("MAX_CLEANUP_BATCH", bounds::MAX_CLEANUP_BATCH.into()),
        ("MAX_SCENARIO_BYTES", bounds::MAX_SCENARIO_BYTES as u128),
        ("MAX_PARTITIONS", bounds::MAX_PARTITIONS.into()),
        ("MAX_PROTOCOL_STEPS", bounds::MAX_PROTOCOL_STEPS as u128),
        ("MAX_DEPTH", bounds::MAX_DEPTH as u128),
        ("MAX_PREEMPTIONS", bounds::MAX_PREEMPTIONS as u128),
        ("MAX_EXPLORE_STEPS", bounds::MAX_EXPLORE_STEPS),
        ("MAX_TRACE_ENTRIES", bounds::MAX_TRACE_ENTRIES as u128),
        ("MAX_SEEDS", delivery_sim::explore::sweep::MAX_SEEDS.into()),
        ("MAX_SQL_STATEMENTS", bounds::MAX_SQL_STATEMENTS as u128),
        ("MAX_SQL_BYTES", bounds::MAX_SQL_BYTES as u128),
        (
            "MAX_SCHEMA_STATEMENTS",
            bounds::MAX_SCHEMA_STATEMENTS as u128,
        ),
        ("MAX_PAYLOADS", bounds::MAX_PAYLOADS as u128),
        ("MAX_PAYLOAD_FIELDS", bounds::MAX_PAYLOAD_FIELDS as u128),
        ("MAX_SQL_VM_STEPS", bounds::MAX_SQL_VM_STEPS.into()),
        ("MAX_RUN_SQL_VM_STEPS", bounds::MAX_RUN_SQL_VM_STEPS.into()),
        (
            "MAX_SQL_STATEMENT_MEMORY_BYTES",
            bounds::MAX_SQL_STATEMENT_MEMORY_BYTES as u128,
        ),
        (
            "MAX_SQL_DATABASE_BYTES",
            bounds::MAX_SQL_DATABASE_BYTES as u128,
        ),
    ];
    for (name, value) in bounds {
        let row = table
            .lines()
            .find(|l| l.starts_with(&format!("| `{name}` |")))
            .unwrap_or_else(|| panic!("README's Limits table has no row for {name}"));
        assert!(
            row.contains(&format!("| {} |", grouped(value))),
            "README's row for {name} does not give {}: {row}",
            grouped(value)
        );
    }
}

/// Reads lines from `reader` into `lines` until one satisfies `stop` (true) or the stream
/// ends (false).
fn read_until(
    reader: &mut impl BufRead,
    lines: &mut Vec<String>,
    stop: impl Fn(&str) -> bool,
) -> bool {
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap() == 0 {
            return false;
        }
        lines.push(line.trim_end().to_string());
        if stop(&line) {
            return true;
        }
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_during_a_sweep_keeps_every_finding_and_the_resume_command_completes_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("findings.jsonl");
    let out_arg = out.display().to_string();
    let source = ["--protocol", "no-dedup", "--events", "5"];
    let mut child = Command::new(env!("CARGO_BIN_EXE_delivery-sim"))
        .arg("sweep")
        .args(source)
        .args(["--seeds", "0..10000000", "--out", &out_arg])
        .current_dir(root())
        .env("TMPDIR", dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut lines = Vec::new();
    // The first finding is printed (and written) when its chunk ends: interrupt then.
    assert!(
        read_until(&mut reader, &mut lines, |l| l.starts_with("seed ")),
        "a finding before the end: {lines:?}"
    );
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    read_until(&mut reader, &mut lines, |_| false);
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(130), "{lines:?} {err}");
    assert!(err.contains("stopping after the runs in progress"), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    // How far it got, and the command that resumes from there into the same file.
    let summary = lines
        .iter()
        .find(|l| l.starts_with("interrupted after "))
        .unwrap_or_else(|| panic!("no summary: {lines:?}"));
    let ran: u64 = summary.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(ran > 0 && ran < 10_000_000, "{summary}");
    assert!(summary.contains(&format!("(0..{ran} ran)")), "{summary}");
    let resume = lines
        .iter()
        .find_map(|l| l.strip_prefix("resume with: "))
        .unwrap_or_else(|| panic!("no resume command: {lines:?}"));
    // The findings found so far used up some of the 100 to shrink: the rest go on.
    let printed = lines.iter().filter(|l| l.starts_with("seed ")).count() as u64;
    let shrink = match 100u64.saturating_sub(printed) {
        0 => " --no-shrink".to_string(),
        n => format!(" --shrink-findings {n}"),
    };
    assert_eq!(
        resume,
        format!(
            "delivery-sim sweep --protocol no-dedup --events 5 --seeds {ran}..10000000{shrink} \
             --out {out_arg} --append"
        )
    );

    // The file is valid JSON Lines, one line per finding printed, every finding of the
    // seeds that ran: the same bytes as an uninterrupted sweep of them.
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(written.lines().count() as u64, printed);
    for line in written.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v["seed"].as_u64().unwrap() < ran);
    }
    let fresh = dir.path().join("fresh.jsonl");
    let fresh_arg = fresh.display().to_string();
    let whole = format!("0..{}", ran + 300);
    let o = bin(&[
        "sweep", source[0], source[1], source[2], source[3], "--seeds", &whole, "--out", &fresh_arg,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let fresh_text = std::fs::read_to_string(&fresh).unwrap();
    assert!(fresh_text.starts_with(&written));
    // Resuming (over the next 300 seeds) appends exactly the rest.
    let rest = format!("{ran}..{}", ran + 300);
    let mut resumed: Vec<&str> = vec!["sweep"];
    resumed.extend(source);
    resumed.extend(["--seeds", &rest]);
    resumed.extend(shrink.split_whitespace());
    resumed.extend(["--out", &out_arg, "--append"]);
    let o = bin(&resumed);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), fresh_text);

    // The interrupted runs left no temporary files behind.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    let mut left = left;
    left.sort();
    assert_eq!(left, ["findings.jsonl", "fresh.jsonl"]);
}

#[test]
fn runs_leave_nothing_in_the_temporary_directory() {
    // Scenarios whose runs need database files: several consumers, a retention job, a
    // producer with its own database, an email relay; run, explored and swept.
    let tmp = tempfile::tempdir().unwrap();
    let files = [
        "scenarios/inbox-lease-expiry-two-consumers.json",
        "scenarios/inbox-retention-ttl-covers-window.json",
        "scenarios/outbox-relay-crash-inbox-absorbs.json",
        "scenarios/inbox-email-outbox-idempotency-key.json",
    ];
    for file in files {
        assert!(root().join(file).exists(), "{file}");
        // `run FILE` explores the file at every depth it pins, as `explore` does.
        run_with_tmpdir(&root(), tmp.path(), &["run", file]);
        run_with_tmpdir(&root(), tmp.path(), &["sweep", file, "--seeds", "0..20"]);
    }
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn no_scenario_field_is_used_as_a_path() {
    // Every string field of a scenario set to a path: a run writes nothing anywhere (the
    // only paths the tool writes are --out and the temporary directory).
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("cwd");
    std::fs::create_dir(&cwd).unwrap();
    let evil = "../evil/../../x.sqlite";
    let text = format!(
        r#"{{"name": "{evil}", "description": "/tmp/{evil}",
            "protocol": {{"name": "{evil}", "description": "{evil}",
                          "steps": ["receive", "begin", "insert_inbox", "apply_effect", "commit", "ack"]}},
            "consumers": 2, "store": {{"inbox_ttl_ticks": 100}}}}"#
    );
    std::fs::write(cwd.join("s.json"), text).unwrap();
    for args in [
        vec!["run", "s.json"],
        vec!["run", "s.json", "--json"],
        vec!["explore", "s.json"],
        vec!["sweep", "s.json", "--seeds", "0..5"],
        vec!["run", "s.json", "--diagram", "svg"],
    ] {
        run_with_tmpdir(&cwd, dir.path(), &args);
    }
    let mut left: Vec<String> = walk(dir.path());
    left.sort();
    assert_eq!(left, ["cwd", "cwd/s.json"]);
}

/// Runs the binary in `cwd` with `TMPDIR` set to `tmp`; it must hold or fail an
/// expectation (exit 0 or 1), never refuse its input.
fn run_with_tmpdir(cwd: &Path, tmp: &Path, args: &[&str]) {
    let o = Command::new(env!("CARGO_BIN_EXE_delivery-sim"))
        .args(args)
        .current_dir(cwd)
        .env("TMPDIR", tmp)
        .output()
        .unwrap();
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        stderr(&o)
    );
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            out.push(p.strip_prefix(dir).unwrap().display().to_string());
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
    out
}

/// A livelock of two consumers (a lease shorter than the work) makes runs of hundreds of
/// thousands of steps: interleaving it is refused up front, within a memory limit set on
/// the process, instead of growing past it (it passed 4 GB in 5 s).
#[test]
fn interleaving_a_livelock_is_refused_up_front_within_a_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "livelock.json",
        r#"{"protocol": "inbox", "consumers": 2, "workload": {"events": 2},
            "broker": {"lease_ticks": 2}, "limits": {"max_steps": 20000}}"#,
    );
    let exe = env!("CARGO_BIN_EXE_delivery-sim");
    // Exploring it: every schedule would run to the step limit, twice (faulty and healing).
    let livelocked = write(
        dir.path(),
        "long.json",
        r#"{"protocol": "inbox", "consumers": 2, "workload": {"events": 2},
            "broker": {"lease_ticks": 2}}"#,
    );
    let o = bin(&["explore", &livelocked, "--depth", "1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("steps in all"), "{}", stderr(&o));
    for extra in ["", " --with-crashes"] {
        let o = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "ulimit -v 1048576 && exec '{exe}' explore '{file}' --interleavings{extra}"
            ))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra}: {err}");
        assert!(
            err.contains("--interleavings") && err.contains("lower --max-preemptions"),
            "{extra}: {err}"
        );
    }
}

/// Under a per-attempt identity every republication mints an event. Faults that could mint
/// more than fit beside the workload (twice MAX_EVENTS in all) are refused, naming the
/// field; at exactly the bound the run ends cleanly. (21 publish-timeout faults of 1,000
/// each panicked the run before: "minted events are bounded by the crash and timeout
/// budgets".)
#[test]
fn per_attempt_minting_is_bounded_by_validation_and_runs_at_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = |last_times: u32| {
        let mut timeouts = vec![r#"{"event": 0, "times": 1000}"#.to_string(); 19];
        timeouts.push(format!(r#"{{"event": 0, "times": {last_times}}}"#));
        format!(
            r#"{{"name": "mint", "seed": 1, "protocol": "inbox", "workload": {{"events": 1}},
                "producer": {{"mode": "commit_then_publish", "identity": "per_attempt"}},
                "faults": {{"publish_timeout": [{}]}}}}"#,
            timeouts.join(", ")
        )
    };
    let over = write(dir.path(), "over.json", &scenario(1000));
    let o = bin(&["run", &over]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("`producer.identity`") && stderr(&o).contains("20000 of them"),
        "{}",
        stderr(&o)
    );
    let at = write(dir.path(), "at.json", &scenario(999));
    let o = bin(&["run", &at, "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        json(&o)["events"],
        20000,
        "the intent and its 19,999 minted events"
    );
}
