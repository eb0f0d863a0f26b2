//! Random search, swarm style: each seed draws its own fault rates (how often to crash, how
//! many crashes, which steps fail, which events are republished) and then runs with them.
//! Different seeds stress different mixes of faults, which finds bugs that one fixed mix
//! of rates would make rare.
//!
//! Seeds run in parallel in chunks; each chunk's findings are reported in seed order, so the
//! output is the same for any number of threads, and a finding is reported as soon as its
//! chunk ends.

use super::shrink::{shrink, ShrinkOptions, Shrunk};
use crate::broker::StaleAck;
use crate::fault::{DeliveryFault, FailSpec, FaultPlan, RandomCrash, StallSpec};
use crate::model::{Boundary, EventIndex, Step, Tick};
use crate::scenario::Scenario;
use crate::sim::{SimRng, Stream};
use crate::world::{self, RunOptions, RunResult};
use rayon::prelude::*;
use serde::Serialize;

/// The most seeds one sweep runs.
pub const MAX_SEEDS: u64 = 10_000_000;

/// How many seeds run between two reports.
pub const CHUNK: u64 = 256;

/// The ranges each seed draws its fault rates from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SwarmLimits {
    /// A seed's crash probability per step is drawn from 0 to this (parts per million).
    pub max_crash_ppm: u32,
    /// A seed's crash budget is drawn from 0 to this.
    pub max_crashes: u32,
    /// A seed fails 0 to this many steps (each once to three times).
    pub max_failures: u32,
    /// A seed republishes 0 to this many events.
    pub max_republishes: u32,
    /// A seed loses 0 to this many acks and has the broker duplicate 0 to this many
    /// deliveries (with a lease, so that a lost ack is redelivered).
    pub max_broker_faults: u32,
    /// A seed's broker delays deliveries by up to 0 to this many ticks (reordering them).
    pub max_jitter_ticks: u32,
    /// A seed may stall its consumer once for up to this many ticks, past the 50-tick lease
    /// it then gets, so that the lease expires while the consumer still works (0: never).
    pub max_stall_ticks: u32,
}

impl Default for SwarmLimits {
    fn default() -> Self {
        SwarmLimits {
            max_crash_ppm: 200_000,
            max_crashes: 5,
            max_failures: 2,
            max_republishes: 2,
            max_broker_faults: 2,
            max_jitter_ticks: 20,
            max_stall_ticks: 80,
        }
    }
}

/// What one seed drew.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SwarmPlan {
    /// Written as a scenario file's `faults`.
    #[serde(serialize_with = "crate::scenario::serialize_faults")]
    #[schemars(with = "crate::scenario::FaultsAsWritten")]
    pub faults: FaultPlan,
    pub republish: Vec<EventIndex>,
    /// The lease the broker gets when the seed loses acks (else the scenario's own).
    pub lease_ticks: Option<Tick>,
    /// The broker's delivery jitter (0: none).
    pub jitter_ticks: Tick,
    /// Whether the broker accepts stale acks.
    pub stale_ack: StaleAck,
}

/// Draws seed `seed`'s plan for `scenario` within `limits`, from the seed's swarm stream.
pub fn draw_plan(scenario: &Scenario, seed: u64, limits: &SwarmLimits) -> SwarmPlan {
    let mut rng = SimRng::new(seed, Stream::Swarm);
    let events = scenario.workload.events as u64;
    let failable: Vec<Step> = scenario
        .protocol
        .steps
        .iter()
        .copied()
        .filter(|s| *s != Step::Receive)
        .collect();
    let random_crash = RandomCrash {
        per_step_ppm: rng.below(u64::from(limits.max_crash_ppm) + 1) as u32,
        max_crashes: rng.below(u64::from(limits.max_crashes) + 1) as u32,
    };
    let failures = rng.below(u64::from(limits.max_failures) + 1);
    let fail = (0..failures)
        .map(|_| FailSpec {
            step: failable[rng.below(failable.len() as u64) as usize],
            nth: None,
            event: Some(rng.below(events) as usize),
            delivery: None,
            times: 1 + rng.below(3) as u32,
            until_tick: None,
        })
        .collect();
    let republishes = rng.below(u64::from(limits.max_republishes) + 1);
    let republish = (0..republishes)
        .map(|_| rng.below(events) as usize)
        .collect();
    let broker_faults = |rng: &mut SimRng| -> Vec<DeliveryFault> {
        (0..rng.below(u64::from(limits.max_broker_faults) + 1))
            .map(|_| DeliveryFault {
                event: Some(rng.below(events) as usize),
                delivery: None,
                times: 1,
            })
            .collect()
    };
    let lose_ack = broker_faults(&mut rng);
    let duplicate_delivery = broker_faults(&mut rng);
    // A lost ack is only ever redelivered through a lease; long enough that a live
    // consumer never outlasts it.
    let stall: Vec<StallSpec> = if limits.max_stall_ticks > 0 && rng.below(2) == 1 {
        let steps = &scenario.protocol.steps;
        let at = 1 + rng.below(steps.len() as u64 - 1) as usize;
        vec![StallSpec {
            at: Boundary::before(steps[at]).nth(crate::model::occurrence(steps, at)),
            event: Some(rng.below(events) as usize),
            delivery: None,
            ticks: 1 + rng.below(u64::from(limits.max_stall_ticks)),
        }]
    } else {
        Vec::new()
    };
    let lease_ticks = (!lose_ack.is_empty() || !stall.is_empty()).then_some(50);
    let jitter_ticks = rng.below(u64::from(limits.max_jitter_ticks) + 1);
    let stale_ack = if rng.below(2) == 1 {
        StaleAck::Accept
    } else {
        StaleAck::Reject
    };
    SwarmPlan {
        faults: FaultPlan {
            random_crash: Some(random_crash),
            fail,
            lose_ack,
            duplicate_delivery,
            stall,
            ..FaultPlan::default()
        },
        republish,
        lease_ticks,
        jitter_ticks,
        stale_ack,
    }
}

/// `scenario` with seed `seed` and the plan that seed draws.
pub fn seeded(scenario: &Scenario, seed: u64, limits: &SwarmLimits) -> (Scenario, SwarmPlan) {
    let plan = draw_plan(scenario, seed, limits);
    let mut s = scenario.clone();
    s.seed = seed;
    s.faults = plan.faults.clone();
    s.workload.republish = plan.republish.clone();
    // The queue's options; a log broker has none of them, and none of its faults.
    if s.broker.log.is_none() {
        if plan.lease_ticks.is_some() {
            s.broker.lease_ticks = plan.lease_ticks;
        }
        if plan.jitter_ticks > 0 {
            s.broker.delivery_jitter_ticks = Some(plan.jitter_ticks);
        }
        s.broker.stale_ack = plan.stale_ack;
    } else {
        s.faults.lose_ack.clear();
        s.faults.duplicate_delivery.clear();
    }
    (s, plan)
}

/// Whether a run is a finding: it breaks anything of one effect per event (and per
/// intent, email and output, when the scenario has those boundaries), every event acked,
/// balances conserved, and the run finished (see [`crate::check::failure`]).
pub fn is_finding(r: &RunResult) -> bool {
    !r.failure().is_empty()
}

/// One failing seed.
#[derive(Debug)]
pub struct Finding {
    pub seed: u64,
    pub plan: SwarmPlan,
    pub result: RunResult,
}

/// The exact scenario of finding `f` (its seed's plan applied), named after the seed.
pub fn finding_scenario(scenario: &Scenario, f: &Finding, limits: &SwarmLimits) -> Scenario {
    let (mut s, _) = seeded(scenario, f.seed, limits);
    s.name = format!("{}-seed{}", scenario.name, f.seed);
    s
}

/// Shrinks finding `f` to a minimal run that fails the same way (see
/// [`super::shrink`]); the shrunk scenario is named after the seed.
pub fn shrink_finding(
    scenario: &Scenario,
    f: &Finding,
    limits: &SwarmLimits,
    options: ShrinkOptions,
) -> Shrunk {
    let mut s = finding_scenario(scenario, f, limits);
    s.name.push_str("-shrunk");
    shrink(&s, &[], options).expect("a finding fails")
}

/// Runs seeds `seeds` (a chunk) in parallel and returns the findings in seed order.
pub fn sweep_chunk(
    scenario: &Scenario,
    seeds: std::ops::Range<u64>,
    limits: &SwarmLimits,
    on_run: &(dyn Fn() + Sync),
) -> Vec<Finding> {
    sweep_chunk_until_interrupted(scenario, seeds, limits, on_run).findings
}

/// What a chunk ran: every seed of `seeds.start..done_until`, and their findings in seed
/// order. `done_until` is the chunk's end unless an interruption was requested.
#[derive(Debug)]
pub struct Chunk {
    pub findings: Vec<Finding>,
    pub done_until: u64,
}

/// [`sweep_chunk`], stopping early when an interruption is requested
/// ([`super::interrupt`]): a seed not started by then is not run, and only the seeds
/// before the first such seed count, so that resuming from `done_until` runs every other
/// seed exactly once (seeds after it that did run are run again on resumption, with the
/// same result: a run is a pure function of its seed).
pub fn sweep_chunk_until_interrupted(
    scenario: &Scenario,
    seeds: std::ops::Range<u64>,
    limits: &SwarmLimits,
    on_run: &(dyn Fn() + Sync),
) -> Chunk {
    sweep_chunk_until(
        scenario,
        seeds,
        limits,
        on_run,
        &super::interrupt::requested,
    )
}

/// [`sweep_chunk_until_interrupted`], asking `stop` before each seed whether to stop.
fn sweep_chunk_until(
    scenario: &Scenario,
    seeds: std::ops::Range<u64>,
    limits: &SwarmLimits,
    on_run: &(dyn Fn() + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Chunk {
    let options = RunOptions {
        hash_only: true,
        ..RunOptions::default()
    };
    let start = seeds.start;
    let run_seeds = || {
        seeds.into_par_iter().map(|seed| {
            if stop() {
                return None;
            }
            let (s, plan) = seeded(scenario, seed, limits);
            let mut result = world::run_with(&s, options);
            on_run();
            // A finding is reported, and shrunk from its seed's plan: only what the report
            // reads is kept, a chunk's worth of findings at a time.
            Some(is_finding(&result).then(|| {
                result.slim();
                Finding { seed, plan, result }
            }))
        })
    };
    let results: Vec<Option<Option<Finding>>> =
        super::threads::within(super::threads::bound(scenario), || run_seeds().collect());
    let done = results.iter().take_while(|r| r.is_some()).count();
    Chunk {
        findings: results.into_iter().map_while(|r| r).flatten().collect(),
        done_until: start + done as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Protocol;

    #[test]
    fn each_seed_draws_its_own_plan_within_the_limits_and_the_same_one_every_time() {
        let s = Scenario::new(Protocol::built_in("inbox").unwrap());
        let limits = SwarmLimits::default();
        let plans: Vec<SwarmPlan> = (0..50).map(|seed| draw_plan(&s, seed, &limits)).collect();
        for (seed, p) in plans.iter().enumerate() {
            assert_eq!(*p, draw_plan(&s, seed as u64, &limits));
            let rc = p.faults.random_crash.unwrap();
            assert!(
                rc.per_step_ppm <= limits.max_crash_ppm && rc.max_crashes <= limits.max_crashes
            );
            assert!(p.faults.fail.len() <= 2 && p.republish.len() <= 2);
            assert!(p
                .faults
                .fail
                .iter()
                .all(|f| f.step != Step::Receive && f.event < Some(3)));
        }
        let distinct: std::collections::BTreeSet<String> =
            plans.iter().map(|p| format!("{p:?}")).collect();
        assert!(distinct.len() > 40, "seeds draw different mixes");
    }

    #[test]
    fn zero_limits_draw_no_faults() {
        let s = Scenario::new(Protocol::built_in("no-dedup").unwrap());
        let limits = SwarmLimits {
            max_crash_ppm: 0,
            max_crashes: 0,
            max_failures: 0,
            max_republishes: 0,
            max_broker_faults: 0,
            max_jitter_ticks: 0,
            max_stall_ticks: 0,
        };
        for seed in 0..20 {
            let (scenario, _) = seeded(&s, seed, &limits);
            assert!(!is_finding(&world::run(&scenario)), "no faults, no finding");
        }
    }

    #[test]
    fn a_sweep_over_no_dedup_finds_duplicates_and_over_inbox_finds_nothing() {
        let limits = SwarmLimits::default();
        let mut s = Scenario::new(Protocol::built_in("no-dedup").unwrap());
        s.workload.events = 5;
        let found = sweep_chunk(&s, 0..64, &limits, &|| {});
        assert!(found.iter().any(|f| f.result.verdict.duplicated > 0));
        assert!(
            found.windows(2).all(|w| w[0].seed < w[1].seed),
            "in seed order"
        );
        let mut s = Scenario::new(Protocol::built_in("inbox").unwrap());
        s.workload.events = 5;
        assert!(sweep_chunk(&s, 0..64, &limits, &|| {}).is_empty());
    }

    #[test]
    fn an_interrupted_chunk_reports_exactly_the_findings_of_the_seeds_before_its_end() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let limits = SwarmLimits::default();
        let mut s = Scenario::new(Protocol::built_in("no-dedup").unwrap());
        s.workload.events = 5;
        let whole = sweep_chunk(&s, 0..64, &limits, &|| {});
        assert!(whole.len() > 10);
        for after in [0, 1, 17, 40] {
            // Stop once `after` seeds have been started, whichever threads started them.
            let started = AtomicU64::new(0);
            let stop = || started.fetch_add(1, Ordering::SeqCst) >= after;
            let chunk = sweep_chunk_until(&s, 0..64, &limits, &|| {}, &stop);
            assert!(chunk.done_until <= 64);
            let expected: Vec<u64> = whole
                .iter()
                .map(|f| f.seed)
                .filter(|&seed| seed < chunk.done_until)
                .collect();
            let got: Vec<u64> = chunk.findings.iter().map(|f| f.seed).collect();
            assert_eq!(got, expected, "stopped after {after}: a prefix, no gap");
            if after == 0 {
                assert_eq!(chunk.done_until, 0);
            }
        }
        let never = sweep_chunk_until(&s, 0..64, &limits, &|| {}, &|| false);
        assert_eq!(never.done_until, 64);
        assert_eq!(never.findings.len(), whole.len());
    }
}
