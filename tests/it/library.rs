//! The library API as users' tests use it: the example program (built by `cargo test`) runs
//! and prints what the README shows, and the checks catch a known-bad protocol.

use super::support::*;
use delivery_sim::testing::{assert_guarantee, check_guarantee, check_run};
use delivery_sim::{Guarantee, Protocol, Scenario, Scope};
use std::process::Command;

/// `target/<profile>/examples/my_protocol`, next to this test binary's `deps/` folder.
fn example(name: &str) -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps/it-…");
    profile.join("examples").join(name)
}

#[test]
fn the_example_finds_the_bug_with_a_shrunk_plan_and_the_readme_shows_its_real_output() {
    let path = example("my_protocol");
    assert!(
        path.exists(),
        "{} exists: `cargo test` builds the examples",
        path.display()
    );
    let out = Command::new(&path).output().expect("the example runs");
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(
        text.contains("exhaustive check, first counterexample:"),
        "{text}"
    );
    assert!(text.contains("crashes   after:commit e0 d1"), "{text}");
    assert!(
        text.contains("property failed; proptest shrank the fault plan"),
        "{text}"
    );
    assert!(
        text.contains("every crash schedule of up to 2 crashes: exactly-once"),
        "{text}"
    );
    assert!(
        text.contains("property over 128 random fault plans: held"),
        "{text}"
    );
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("$ cargo run --example my_protocol\n{text}```")),
        "README's example output is stale: paste the output of `cargo run --example my_protocol`"
    );
}

#[test]
fn the_handler_example_runs_as_the_readme_shows_and_its_code_is_the_readmes() {
    let out = Command::new(example("my_handler"))
        .output()
        .expect("the example runs");
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(text.contains("crashes   after:commit e0 d1"), "{text}");
    assert!(text.contains("ClaimFirst: exactly-once"), "{text}");
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("$ cargo run --example my_handler\n{text}```")),
        "README's example output is stale: paste the output of `cargo run --example my_handler`"
    );
    let code = std::fs::read_to_string(root().join("examples/my_handler.rs")).unwrap();
    let shown = readme
        .split("```rust\nimpl Handler for ClaimFirst {")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("README shows the handler");
    assert!(
        code.contains(&format!("impl Handler for ClaimFirst {{{shown}")),
        "README's ClaimFirst differs from examples/my_handler.rs"
    );
}

#[test]
fn the_checks_catch_every_known_bad_built_in_protocol_and_pass_the_good_ones() {
    for protocol in Protocol::all_built_in() {
        let claimed = protocol.known_crash_guarantee().expect("built-in");
        let s = Scenario::new(protocol.clone()).with_events(2).with_seed(3);
        let exact = check_guarantee(&s, 1, Scope::LedgerPerEvent, Guarantee::ExactlyOnce);
        assert_eq!(
            exact.is_ok(),
            claimed == Guarantee::ExactlyOnce,
            "{}: {:?}",
            protocol.name,
            exact.err()
        );
        if let Err(c) = exact {
            assert_eq!(c.observed, claimed, "{}", protocol.name);
            assert_eq!(c.crashes.len(), 1, "the first counterexample has one crash");
            assert!(c.trace.contains("crash"), "the trace shows the crash");
        }
        // Each built-in keeps what it is documented to keep.
        assert!(check_guarantee(&s, 1, Scope::LedgerPerEvent, claimed).is_ok());
    }
}

#[test]
#[should_panic(expected = "claimed exactly-once for ledger per event, observed at-most-once")]
fn assert_guarantee_panics_with_the_counterexample() {
    let s = Scenario::new(Protocol::built_in("ack-first").unwrap()).with_events(1);
    assert_guarantee(&s, 1, Scope::LedgerPerEvent, Guarantee::ExactlyOnce);
}

#[test]
fn check_run_judges_one_run_with_its_own_faults() {
    let s = Scenario::new(Protocol::built_in("no-dedup").unwrap())
        .with_events(2)
        .with_faults(delivery_sim::fault::FaultPlan {
            crash: vec![delivery_sim::fault::CrashSpec {
                at: delivery_sim::model::Boundary::parse("after:commit").unwrap(),
                event: Some(1),
                copy: None,
                delivery: None,
            }],
            ..Default::default()
        });
    let c = check_run(&s, Scope::LedgerPerEvent, Guarantee::ExactlyOnce).unwrap_err();
    assert_eq!(c.broken_events, ["e1 duplicated"]);
    assert!(check_run(&s, Scope::LedgerPerEvent, Guarantee::AtLeastOnce).is_ok());
    assert!(check_run(&s, Scope::LedgerPerEvent, Guarantee::AtMostOnce).is_err());
}

/// A counterexample is shrunk, and its replay token runs the very same run through the
/// binary: the same trace hash.
#[test]
fn a_counterexample_is_shrunk_and_its_token_replays_the_same_run() {
    let s = Scenario::new(Protocol::built_in("no-dedup").unwrap())
        .with_events(4)
        .with_seed(11);
    let c = check_guarantee(&s, 1, Scope::LedgerPerEvent, Guarantee::ExactlyOnce).unwrap_err();
    assert_eq!(c.events, 1, "shrunk to one event: {c}");
    assert_eq!(c.crashes.len(), 1);
    assert!(c
        .shrunk_from
        .as_deref()
        .is_some_and(|f| f.starts_with("4 events")));
    let out = bin(&["replay", &c.token, "--json"]);
    assert_eq!(out.status.code(), Some(1), "the replayed run still fails");
    assert_eq!(json(&out)["trace_hash"], c.trace_hash.as_str());
}
