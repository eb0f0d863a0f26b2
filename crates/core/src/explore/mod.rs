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
mod estimate;
mod interleave;
pub mod interrupt;
pub mod ladder;
mod matrix;
mod prune;
pub mod retention;
pub mod shrink;
mod summary;
pub mod sweep;
pub mod threads;

pub use estimate::*;
pub use interleave::*;
pub use matrix::*;
pub use summary::*;

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

/// How an explored run runs: only its trace's hash kept, and the state fingerprinted after
/// each crash for pruning (on PostgreSQL, read from the server: see `store::pg::digest`).
fn explore_run(_scenario: &Scenario) -> RunOptions {
    RunOptions {
        fingerprints: true,
        hash_only: true,
        record_statements: false,
        every_cleanup_tick: false,
    }
}

/// Runs `base` with a crash at each point of `schedule`, and checks they all fired.
fn run_schedule(base: &Scenario, schedule: &[BoundaryPoint]) -> RunResult {
    let mut s = base.clone();
    s.faults.crash = schedule.iter().map(|p| CrashSpec::exactly(*p)).collect();
    let result = world::run_with(&s, explore_run(&s));
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

/// Takes the boundaries `run` reached after its last crash out of it: the extensions of its
/// schedule, in the order reached. It keeps no reached points after.
fn take_extensions(run: &mut ExploredRun) -> Vec<BoundaryPoint> {
    let before = run.result.reached.len() - extensions(run).len();
    let mut reached = std::mem::take(&mut run.result.reached);
    reached.drain(..before);
    reached
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
    threads::within(threads::bound(scenario), || {
        explore_passes(scenario, options, stop)
    })
}

/// [`explore_until`]'s passes.
fn explore_passes(
    scenario: &Scenario,
    options: ExploreOptions,
    stop: &(dyn Fn() -> bool + Sync),
) -> Exploration {
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
    let mut pass = Pass::new(&base, options, unprunable);
    let baseline_points = crate::model::heap(
        pass.runs[0].result.reached.len(),
        std::mem::size_of::<BoundaryPoint>(),
    );
    let mut truncated = false;
    let mut interrupted = false;
    for level in 1..=options.depth {
        let extend = level < options.depth;
        // A run of a level before the last holds its reached points until it is extended.
        let extra = if extend { baseline_points } else { 0 };
        let room = options.max_schedules.saturating_sub(pass.runs.len() as u64) as usize;
        let Level { mut schedules, cut } = next_level(
            &mut pass.runs,
            &pass.frontier,
            &mut pass.budget,
            room,
            extra,
        );
        truncated |= cut;
        // A schedule not started when an interruption is requested is not run; the level
        // keeps the prefix of its schedules that all ran, so the summary is the summary of
        // a smaller exploration, never of a gappy one.
        let results = run_level(&base, &schedules, stop, extend);
        let done = results.iter().take_while(|r| r.is_some()).count();
        if done < schedules.len() {
            schedules.truncate(done);
            truncated = true;
            interrupted = true;
        }
        pass.add_level(schedules, results.into_iter().map_while(|r| r), extend);
        if truncated {
            break;
        }
    }
    let mut summary = summarize(
        &pass.runs.iter().collect::<Vec<_>>(),
        options.depth,
        pass.pruned_schedules,
        truncated,
    );
    summary.interrupted = interrupted;
    summary.memory_limited = pass.budget.exhausted;

    summary.no_prune = !options.prune;
    Exploration {
        runs: pass.runs,
        summary,
    }
}

/// An exploration pass under way: its runs so far, the ones the next level extends, the
/// digests seen right after a last crash, and the memory its runs hold.
struct Pass<'u> {
    runs: Vec<ExploredRun>,
    /// The indices in `runs` of the schedules the next level extends.
    frontier: Vec<usize>,
    seen: BTreeMap<crate::sim::Digest, usize>,
    budget: budget::Budget,
    pruned_schedules: u64,
    prune: bool,
    unprunable: &'u std::collections::BTreeSet<Vec<BoundaryPoint>>,
}

impl<'u> Pass<'u> {
    /// A pass that starts from the crash-free run of `base`, the first level's frontier.
    fn new(
        base: &Scenario,
        options: ExploreOptions,
        unprunable: &'u std::collections::BTreeSet<Vec<BoundaryPoint>>,
    ) -> Pass<'u> {
        let runs = vec![ExploredRun {
            crashes: Vec::new(),
            result: kept(world::run_with(base, explore_run(base)), true),
            equivalent_to: None,
        }];
        let mut budget = budget::Budget::new(options.budget_bytes);
        budget.add(budget::explored_bytes(&runs[0]));
        Pass {
            runs,
            frontier: vec![0usize],
            seen: BTreeMap::new(),
            budget,
            pruned_schedules: 0,
            prune: options.prune,
            unprunable,
        }
    }

    /// Adds a level's runs: one equivalent to an earlier run is pruned (with `extend`, its
    /// extensions are counted as pruned), the others make the next level's frontier when
    /// there is one (`extend`). A run never extended drops its reached points.
    fn add_level(
        &mut self,
        schedules: Vec<Vec<BoundaryPoint>>,
        results: impl Iterator<Item = RunResult>,
        extend: bool,
    ) {
        self.frontier.clear();
        for (crashes, result) in schedules.into_iter().zip(results) {
            let index = self.runs.len();
            let state = result
                .crash_states
                .last()
                .expect("a crash leaves its state");
            let digest = state.digest.filter(|_| self.prune);
            let prunable = !self.unprunable.contains(&crashes);
            let equivalent_to = equivalent_run(&mut self.seen, digest, index, prunable);
            let mut run = ExploredRun {
                crashes,
                result,
                equivalent_to,
            };
            if equivalent_to.is_none() && extend {
                self.frontier.push(index);
            } else {
                if equivalent_to.is_some() && extend {
                    self.pruned_schedules += extensions(&run).len() as u64;
                }
                // Never extended: its reached points are not needed.
                forget_points(&mut run.result);
            }
            self.budget.add(budget::explored_bytes(&run));
            self.runs.push(run);
        }
    }
}

/// A level's schedules, and whether some were cut for want of room.
struct Level {
    schedules: Vec<Vec<BoundaryPoint>>,
    cut: bool,
}

/// The next level's schedules, as many as fit in `room` and in the memory budget (with
/// `extra` bytes kept by each run): the frontier's reached points are its extensions, taken
/// out of the runs (no run keeps them once extended). A run that livelocks reaches hundreds
/// of thousands of them, so the schedules are listed only once it is known how many fit.
fn next_level(
    runs: &mut [ExploredRun],
    frontier: &[usize],
    budget: &mut budget::Budget,
    room: usize,
    extra: u64,
) -> Level {
    let points: Vec<(usize, Vec<BoundaryPoint>)> = frontier
        .iter()
        .map(|&i| {
            let before = budget::explored_bytes(&runs[i]);
            let points = take_extensions(&mut runs[i]);
            budget.release(before - budget::explored_bytes(&runs[i]));
            (i, points)
        })
        .collect();
    let wanted: usize = points.iter().map(|(_, p)| p.len()).sum();
    let room = budget.room(room.min(wanted), extra);
    Level {
        schedules: level_schedules(runs, &points, room),
        cut: wanted > room,
    }
}

/// The first `room` schedules of the next level: each run of the frontier (`points`: its
/// index and the points it reached after its last crash) extended by each of its points.
fn level_schedules(
    runs: &[ExploredRun],
    points: &[(usize, Vec<BoundaryPoint>)],
    room: usize,
) -> Vec<Vec<BoundaryPoint>> {
    points
        .iter()
        .flat_map(|(i, points)| {
            let crashes = &runs[*i].crashes;
            points.iter().map(move |p| {
                let mut s = crashes.clone();
                s.push(*p);
                s
            })
        })
        .take(room)
        .collect()
}

/// Runs a level's schedules in parallel, collected in schedule order; a schedule not
/// started when `stop` says so is `None`. Each result is slimmed here, before the whole
/// level is collected (`extended`: the level is not the last, so its runs keep their
/// reached points).
fn run_level(
    base: &Scenario,
    schedules: &[Vec<BoundaryPoint>],
    stop: &(dyn Fn() -> bool + Sync),
    extended: bool,
) -> Vec<Option<RunResult>> {
    schedules
        .par_iter()
        .map(|schedule| (!stop()).then(|| kept(run_schedule(base, schedule), extended)))
        .collect()
}

/// The earlier run that run `index` is equivalent to: the first whose state after its last
/// crash had the same `digest`. No digest (pruning off, or an open transaction somewhere)
/// proves nothing, and a run that is not `prunable` stands for itself; either is extended.
fn equivalent_run(
    seen: &mut BTreeMap<crate::sim::Digest, usize>,
    digest: Option<crate::sim::Digest>,
    index: usize,
    prunable: bool,
) -> Option<usize> {
    let digest = digest?;
    match seen.get(&digest) {
        Some(&earlier) if prunable => Some(earlier),
        Some(_) => None,
        None => {
            seen.insert(digest, index);
            None
        }
    }
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

#[cfg(test)]
mod listing_tests {
    use super::*;

    /// A level lists no more schedules than fit: a livelocked run's hundreds of thousands
    /// of points are not all turned into schedules before the level is cut to its room.
    #[test]
    fn a_level_lists_only_the_schedules_that_fit_in_order() {
        let s = Scenario::new(Protocol::built_in("inbox").unwrap()).with_events(2);
        let first = BoundaryPoint::parse("after:begin e0 d1").unwrap();
        let mut run = ExploredRun {
            crashes: vec![first],
            result: run_schedule(&s, &[first]),
            equivalent_to: None,
        };
        let all = extensions(&run).to_vec();
        assert!(all.len() > 10, "{} points", all.len());
        let points = vec![(0, take_extensions(&mut run))];
        assert_eq!(points[0].1, all);
        assert!(
            run.result.reached.is_empty(),
            "the run keeps no points once taken"
        );
        let runs = [run];
        let listed = level_schedules(&runs, &points, 3);
        let expected: Vec<Vec<BoundaryPoint>> =
            all.iter().take(3).map(|p| vec![first, *p]).collect();
        assert_eq!(listed, expected);
        assert_eq!(level_schedules(&runs, &points, usize::MAX).len(), all.len());
    }
}
