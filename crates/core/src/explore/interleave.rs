//! `explore --interleavings`: every schedule of several consumers' steps up to a number of
//! preemptions, enumerated generation by generation in bounded chunks, and its summary.

use super::*;

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
impl Interleavings {
    /// The verdict over the interleavings (see [`crate::check::Judgement`]): each property
    /// with the runs that broke it, the expectations that failed (`None`: none stated),
    /// and, when the search did not run every interleaving, why.
    pub fn judgement(&self, expect_failures: Option<usize>) -> crate::check::Judgement {
        use crate::check::{Coverage, Cutoff, Judgement};
        let signatures: Vec<_> = self.runs.iter().map(|r| r.result.failure()).collect();
        let cutoff = match (self.complete, self.memory_limited) {
            (true, _) => None,
            (false, true) => Some(Cutoff::Memory),
            (false, false) => Some(Cutoff::Limit),
        };
        let over = Coverage::Interleavings {
            runs: self.runs.len() as u64,
            complete: self.complete,
        };
        let broken = crate::check::tally_failures(&signatures);
        let effect = (self.runs.first()).and_then(|r| r.result.verdict.effect());
        let mut j =
            Judgement::over_runs(self.guarantee, over, &broken, cutoff, expect_failures).on(effect);
        let serialized = self
            .runs
            .iter()
            .filter(|r| r.result.stale_snapshots > 0)
            .count();
        j.caveat_sqlite_serialized(serialized as u64);
        j
    }
}

/// With `with_crashes`, the enumeration is repeated with one crash at each boundary the
/// default schedule reached (the scenario's own planned and random crashes replaced): every
/// interleaving, plus crash points. `max_runs` bounds the total.
pub fn interleavings(
    scenario: &Scenario,
    max_preemptions: usize,
    max_runs: u64,
    with_crashes: bool,
) -> Interleavings {
    super::threads::within(super::threads::bound(scenario), || {
        every_interleaving(scenario, max_preemptions, max_runs, with_crashes)
    })
}

/// [`interleavings`], on the threads it may use.
fn every_interleaving(
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
pub(super) const INTERLEAVING_CHUNK: usize = 1024;

/// What an interleaving run leaves for the enumeration: its choices, the number of
/// alternatives at each decision it may branch from (from position `from` on), and its
/// result, slimmed.
pub(super) struct Branching {
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
pub(super) struct Child {
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
pub(super) fn enumerate_schedules(
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

pub(super) fn summarize_interleavings(
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

/// Compares an interleaving exploration with `expect.interleavings`: one failure per
/// expectation that does not hold.
pub fn failed_interleaving_expectations(
    expect: &crate::scenario::InterleavingsExpect,
    x: &Interleavings,
) -> Vec<check::ExpectationFailure> {
    let mut failed = Vec::new();
    let bound = expect.max_preemptions.unwrap_or(DEFAULT_MAX_PREEMPTIONS);
    if bound != x.max_preemptions {
        // Counts for another bound say nothing about this one.
        return failed;
    }
    if let Some(want) = expect.guarantee.filter(|&g| g != x.guarantee) {
        failed.push(check::ExpectationFailure::Guarantee {
            over: check::Coverage::Interleavings {
                runs: x.runs.len() as u64,
                complete: x.complete,
            },
            want,
            got: x.guarantee,
        });
    }
    for (field, want, got) in [
        ("runs", expect.runs, x.runs.len() as u64),
        ("breaking_runs", expect.breaking_runs, x.breaking_runs),
        ("rejected_runs", expect.rejected_runs, x.rejected_runs),
        ("pending_runs", expect.pending_runs, x.pending_runs),
    ] {
        check::push_mismatch(&mut failed, field, want, got);
    }
    check::push_mismatch(&mut failed, "truncated", expect.truncated, !x.complete);
    failed
}
