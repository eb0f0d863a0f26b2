//! `explore --no-prune` on the real binary: every schedule run, the same verdict as the
//! pruned exploration, and `equivalent_to` in the JSON only where a run was pruned.

use crate::support::{bin, json, stderr};

const EXAMPLE: &str = "scenarios/inbox-ack-first-lost-ack-then-crash-loses.json";

#[test]
fn no_prune_runs_every_schedule_and_agrees_with_the_pruned_exploration() {
    let pruned = bin(&["explore", EXAMPLE, "--depth", "2", "--json"]);
    let whole = bin(&["explore", EXAMPLE, "--depth", "2", "--no-prune", "--json"]);
    // The scenario pins the pruned exploration's counts and its guarantee; with
    // --no-prune only the guarantee applies, and it holds.
    assert_eq!(pruned.status.code(), Some(0), "{}", stderr(&pruned));
    assert_eq!(whole.status.code(), Some(0), "{}", stderr(&whole));
    let (p, w) = (json(&pruned), json(&whole));
    assert_eq!(p["summary"]["guarantee"], "at-most-once");
    assert_eq!(w["summary"]["guarantee"], "at-most-once");
    assert_eq!(w["summary"]["equivalent_runs"], 0);
    assert_eq!(w["summary"]["no_prune"], true);
    assert!(p["summary"].get("no_prune").is_none());
    assert_eq!(w["summary"]["pruned_schedules"], 0);
    let runs = |v: &serde_json::Value| v["runs"].as_array().unwrap().len();
    assert!(
        runs(&w) > runs(&p),
        "{} runs unpruned, {} pruned",
        runs(&w),
        runs(&p)
    );
    // Each pruned run names an earlier run, and only pruned runs name one.
    let equivalent: Vec<(usize, u64)> = p["runs"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r["equivalent_to"].as_u64().map(|e| (i, e)))
        .collect();
    assert_eq!(
        equivalent.len() as u64,
        p["summary"]["equivalent_runs"].as_u64().unwrap()
    );
    assert!(equivalent.iter().all(|&(i, e)| (e as usize) < i));
    assert!(w["runs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r.get("equivalent_to").is_none()));
}

/// A pinned guarantee still fails under --no-prune: only the counts are let go.
#[test]
fn no_prune_still_checks_the_pinned_guarantee() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("wrong.json");
    let mut spec: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(crate::support::root().join(EXAMPLE)).unwrap(),
    )
    .unwrap();
    spec["expect"]["explore"][1]["guarantee"] = "exactly-once".into();
    std::fs::write(&file, spec.to_string()).unwrap();
    let path = file.to_str().unwrap();
    let o = bin(&["explore", path, "--depth", "2", "--no-prune"]);
    assert_eq!(o.status.code(), Some(1), "{}", crate::support::stdout(&o));
}

#[test]
fn no_prune_is_refused_where_nothing_is_pruned() {
    for extra in [&["--interleavings"][..], &["--smallest-safe-ttl"][..]] {
        let mut args = vec!["explore", EXAMPLE, "--no-prune"];
        args.extend_from_slice(extra);
        let o = bin(&args);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("--no-prune"), "{}", stderr(&o));
    }
}
