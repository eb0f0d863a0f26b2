//! The memory an exploration keeps. An exploration (and an enumeration of interleavings)
//! keeps every run it ran, slimmed ([`RunResult::slim`]), to summarise and report them; the
//! runs it keeps may take at most [`KEPT_RUNS_BYTES`], whatever the scenario, the depth or
//! `--max-schedules`. The CLI refuses up front an exploration estimated past the budget
//! ([`first_level_bytes`]); one whose runs turn out larger than estimated stops at the budget
//! ([`Budget::room`]) and says so, an outcome that fails the exploration, never an abort.

use super::{ExploredRun, InterleavedRun};
use crate::model::{heap, BoundaryPoint};
use crate::world::RunResult;
use std::mem::size_of;

/// The bytes the runs one exploration keeps may take: half of the 1 GiB every command stays
/// within, leaving the rest to the process, SQLite's pools, the threads and the report.
pub const KEPT_RUNS_BYTES: u64 = 512 << 20;

/// What keeping one explored run costs: the run, slimmed (with the points it reached, while
/// it may be extended), its schedule, and its entry in the table of states seen. Its place
/// in the list of runs counts twice: a list grows by doubling.
pub fn explored_bytes(run: &ExploredRun) -> u64 {
    2 * size_of::<ExploredRun>() as u64 - size_of::<RunResult>() as u64
        + run.result.kept_bytes()
        + heap(run.crashes.capacity(), size_of::<BoundaryPoint>())
        + SEEN_ENTRY_BYTES
}

/// What keeping one interleaved run costs: the run, slimmed, and its schedule; its place in
/// the list of runs counts twice, as for [`explored_bytes`].
pub fn interleaved_bytes(run: &InterleavedRun) -> u64 {
    2 * size_of::<InterleavedRun>() as u64 - size_of::<RunResult>() as u64
        + run.result.kept_bytes()
        + heap(run.schedule.capacity(), size_of::<u32>())
}

/// A digest and a run index in a B-tree, with the tree's own overhead.
const SEEN_ENTRY_BYTES: u64 = 48;

/// The least an exploration whose first level has `first_level` schedules keeps, from the
/// crash-free run slimmed: every run of that level is about as large, plus a crash record,
/// a crash state, a schedule entry and the report of the event its crash hit, and (when
/// `extended`, at a depth over 1) it holds the points it reached, about as many as the
/// crash-free run's, until its extensions are listed. Certain, unlike an estimate of the
/// levels after it, which pruning may cut down.
pub fn first_level_bytes(mut baseline: RunResult, first_level: u128, extended: bool) -> u128 {
    let per_crash = size_of::<crate::fault::CrashRecord>()
        + size_of::<crate::world::CrashState>()
        + size_of::<BoundaryPoint>()
        + size_of::<crate::check::EventReport>()
        + 256;
    let reached = heap(baseline.reached.len(), size_of::<BoundaryPoint>());
    baseline.slim();
    let per_run = u128::from(baseline.kept_bytes())
        + size_of::<ExploredRun>() as u128
        + u128::from(SEEN_ENTRY_BYTES)
        + per_crash as u128
        + if extended { u128::from(reached) } else { 0 };
    first_level.saturating_mul(per_run)
}

/// The bytes kept so far, against a budget ([`KEPT_RUNS_BYTES`] but in tests).
#[derive(Debug)]
pub struct Budget {
    bytes: u64,
    kept: u64,
    runs: u64,
    /// Whether the budget stopped the exploration.
    pub exhausted: bool,
}

impl Budget {
    pub fn new(bytes: u64) -> Budget {
        Budget {
            bytes,
            kept: 0,
            runs: 0,
            exhausted: false,
        }
    }

    /// Counts a run kept.
    pub fn add(&mut self, bytes: u64) {
        self.kept += bytes;
        self.runs += 1;
    }

    /// Counts `bytes` a kept run no longer holds (the points of a run once extended).
    pub fn release(&mut self, bytes: u64) {
        self.kept = self.kept.saturating_sub(bytes);
    }

    /// How many of `wanted` more runs fit, judging by the runs kept so far (each as large as
    /// their average, plus `extra` bytes it holds until it is extended, plus the room a
    /// level's results take while they are collected). Marks the budget exhausted when not
    /// all of them fit.
    pub fn room(&mut self, wanted: usize, extra: u64) -> usize {
        let average = self.kept.checked_div(self.runs).unwrap_or(0);
        let per_run = average + extra + size_of::<Option<RunResult>>() as u64;
        let left = self.bytes.saturating_sub(self.kept);
        let fit = usize::try_from(left / per_run.max(1)).unwrap_or(usize::MAX);
        if fit < wanted {
            self.exhausted = true;
        }
        fit.min(wanted)
    }
}
