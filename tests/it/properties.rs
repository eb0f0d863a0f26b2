//! Properties over seeds and fault plans (proptest). Failing cases are kept in
//! `proptest-regressions/properties.txt`, which is committed, and replayed first.

use delivery_sim::broker::{LogConfig, PartitionKey};
use delivery_sim::check::Outcome;
use delivery_sim::check::ScopeVerdict;
use delivery_sim::consumer::CommitTimeoutStrategy;
use delivery_sim::explore;
use delivery_sim::fault::{
    CommitTimeoutSpec, CrashSpec, FailSpec, FaultPlan, PublishFault, RandomCrash,
};
use delivery_sim::model::{Boundary, DbOutcome, Scope, Step, Tick, TraceKind};
use delivery_sim::producer::{Identity, ProducerConfig, ProducerDatabase, ProducerMode};
use delivery_sim::store::{OutOfOrder, Retention};
use delivery_sim::testing::strategies;
use delivery_sim::{run, Guarantee, Protocol, RunOptions, Scenario};
use proptest::prelude::*;
use proptest::test_runner::{FileFailurePersistence, RngSeed};

/// The properties' configuration. The random seed is fixed, so that CI checks the same
/// cases on every run and a red CI always means a change broke something; set
/// `PROPTEST_RNG_SEED=N` to explore other cases (and `sweep` explores at random anyway).
/// Failures found either way are kept in the regressions file and replayed first.
fn config(cases: u32) -> ProptestConfig {
    let base = ProptestConfig::default();
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/properties.txt",
        ))),
        rng_seed: if std::env::var_os("PROPTEST_RNG_SEED").is_some() {
            base.rng_seed
        } else {
            RngSeed::Fixed(0x00de_1170_5eed)
        },
        ..base
    }
}

/// A fault plan for `protocol` over `events` events (the library's strategy, which users'
/// property tests use too: planned and random crashes, step failures, lost acks, broker
/// duplicates), and republishes.
fn plan(protocol: Protocol, events: usize) -> impl Strategy<Value = (FaultPlan, Vec<usize>)> {
    (
        strategies::fault_plan(&protocol, events),
        proptest::collection::vec(0..events, 0..3),
    )
}

fn scenario(
    name: &str,
    seed: u64,
    events: usize,
    plan: FaultPlan,
    republish: Vec<usize>,
) -> Scenario {
    let mut s = Scenario::new(Protocol::built_in(name).unwrap());
    s.seed = seed;
    s.workload.events = events;
    s.workload.republish = republish;
    s.faults = plan;
    // A lease, so that a lost ack is followed by a redelivery rather than a message in
    // flight forever; long enough that a live consumer never outlasts it.
    s.broker.lease_ticks = Some(50);
    s
}

fn inbox_case() -> impl Strategy<Value = (u64, usize, FaultPlan, Vec<usize>)> {
    (1usize..=8).prop_flat_map(|events| {
        (
            any::<u64>(),
            Just(events),
            plan(Protocol::built_in("inbox").unwrap(), events),
        )
            .prop_map(|(seed, events, (plan, republish))| (seed, events, plan, republish))
    })
}

proptest! {
    #![proptest_config(config(256))]

    /// The claim of the whole tool: insert-first inbox, same transaction, ack after commit
    /// gives one effect per event under any crashes, failures, exact duplicates, lost acks
    /// and broker duplicates, and every event ends acked.
    #[test]
    fn inbox_is_exactly_once_and_live_under_any_fault_plan(
        (seed, events, plan, republish) in inbox_case()
    ) {
        let s = scenario("inbox", seed, events, plan, republish);
        let r = run(&s);
        prop_assert_eq!(r.verdict.guarantee, Guarantee::ExactlyOnce, "{}", r.trace.hash_hex());
        prop_assert!(r.verdict.all_acked);
        prop_assert!(r.verdict.conserved);
        prop_assert_eq!(r.verdict.exactly_once, events as u64);
        for e in &r.verdict.events {
            prop_assert_eq!(e.inbox_rows, 1);
        }
    }

    /// Same scenario, same seed: the same trace, for every protocol and plan.
    #[test]
    fn the_same_seed_gives_the_same_trace_hash(
        protocol in proptest::sample::select(
            Protocol::all_built_in().into_iter().map(|p| p.name).collect::<Vec<_>>()),
        (seed, events, plan, republish) in inbox_case(),
    ) {
        // Crash points of the inbox plan may name steps the protocol lacks; they never fire.
        let s = scenario(&protocol, seed, events, plan, republish);
        let a = run(&s);
        let b = run(&s);
        prop_assert_eq!(a.trace.hash_hex(), b.trace.hash_hex());
        prop_assert_eq!(a.trace.entries(), b.trace.entries());
        prop_assert_eq!(a.verdict, b.verdict);
    }

    /// The checker's counts add up for any protocol and plan: every event is once, lost or
    /// duplicated, and the guarantee follows from the counts.
    #[test]
    fn verdict_counts_add_up(
        protocol in proptest::sample::select(
            Protocol::all_built_in().into_iter().map(|p| p.name).collect::<Vec<_>>()),
        (seed, events, plan, republish) in inbox_case(),
    ) {
        let s = scenario(&protocol, seed, events, plan, republish);
        let v = run(&s).verdict;
        prop_assert_eq!(
            v.lost + v.duplicated + v.exactly_once + v.dead_lettered + v.rejected + v.pending,
            events as u64
        );
        prop_assert_eq!(v.guarantee, Guarantee::from_anomalies(v.lost > 0, v.duplicated > 0));
    }
}

proptest! {
    #![proptest_config(config(48))]

    /// Ack-first always has a crash point that loses an event, and never duplicates.
    #[test]
    fn ack_first_has_a_crash_point_that_loses(seed in any::<u64>(), events in 1usize..=4) {
        let s = scenario("ack-first", seed, events, FaultPlan::default(), vec![]);
        let x = explore::single_crash_points(&s);
        prop_assert!(x.summary.lost_runs > 0);
        prop_assert_eq!(x.summary.duplicated_runs, 0);
        let lost_at: Vec<Boundary> = x.failing().filter_map(|r| r.crashes.first()).map(|p| p.boundary).collect();
        prop_assert!(lost_at.contains(&Boundary::after(Step::Ack)));
    }

    /// Processing then acking without an inbox always has a crash point that duplicates,
    /// and never loses.
    #[test]
    fn no_dedup_has_a_crash_point_that_duplicates(seed in any::<u64>(), events in 1usize..=4) {
        let s = scenario("no-dedup", seed, events, FaultPlan::default(), vec![]);
        let x = explore::single_crash_points(&s);
        prop_assert!(x.summary.duplicated_runs > 0);
        prop_assert_eq!(x.summary.lost_runs, 0);
        let dup_at: Vec<Boundary> = x.failing().filter_map(|r| r.crashes.first()).map(|p| p.boundary).collect();
        prop_assert!(dup_at.contains(&Boundary::after(Step::Commit)));
    }

    /// Without the unique constraint, the inbox protocol duplicates an exact republish: the
    /// constraint, not the code, is what deduplicates.
    #[test]
    fn without_the_constraint_a_republish_duplicates(seed in any::<u64>(), events in 1usize..=4) {
        let mut s = scenario("inbox", seed, events, FaultPlan::default(), vec![0]);
        s.store.inbox_unique = false;
        let v = run(&s).verdict;
        prop_assert_eq!(v.duplicated, 1);
        prop_assert_eq!(v.events[0].inbox_rows, 2);
    }
}

fn concurrent_case() -> impl Strategy<Value = (usize, u64, usize, FaultPlan, Vec<usize>)> {
    (2usize..=3, 1usize..=3).prop_flat_map(|(consumers, events)| {
        (
            Just(consumers),
            any::<u64>(),
            Just(events),
            plan(Protocol::built_in("inbox").unwrap(), events),
        )
            .prop_map(|(c, seed, events, (plan, republish))| (c, seed, events, plan, republish))
    })
}

proptest! {
    #![proptest_config(config(32))]

    /// Several consumers on one database file, with crashes, failures, lost acks, broker
    /// duplicates and leases: the inbox still gives one effect per event, acks every event,
    /// and the run is deterministic (same trace hash twice).
    #[test]
    fn inbox_is_exactly_once_with_several_consumers_and_deterministic(
        (consumers, seed, events, plan, republish) in concurrent_case()
    ) {
        let mut s = scenario("inbox", seed, events, plan, republish);
        s.consumers = consumers;
        s.broker.delivery_jitter_ticks = Some(seed % 20);
        let a = run(&s);
        prop_assert_eq!(a.verdict.guarantee, Guarantee::ExactlyOnce, "{}", a.trace.hash_hex());
        prop_assert!(a.verdict.all_acked && a.verdict.conserved);
        let b = run(&s);
        prop_assert_eq!(a.trace.hash_hex(), b.trace.hash_hex());
        prop_assert_eq!(a.trace.entries(), b.trace.entries());
    }
}

proptest! {
    #![proptest_config(config(32))]

    /// On a Kafka-style log — any number of partitions, any commit interval, one to three
    /// consumers rebalancing on every crash — the inbox still gives one effect per event,
    /// every offset ends committed, and the run is deterministic.
    #[test]
    fn inbox_is_exactly_once_on_a_log_with_rebalances(
        (consumers, seed, events, mut plan, republish) in concurrent_case(),
        partitions in 1usize..=3,
        commit_every in 1u32..=4,
        consumers_on_log in 1usize..=3,
    ) {
        let _ = consumers;
        plan.lose_ack.clear();
        plan.duplicate_delivery.clear();
        let mut s = scenario("inbox", seed, events, plan, republish);
        s.consumers = consumers_on_log;
        s.broker.lease_ticks = None;
        s.broker.log = Some(LogConfig {
            partitions,
            key: PartitionKey::TransferId,
            commit_every,
            auto_commit: false,
        });
        let a = run(&s);
        prop_assert_eq!(a.verdict.guarantee, Guarantee::ExactlyOnce, "{}", a.trace.hash_hex());
        prop_assert!(a.verdict.all_acked && a.verdict.conserved);
        prop_assert_eq!(a.trace.hash_hex(), run(&s).trace.hash_hex());
    }
}

/// The inbox protocol on the lifecycle workload (`pairs` transfers) with `plan`, with
/// delivery delays that reorder completions before their creations.
fn lifecycle_scenario(
    seed: u64,
    pairs: usize,
    plan: FaultPlan,
    republish: Vec<usize>,
    jitter: Tick,
) -> Scenario {
    let mut s = scenario("inbox", seed, 2 * pairs, plan, republish);
    s.workload.lifecycle = true;
    s.broker.delivery_jitter_ticks = Some(jitter);
    s
}

fn lifecycle_case() -> impl Strategy<Value = (u64, usize, FaultPlan, Vec<usize>, Tick)> {
    (1usize..=3).prop_flat_map(|pairs| {
        (
            any::<u64>(),
            Just(pairs),
            plan(Protocol::built_in("inbox").unwrap(), 2 * pairs),
            0u64..=30,
        )
            .prop_map(|(seed, pairs, (plan, republish), jitter)| {
                (seed, pairs, plan, republish, jitter)
            })
    })
}

proptest! {
    #![proptest_config(config(128))]

    /// The seeds' order-tolerant consumer: with completions for unknown transfers kept in
    /// `pending_event` and applied by their creation's transaction, no completion is ever
    /// rejected or left pending, and every event takes effect once, whatever the order
    /// deliveries arrive in and whatever crashes, failures, republishes, lost acks and
    /// broker duplicates happen.
    #[test]
    fn a_pending_table_makes_every_lifecycle_end_once(
        (seed, pairs, plan, republish, jitter) in lifecycle_case()
    ) {
        let mut s = lifecycle_scenario(seed, pairs, plan, republish, jitter);
        s.store.out_of_order = OutOfOrder::Buffer;
        let r = run(&s);
        let v = &r.verdict;
        prop_assert_eq!(v.rejected, 0, "{}", r.trace.hash_hex());
        prop_assert_eq!(v.pending, 0, "{}", r.trace.hash_hex());
        prop_assert_eq!(v.exactly_once, 2 * pairs as u64, "{}", r.trace.hash_hex());
        prop_assert!(v.all_acked && v.conserved);
    }
}

proptest! {
    #![proptest_config(config(24))]

    /// The same with two or three consumers on one database file, where the creation and
    /// the completion of a transfer race each other's transactions.
    #[test]
    fn a_pending_table_makes_every_lifecycle_end_once_with_several_consumers(
        (seed, pairs, plan, republish, jitter) in lifecycle_case(),
        consumers in 2usize..=3,
    ) {
        let mut s = lifecycle_scenario(seed, pairs, plan, republish, jitter);
        s.store.out_of_order = OutOfOrder::Buffer;
        s.consumers = consumers;
        let r = run(&s);
        prop_assert_eq!((r.verdict.rejected, r.verdict.pending), (0, 0), "{}", r.trace.hash_hex());
        prop_assert_eq!(r.verdict.exactly_once, 2 * pairs as u64);
    }
}

#[test]
fn without_the_pending_table_the_same_kind_of_plan_rejects_completions() {
    // The unsafe variant, caught: the reject mode under delivery delays, no other fault.
    let rejected = (0..16u64)
        .filter(|&seed| {
            let s = lifecycle_scenario(seed, 3, FaultPlan::default(), vec![], 30);
            run(&s).verdict.rejected > 0
        })
        .count();
    assert!(
        rejected > 0,
        "some seed reorders a completion before its creation"
    );
}

/// The inbox protocol with a broker replay window of `window` ticks and inbox retention
/// with TTL `ttl`, the job running every `every` ticks.
fn retention_scenario(
    (seed, events, plan, republish): (u64, usize, FaultPlan, Vec<usize>),
    window: Tick,
    ttl: Tick,
    every: Tick,
    batch: u32,
) -> Scenario {
    let mut s = scenario("inbox", seed, events, plan, republish);
    s.broker.late_redelivery_ticks = Some(window);
    s.store.retention = Some(Retention {
        ttl_ticks: ttl,
        cleanup_every_ticks: every,
        batch,
    });
    s
}

/// The longest any event's inbox row was needed in a run: from the first time it was
/// inserted to the last time a delivery of that event tried to insert it again. A TTL of
/// at least this keeps the row as long as anything looks for it.
fn longest_inbox_need(r: &delivery_sim::RunResult) -> Tick {
    let mut first: Vec<Option<Tick>> = vec![None; r.events.len()];
    let mut need = 0;
    for e in r.trace.entries() {
        let Some(event) = e.event else { continue };
        let TraceKind::Db {
            step: Step::InsertInbox,
            outcome,
            ..
        } = e.kind
        else {
            continue;
        };
        match first[event] {
            None if outcome == DbOutcome::Inserted => first[event] = Some(e.tick),
            Some(at) => need = need.max(e.tick - at),
            None => {}
        }
    }
    need
}

proptest! {
    #![proptest_config(config(96))]

    /// Inbox retention is safe when the TTL covers the window the row is needed for, under
    /// any fault plan: measure, with retention that never deletes, how long after its
    /// insert each row is looked for again; with any TTL at least that, no event is
    /// duplicated. And that need is always longer than the broker's replay window: the
    /// row is written before the ack the window counts from, and the replay is checked
    /// after it is delivered. (With retention that never deletes, the job changes nothing,
    /// so the run is the same until a row nobody needs any more is deleted.)
    #[test]
    fn a_ttl_covering_the_window_plus_the_lag_absorbs_every_late_replay(
        case in inbox_case(),
        window in 1u64..=60,
        every in 1u64..=6,
        batch in 1u32..=8,
        extra in 0u64..=10,
    ) {
        let never = retention_scenario(case.clone(), window, 1_000_000, every, batch);
        let baseline = run(&never);
        prop_assert_eq!(baseline.verdict.duplicated, 0);
        prop_assert_eq!(baseline.inbox_rows_deleted, 0);
        let need = longest_inbox_need(&baseline);
        prop_assert!(need >= window + 5, "need {} for a window of {}", need, window);
        let s = retention_scenario(case, window, need + extra, every, batch);
        let r = run(&s);
        prop_assert_eq!(r.verdict.duplicated, 0, "TTL {}: {}", need + extra, r.trace.hash_hex());
        prop_assert!(r.verdict.all_acked && r.verdict.conserved);
    }

    /// The unsafe variant, caught under any fault plan: a TTL shorter than the window, with
    /// a job that runs every tick and keeps up, deletes some row before its late replay,
    /// and the checker reports that event duplicated, naming when its row expired.
    #[test]
    fn a_ttl_shorter_than_the_window_duplicates(
        case in inbox_case(),
        window in 2u64..=60,
        short in 1u64..=59,
    ) {
        let ttl = short.min(window - 1);
        let s = retention_scenario(case, window, ttl, 1, 10_000);
        let r = run(&s);
        prop_assert!(r.verdict.duplicated > 0, "TTL {} < window {}: {}", ttl, window, r.trace.hash_hex());
        prop_assert!(r
            .verdict
            .events
            .iter()
            .filter(|e| e.effects > 1)
            .all(|e| e.inbox_expired_at.is_some()));
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// The retention job's fast-forward over its idle ticks is sound: under any fault plan,
    /// with one or two consumers (whose open transactions make the job busy), a stall (a
    /// consumer holding its transaction while the job runs), any TTL, period and batch,
    /// and tick limits that stop the faulty phase anywhere, the run is the one the job
    /// running at every one of its ticks gives: the same trace (hash and length), the same
    /// end, the same verdict.
    #[test]
    fn the_cleanup_fast_forward_changes_no_run(
        case in inbox_case(),
        consumers in 1usize..=2,
        window in proptest::option::of(1u64..=200),
        ttl in 0u64..=80,
        every in 1u64..=40,
        batch in 1u32..=4,
        stall in proptest::option::of((0usize..8, 1u64..=120)),
        max_ticks in proptest::option::of(5u64..=400),
    ) {
        let events = case.1;
        let mut s = retention_scenario(case, 1, ttl, every, batch);
        s.broker.late_redelivery_ticks = window;
        s.consumers = consumers;
        if let Some((event, ticks)) = stall {
            s.faults.stall.push(delivery_sim::fault::StallSpec {
                at: Boundary::after(Step::ApplyEffect),
                event: Some(event % events),
                delivery: None,
                ticks,
            });
        }
        if let Some(t) = max_ticks {
            s.limits.max_ticks = t;
        }
        let fast = run(&s);
        let slow = delivery_sim::run_with(
            &s,
            RunOptions { every_cleanup_tick: true, ..RunOptions::default() },
        );
        prop_assert_eq!(fast.trace.hash_hex(), slow.trace.hash_hex());
        prop_assert_eq!(fast.trace.len(), slow.trace.len());
        prop_assert_eq!((fast.end_tick, fast.steps, fast.stop), (slow.end_tick, slow.steps, slow.stop));
        prop_assert_eq!(fast.healed, slow.healed);
        prop_assert_eq!(&fast.verdict, &slow.verdict);
    }
}

#[test]
fn every_built_in_protocol_is_exactly_once_without_faults() {
    for p in Protocol::all_built_in() {
        let mut s = Scenario::new(p.clone());
        s.workload.events = 5;
        let v = run(&s).verdict;
        assert_eq!(v.guarantee, Guarantee::ExactlyOnce, "{}", p.name);
        assert!(v.all_acked && v.conserved, "{}", p.name);
    }
}

#[test]
fn a_protocol_without_ack_leaves_events_in_flight_and_says_why() {
    let p = Protocol::new(
        "never-acks",
        "",
        vec![
            Step::Receive,
            Step::Begin,
            Step::InsertInbox,
            Step::ApplyEffect,
            Step::Commit,
        ],
    )
    .unwrap();
    let v = run(&Scenario::new(p)).verdict;
    assert_eq!(v.guarantee, Guarantee::ExactlyOnce);
    assert!(!v.all_acked);
    assert_eq!(
        v.events[0].unacked_reason,
        Some(delivery_sim::check::UnackedReason::NoAckStep)
    );
}

#[test]
fn hitting_the_step_limit_is_reported_not_hung() {
    let mut s = Scenario::new(Protocol::built_in("inbox").unwrap());
    s.workload.events = 50;
    s.limits.max_steps = 20;
    let r = run(&s);
    assert_eq!(r.stop, delivery_sim::sim::StopReason::StepLimit);
    // 20 steps of the faulty phase, then as many again with every fault off.
    let healed = r.healed.expect("the step limit stopped the faulty phase");
    assert_eq!((healed.steps, r.steps), (20, 40));
    assert!(!r.verdict.all_acked);
    assert!(r.verdict.stuck > 0);
    assert_eq!(
        r.verdict.events[49].unacked_reason,
        Some(delivery_sim::check::UnackedReason::Limit {
            stop: delivery_sim::sim::StopReason::StepLimit
        })
    );
    assert!(
        r.verdict.conserved,
        "the open transaction was rolled back, not half-read"
    );
}

#[test]
fn hitting_the_tick_limit_is_reported() {
    let mut s = Scenario::new(Protocol::built_in("no-dedup").unwrap());
    s.faults.crash = vec![CrashSpec {
        at: Boundary::before(Step::Commit),
        event: Some(0),
        copy: None,
        delivery: None,
    }];
    s.broker.redelivery_delay_ticks = 1_000;
    s.limits.max_ticks = 100;
    let r = run(&s);
    assert_eq!(r.stop, delivery_sim::sim::StopReason::TickLimit);
    assert!(r.end_tick <= 100);
}

/// An inbox case plus one to three altered republishes (same `event_id`, another payload).
fn inbox_altered_case() -> impl Strategy<Value = (u64, usize, FaultPlan, Vec<usize>, Vec<usize>)> {
    (1usize..=8).prop_flat_map(|events| {
        (
            any::<u64>(),
            Just(events),
            plan(Protocol::built_in("inbox").unwrap(), events),
            proptest::collection::vec(0..events, 1..4),
        )
            .prop_map(|(seed, events, (plan, republish), altered)| {
                (seed, events, plan, republish, altered)
            })
    })
}

proptest! {
    #![proptest_config(config(128))]

    /// Same `event_id`, another payload, under any fault plan: the inbox applies one payload
    /// per event once, refuses every other payload with one committed alert each (whichever
    /// copy came first), never counts an alert as a discarded duplicate, and acks everything.
    /// When the altered copy came first, the event's own payload is the refused one: a
    /// wrong effect, and the guarantee is at-most-once; else each event is once.
    #[test]
    fn inbox_alerts_every_altered_copy_once_under_any_fault_plan(
        (seed, events, plan, republish, altered) in inbox_altered_case()
    ) {
        let mut s = scenario("inbox", seed, events, plan, republish);
        s.workload.republish_altered = altered.clone();
        let r = run(&s);
        let v = &r.verdict;
        prop_assert_eq!((v.lost, v.duplicated, v.stuck), (0, 0, 0), "{}", r.trace.hash_hex());
        let expected = if v.wrong_effects == 0 {
            Guarantee::ExactlyOnce
        } else {
            Guarantee::AtMostOnce
        };
        prop_assert_eq!(v.guarantee, expected, "{}", r.trace.hash_hex());
        prop_assert!(v.all_acked && v.conserved);
        prop_assert_eq!(v.payload_alerts, altered.len() as u64);
        for e in &v.events {
            let copies = altered.iter().filter(|&&a| a == e.event).count();
            prop_assert_eq!(e.payload_alerts.len(), copies, "event {}", e.event);
            prop_assert_eq!(e.inbox_rows, 1);
            prop_assert_eq!(e.amounts_minor.len(), 1, "one payload applied, once");
            let own = e.amounts_minor[0] == e.amount_minor;
            let outcome = if own { Outcome::Once } else { Outcome::WrongEffect };
            prop_assert_eq!(e.outcome, outcome, "event {}", e.event);
            // The alert names the refused payload as the event's own exactly when it was.
            prop_assert_eq!(
                e.payload_alerts.iter().any(|a| a.refused_genuine),
                !own,
                "event {}",
                e.event
            );
        }
    }
}

/// Commit timeouts for `events` events: which commit, and whether it really happened.
fn commit_timeouts(events: usize) -> impl Strategy<Value = Vec<CommitTimeoutSpec>> {
    proptest::collection::vec(
        (
            proptest::option::of(0..events),
            proptest::option::of(1u32..=2),
            any::<bool>(),
        )
            .prop_map(|(event, delivery, applied)| CommitTimeoutSpec {
                nth: None,
                event,
                delivery,
                applied,
            }),
        1..4,
    )
}

proptest! {
    #![proptest_config(config(128))]

    /// A commit whose answer is lost, under any other faults: with the inbox, retrying
    /// blindly or looking the `event_id` up first both give one effect per event and ack
    /// everything, whether the commit happened or not (the stable identity makes the retry
    /// safe), with one consumer or several.
    #[test]
    fn inbox_with_retry_or_lookup_is_exactly_once_under_commit_timeouts(
        (seed, events, plan, republish) in inbox_case(),
        timeouts in commit_timeouts(8),
        lookup in any::<bool>(),
        consumers in 1usize..=2,
    ) {
        let mut s = scenario("inbox", seed, events, plan, republish);
        s.faults.commit_timeout = timeouts
            .into_iter()
            .map(|t| CommitTimeoutSpec { event: t.event.map(|e| e % events), ..t })
            .collect();
        s.consumer.on_commit_timeout = if lookup {
            CommitTimeoutStrategy::Lookup
        } else {
            CommitTimeoutStrategy::Retry
        };
        s.consumers = consumers;
        let r = run(&s);
        prop_assert_eq!(r.verdict.guarantee, Guarantee::ExactlyOnce, "{}", r.trace.hash_hex());
        prop_assert!(r.verdict.all_acked && r.verdict.conserved);
    }

    /// Abandoning after a commit timeout never duplicates, even with the inbox; it can only
    /// lose (the unsafe half, caught in `a_commit_timeout_shows_which_strategy_loses_and_which_duplicates`).
    #[test]
    fn abandoning_after_a_commit_timeout_never_duplicates(
        (seed, events, plan, republish) in inbox_case(),
        timeouts in commit_timeouts(8),
    ) {
        let mut s = scenario("inbox", seed, events, plan, republish);
        s.faults.commit_timeout = timeouts
            .into_iter()
            .map(|t| CommitTimeoutSpec { event: t.event.map(|e| e % events), ..t })
            .collect();
        s.consumer.on_commit_timeout = CommitTimeoutStrategy::Abandon;
        let v = run(&s).verdict;
        prop_assert_eq!(v.duplicated, 0);
        prop_assert!(v.conserved);
    }
}

proptest! {
    #![proptest_config(config(128))]

    /// A poison message (some step of some event fails on every delivery until a fix),
    /// dead-lettered after `max_deliveries`, then the dead-letter queue replayed after the
    /// fix, with crashes, failures and republishes on top: the inbox never duplicates an
    /// effect, and an event with no effect is dead-lettered (lost, but recoverable), never
    /// silently lost. Without the crashes and broker faults everything ends applied once and acked.
    #[test]
    fn inbox_with_a_poison_message_and_a_dead_letter_replay_is_safe(
        (seed, events, plan, republish) in inbox_case(),
        step in proptest::sample::select(vec![
            Step::Begin, Step::InsertInbox, Step::ApplyEffect, Step::Commit, Step::Ack,
        ]),
        poisoned in 0usize..8,
        fix_tick in 1u64..200,
        replay_after_fix_ticks in 0u64..200,
        max_deliveries in 1u32..=4,
        calm in any::<bool>(),
    ) {
        let mut s = scenario("inbox", seed, events, plan, republish);
        if calm {
            s.faults = FaultPlan::default();
        }
        s.faults.fail.push(FailSpec {
            step,
            nth: None,
            event: Some(poisoned % events),
            delivery: None,
            times: 1,
            until_tick: Some(fix_tick),
        });
        s.broker.max_deliveries = Some(max_deliveries);
        // Without other faults the replay must come after the fault is really gone: a
        // delivery that failed just before the fix is rolled back and rejected in the next
        // ticks, and parked just after the fix. A replay in that window misses it, and
        // the parked copy stays unacked (found by this property).
        let replay_after_fix_ticks = if calm {
            replay_after_fix_ticks.max(5)
        } else {
            replay_after_fix_ticks
        };
        s.broker.replay_dead_letters_at_tick = Some(fix_tick + replay_after_fix_ticks);
        let r = run(&s);
        let v = &r.verdict;
        // The only losses are dead letters (parked for a person, counted as lost when the
        // fault plan dead-letters them again after the one replay), never silent ones.
        prop_assert_eq!(v.lost, v.dead_lettered, "{}", r.trace.hash_hex());
        prop_assert_eq!(v.duplicated, 0, "{}", r.trace.hash_hex());
        prop_assert!(v.conserved);
        for e in &v.events {
            if e.effects == 0 {
                prop_assert_eq!(e.outcome, Outcome::DeadLettered);
            }
        }
        if calm {
            prop_assert!(v.all_acked, "{}", r.trace.hash_hex());
            prop_assert_eq!(v.exactly_once, events as u64);
        }
    }
}

#[test]
fn without_the_constraint_an_altered_copy_is_applied_and_the_checker_shows_both_amounts() {
    let mut s = Scenario::new(Protocol::built_in("inbox").unwrap());
    s.store.inbox_unique = false;
    s.workload.republish_altered = vec![1];
    let v = run(&s).verdict;
    assert_eq!(v.duplicated, 1, "no constraint, no comparison, no alert");
    assert_eq!(v.payload_alerts, 0);
    assert_eq!(v.events[1].amounts_minor, [10_000, 20_000]);
    assert_eq!(v.events[1].inbox_rows, 2);
    assert!(v.conserved, "each copy moves its own amount consistently");
}

#[test]
fn a_commit_timeout_shows_which_strategy_loses_and_which_duplicates() {
    use CommitTimeoutStrategy::*;
    // (protocol, strategy, applied) → event 0's outcome.
    let table = [
        ("inbox", Retry, true, Outcome::Once),
        ("inbox", Retry, false, Outcome::Once),
        ("inbox", Lookup, true, Outcome::Once),
        ("inbox", Lookup, false, Outcome::Once),
        ("inbox", Abandon, true, Outcome::Once),
        ("inbox", Abandon, false, Outcome::Lost),
        ("no-dedup", Retry, true, Outcome::Duplicated),
        ("no-dedup", Retry, false, Outcome::Once),
        ("no-dedup", Lookup, true, Outcome::Duplicated),
        ("no-dedup", Lookup, false, Outcome::Once),
        ("no-dedup", Abandon, true, Outcome::Once),
        ("no-dedup", Abandon, false, Outcome::Lost),
    ];
    for (protocol, strategy, applied, want) in table {
        let mut s = Scenario::new(Protocol::built_in(protocol).unwrap());
        s.consumer.on_commit_timeout = strategy;
        s.faults.commit_timeout = vec![CommitTimeoutSpec {
            nth: None,
            event: Some(0),
            delivery: None,
            applied,
        }];
        let v = run(&s).verdict;
        assert_eq!(
            v.events[0].outcome, want,
            "{protocol}, {strategy:?}, applied: {applied}"
        );
        assert!(v.all_acked && v.conserved);
        assert_eq!(v.exactly_once, 2 + u64::from(want == Outcome::Once));
    }
}

#[test]
fn replaying_dead_letters_without_an_inbox_duplicates_what_was_committed() {
    let mut s = Scenario::new(Protocol::built_in("no-dedup").unwrap());
    s.broker.max_deliveries = Some(1);
    s.broker.replay_dead_letters_at_tick = Some(100);
    s.faults.fail = vec![FailSpec {
        step: Step::Ack,
        nth: None,
        event: Some(2),
        delivery: None,
        times: 1,
        until_tick: Some(50),
    }];
    let v = run(&s).verdict;
    assert_eq!(
        v.events[2].outcome,
        Outcome::Duplicated,
        "the replay applied it again"
    );
    assert_eq!(v.events[2].effects, 2);
    assert_eq!(v.events[2].dead_letter_replays, 1);
    assert!(v.all_acked);
    // The same with the inbox: the replay is absorbed.
    s.protocol = Protocol::built_in("inbox").unwrap();
    let v = run(&s).verdict;
    assert_eq!(v.events[2].outcome, Outcome::Once);
    assert_eq!(v.events[2].duplicates_discarded, 1);
    assert!(v.all_acked);
}

/// A protocol from step names, for the variants below.
fn custom(name: &str, steps: &[Step]) -> Protocol {
    Protocol::new(name, "", steps.to_vec()).expect("a valid protocol")
}

/// The verdict of `boundary`, which the run must have.
fn scope(v: &delivery_sim::check::Verdict, boundary: Scope) -> ScopeVerdict {
    *v.boundaries
        .iter()
        .find(|b| b.boundary == boundary)
        .unwrap_or_else(|| panic!("the run has a {} verdict", boundary.name()))
}

/// Random crashes anywhere (producer, relays, consumer), plus planned ones at the given
/// steps' boundaries.
fn crashes_among(steps: Vec<Step>, events: usize) -> impl Strategy<Value = FaultPlan> {
    let boundaries = Boundary::all_of(&steps);
    let crash = (
        proptest::sample::select(boundaries),
        proptest::option::of(0..events),
    )
        .prop_map(|(at, event)| CrashSpec {
            at,
            event,
            copy: None,
            delivery: None,
        });
    (
        proptest::collection::vec(crash, 0..3),
        (0u32..=250_000, 0u32..=5),
    )
        .prop_map(|(crash, (ppm, max))| FaultPlan {
            crash,
            random_crash: Some(RandomCrash {
                per_step_ppm: ppm,
                max_crashes: max,
            }),
            ..FaultPlan::default()
        })
}

fn outbox_case() -> impl Strategy<Value = (u64, usize, bool, bool, FaultPlan)> {
    (1usize..=5).prop_flat_map(|events| {
        let steps = [
            Step::InsertTransfer,
            Step::CommitTransfer,
            Step::RelayPublish,
            Step::MarkSent,
            Step::Receive,
            Step::Begin,
            Step::InsertInbox,
            Step::ApplyEffect,
            Step::Commit,
            Step::Ack,
        ];
        (
            any::<u64>(),
            Just(events),
            any::<bool>(),
            any::<bool>(),
            crashes_among(steps.to_vec(), events),
        )
    })
}

proptest! {
    #![proptest_config(config(64))]

    /// Outbox plus inbox, end to end: whatever crashes hit the producer, its relay and the
    /// consumer, every transfer the producer committed moves money exactly once, no money
    /// moves for a transfer it did not commit, and every event ends acked. With the
    /// producer's tables in their own database or in the consumer's.
    #[test]
    fn outbox_and_inbox_give_one_effect_per_intent_under_any_crashes(
        (seed, events, shared, retry, plan) in outbox_case()
    ) {
        let mut s = scenario("inbox", seed, events, plan, vec![]);
        s.producer = ProducerConfig {
            mode: ProducerMode::Outbox,
            database: if shared { ProducerDatabase::Shared } else { ProducerDatabase::Own },
            retry,
            ..ProducerConfig::default()
        };
        let r = run(&s);
        let v = &r.verdict;
        prop_assert_eq!(scope(v, Scope::LedgerPerEvent).guarantee, Guarantee::ExactlyOnce);
        let intent = scope(v, Scope::LedgerPerIntent);
        prop_assert_eq!(intent.guarantee, Guarantee::ExactlyOnce, "{}", r.trace.hash_hex());
        prop_assert_eq!(intent.ghost, 0);
        prop_assert!(v.all_acked);
        prop_assert!(v.conserved);
        if retry {
            // A client that retries gets every request committed in the end.
            prop_assert_eq!(intent.once, events as u64);
        }
        let again = run(&s);
        prop_assert_eq!(again.trace.hash_hex(), r.trace.hash_hex());
    }

    /// A producer that mints a new event_id for each publication attempt, with timeouts and
    /// crashes: the inbox sees new events, the ledger's business key still lets each
    /// transfer move money once.
    #[test]
    fn the_business_key_keeps_one_effect_per_intent_under_unstable_identity(
        seed in any::<u64>(),
        events in 1usize..=5,
        timeouts in proptest::collection::vec((proptest::option::of(0usize..5), 1u32..=2), 1..3),
        plan in crashes_among(Protocol::built_in("inbox").unwrap().steps, 5),
    ) {
        let mut s = scenario("inbox", seed, events, plan, vec![]);
        s.faults.crash.retain(|c| c.event.is_none_or(|e| e < events));
        s.producer.identity = Identity::PerAttempt;
        s.faults.publish_timeout = timeouts
            .into_iter()
            .map(|(event, times)| PublishFault { event: event.filter(|e| *e < events), times })
            .collect();
        s.store.business_key_unique = true;
        let v = run(&s).verdict;
        let intent = scope(&v, Scope::LedgerPerIntent);
        prop_assert_eq!(intent.guarantee, Guarantee::ExactlyOnce);
        prop_assert_eq!(intent.once, events as u64);
        prop_assert!(v.all_acked && v.conserved);
        // Without the business key the same plan duplicates every timed-out intent.
        s.store.business_key_unique = false;
        let unsafe_verdict = run(&s).verdict;
        prop_assert!(scope(&unsafe_verdict, Scope::LedgerPerIntent).duplicated > 0);
    }

    /// The email through an outbox, with an idempotency key at the mail service: one email
    /// per committed effect under any crashes of the consumer and of the email relay.
    #[test]
    fn the_email_outbox_with_a_key_sends_each_email_once(
        seed in any::<u64>(),
        events in 1usize..=5,
        plan in crashes_among(vec![
            Step::Receive, Step::Begin, Step::InsertInbox, Step::ApplyEffect,
            Step::EnqueueEmail, Step::Commit, Step::Ack, Step::SendEmail, Step::MarkEmailSent,
        ], 5),
    ) {
        let mut s = scenario("inbox", seed, events, plan, vec![]);
        s.faults.crash.retain(|c| c.event.is_none_or(|e| e < events));
        s.protocol = custom("inbox-email-outbox", &[
            Step::Receive, Step::Begin, Step::InsertInbox, Step::ApplyEffect,
            Step::EnqueueEmail, Step::Commit, Step::Ack,
        ]);
        s.email.idempotency_key = true;
        let v = run(&s).verdict;
        prop_assert_eq!(scope(&v, Scope::Email).guarantee, Guarantee::ExactlyOnce);
        prop_assert_eq!(scope(&v, Scope::Email).once, events as u64);
        prop_assert_eq!(v.guarantee, Guarantee::ExactlyOnce);
    }

    /// A transactional broker and an inbox: the output topic and the ledger both show each
    /// event once, under any consumer crashes.
    #[test]
    fn a_transactional_broker_with_an_inbox_is_exactly_once_on_both_boundaries(
        seed in any::<u64>(),
        events in 1usize..=5,
        plan in crashes_among(vec![
            Step::Receive, Step::Begin, Step::InsertInbox, Step::ApplyEffect,
            Step::Commit, Step::ProduceOutput, Step::Ack,
        ], 5),
    ) {
        let mut s = scenario("inbox", seed, events, plan, vec![]);
        s.faults.crash.retain(|c| c.event.is_none_or(|e| e < events));
        s.protocol = custom("inbox-with-output", &[
            Step::Receive, Step::Begin, Step::InsertInbox, Step::ApplyEffect,
            Step::Commit, Step::ProduceOutput, Step::Ack,
        ]);
        s.broker.transactional = true;
        let v = run(&s).verdict;
        prop_assert_eq!(scope(&v, Scope::OutputTopic).guarantee, Guarantee::ExactlyOnce);
        prop_assert_eq!(v.guarantee, Guarantee::ExactlyOnce);
        prop_assert!(v.all_acked);
    }
}

proptest! {
    #![proptest_config(config(12))]

    /// The unsafe variants, each caught by the checker at some single crash point: a dual
    /// write loses an intent (commit first) or leaves a ghost (publish first, no retry); an
    /// email sent after the commit is lost; an output without a broker transaction is
    /// duplicated; a broker transaction does not stop the ledger from duplicating.
    #[test]
    fn every_unsafe_variant_has_a_crash_point_the_checker_catches(seed in any::<u64>(), events in 1usize..=3) {
        let explored = |s: &Scenario, boundary: Scope| {
            let x = explore::single_crash_points(s);
            x.summary.scopes().into_iter().find(|(b, _)| *b == boundary).map(|(_, b)| b)
        };
        let mut s = scenario("inbox", seed, events, FaultPlan::default(), vec![]);
        s.producer.mode = ProducerMode::CommitThenPublish;
        let lost = explored(&s, Scope::LedgerPerIntent).unwrap();
        prop_assert_eq!(lost.guarantee, Guarantee::AtMostOnce);
        s.producer = ProducerConfig { mode: ProducerMode::PublishThenCommit, retry: false, ..ProducerConfig::default() };
        prop_assert_eq!(explored(&s, Scope::LedgerPerIntent).unwrap().guarantee, Guarantee::AtLeastOnce);
        s.producer = ProducerConfig { mode: ProducerMode::Outbox, ..ProducerConfig::default() };
        prop_assert_eq!(explored(&s, Scope::LedgerPerIntent).unwrap().guarantee, Guarantee::ExactlyOnce);

        let mut s = scenario("inbox", seed, events, FaultPlan::default(), vec![]);
        s.protocol = custom("email-after-commit", &[
            Step::Receive, Step::Begin, Step::InsertInbox, Step::ApplyEffect,
            Step::Commit, Step::ExternalEffect, Step::Ack,
        ]);
        prop_assert_eq!(explored(&s, Scope::Email).unwrap().guarantee, Guarantee::AtMostOnce);

        s.protocol = custom("output", &[
            Step::Receive, Step::Begin, Step::InsertInbox, Step::ApplyEffect,
            Step::Commit, Step::ProduceOutput, Step::Ack,
        ]);
        prop_assert_eq!(explored(&s, Scope::OutputTopic).unwrap().guarantee, Guarantee::AtLeastOnce);
        s.protocol = custom("output-no-dedup", &[
            Step::Receive, Step::Begin, Step::ApplyEffect, Step::Commit, Step::ProduceOutput, Step::Ack,
        ]);
        s.broker.transactional = true;
        let x = explore::single_crash_points(&s);
        prop_assert_eq!(x.summary.guarantee, Guarantee::AtLeastOnce);
        prop_assert_eq!(x.summary.output_topic.unwrap().guarantee, Guarantee::ExactlyOnce);
    }
}
