//! The corpus: every file of `scenarios/` and generated SQL scenarios, each run several
//! times in fresh processes, give byte-identical reports (trace hash, verdict, every event,
//! every check the file pins), and leave no file behind in the temporary directory or the
//! working directory. `.ci/run` runs every file five times, in release
//! (`DS_CORPUS_RUNS=5 DS_CORPUS_ALL=1`); `cargo test` runs the files with their own SQL
//! and the generated ones twice (every file already runs twice, in and out of process, in
//! `golden`).

use crate::support::{command, root, scenario_files, write};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use std::path::Path;

fn runs() -> usize {
    std::env::var("DS_CORPUS_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2)
}

/// `run FILE --json` in a fresh process whose working and temporary directories are `cwd`
/// and `tmp`: its report, and its exit code.
fn run_in(file: &Path, cwd: &Path, tmp: &Path) -> (Option<i32>, String) {
    let out = command(env!("CARGO_BIN_EXE_delivery-sim"))
        .current_dir(cwd)
        .env("TMPDIR", tmp)
        .args(["run", &file.display().to_string(), "--json"])
        .output()
        .expect("the binary runs");
    let report = String::from_utf8(out.stdout).expect("UTF-8");
    (out.status.code(), report)
}

fn is_empty(dir: &Path) -> bool {
    std::fs::read_dir(dir).unwrap().next().is_none()
}

/// Runs `file` [`runs`] times; a description of what went wrong, if anything did.
fn check(file: &Path) -> Option<String> {
    let (cwd, tmp) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut reports = Vec::new();
    for _ in 0..runs() {
        let (code, report) = run_in(file, cwd.path(), tmp.path());
        if !matches!(code, Some(0 | 1)) {
            return Some(format!("{}: exit {code:?}", file.display()));
        }
        if !is_empty(cwd.path()) || !is_empty(tmp.path()) {
            return Some(format!("{}: a file was left behind", file.display()));
        }
        reports.push(report);
    }
    let first = &reports[0];
    (reports.iter().any(|r| r != first)).then(|| format!("{}: reports differ", file.display()))
}

#[test]
fn every_scenario_and_generated_sql_replays_byte_for_byte_and_leaves_no_file() {
    let generated = tempfile::tempdir().unwrap();
    let all = std::env::var_os("DS_CORPUS_ALL").is_some();
    let mut files: Vec<std::path::PathBuf> = scenario_files()
        .iter()
        .filter(|f| all || f.starts_with("scenarios/sql-"))
        .map(|f| root().join(f))
        .collect();
    // Generated SQL protocols that load (the fuzz's own generator, a fixed draw).
    let mut runner = TestRunner::new(crate::support::fixed_proptest(
        1,
        "proptest-regressions/sql_fuzz.txt",
        0x5eed_c0de,
    ));
    let strategy = crate::sql_fuzz::scenario();
    let mut made = 0;
    while made < 24 {
        let text = strategy
            .new_tree(&mut runner)
            .unwrap()
            .current()
            .to_string();
        if delivery_sim::Scenario::from_json(&text, "g.json").is_ok() {
            let name = format!("generated-{made}.json");
            files.push(write(generated.path(), &name, &text).into());
            made += 1;
        }
    }
    // Two at a time: the machine's two cores.
    let half = files.len().div_ceil(2);
    let problems: Vec<String> = std::thread::scope(|s| {
        let workers: Vec<_> = files
            .chunks(half)
            .map(|chunk| s.spawn(move || chunk.iter().filter_map(|f| check(f)).collect::<Vec<_>>()))
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    assert!(problems.is_empty(), "{problems:#?}");
}

/// Statements that would create, write or read a file, each in a step of a scenario run in
/// a fresh process: each is refused (exit 2) and the working and temporary directories stay
/// empty; a sort past a statement's memory fails in memory, without a temporary file.
#[test]
fn no_statement_creates_writes_or_reads_a_file() {
    let tries = [
        ("VACUUM INTO 'copy.db'", 2),
        ("VACUUM", 2),
        ("ATTACH 'other.db' AS other", 2),
        ("DETACH main", 2),
        ("PRAGMA temp_store_directory = '.'", 2),
        ("PRAGMA journal_mode = DELETE", 2),
        ("PRAGMA writable_schema = ON", 2),
        ("SELECT load_extension('./ext')", 2),
        (
            "SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 \
             FROM c WHERE x < 100000) SELECT x, randomblob(1000) AS b FROM c ORDER BY b)",
            0,
        ),
    ];
    let scenarios = tempfile::tempdir().unwrap();
    for (i, (statement, code)) in tries.iter().enumerate() {
        let text = serde_json::json!({"name": "tries-a-file", "seed": 1,
            "store": {"schema": ["CREATE TABLE r (event_id TEXT NOT NULL)"]},
            "workload": {"events": 1}, "broker": {"max_deliveries": 2},
            "protocol": {"name": "p", "steps": ["receive",
                {"name": "try_it", "sql": statement},
                {"name": "w", "sql": "INSERT INTO r VALUES (:event_id)"}, "ack"]},
            "check": {"effects_per_event": "SELECT count(*) FROM r WHERE event_id = :event_id"}});
        let file = write(scenarios.path(), &format!("try{i}.json"), &text.to_string());
        let (cwd, tmp) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (got, _) = run_in(Path::new(&file), cwd.path(), tmp.path());
        assert_eq!(got, Some(*code), "{statement}");
        assert!(is_empty(cwd.path()) && is_empty(tmp.path()), "{statement}");
    }
}
