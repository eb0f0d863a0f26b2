//! `run FILE` checks everything its file pins, as `run DIR` does: the same checks, the same
//! verdict and exit code, the same JUnit test cases.

use super::support::*;
use serde_json::Value;

/// Pins the run and explorations at depths 1 and 2, all true.
const PINS_TWO_DEPTHS: &str = r#"{"protocol": "inbox", "seed": 3,
    "faults": {"crash": [{"at": "after:commit", "event": 1}]},
    "expect": {"guarantee": "exactly-once", "lost": 0, "duplicated": 0,
               "explore": [{"depth": 1, "guarantee": "exactly-once", "lost_runs": 0},
                           {"depth": 2, "guarantee": "exactly-once", "duplicated_runs": 0}]}}"#;

/// Its run holds, its exploration does not: a crash-free run says nothing of crashes.
const EXPLORATION_FAILS: &str = r#"{"protocol": "no-dedup", "seed": 3,
    "expect": {"guarantee": "exactly-once",
               "explore": [{"depth": 1, "guarantee": "exactly-once"}]}}"#;

/// Claims that a lossy protocol is exactly-once.
const RUN_FAILS: &str = r#"{"protocol": "ack-first", "faults": {"crash": [{"at": "after:ack", "event": 0}]},
    "expect": {"guarantee": "exactly-once", "lost": 0}}"#;

const NO_EXPECT: &str = r#"{"protocol": "inbox", "seed": 5}"#;

/// The `<testsuite>` elements of a JUnit document (the `<testsuites>` name differs: it is
/// the command).
fn suites(xml: &str) -> &str {
    let start = xml.find("<testsuite ").expect("a testsuite");
    let end = xml.rfind("</testsuite>").expect("a testsuite's end");
    &xml[start..end]
}

#[test]
fn run_file_and_run_dir_give_the_same_verdict_checks_and_junit_cases() {
    let files = [
        ("pins-two-depths.json", PINS_TWO_DEPTHS.to_string(), 0),
        ("exploration-fails.json", EXPLORATION_FAILS.to_string(), 1),
        ("run-fails.json", RUN_FAILS.to_string(), 1),
        ("no-expect.json", NO_EXPECT.to_string(), 0),
        (
            "two-consumers.json",
            std::fs::read_to_string(root().join("scenarios/inbox-lease-expiry-two-consumers.json"))
                .unwrap(),
            0,
        ),
        (
            "ttl.json",
            std::fs::read_to_string(
                root().join("scenarios/inbox-retention-ttl-shorter-than-window.json"),
            )
            .unwrap(),
            0,
        ),
    ];
    for (name, text, code) in files {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("f");
        std::fs::create_dir(&folder).unwrap();
        let file = write(&folder, name, &text);
        let (dir_xml, file_xml) = (dir.path().join("d.xml"), dir.path().join("f.xml"));
        let folder = folder.to_str().unwrap();
        let by_dir = bin(&[
            "run",
            folder,
            "--json",
            "--junit",
            dir_xml.to_str().unwrap(),
        ]);
        let by_file = bin(&[
            "run",
            &file,
            "--json",
            "--junit",
            file_xml.to_str().unwrap(),
        ]);
        assert_eq!(
            by_dir.status.code(),
            Some(code),
            "{name}: {}",
            stderr(&by_dir)
        );
        assert_eq!(
            by_file.status.code(),
            Some(code),
            "{name}: {}",
            stderr(&by_file)
        );
        let (by_dir, by_file) = (json(&by_dir), json(&by_file));
        let entry = &by_dir["scenarios"][0];
        assert_eq!(entry["file"], file.as_str());
        // The same checks, in the same order, with the same runs, guarantees and failures.
        let no_checks = Value::Array(Vec::new());
        let checks = entry.get("checks").unwrap_or(&no_checks);
        assert_eq!(by_file["checks"], *checks, "{name}");
        assert_eq!(entry["trace_hash"], by_file["trace_hash"], "{name}");
        let dir_xml = std::fs::read_to_string(dir_xml).unwrap();
        let file_xml = std::fs::read_to_string(file_xml).unwrap();
        assert_eq!(suites(&dir_xml), suites(&file_xml), "{name}");
        let cases = file_xml.matches("<testcase ").count();
        let wanted = checks.as_array().unwrap().len().max(1);
        assert_eq!(cases, wanted, "{name}: one test case per check\n{file_xml}");
    }
}

#[test]
fn run_file_prints_every_pinned_check_and_fails_on_the_one_that_fails() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "x.json", EXPLORATION_FAILS);
    let o = bin(&["run", &file]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains("\nexpect     held\n"),
        "the run itself held:\n{out}"
    );
    let checks = &out[out.find("\nchecks     ").expect("a checks block") + 1..];
    let lines: Vec<&str> = checks.lines().collect();
    assert!(lines[0].starts_with("checks     run ") && lines[0].ends_with(" held"));
    assert!(
        lines[1].contains("explore d1") && lines[1].contains("FAILED"),
        "{checks}"
    );
    assert!(lines[1].contains("at-least-once"), "{checks}");
    assert!(
        checks.contains(&format!(
            "replay  delivery-sim explore {file} --seed 3 --depth 1"
        )),
        "{checks}"
    );
    let es = bin(&["run", &file, "--lang", "es"]);
    assert!(
        stdout(&es).contains("\ncontroles  corrida "),
        "{}",
        stdout(&es)
    );
    // The verdict leads with the check that failed, not with the run that passed.
    assert!(
        out.starts_with(
            "verdict    FAIL  at-least-once (ledger per event, 2 checks the file pins): \
             explore d1: FAIL at-least-once (6 of 31 runs duplicated an event, 1 expectation \
             failed)\n"
        ),
        "{out}"
    );
    assert!(stdout(&es).contains("NO SE CUMPLIÓ ("), "{}", stdout(&es));
    // A file that pins its run only has no block: the `expect` line says it all.
    let only_run = write(dir.path(), "y.json", RUN_FAILS);
    let o = bin(&["run", &only_run]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!stdout(&o).contains("\nchecks "), "{}", stdout(&o));
}

#[test]
fn a_flag_that_changes_the_run_checks_the_run_only_and_says_what_it_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "x.json", EXPLORATION_FAILS);
    // A TTL needs an inbox (no-dedup has none: `--inbox-ttl-ticks` is refused there).
    let inbox = EXPLORATION_FAILS.replace("no-dedup", "inbox");
    let inbox = write(dir.path(), "inbox.json", &inbox);
    for (file, flags) in [
        (&file, vec!["--crash", "before:commit e0 d1"]),
        (&file, vec!["--seed", "4"]),
        (&inbox, vec!["--inbox-ttl-ticks", "100"]),
    ] {
        let mut args = vec!["run", file.as_str(), "--json"];
        args.extend(&flags);
        let o = bin(&args);
        let out = json(&o);
        assert_eq!(o.status.code(), Some(0), "{flags:?}: the run holds");
        assert!(out.get("checks").is_none(), "{flags:?}: {out}");
        assert!(
            stderr(&o).contains("only the run was checked") && stderr(&o).contains(flags[0]),
            "{flags:?}: {}",
            stderr(&o)
        );
    }
    // The file's own seed given again is the file's own run: everything is checked.
    let o = bin(&["run", &file, "--seed", "3", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(json(&o)["checks"].as_array().unwrap().len(), 2);
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

#[test]
fn a_bad_flag_is_refused_before_any_note() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "x.json", EXPLORATION_FAILS);
    let o = bin(&["run", &file, "--crash", "after:commit e0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!stderr(&o).contains("note:"), "{}", stderr(&o));
}

/// The README's `run scenarios/` output (trimmed to a few rows) is the real one: its first
/// and last lines, and each row shown, read against the binary's JSON of the same folder.
#[test]
fn the_readme_shows_real_rows_of_run_dir() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("$ cargo run --release -- run scenarios/\n")
        .expect("the README shows run DIR");
    let block = &readme[start..];
    let block = &block[..block.find("```").unwrap()];
    let lines: Vec<&str> = block.lines().skip(1).collect();
    let (_, out, _) = scenarios_folder_run();
    let n = out["totals"]["scenarios"].as_u64().unwrap();
    // The folder's verdict first, its failures counted in files.
    assert!(
        lines[0].starts_with(&format!(
            "verdict    FAIL  no guarantee (each file's own effect, {n} files): "
        )),
        "README's run DIR output is stale: {}",
        lines[0]
    );
    assert!(
        lines[2].starts_with(&format!("run scenarios/: {n} scenario files, ")),
        "README's run DIR output is stale: {}",
        lines[2]
    );
    assert_eq!(
        *lines.last().unwrap(),
        format!("{n} scenarios: {n} held, 0 failed, 0 input errors")
    );
    let mut shown = 0;
    for row in lines.iter().skip(5).filter(|l| l.ends_with("  ok")) {
        let cells: Vec<&str> = row.split_whitespace().collect();
        let file = format!("scenarios/{}", cells[0]);
        let entry = out["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["file"] == file.as_str())
            .unwrap_or_else(|| panic!("README shows {file}, which run DIR does not"));
        let checks: Vec<&str> = entry["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        let k = cells.len();
        let status = entry["verdict"]["status"].as_str().unwrap().to_uppercase();
        assert_eq!(
            [
                cells[1],
                cells[2],
                cells[3],
                &cells[4..k - 2].join(" "),
                cells[k - 2]
            ],
            [
                status.as_str(),
                entry["protocol"].as_str().unwrap(),
                entry["guarantee"].as_str().unwrap(),
                &checks.join(", "),
                entry["trace_hash"].as_str().unwrap()
            ],
            "README's row for {file} is stale"
        );
        shown += 1;
    }
    assert!(shown >= 4, "{shown} rows");
}

/// A pinned check that is bad input (interleavings of one consumer) exits 2 naming the
/// field, and the JUnit report has it as an error, as `run DIR` does.
#[test]
fn a_pinned_check_that_is_bad_input_is_an_error_in_both() {
    let text = r#"{"protocol": "inbox", "seed": 3,
        "expect": {"guarantee": "exactly-once", "interleavings": {"runs": 3}}}"#;
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("f");
    std::fs::create_dir(&folder).unwrap();
    let file = write(&folder, "one-consumer.json", text);
    let (dir_xml, file_xml) = (dir.path().join("d.xml"), dir.path().join("f.xml"));
    let by_dir = bin(&[
        "run",
        folder.to_str().unwrap(),
        "--junit",
        dir_xml.to_str().unwrap(),
    ]);
    let by_file = bin(&["run", &file, "--junit", file_xml.to_str().unwrap()]);
    for o in [&by_dir, &by_file] {
        assert_eq!(o.status.code(), Some(2));
        // run FILE's error is on stderr; run DIR names the files there and gives each
        // one's paragraph in its report.
        let said = format!("{}{}", stdout(o), stderr(o));
        assert!(said.contains("field `expect.interleavings`"), "{said}");
    }
    let dir_xml = std::fs::read_to_string(dir_xml).unwrap();
    let file_xml = std::fs::read_to_string(file_xml).unwrap();
    assert!(file_xml.contains("<error "), "{file_xml}");
    assert_eq!(suites(&dir_xml), suites(&file_xml));
}
