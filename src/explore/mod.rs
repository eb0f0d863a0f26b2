//! Exhaustive exploration of crash schedules, and the protocol × crash-point matrix.
//!
//! `explore` runs a scenario once without crashes (the baseline) and collects every step
//! boundary that run reaches. Each boundary becomes a schedule of one crash. Up to
//! `depth`, each schedule is extended by every boundary its own run reached after its last
//! crash — the redelivered attempts and the recovery included — so a schedule of k crashes
//! is a real run in which the k-th crash hits a point that only exists because of the first
//! k-1.
//!
//! Schedules are explored level by level; the runs of a level run in parallel and are
//! collected in schedule order, so the output does not depend on the number of threads.
//! Two schedules whose whole simulation state is identical right after their last crash
//! (the digest of every component, `sim::fingerprint`, with times relative to the crash)
//! have the same future, shifted in time; the later one is reported as equivalent and its
//! extensions are not run, unless the limits could tell the two futures apart, which
//! `explore::prune` checks after the fact. `prune: false` (`--no-prune`) runs every schedule.
//! Every reported run was really run.
//!
//! The scenario's own planned and random crashes are replaced; its step failures and
//! republishes are kept.

pub mod budget;
pub mod interrupt;
mod prune;
pub mod retention;
pub mod shrink;
pub mod sweep;

use crate::check;
use crate::fault::{Confirmed, CrashSpec};
use crate::model::{Boundary, BoundaryPoint, Guarantee, Protocol, Scope, Step};
use crate::scenario::Scenario;
use crate::sim::StopReason;
use crate::world::{self, RunOptions, RunResult};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

/// The deepest exploration accepted.
pub const MAX_DEPTH: usize = crate::scenario::bounds::MAX_DEPTH;
/// The most schedules one exploration runs; beyond it the exploration stops, says so, and
/// the summary is marked truncated.
pub const DEFAULT_MAX_SCHEDULES: u64 = 1_000_000;

/// The most `--max-schedules` may be: the matrix, which has no such flag, explores with it.
pub const MAX_SCHEDULES: u64 = 10_000_000;

/// How deep and how far to explore.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExploreOptions {
    /// The most crashes in one schedule (1 = one run per single crash point).
    pub depth: usize,
    /// The most schedules to run.
    pub max_schedules: u64,
    /// Whether schedules equivalent to earlier ones are pruned (`explore --no-prune` runs
    /// every one of them).
    pub prune: bool,
    /// The most memory the runs it keeps may take ([`budget::KEPT_RUNS_BYTES`]; a test
    /// sets less).
    pub budget_bytes: u64,
}

impl Default for ExploreOptions {
    fn default() -> Self {
        ExploreOptions {
            depth: 1,
            max_schedules: DEFAULT_MAX_SCHEDULES,
            prune: true,
            budget_bytes: budget::KEPT_RUNS_BYTES,
        }
    }
}

/// One run of an exploration: its crash schedule (empty for the baseline) and its result.
#[derive(Debug)]
pub struct ExploredRun {
    pub crashes: Vec<BoundaryPoint>,
    pub result: RunResult,
    /// The earlier run whose state after the last crash was identical to this one's: its
    /// extensions were explored there, not here.
    pub equivalent_to: Option<usize>,
}

/// The summary over all runs of an exploration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub depth: usize,
    pub runs: u64,
    /// Runs that lost an event (a dead-lettered one included).
    pub lost_runs: u64,
    pub duplicated_runs: u64,
    /// Runs in which the broker dead-lettered an event it never saw processed.
    pub dead_lettered_runs: u64,
    /// Runs with an event stuck: not resolved when the run ended.
    pub stuck_runs: u64,
    /// Runs that applied an altered copy's payload instead of an event's own.
    pub wrong_effect_runs: u64,
    /// Runs that failed liveness (an event stuck, or a limit stopped the healing phase):
    /// each fails the exploration, whatever the scenario expects.
    pub liveness_failed_runs: u64,
    /// Runs in which the projection rejected an event as out of order.
    pub rejected_runs: u64,
    /// Runs that ended with a completion still buffered in `pending_event`.
    pub pending_runs: u64,
    /// Runs that ended with some event not acked.
    pub unacked_runs: u64,
    /// Runs whose balances were not conserved (half an effect committed).
    pub unconserved_runs: u64,
    /// Runs stopped by a step or tick limit.
    pub limited_runs: u64,
    /// Runs whose state after their last crash equalled an earlier run's.
    pub equivalent_runs: u64,
    /// Extensions of those runs that were not run, because the earlier run's were.
    pub pruned_schedules: u64,
    /// Whether `max_schedules`, the memory budget or an interruption stopped the exploration
    /// before it was complete.
    pub truncated: bool,
    /// Whether the memory budget for kept runs ([`budget::KEPT_RUNS_BYTES`]) stopped it: a
    /// failure of the exploration, whose counts cover only the runs before it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub memory_limited: bool,
    /// Whether an interruption (Ctrl-C, [`interrupt`]) stopped it: the runs are a prefix of
    /// the schedules, in schedule order.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// Whether every schedule was run (`--no-prune`): its counts are not those a
    /// scenario pins, which describe the pruned exploration.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub no_prune: bool,
    /// The weakest guarantee over all runs.
    pub guarantee: Guarantee,
    /// The other guarantee boundaries the scenario has, over all runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ledger_per_intent: Option<ScopeSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<ScopeSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_topic: Option<ScopeSummary>,
}

/// One guarantee boundary over a set of runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ScopeSummary {
    /// The weakest over all runs.
    pub guarantee: Guarantee,
    /// Runs in which this boundary was not exactly-once.
    pub broken_runs: u64,
}

impl Summary {
    /// The boundaries beyond the ledger per event, with their summaries.
    pub fn scopes(&self) -> Vec<(Scope, ScopeSummary)> {
        [
            (Scope::LedgerPerIntent, self.ledger_per_intent),
            (Scope::Email, self.email),
            (Scope::OutputTopic, self.output_topic),
        ]
        .into_iter()
        .filter_map(|(scope, s)| s.map(|s| (scope, s)))
        .collect()
    }
}

/// A boundary's summary over `runs`, if their verdicts have that boundary.
fn scope_summary(runs: &[&ExploredRun], scope: Scope) -> Option<ScopeSummary> {
    let verdicts: Vec<&crate::check::ScopeVerdict> = runs
        .iter()
        .filter_map(|r| {
            r.result
                .verdict
                .boundaries
                .iter()
                .find(|b| b.boundary == scope)
        })
        .collect();
    if verdicts.is_empty() {
        return None;
    }
    let lost = verdicts.iter().any(|v| v.lost > 0);
    let extra = verdicts.iter().any(|v| v.duplicated + v.ghost > 0);
    Some(ScopeSummary {
        guarantee: Guarantee::from_anomalies(lost, extra),
        broken_runs: verdicts
            .iter()
            .filter(|v| v.guarantee != Guarantee::ExactlyOnce)
            .count() as u64,
    })
}

#[derive(Debug)]
pub struct Exploration {
    pub runs: Vec<ExploredRun>,
    pub summary: Summary,
}

impl Exploration {
    /// The runs that lost or duplicated an event, at any guarantee boundary.
    pub fn failing(&self) -> impl Iterator<Item = &ExploredRun> {
        self.runs.iter().filter(|r| !r.result.failure().is_empty())
    }

    /// The runs that failed liveness, each of which fails the exploration.
    pub fn not_live(&self) -> impl Iterator<Item = &ExploredRun> {
        self.runs
            .iter()
            .filter(|r| r.result.failure().fails_liveness())
    }
}

/// The scenario without its planned and random crashes: what every explored run starts from.
fn without_crashes(scenario: &Scenario) -> Scenario {
    let mut base = scenario.clone();
    base.faults.crash.clear();
    base.faults.random_crash = None;
    base
}

const EXPLORE_RUN: RunOptions = RunOptions {
    fingerprints: true,
    hash_only: true,
    record_statements: false,
    every_cleanup_tick: false,
};

/// Runs `base` with a crash at each point of `schedule`, and checks they all fired.
fn run_schedule(base: &Scenario, schedule: &[BoundaryPoint]) -> RunResult {
    let mut s = base.clone();
    s.faults.crash = schedule.iter().map(|p| CrashSpec::exactly(*p)).collect();
    let result = world::run_with(&s, EXPLORE_RUN);
    let fired: Vec<BoundaryPoint> = result.crashes.iter().map(|c| c.point).collect();
    assert_eq!(
        fired, schedule,
        "a deterministic rerun reaches every boundary of its schedule, in order"
    );
    result
}

/// What an exploration keeps of a run: what a summary reports of it ([`RunResult::slim`]),
/// and, while it may still be `extended`, the boundaries it reached.
fn kept(mut result: RunResult, extended: bool) -> RunResult {
    let reached = std::mem::take(&mut result.reached);
    result.slim();
    if extended {
        result.reached = reached;
    }
    result
}

/// Drops what an explored run kept only to be extended: the boundaries it reached.
fn forget_points(r: &mut RunResult) {
    r.reached = Vec::new();
}

/// The boundaries a run reached after its last crash: the extensions of its schedule.
fn extensions(run: &ExploredRun) -> &[BoundaryPoint] {
    let reached = &run.result.reached;
    match run.crashes.last() {
        None => reached,
        Some(last) => {
            let at = reached
                .iter()
                .position(|p| p == last)
                .expect("the crash point was reached");
            &reached[at + 1..]
        }
    }
}

/// One run per single crash point reached by the crash-free run, plus that run itself.
pub fn single_crash_points(scenario: &Scenario) -> Exploration {
    explore(scenario, ExploreOptions::default())
}

/// Every schedule of up to `options.depth` crashes, as described in the module docs.
pub fn explore(scenario: &Scenario, options: ExploreOptions) -> Exploration {
    explore_until(scenario, options, &interrupt::requested)
}

/// [`explore`], asking `stop` before each schedule whether to stop (the process-wide
/// interruption for `explore`; a test's own condition in tests).
fn explore_until(
    scenario: &Scenario,
    options: ExploreOptions,
    stop: &(dyn Fn() -> bool + Sync),
) -> Exploration {
    assert!(
        (1..=MAX_DEPTH).contains(&options.depth),
        "depth is validated by the caller"
    );
    // Each pass takes back the prunings the limits did not allow; every pass runs at least
    // one more schedule for real than the one before. Near a limit, each pass can uncover
    // new prunings that fail in turn, so after a few passes the exploration runs every
    // schedule instead: no pruning at all needs no proof, and it is bounded like any
    // exploration by `max_schedules`.
    let mut unprunable = std::collections::BTreeSet::new();
    for _ in 0..MAX_PRUNING_PASSES {
        let x = explore_pass(scenario, options, stop, &unprunable);
        let taken_back = prune::unproven(&x.runs, options.depth, &scenario.limits);
        if taken_back.is_empty() {
            return x;
        }
        let before = unprunable.len();
        unprunable.extend(taken_back);
        assert!(
            unprunable.len() > before,
            "a pruning taken back is not pruned again"
        );
    }
    let every = ExploreOptions {
        prune: false,
        ..options
    };
    explore_pass(scenario, every, stop, &unprunable)
}

/// How many pruned passes an exploration makes before it runs every schedule.
const MAX_PRUNING_PASSES: usize = 3;

/// One exploration, pruning every equivalent schedule except those in `unprunable`.
pub(crate) fn explore_pass(
    scenario: &Scenario,
    options: ExploreOptions,
    stop: &(dyn Fn() -> bool + Sync),
    unprunable: &std::collections::BTreeSet<Vec<BoundaryPoint>>,
) -> Exploration {
    let base = without_crashes(scenario);
    let mut runs = vec![ExploredRun {
        crashes: Vec::new(),
        result: kept(world::run_with(&base, EXPLORE_RUN), true),
        equivalent_to: None,
    }];
    let mut budget = budget::Budget::new(options.budget_bytes);
    budget.add(budget::explored_bytes(&runs[0]));
    let baseline_points = crate::model::heap(
        runs[0].result.reached.len(),
        std::mem::size_of::<BoundaryPoint>(),
    );
    let mut frontier = vec![0usize];
    let mut seen: BTreeMap<crate::sim::Digest, usize> = BTreeMap::new();
    let mut pruned_schedules = 0u64;
    let mut truncated = false;
    let mut interrupted = false;
    for level in 1..=options.depth {
        let mut schedules: Vec<Vec<BoundaryPoint>> = frontier
            .iter()
            .flat_map(|&i| {
                let run = &runs[i];
                extensions(run).iter().map(move |p| {
                    let mut s = run.crashes.clone();
                    s.push(*p);
                    s
                })
            })
            .collect();
        // The frontier's reached points are its extensions, now listed: not kept (a run that
        // livelocks reaches hundreds of thousands of them, and every run would hold its own).
        for &i in &frontier {
            let before = budget::explored_bytes(&runs[i]);
            forget_points(&mut runs[i].result);
            budget.release(before - budget::explored_bytes(&runs[i]));
        }
        let room = options.max_schedules.saturating_sub(runs.len() as u64) as usize;
        // A run of a level before the last holds its reached points until it is extended.
        let extra = if level < options.depth {
            baseline_points
        } else {
            0
        };
        let room = budget.room(room.min(schedules.len()), extra);
        if schedules.len() > room {
            schedules.truncate(room);
            truncated = true;
        }
        // A schedule not started when an interruption is requested is not run; the level
        // keeps the prefix of its schedules that all ran, so the summary is the summary of
        // a smaller exploration, never of a gappy one.
        let results: Vec<Option<RunResult>> = schedules
            .par_iter()
            .map(|schedule| {
                // Slimmed here, before the whole level is collected; the last level is never
                // extended.
                (!stop()).then(|| kept(run_schedule(&base, schedule), level < options.depth))
            })
            .collect();
        let done = results.iter().take_while(|r| r.is_some()).count();
        if done < schedules.len() {
            schedules.truncate(done);
            truncated = true;
            interrupted = true;
        }
        let results = results.into_iter().map_while(|r| r);
        frontier.clear();
        for (crashes, result) in schedules.into_iter().zip(results) {
            let index = runs.len();
            let state = result
                .crash_states
                .last()
                .expect("a crash leaves its state");
            // No digest (an open transaction somewhere) proves nothing: such a run is
            // always extended.
            let equivalent_to = match state.digest.filter(|_| options.prune) {
                None => None,
                Some(digest) => match seen.get(&digest) {
                    Some(&earlier) if !unprunable.contains(&crashes) => Some(earlier),
                    Some(_) => None,
                    None => {
                        seen.insert(digest, index);
                        None
                    }
                },
            };
            let mut run = ExploredRun {
                crashes,
                result,
                equivalent_to,
            };
            if equivalent_to.is_none() && level < options.depth {
                frontier.push(index);
            } else {
                if equivalent_to.is_some() && level < options.depth {
                    pruned_schedules += extensions(&run).len() as u64;
                }
                // Never extended: its reached points are not needed.
                forget_points(&mut run.result);
            }
            budget.add(budget::explored_bytes(&run));
            runs.push(run);
        }
        if truncated {
            break;
        }
    }
    let mut summary = summarize(
        &runs.iter().collect::<Vec<_>>(),
        options.depth,
        pruned_schedules,
        truncated,
    );
    summary.interrupted = interrupted;
    summary.memory_limited = budget.exhausted;

    summary.no_prune = !options.prune;
    Exploration { runs, summary }
}

/// What an exploration to some depth may need, estimated up front from the crash-free run
/// (see [`estimate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Estimate {
    /// An upper bound on its schedules.
    pub schedules: u128,
    /// The consumer steps they may take.
    pub steps: u128,
    /// The memory its first level's runs take, at the least (see
    /// [`budget::first_level_bytes`]).
    pub first_level_bytes: u128,
}

/// Estimates an exploration of `scenario` to `depth`, from the boundaries the crash-free run
/// reaches: each crash can add at most one more delivery's worth of boundaries, so level k
/// has at most `points × (points + per_delivery)^(k-1)` schedules; each is as long as the
/// crash-free run plus one delivery's worth of steps per crash.
pub fn estimate(scenario: &Scenario, depth: usize) -> Estimate {
    let baseline = world::run_with(&without_crashes(scenario), EXPLORE_RUN);
    let points = baseline.reached.len() as u128;
    let per_delivery = 2 * scenario.protocol.steps.len() as u128;
    let mut level = points;
    let mut schedules = 1 + level;
    for _ in 1..depth {
        level = level.saturating_mul(points + per_delivery);
        schedules = schedules.saturating_add(level);
    }
    let per_run = u128::from(baseline.steps) + (depth * scenario.protocol.steps.len()) as u128;
    Estimate {
        schedules,
        steps: schedules
            .saturating_mul(per_run)
            .saturating_mul(step_cost(&scenario.faults)),
        first_level_bytes: budget::first_level_bytes(baseline, 1 + points, depth > 1),
    }
}

/// What one consumer step costs, in steps of a scenario with a short fault plan: every
/// boundary asks each list of the plan whether one of its faults matches, so a plan of
/// thousands of faults makes each step slower (measured: about 50 times, with 1,000 of each
/// kind). Estimates multiply by it, so that their bound is one of time.
pub fn step_cost(plan: &crate::fault::FaultPlan) -> u128 {
    let faults = plan.crash.len()
        + plan.fail.len()
        + plan.stall.len()
        + plan.lose_ack.len()
        + plan.duplicate_delivery.len()
        + plan.commit_timeout.len()
        + plan.publish_timeout.len();
    1 + faults as u128 / 100
}

/// An upper bound on the schedules of an exploration to `depth` (see [`estimate`]).
pub fn estimate_schedules(scenario: &Scenario, depth: usize) -> u128 {
    estimate(scenario, depth).schedules
}

fn summarize(
    runs: &[&ExploredRun],
    depth: usize,
    pruned_schedules: u64,
    truncated: bool,
) -> Summary {
    let count =
        |f: &dyn Fn(&RunResult) -> bool| runs.iter().filter(|r| f(&r.result)).count() as u64;
    let lost_runs = count(&|r| r.verdict.lost > 0);
    let duplicated_runs = count(&|r| r.verdict.duplicated > 0);
    Summary {
        depth,
        runs: runs.len() as u64,
        lost_runs,
        duplicated_runs,
        dead_lettered_runs: count(&|r| r.verdict.dead_lettered > 0),
        stuck_runs: count(&|r| r.verdict.stuck > 0),
        wrong_effect_runs: count(&|r| r.verdict.wrong_effects > 0),
        liveness_failed_runs: count(&|r| r.failure().fails_liveness()),
        rejected_runs: count(&|r| r.verdict.rejected > 0),
        pending_runs: count(&|r| r.verdict.pending > 0),
        unacked_runs: count(&|r| !r.verdict.all_acked),
        unconserved_runs: count(&|r| !r.verdict.conserved),
        limited_runs: count(&|r| r.stop != StopReason::Quiescent),
        equivalent_runs: runs.iter().filter(|r| r.equivalent_to.is_some()).count() as u64,
        pruned_schedules,
        truncated,
        memory_limited: false,
        interrupted: false,
        no_prune: false,
        guarantee: Guarantee::weakest(runs.iter().map(|r| r.result.verdict.guarantee)),
        ledger_per_intent: scope_summary(runs, Scope::LedgerPerIntent),
        email: scope_summary(runs, Scope::Email),
        output_topic: scope_summary(runs, Scope::OutputTopic),
    }
}

/// What happened to the crashed event after one single crash: the seeds' "recuperación".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Recovery {
    /// The broker delivered the event again after the crash.
    pub redelivered: bool,
    /// Effects committed after the crash (0 = none, 2 = applied a second time, …).
    pub new_effects: u32,
    /// The consumer recognised a redelivery as already processed.
    pub duplicate_discarded: bool,
    pub acked_in_the_end: bool,
}

impl Recovery {
    fn of(run: &RunResult) -> Recovery {
        Recovery::after(run, run.crashes.first().expect("a single-crash run"))
    }

    /// What happened to `crash`'s event after it, by the end of `run` (one of its
    /// crashes): how `explain` fills the failure-point table of a run with any crashes.
    pub fn after(run: &RunResult, crash: &crate::fault::CrashRecord) -> Recovery {
        let event = run
            .verdict
            .event(crash.point.event)
            .expect("the report of an event a crash hit is always kept");
        let before = crash.confirmed.ledger_rows.div_ceil(2);
        Recovery {
            redelivered: event.deliveries > crash.point.delivery,
            new_effects: event.effects.saturating_sub(before),
            duplicate_discarded: event.duplicates_discarded > 0,
            acked_in_the_end: event.acked,
        }
    }

    /// In words, for the failure-point table, given what was confirmed at the crash.
    pub fn describe(&self, confirmed: &Confirmed) -> String {
        let effect_before = confirmed.ledger_rows > 0;
        if !self.redelivered {
            return if effect_before && confirmed.acked {
                "none needed: effect committed and acked".to_string()
            } else if confirmed.acked {
                "none: the broker has the ack and never redelivers".to_string()
            } else {
                "none: never redelivered".to_string()
            };
        }
        let what = if self.new_effects > 0 && effect_before {
            "applied the effect again"
        } else if self.new_effects > 0 {
            "applied the effect"
        } else if self.duplicate_discarded {
            "recognised it as processed, no new effect"
        } else {
            "no new effect"
        };
        format!(
            "redelivered; {what}{}",
            if self.acked_in_the_end {
                ", acked"
            } else {
                ", never acked"
            }
        )
    }
}

/// One row of a protocol's failure-point table: a boundary, the confirmed state after a
/// crash there, the recovery, and the outcome, with the events for which this held (a
/// boundary may need several rows if events behave differently there).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PointRow {
    pub at: Boundary,
    pub confirmed: String,
    pub recovery: String,
    pub outcome: &'static str,
    pub events: Vec<usize>,
}

/// The outcomes observed when crashing once at one boundary, over every event and attempt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MatrixCell {
    pub at: Boundary,
    pub runs: u64,
    pub once: u64,
    pub lost: u64,
    pub duplicated: u64,
    /// The first run at this boundary that lost or duplicated an event, to replay.
    pub first_failure: Option<BoundaryPoint>,
    pub rows: Vec<PointRow>,
}

impl MatrixCell {
    /// `once`, `lost`, `duplicated`, or `lost+duplicated`, from the runs at this boundary.
    pub fn outcome(&self) -> &'static str {
        match (self.lost > 0, self.duplicated > 0) {
            (false, false) => "once",
            (true, false) => "lost",
            (false, true) => "duplicated",
            (true, true) => "lost+duplicated",
        }
    }
}

/// One protocol's column of the matrix.
#[derive(Debug)]
pub struct MatrixColumn {
    pub protocol: Protocol,
    /// The summary at each depth, 1 to the matrix's depth.
    pub summaries: Vec<Summary>,
    pub cells: Vec<MatrixCell>,
}

impl MatrixColumn {
    /// The summary over single crashes.
    pub fn single(&self) -> &Summary {
        &self.summaries[0]
    }

    /// Whether every depth showed the guarantee the protocol is documented with (true for
    /// protocols that are not built in), and every run finished.
    pub fn as_documented(&self) -> bool {
        self.summaries.iter().all(|s| s.liveness_failed_runs == 0)
            && self
                .protocol
                .known_crash_guarantee()
                .is_none_or(|g| self.summaries.iter().all(|s| s.guarantee == g))
    }
}

/// Every protocol of `protocols` against every schedule of up to `depth` crashes, on a
/// workload of `events` events without other faults.
pub fn matrix(protocols: &[Protocol], events: usize, seed: u64, depth: usize) -> Vec<MatrixColumn> {
    protocols
        .iter()
        .map(|p| {
            let mut s = Scenario::new(p.clone());
            s.seed = seed;
            s.workload.events = events;
            let x = explore(
                &s,
                ExploreOptions {
                    depth,
                    max_schedules: MAX_SCHEDULES,
                    ..ExploreOptions::default()
                },
            );
            let summaries = (1..=depth)
                .map(|d| {
                    let runs: Vec<&ExploredRun> =
                        x.runs.iter().filter(|r| r.crashes.len() <= d).collect();
                    let pruned = if d == depth {
                        x.summary.pruned_schedules
                    } else {
                        0
                    };
                    let mut summary = summarize(&runs, d, pruned, x.summary.truncated);
                    summary.memory_limited = x.summary.memory_limited;
                    summary
                })
                .collect();
            let cells = Boundary::all_of(&p.steps)
                .into_iter()
                .map(|at| cell(&x, at))
                .collect();
            MatrixColumn {
                protocol: p.clone(),
                summaries,
                cells,
            }
        })
        .collect()
}

fn cell(x: &Exploration, at: Boundary) -> MatrixCell {
    let mut cell = MatrixCell {
        at,
        runs: 0,
        once: 0,
        lost: 0,
        duplicated: 0,
        first_failure: None,
        rows: Vec::new(),
    };
    for r in x
        .runs
        .iter()
        .filter(|r| r.crashes.len() == 1 && r.crashes[0].boundary == at)
    {
        cell.runs += 1;
        let v = &r.result.verdict;
        if v.lost > 0 {
            cell.lost += 1;
        }
        if v.duplicated > 0 {
            cell.duplicated += 1;
        }
        if v.guarantee == Guarantee::ExactlyOnce {
            cell.once += 1;
        } else if cell.first_failure.is_none() {
            cell.first_failure = Some(r.crashes[0]);
        }
        let crash = &r.result.crashes[0];
        let event = crash.point.event;
        let row = PointRow {
            at,
            confirmed: crash.confirmed.describe(),
            recovery: Recovery::of(&r.result).describe(&crash.confirmed),
            outcome: v
                .event(event)
                .expect("the report of an event a crash hit is always kept")
                .outcome
                .name(),
            events: vec![event],
        };
        match cell.rows.iter_mut().find(|x| {
            (&x.confirmed, &x.recovery, x.outcome) == (&row.confirmed, &row.recovery, row.outcome)
        }) {
            Some(same) => {
                if !same.events.contains(&event) {
                    same.events.push(event);
                }
            }
            None => cell.rows.push(row),
        }
    }
    cell
}

/// The rows of a matrix: every boundary of every step any protocol has, in the order of
/// [`Step::ALL`] so that a row means the same instant in every column.
pub fn matrix_rows(columns: &[MatrixColumn]) -> Vec<Boundary> {
    Step::ALL
        .iter()
        .filter(|s| columns.iter().any(|c| c.protocol.has(**s)))
        .flat_map(|s| [Boundary::before(*s), Boundary::after(*s)])
        .collect()
}

/// Compares an exploration with the scenario's expectations. With an `expect.explore`
/// entry for the exploration's depth, its counts of runs are compared exactly. Without it, the top-level fields are read for a set
/// of runs: `guarantee` is the weakest over all runs; `lost`/`duplicated` of 0 mean no run
/// lost or duplicated an event and a positive value means at least one did (a count of
/// events per run has no single value across runs); `all_acked` and `conserved` must hold
/// in every run. Returns one line per failed expectation.
pub fn failed_expectations(expect: &crate::scenario::Expect, s: &Summary) -> Vec<String> {
    let mut failed = Vec::new();
    let at_depth = expect.explore_at(s.depth);
    let guarantee = at_depth.map_or(expect.guarantee, |x| x.guarantee);
    if let Some(g) = guarantee {
        if g != s.guarantee {
            failed.push(format!(
                "expected guarantee {g} over all runs, observed {}",
                s.guarantee
            ));
        }
    }
    if let Some(x) = at_depth {
        // Pinned counts describe the pruned exploration; `--no-prune` runs more schedules,
        // so only what is pinned of every run (the guarantees) applies to it.
        let mut failed_counts = Vec::new();
        check::push_mismatches(
            &mut failed_counts,
            &[
                ("runs", x.runs, s.runs),
                ("lost_runs", x.lost_runs, s.lost_runs),
                ("duplicated_runs", x.duplicated_runs, s.duplicated_runs),
                (
                    "dead_lettered_runs",
                    x.dead_lettered_runs,
                    s.dead_lettered_runs,
                ),
                ("rejected_runs", x.rejected_runs, s.rejected_runs),
                ("pending_runs", x.pending_runs, s.pending_runs),
                ("unacked_runs", x.unacked_runs, s.unacked_runs),
                ("unconserved_runs", x.unconserved_runs, s.unconserved_runs),
            ],
        );
        let scopes = s.scopes();
        for (scope, want) in &x.boundaries {
            let Some((_, got)) = scopes.iter().find(|(sc, _)| sc == scope) else {
                failed.push(format!(
                    "expected boundary {} in the exploration, but its runs have none",
                    scope.key()
                ));
                continue;
            };
            if let Some(g) = want.guarantee {
                if g != got.guarantee {
                    failed.push(format!(
                        "expected {}: {g} over all runs, observed {}",
                        scope.name(),
                        got.guarantee
                    ));
                }
            }
            check::push_mismatches(
                &mut failed_counts,
                &[(
                    &format!("{}.broken_runs", scope.key()),
                    want.broken_runs,
                    got.broken_runs,
                )],
            );
        }
        if !s.no_prune {
            failed.extend(failed_counts);
        }
        return failed;
    }
    for (what, want, runs) in [
        ("lost", expect.lost, s.lost_runs),
        ("duplicated", expect.duplicated, s.duplicated_runs),
    ] {
        match want {
            Some(0) if runs > 0 => failed.push(format!(
                "expected no run with a {what} event, observed {runs} run(s)"
            )),
            Some(n) if n > 0 && runs == 0 => failed.push(format!(
                "expected some run with a {what} event, observed none"
            )),
            _ => {}
        }
    }
    if expect.all_acked == Some(true) && s.unacked_runs > 0 {
        failed.push(format!(
            "expected every run to ack every event, {} run(s) did not",
            s.unacked_runs
        ));
    }
    if expect.conserved == Some(true) && s.unconserved_runs > 0 {
        failed.push(format!(
            "expected balances conserved in every run, {} run(s) broke them",
            s.unconserved_runs
        ));
    }
    failed
}

/// The default bound on how many interleavings one exploration runs.
pub const DEFAULT_MAX_INTERLEAVINGS: u64 = 100_000;
/// The default number of departures from the default schedule.
pub const DEFAULT_MAX_PREEMPTIONS: usize = 2;

/// One interleaving: the scheduling choices that produced it and its result.
#[derive(Debug)]
pub struct InterleavedRun {
    /// The single crash injected in this run, with `with_crashes` (none otherwise).
    pub crash: Option<BoundaryPoint>,
    /// Shared with the schedules branching from it.
    pub schedule: std::sync::Arc<Vec<u32>>,
    pub result: RunResult,
}

/// Every interleaving of the consumers' steps, up to a bound.
#[derive(Debug)]
pub struct Interleavings {
    pub max_preemptions: usize,
    /// Whether each interleaving was also run with one crash at each boundary.
    pub with_crashes: bool,
    pub runs: Vec<InterleavedRun>,
    /// Whether every interleaving was run (false: the bound, or the memory budget, stopped
    /// it).
    pub complete: bool,
    /// Whether the memory budget for kept runs ([`budget::KEPT_RUNS_BYTES`]) stopped it: a
    /// failure, whose counts cover only the runs before it.
    pub memory_limited: bool,
    pub lost_runs: u64,
    pub duplicated_runs: u64,
    /// Runs whose balances broke conservation (a lost update, a torn transfer).
    pub unconserved_runs: u64,
    /// Runs that failed liveness: each fails the exploration.
    pub liveness_failed_runs: u64,
    /// Runs in which the projection rejected an event as out of order.
    pub rejected_runs: u64,
    /// Runs that ended with a completion still buffered in `pending_event`.
    pub pending_runs: u64,
    /// Runs that failed (see [`crate::check::failure`]): lost, duplicated, left stuck,
    /// wrongly applied or rejected an event, left one unacked or pending, broke
    /// conservation or a boundary, or could not finish.
    pub breaking_runs: u64,
    pub guarantee: Guarantee,
}

/// Enumerates the interleavings of the consumers' steps in `scenario` (its faults as
/// given). Whenever several consumers are due at the same tick, each choice of who steps
/// first is a branch. The default choice (the first due) makes consumers alternate; a
/// schedule may depart from it at most `max_preemptions` times (preemption bounding, as in
/// CHESS: without a bound, a consumer spinning on `SQLITE_BUSY` could be chosen forever,
/// and most concurrency bugs need only a few preemptions). At most `max_runs` run. The
/// runs of one generation run in parallel and are collected in order, so the result does
/// not depend on the number of threads.
///
/// With `with_crashes`, the enumeration is repeated with one crash at each boundary the
/// default schedule reached (the scenario's own planned and random crashes replaced): every
/// interleaving, plus crash points. `max_runs` bounds the total.
pub fn interleavings(
    scenario: &Scenario,
    max_preemptions: usize,
    max_runs: u64,
    with_crashes: bool,
) -> Interleavings {
    let mut runs: Vec<InterleavedRun> = Vec::new();
    let mut complete = true;
    let mut budget = budget::Budget::new(budget::KEPT_RUNS_BYTES);
    if with_crashes {
        let base = without_crashes(scenario);
        let points = world::run_with(&base, RunOptions::default()).reached;
        for crash in std::iter::once(None).chain(points.into_iter().map(Some)) {
            let mut s = base.clone();
            s.faults.crash = crash.iter().map(|p| CrashSpec::exactly(*p)).collect();
            let room = max_runs.saturating_sub(runs.len() as u64);
            if room == 0 {
                complete = false;
                break;
            }
            let limits = (room, &mut budget);
            complete &= enumerate_schedules(&s, crash, max_preemptions, limits, &mut runs);
            if budget.exhausted {
                break;
            }
        }
    } else {
        let limits = (max_runs, &mut budget);
        complete = enumerate_schedules(scenario, None, max_preemptions, limits, &mut runs);
    }
    let mut x = summarize_interleavings(runs, complete, max_preemptions);
    x.with_crashes = with_crashes;
    x.memory_limited = budget.exhausted;
    x
}

/// How many runs an interleaving exploration may need, and how many scheduling choices
/// each run's schedule may hold, estimated from the default schedule: with its `n`
/// decisions among at most `m + 1` consumers, `C(n, k) m^k` schedules have `k`
/// preemptions, each about as long as the default's; times `1 + points` with a crash at
/// each of its points. An estimate (a later schedule may have more decisions), used to refuse
/// up front what could not finish or fit.
pub fn estimate_interleavings(
    scenario: &Scenario,
    max_preemptions: usize,
    with_crashes: bool,
) -> (u128, u128) {
    let base = world::run_with(&without_crashes(scenario), RunOptions::default());
    // Preemptions go at increasing decisions: k of the n, each to one of the m others.
    let n = base.decisions.len() as u128;
    let m = base
        .decisions
        .iter()
        .map(|d| u128::from(d.alternatives.saturating_sub(1)))
        .max()
        .unwrap_or(0);
    let (mut level, mut runs) = (1u128, 1u128);
    for k in 0..max_preemptions as u128 {
        if k >= n {
            break;
        }
        // C(n, k + 1) m^(k+1) from C(n, k) m^k.
        level = level.saturating_mul(n - k).saturating_mul(m) / (k + 1);
        runs = runs.saturating_add(level);
    }
    if with_crashes {
        runs = runs.saturating_mul(1 + base.reached.len() as u128);
    }
    (runs, 1 + base.decisions.len() as u128)
}

/// The most scheduling choices an interleaving exploration may keep, in all its runs'
/// schedules (4 bytes each: 256 MiB).
pub const MAX_INTERLEAVING_CHOICES: u128 = 64 * 1024 * 1024;

/// How many interleavings run between two collections of their results.
const INTERLEAVING_CHUNK: usize = 1024;

/// What an interleaving run leaves for the enumeration: its choices, the number of
/// alternatives at each decision it may branch from (from position `from` on), and its
/// result, slimmed.
struct Branching {
    taken: std::sync::Arc<Vec<u32>>,
    from: usize,
    alternatives: Vec<u32>,
    result: RunResult,
}

impl Branching {
    /// `result`, the run of `script`; it branches at its decisions after the script when
    /// `branches` (its preemptions are under the bound).
    fn of(mut result: RunResult, script: &[u32], branches: bool) -> Branching {
        let taken: Vec<u32> = result.decisions.iter().map(|d| d.chosen).collect();
        assert_eq!(&taken[..script.len()], script, "the script was followed");
        let from = if branches { script.len() } else { taken.len() };
        let alternatives = result.decisions[from..]
            .iter()
            .map(|d| d.alternatives)
            .collect();
        result.slim();
        Branching {
            taken: std::sync::Arc::new(taken),
            from,
            alternatives,
            result,
        }
    }
}

/// A schedule still to run: the first `at` choices of an earlier run's, then
/// `alternative`. Kept so, not copied out, until it runs: a generation of a long run has
/// as many children as choices, and copies of their prefixes would fill memory.
struct Child {
    parent: std::sync::Arc<Vec<u32>>,
    at: usize,
    alternative: u32,
}

impl Child {
    fn script(&self) -> Vec<u32> {
        let mut s = self.parent[..self.at].to_vec();
        s.push(self.alternative);
        s
    }
}

/// Appends to `runs` every schedule of `scenario` within the preemption bound, at most
/// `max_runs` of them and as many as `budget` allows; returns whether that was all of them.
fn enumerate_schedules(
    scenario: &Scenario,
    crash: Option<BoundaryPoint>,
    max_preemptions: usize,
    (max_runs, budget): (u64, &mut budget::Budget),
    out: &mut Vec<InterleavedRun>,
) -> bool {
    let options = RunOptions {
        hash_only: true,
        ..RunOptions::default()
    };
    let mut runs: Vec<InterleavedRun> = Vec::new();
    let mut generation: Vec<Child> = vec![Child {
        parent: std::sync::Arc::new(Vec::new()),
        at: 0,
        alternative: 0,
    }];
    let mut first = true;
    let mut complete = true;
    let mut dropped = false;
    while !generation.is_empty() {
        let room = max_runs.saturating_sub(runs.len() as u64) as usize;
        let room = budget.room(room.min(generation.len()), 0);
        if generation.len() > room || dropped {
            generation.truncate(room);
            complete = false;
        }
        // The first generation is the default schedule (an empty script); each script is
        // made where it runs, and the generation runs in chunks, each run slimmed where it
        // ran, so that the runs of a generation are never held whole at once.
        let root = std::mem::take(&mut first);
        let script = |child: &Child| if root { Vec::new() } else { child.script() };
        // No more children than could still run.
        let mut room = max_runs.saturating_sub((runs.len() + generation.len()) as u64) as usize;
        let mut next = Vec::new();
        for chunk in std::mem::take(&mut generation).chunks(INTERLEAVING_CHUNK) {
            let ran: Vec<Branching> = chunk
                .par_iter()
                .map(|child| {
                    let script = script(child);
                    let preemptions = script.iter().filter(|&&c| c != 0).count();
                    let result = world::run_scheduled(scenario, options, &script);
                    Branching::of(result, &script, preemptions < max_preemptions)
                })
                .collect();
            for b in ran {
                'branch: for (k, &alternatives) in b.alternatives.iter().enumerate() {
                    for alternative in 1..alternatives {
                        if room == 0 {
                            // Could never run: the generation after this one is the last.
                            dropped = true;
                            break 'branch;
                        }
                        room -= 1;
                        next.push(Child {
                            parent: std::sync::Arc::clone(&b.taken),
                            at: b.from + k,
                            alternative,
                        });
                    }
                }
                let run = InterleavedRun {
                    crash,
                    schedule: b.taken,
                    result: b.result,
                };
                budget.add(budget::interleaved_bytes(&run));
                runs.push(run);
            }
        }
        if !complete {
            break;
        }
        generation = next;
    }
    out.extend(runs);
    complete
}

fn summarize_interleavings(
    runs: Vec<InterleavedRun>,
    complete: bool,
    max_preemptions: usize,
) -> Interleavings {
    let count =
        |f: &dyn Fn(&RunResult) -> bool| runs.iter().filter(|r| f(&r.result)).count() as u64;
    let lost_runs = count(&|r| r.verdict.lost > 0);
    let duplicated_runs = count(&|r| r.verdict.duplicated > 0);
    Interleavings {
        breaking_runs: count(&|r| !r.failure().is_empty()),
        liveness_failed_runs: count(&|r| r.failure().fails_liveness()),
        rejected_runs: count(&|r| r.verdict.rejected > 0),
        pending_runs: count(&|r| r.verdict.pending > 0),
        guarantee: Guarantee::weakest(runs.iter().map(|r| r.result.verdict.guarantee)),
        unconserved_runs: count(&|r| !r.verdict.conserved),
        lost_runs,
        duplicated_runs,
        runs,
        complete,
        memory_limited: false,
        max_preemptions,
        with_crashes: false,
    }
}

/// Compares an interleaving exploration with `expect.interleavings`; one line per failure.
pub fn failed_interleaving_expectations(
    expect: &crate::scenario::InterleavingsExpect,
    x: &Interleavings,
) -> Vec<String> {
    let mut failed = Vec::new();
    let bound = expect.max_preemptions.unwrap_or(DEFAULT_MAX_PREEMPTIONS);
    if bound != x.max_preemptions {
        // Counts for another bound say nothing about this one.
        return failed;
    }
    if let Some(g) = expect.guarantee {
        if g != x.guarantee {
            failed.push(format!(
                "expected guarantee {g} over all interleavings, observed {}",
                x.guarantee
            ));
        }
    }
    check::push_mismatches(
        &mut failed,
        &[
            ("runs", expect.runs, x.runs.len() as u64),
            ("breaking_runs", expect.breaking_runs, x.breaking_runs),
            ("rejected_runs", expect.rejected_runs, x.rejected_runs),
        ],
    );
    check::push_mismatches(&mut failed, &[("complete", expect.complete, x.complete)]);
    failed
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Each level's schedules run in parallel; an interruption keeps, per level, the
    /// schedules before the first one not started: the runs are a prefix of the whole
    /// exploration's, in order, and the summary says it was interrupted.
    #[test]
    fn an_interrupted_exploration_is_a_prefix_of_the_whole_and_says_so() {
        let s = Scenario::new(Protocol::built_in("no-dedup").unwrap()).with_events(2);
        let options = ExploreOptions {
            depth: 2,
            ..ExploreOptions::default()
        };
        let whole = explore_until(&s, options, &|| false);
        assert!(!whole.summary.interrupted && !whole.summary.truncated);
        let crashes = |x: &Exploration| -> Vec<Vec<BoundaryPoint>> {
            x.runs.iter().map(|r| r.crashes.clone()).collect()
        };
        for after in [0, 5, 30] {
            let started = AtomicU64::new(0);
            let stop = || started.fetch_add(1, Ordering::SeqCst) >= after;
            let x = explore_until(&s, options, &stop);
            assert!(
                x.summary.interrupted && x.summary.truncated,
                "after {after}"
            );
            assert!(x.runs.len() < whole.runs.len());
            assert_eq!(x.summary.runs, x.runs.len() as u64);
            assert_eq!(
                crashes(&x),
                crashes(&whole)[..x.runs.len()],
                "after {after}: a prefix in schedule order"
            );
        }
    }

    /// The memory budget stops an exploration where it ends, as an interruption does: the
    /// runs are a prefix of the whole exploration's, and the summary says the budget
    /// stopped it (a failure of the exploration, in the CLI). The budget counts what the
    /// runs keep: the whole exploration's accounting is within a few times its size in runs.
    #[test]
    fn the_memory_budget_stops_an_exploration_and_says_so() {
        let s = Scenario::new(Protocol::built_in("no-dedup").unwrap()).with_events(3);
        let options = ExploreOptions {
            depth: 2,
            ..ExploreOptions::default()
        };
        let whole = explore(&s, options);
        assert!(!whole.summary.memory_limited && !whole.summary.truncated);
        let kept: u64 = whole.runs.iter().map(budget::explored_bytes).sum();
        assert!(kept < 4096 * whole.runs.len() as u64, "{kept} bytes kept");
        for budget_bytes in [kept / 2, kept / 10] {
            let x = explore(
                &s,
                ExploreOptions {
                    budget_bytes,
                    ..options
                },
            );
            assert!(x.summary.memory_limited && x.summary.truncated);
            assert!(x.runs.len() < whole.runs.len() && !x.runs.is_empty());
            let kept_here: u64 = x.runs.iter().map(budget::explored_bytes).sum();
            assert!(
                kept_here <= budget_bytes + 4096,
                "{kept_here} over {budget_bytes}"
            );
            let schedules = |x: &Exploration| -> Vec<Vec<BoundaryPoint>> {
                x.runs.iter().map(|r| r.crashes.clone()).collect()
            };
            assert_eq!(schedules(&x), schedules(&whole)[..x.runs.len()]);
        }
    }

    /// An explored run keeps its counts and the reports of the events its crash hit, and
    /// no more than a few others: what it keeps does not grow with the events.
    #[test]
    fn explored_runs_keep_bounded_reports_and_every_count() {
        let mut s = Scenario::new(Protocol::built_in("ack-first").unwrap()).with_events(40);
        s.faults.random_crash = None;
        let x = explore(&s, ExploreOptions::default());
        let full = world::run(&s);
        assert_eq!(
            x.runs[0].result.verdict.event_count(),
            full.verdict.event_count()
        );
        for r in &x.runs[1..] {
            let v = &r.result.verdict;
            let crashed = r.crashes[0].event;
            assert!(
                v.event(crashed).is_some(),
                "the crashed event's report is kept"
            );
            assert!(v.events.len() <= 1 + check::MAX_KEPT_REPORTS);
            assert_eq!(v.event_count(), 40);
            assert_eq!(
                v.exactly_once + v.lost + v.duplicated,
                40,
                "every count kept"
            );
            assert!(r.result.events.is_empty() && r.result.reached.is_empty());
        }
    }

    /// Slimming a verdict keeps every count, the reports of crashed events and at most
    /// [`check::MAX_KEPT_REPORTS`] others (anomalous ones, in event order), and counts what
    /// it left out; a kept report is found by its event, a left-out one is not.
    #[test]
    fn a_slimmed_verdict_keeps_its_counts_and_a_bounded_set_of_reports() {
        let mut s = Scenario::new(Protocol::built_in("ack-first").unwrap()).with_events(30);
        s.faults.random_crash = Some(crate::fault::RandomCrash {
            per_step_ppm: 300_000,
            max_crashes: 20,
        });
        let mut r = world::run(&s);
        let before = r.verdict.clone();
        assert!(
            before.anomalies().count() > check::MAX_KEPT_REPORTS,
            "enough anomalies"
        );
        r.slim();
        let v = &r.verdict;
        let counts = |v: &check::Verdict| {
            (
                v.lost,
                v.duplicated,
                v.exactly_once,
                v.stuck,
                v.guarantee,
                v.all_acked,
            )
        };
        assert_eq!(counts(v), counts(&before));
        assert_eq!(v.boundaries, before.boundaries);
        assert_eq!(v.event_count(), before.events.len());
        assert_eq!(v.omitted.events, before.events.len() - v.events.len());
        let crashed: Vec<usize> = r.crashes.iter().map(|c| c.point.event).collect();
        for e in &before.events {
            let kept = v.event(e.event);
            if crashed.contains(&e.event) {
                assert_eq!(kept, Some(e), "a crashed event's report is kept whole");
            }
            if let Some(k) = kept {
                assert_eq!(k, e);
            }
        }
        let others = v
            .events
            .iter()
            .filter(|e| !crashed.contains(&e.event))
            .count();
        assert!(others <= check::MAX_KEPT_REPORTS);
        assert!(v.anomalies().all(|a| before.anomalies().any(|b| b == a)));
        assert!(r.kept_bytes() < 64 * 1024, "{} bytes", r.kept_bytes());
    }
}
