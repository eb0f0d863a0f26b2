//! Checking your own consumer protocol with delivery-sim, as you would in CI.
//!
//! A team writes its consumer as "check the inbox, apply the effect and commit, then mark
//! the event". The exhaustive check finds the crash point that duplicates; a property test
//! over random fault plans finds it too and proptest shrinks the plan to the smallest one
//! that still fails. The fixed protocol (insert-first, in the effect's transaction) passes
//! both. Run it with `cargo run --example my_protocol`; `cargo test` runs it and compares
//! its output with the README.

use delivery_sim::fault::FaultPlan;
use delivery_sim::testing::{check_guarantee, check_run, strategies, Counterexample};
use delivery_sim::{Guarantee, Protocol, Scenario, Scope, Step};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

/// The team's first version: the mark comes after the commit, in its own statement.
fn mark_after_commit() -> Protocol {
    use Step::*;
    Protocol::new(
        "mark-after-commit",
        "checks the inbox, applies and commits, then marks",
        vec![
            Receive,
            CheckInbox,
            Begin,
            ApplyEffect,
            Commit,
            InsertInbox,
            Ack,
        ],
    )
    .expect("a valid protocol")
}

/// The fix: insert-first, in the same transaction as the effect, ack after commit.
fn insert_first() -> Protocol {
    use Step::*;
    Protocol::new(
        "insert-first",
        "inserts the inbox row first, in the effect's transaction",
        vec![Receive, Begin, InsertInbox, ApplyEffect, Commit, Ack],
    )
    .expect("a valid protocol")
}

fn scenario(protocol: Protocol, seed: u64, faults: FaultPlan) -> Scenario {
    let mut s = Scenario::new(protocol)
        .with_events(3)
        .with_seed(seed)
        .with_faults(faults);
    // A lease, so that a lost ack is redelivered instead of staying in flight forever.
    s.broker.lease_ticks = Some(50);
    s
}

/// The property: under any fault plan, every event takes effect exactly once. Proptest
/// draws plans from delivery-sim's strategy and, on failure, shrinks the plan.
fn property(protocol: Protocol) -> Result<(), Box<TestError<(u64, FaultPlan)>>> {
    let config = Config {
        cases: 128,
        failure_persistence: None,
        ..Config::default()
    };
    // A fixed RNG: the example prints the same counterexample every time.
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let plans = (any::<u64>(), strategies::fault_plan(&protocol, 3));
    runner
        .run(&plans, |(seed, faults)| {
            let s = scenario(protocol.clone(), seed, faults);
            check_run(&s, Scope::LedgerPerEvent, Guarantee::ExactlyOnce)
                .map(|_| ())
                .map_err(|c| TestCaseError::fail(c.to_string()))
        })
        .map_err(Box::new)
}

/// The first lines of a counterexample (its trace follows).
fn summary(c: &Counterexample) -> String {
    c.to_string()
        .lines()
        .take_while(|l| !l.starts_with("trace"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn main() {
    for protocol in [mark_after_commit(), insert_first()] {
        println!("== {} ({})", protocol.name, protocol.arrow_list());
        let exhaustive = scenario(protocol.clone(), 7, FaultPlan::default());
        match check_guarantee(
            &exhaustive,
            2,
            Scope::LedgerPerEvent,
            Guarantee::ExactlyOnce,
        ) {
            Ok(checked) => {
                println!("every crash schedule of up to 2 crashes: {checked}")
            }
            Err(c) => println!("exhaustive check, first counterexample:\n{}", summary(&c)),
        }
        match property(protocol).map_err(|e| *e) {
            Ok(()) => println!("property over 128 random fault plans: held"),
            Err(TestError::Fail(_, (seed, plan))) => {
                println!(
                    "property failed; proptest shrank the fault plan to {} planned crash(es), \
                     {} random-crash setting(s), {} failing step(s), {} lost ack(s), {} broker \
                     duplicate(s):",
                    plan.crash.len(),
                    usize::from(plan.random_crash.is_some()),
                    plan.fail.len(),
                    plan.lose_ack.len(),
                    plan.duplicate_delivery.len()
                );
                let s = scenario(mark_after_commit(), seed, plan);
                let c = check_run(&s, Scope::LedgerPerEvent, Guarantee::ExactlyOnce)
                    .expect_err("the shrunk case still fails");
                println!("{}", summary(&c));
            }
            Err(TestError::Abort(why)) => println!("property aborted: {why}"),
        }
        println!();
    }
}
