//! Helpers shared by the integration tests: running the binary and listing scenarios.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the built binary with `args` from the crate root, with no locale in the
/// environment: text reports follow `LC_ALL`/`LC_MESSAGES`/`LANG`, and the tests compare
/// the English ones.
pub fn bin(args: &[&str]) -> Output {
    let mut cmd = command(env!("CARGO_BIN_EXE_delivery-sim"));
    cmd.args(args);
    cmd.output().expect("the binary runs")
}

/// `program`, to run from the crate root with no locale in the environment (see [`bin`]).
pub fn command(program: &str) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir(root())
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env_remove("LANG");
    cmd
}

/// Writes `text` to file `name` in `dir`; returns its path.
pub fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 output")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("utf-8 output")
}

/// Every scenario file, as paths relative to the crate root, in name order.
pub fn scenario_files() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(root().join("scenarios"))
        .expect("scenarios/ exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            Path::new("scenarios")
                .join(p.file_name().expect("file name"))
                .display()
                .to_string()
        })
        .collect();
    files.sort();
    assert!(files.len() >= 20, "the scenarios are all there");
    files
}

pub fn json(o: &Output) -> serde_json::Value {
    // serde_json's Value keeps the last of two equal keys silently: a document with a
    // field twice (two `schema_version`s from a body wrapped twice) would pass every
    // other check.
    delivery_sim::scenario::unique_keys(&String::from_utf8_lossy(&o.stdout))
        .unwrap_or_else(|e| panic!("JSON output: {e}\n{}", stdout(o)));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("JSON output: {e}\n{}", stdout(o)))
}

#[test]
fn a_key_twice_in_an_output_is_caught() {
    let o = |text: &str| -> Output {
        use std::os::unix::process::ExitStatusExt;
        Output {
            status: std::process::ExitStatus::from_raw(0),
            stdout: text.as_bytes().to_vec(),
            stderr: Vec::new(),
        }
    };
    assert_eq!(json(&o(r#"{"a": [{"b": 1}, {"b": 2}]}"#))["a"][1]["b"], 2);
    let twice = std::panic::catch_unwind(|| json(&o(r#"{"a": {"b": 1, "b": 2}}"#)));
    assert!(twice.is_err());
}

/// A proptest configuration that draws the same `cases` every time from `seed` (another
/// draw with `PROPTEST_RNG_SEED=N`), keeping failures in `proptest-regressions/FILE`.
pub fn fixed_proptest(cases: u32, file: &'static str, seed: u64) -> proptest::test_runner::Config {
    use proptest::test_runner::{Config, FileFailurePersistence, RngSeed};
    let base = Config::default();
    Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(file))),
        rng_seed: if std::env::var_os("PROPTEST_RNG_SEED").is_some() {
            base.rng_seed
        } else {
            RngSeed::Fixed(seed)
        },
        ..base
    }
}

/// The scenario file at `file` (relative to the repository), as JSON to edit.
pub fn spec(file: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(root().join(file)).unwrap()).unwrap()
}

/// The error of loading `spec`, which must be refused: (field, message).
pub fn refused(spec: &serde_json::Value) -> (String, String) {
    let text = spec.to_string();
    let e = delivery_sim::scenario::Scenario::from_json(&text, "t.json").expect_err("refused");
    let message = delivery_sim::report::lang::input::problem(
        &e.problem,
        delivery_sim::report::lang::Lang::En,
    );
    (e.field.clone().unwrap_or_default(), message)
}

/// What `run scenarios/ --json` printed (its exit code, its JSON, its stderr), run once
/// per test binary and shared: it makes every check of every file, most of a minute
/// unoptimised, and several tests read it (each file's verdicts, its fresh-process hash).
pub fn scenarios_folder_run() -> &'static (Option<i32>, serde_json::Value, String) {
    static RUN: std::sync::OnceLock<(Option<i32>, serde_json::Value, String)> =
        std::sync::OnceLock::new();
    RUN.get_or_init(|| {
        let o = bin(&["run", "scenarios/", "--json"]);
        (o.status.code(), json(&o), stderr(&o))
    })
}

/// The trace hash of `file`'s plain run (a path under `scenarios/`), as a fresh process of
/// the binary printed it in [`scenarios_folder_run`].
pub fn fresh_process_hash(file: &str) -> serde_json::Value {
    let (_, out, _) = scenarios_folder_run();
    out["scenarios"]
        .as_array()
        .expect("the folder's files")
        .iter()
        .find(|e| e["file"] == file)
        .unwrap_or_else(|| panic!("{file} is not in run scenarios/"))["trace_hash"]
        .clone()
}

/// Splits a command as a POSIX shell would, for the simple quoting `Origin` emits in
/// replay commands (and the README uses).
pub fn shell_words(cmd: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in cmd.chars() {
        match c {
            '\'' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The English the command line prints for a scenario error (core errors carry data and
/// no `Display`; their words are chosen in `report::lang`).
pub fn en(e: &delivery_sim::scenario::ScenarioError) -> String {
    use delivery_sim::report::lang::{input::scenario_error, Lang};
    scenario_error(e, Lang::En)
}
