//! Pruning equivalent schedules, and the proof that a pruning was sound.
//!
//! A run whose state right after its last crash has the same digest as an earlier run's
//! (`world::CrashState`) is reported as equivalent to it and its extensions are not run:
//! the earlier run's extensions stand for them. That is exact as long as the two futures
//! really are the same future shifted in time, and the one thing the digest cannot see is
//! where each run stands against its limits (ticks, steps, trace entries): the same future
//! started later can reach a limit that the earlier one did not.
//!
//! So after an exploration, every pruning is checked ([`unproven`]): each run that stands
//! for a pruned one, directly or through a chain of prunings, must have ended quiescent
//! with room to spare under every limit once shifted by the difference, or the shift must
//! be zero. A pruning that fails the check is taken back: the exploration runs again with
//! those schedules run for real (`explore::explore_until`). Usually nothing fails, and the
//! check costs a walk over the runs.

use super::ExploredRun;
use crate::model::BoundaryPoint;
use crate::scenario::{bounds, Limits};
use crate::sim::StopReason;
use crate::world::CrashState;
use std::collections::BTreeMap;

/// How far a pruned run stood from the run standing for it, at their last crashes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Shift {
    ticks: i128,
    steps: i128,
    trace_entries: i128,
}

impl Shift {
    fn between(pruned: &CrashState, standing: &CrashState) -> Shift {
        Shift {
            ticks: i128::from(pruned.tick) - i128::from(standing.tick),
            steps: i128::from(pruned.steps) - i128::from(standing.steps),
            trace_entries: pruned.trace_entries as i128 - standing.trace_entries as i128,
        }
    }

    fn plus(self, other: Shift) -> Shift {
        Shift {
            ticks: self.ticks + other.ticks,
            steps: self.steps + other.steps,
            trace_entries: self.trace_entries + other.trace_entries,
        }
    }
}

/// The last crash's state of a crashed run.
fn last_crash(run: &ExploredRun) -> &CrashState {
    run.result
        .crash_states
        .last()
        .expect("an explored run with a crash records its state")
}

/// Whether `run`, moved by `shift`, is still the same run: nothing changes, or it ended on
/// its own and the moved run still ends within every limit.
fn same_when_shifted(run: &ExploredRun, shift: Shift, limits: &Limits) -> bool {
    if shift == Shift::default() {
        return true;
    }
    let r = &run.result;
    // Each limit is checked as the world checks it, before an occurrence, against values
    // that only grow, so the final values bound every check. A healed run reached a limit
    // of its faulty phase: where its healing began depends on where it stood, so moved, it
    // may heal elsewhere.
    r.stop == StopReason::Quiescent
        && r.healed.is_none()
        && i128::from(r.end_tick) + shift.ticks <= i128::from(limits.max_ticks)
        && i128::from(r.steps) + shift.steps < i128::from(limits.max_steps)
        && r.trace.len() as i128 + shift.trace_entries < bounds::MAX_TRACE_ENTRIES as i128
}

/// The prunings of `runs` that the limits do not allow: the schedules of the pruned runs
/// whose stand-ins, moved to where they would have run, may differ. `depth` is the
/// exploration's.
pub(super) fn unproven(
    runs: &[ExploredRun],
    depth: usize,
    limits: &Limits,
) -> Vec<Vec<BoundaryPoint>> {
    let index: BTreeMap<&[BoundaryPoint], usize> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| (r.crashes.as_slice(), i))
        .collect();
    let walk = Walk {
        runs,
        index: &index,
        limits,
    };
    runs.iter()
        .filter_map(|run| {
            let standing = run.equivalent_to?;
            let shift = Shift::between(last_crash(run), last_crash(&runs[standing]));
            let room = depth - run.crashes.len();
            (!walk.fits(standing, shift, room)).then(|| run.crashes.clone())
        })
        .collect()
}

struct Walk<'a> {
    runs: &'a [ExploredRun],
    index: &'a BTreeMap<&'a [BoundaryPoint], usize>,
    limits: &'a Limits,
}

impl Walk<'_> {
    /// Whether every extension of run `at` up to `room` more crashes, real or itself
    /// pruned, is the same run when moved by `shift`.
    fn fits(&self, at: usize, shift: Shift, room: usize) -> bool {
        if room == 0 {
            return true;
        }
        let prefix = self.runs[at].crashes.as_slice();
        // Its explored children: the schedules one crash longer that start with its own
        // (a contiguous range of the index). An extension an interrupted or truncated
        // exploration did not reach is not reported either, so it could misreport nothing;
        // the runs' reached points are not kept, so the index is what lists them.
        let children = self
            .index
            .range(prefix..)
            .take_while(|(s, _)| s.starts_with(prefix))
            .filter(|(s, _)| s.len() == prefix.len() + 1)
            .map(|(_, &child)| child);
        children.into_iter().all(|child| {
            let c = &self.runs[child];
            if !same_when_shifted(c, shift, self.limits) {
                return false;
            }
            match c.equivalent_to {
                // The child's own extensions are its stand-in's, moved once more.
                Some(standing) => {
                    let more = Shift::between(last_crash(c), last_crash(&self.runs[standing]));
                    self.fits(standing, shift.plus(more), room - 1)
                }
                None => self.fits(child, shift, room - 1),
            }
        })
    }
}

#[cfg(test)]
mod sql_tests;
#[cfg(test)]
mod tests;
