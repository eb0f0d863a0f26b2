//! Scenario parsing: the defaults a minimal file takes and a full file read back. How a bad
//! input is refused, worded as the command line prints it, is tested where the wording
//! lives (`report::lang::input`).

use super::*;
use crate::model::{Boundary, Step};

fn parse(json: &str) -> Result<Scenario, ScenarioError> {
    Scenario::from_json(json, "test.json")
}

#[test]
fn a_minimal_scenario_takes_every_default() {
    let s = parse(r#"{"protocol": "inbox"}"#).unwrap();
    assert_eq!(s.name, "inbox");
    assert_eq!(s.seed, 0);
    assert_eq!(s.workload, Workload::default());
    assert!(s.store.inbox_unique);
    assert_eq!(s.broker.redelivery_delay_ticks, 10);
    assert_eq!(s.faults, FaultPlan::default());
    assert_eq!(s.expect, None);
}

#[test]
fn the_issue_example_parses_in_full() {
    let s = parse(
        r#"{
          "name": "inbox-crash-between-commit-and-ack",
          "description": "text shown by run",
          "seed": 7,
          "protocol": "inbox",
          "workload": { "events": 3, "accounts": 4, "amount_minor": 10000, "republish": [1] },
          "store": { "inbox_unique": true },
          "broker": { "redelivery_delay_ticks": 10 },
          "faults": {
            "crash": [ { "at": "after:commit", "event": 0, "delivery": 1 } ],
            "random_crash": { "per_step_ppm": 50000, "max_crashes": 3 },
            "fail": [ { "at": "apply_effect", "event": 2, "times": 1 } ]
          },
          "expect": { "guarantee": "exactly-once", "lost": 0, "duplicated": 0, "all_acked": true }
        }"#,
    )
    .unwrap();
    assert_eq!(s.seed, 7);
    assert_eq!(s.workload.republish, vec![1]);
    assert_eq!(s.faults.crash[0].at, Boundary::after(Step::Commit));
    assert_eq!(s.faults.crash[0].event, Some(0));
    assert_eq!(s.faults.random_crash.unwrap().per_step_ppm, 50_000);
    assert_eq!(s.faults.fail[0].step, Step::ApplyEffect);
    assert_eq!(s.expect.unwrap().guarantee, Some(Guarantee::ExactlyOnce));
}

#[test]
fn retention_and_out_of_order_options_take_their_defaults() {
    let s = parse(
        r#"{"protocol": "inbox", "workload": {"events": 2, "lifecycle": true},
            "store": {"inbox_ttl_ticks": 0, "out_of_order": "buffer"},
            "broker": {"late_redelivery_ticks": 40},
            "consumer": {"completion_delay_ticks": 3},
            "expect": {"pending": 0, "smallest_safe_ttl": {"ticks": 45}}}"#,
    )
    .unwrap();
    assert_eq!(
        s.store.retention,
        Some(crate::store::Retention {
            ttl_ticks: 0,
            cleanup_every_ticks: 5,
            batch: 1000
        }),
        "the job's schedule and batch have defaults"
    );
    assert_eq!(s.store.out_of_order, crate::store::OutOfOrder::Buffer);
    assert_eq!(s.broker.late_redelivery_ticks, Some(40));
    assert_eq!(s.consumer.completion_delay_ticks, 3);
    let ttl = s.expect.unwrap().smallest_safe_ttl.unwrap();
    assert_eq!((ttl.depth, ttl.ticks, ttl.runs), (1, Some(45), None));
}
