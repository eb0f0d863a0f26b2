//! Golden trace hashes: every scenario's trace hash is pinned, so any change in behaviour
//! (or in the trace's canonical form) shows up as a diff. After a deliberate change,
//! regenerate with `UPDATE_GOLDEN=1 cargo test golden` and commit the file with a reason.

use super::support::*;
use delivery_sim::{run, Scenario};

const GOLDEN: &str = "tests/golden/trace_hashes.txt";

#[test]
fn golden_trace_hashes() {
    let mut actual = String::from(
        "# scenario file, then the trace hash of its run. Regenerate: UPDATE_GOLDEN=1 cargo test golden\n",
    );
    for file in scenario_files() {
        let s = Scenario::from_file(&root().join(&file)).expect("valid scenario");
        let hash = run(&s).trace.hash_hex();
        actual.push_str(&format!("{file} {hash}\n"));
    }
    let path = root().join(GOLDEN);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        expected, actual,
        "trace hashes changed; if that is intended, run UPDATE_GOLDEN=1 cargo test golden"
    );
}

#[test]
fn the_cli_prints_the_same_hash_as_the_library() {
    let file = "scenarios/inbox-random-crashes-20-events.json";
    let cli = json(&bin(&["run", file, "--json"]));
    let lib = run(&Scenario::from_file(&root().join(file)).unwrap());
    assert_eq!(cli["trace_hash"], lib.trace.hash_hex());
}

/// The determinism guard: every scenario runs twice in this process and once in a fresh
/// process (the binary), and the three trace hashes equal the golden one. Two runs in one
/// process catch state leaking between runs (a reused connection, a per-thread template);
/// the fresh process catches anything that depends on the process (addresses, hash-map
/// seeds, the environment).
#[test]
fn every_scenario_hashes_the_same_twice_in_process_and_in_a_fresh_process() {
    let golden = std::fs::read_to_string(root().join(GOLDEN)).unwrap();
    let golden: std::collections::BTreeMap<&str, &str> = golden
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(' '))
        .collect();
    for file in scenario_files() {
        let s = Scenario::from_file(&root().join(&file)).expect("valid scenario");
        let first = run(&s).trace.hash_hex();
        let second = run(&s).trace.hash_hex();
        assert_eq!(first, second, "{file}: two runs in one process differ");
        assert_eq!(
            fresh_process_hash(&file),
            first,
            "{file}: a fresh process hashes differently"
        );
        if std::env::var_os("UPDATE_GOLDEN").is_none() {
            assert_eq!(
                golden.get(file.as_str()).copied(),
                Some(first.as_str()),
                "{file}: not the golden hash; if intended, run UPDATE_GOLDEN=1 cargo test golden"
            );
        }
    }
}
