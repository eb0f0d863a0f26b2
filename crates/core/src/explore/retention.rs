//! The smallest safe inbox TTL of a scenario: a binary search over TTLs in ticks, each
//! candidate verified by really running the scenario.
//!
//! The seeds put the floor of the TTL at how long the broker can deliver an event again.
//! The simulator measures it instead: a TTL is safe when no run duplicates an event — the
//! scenario's own run (its own faults) and, with `depth` ≥ 1, every schedule of up to
//! `depth` crashes that `explore` would run. A crash between commit and ack, for one,
//! delays the ack, and with it the end of a replay window counted from the ack, so the
//! floor measured with crashes is higher than without.
//!
//! The search doubles the TTL from the scenario's own until a safe one is found (or the
//! bound on delays is reached), then bisects between the largest unsafe and the smallest
//! safe TTL seen. It assumes that a longer TTL is never less safe (rows only live longer);
//! what it verifies is the boundary itself: the TTL one tick below the answer was run and
//! duplicated, the answer was run and did not.

use super::{explore, ExploreOptions, DEFAULT_MAX_SCHEDULES};
use crate::model::{BoundaryPoint, EventIndex, Tick};
use crate::scenario::{bounds, Scenario};
use crate::store::Retention;
use crate::world::{self, RunOptions};
use serde::Serialize;

/// The most TTLs one search runs: the scenario's own and 0, then doubling up to
/// [`bounds::MAX_DELAY_TICKS`] (21 doublings from 1), then bisecting a range of at most that
/// many ticks (20 halvings). Up-front estimates multiply by it.
pub const MAX_CANDIDATES: u128 = 2 + 21 + 20;

/// A run that duplicated an event under some TTL: what it takes to replay it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FailingRun {
    /// The crash schedule of an explored run; empty for the scenario's own run, with its
    /// own faults.
    pub crash_points: Vec<BoundaryPoint>,
    /// Whether it is the scenario's own run (its planned and random crashes as written).
    pub own_faults: bool,
    pub duplicated_events: Vec<EventIndex>,
    pub trace_hash: String,
}

/// One TTL the search ran.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct TtlCandidate {
    pub ttl_ticks: Tick,
    pub safe: bool,
    /// Runs this candidate took (the own run, then the exploration unless the own run
    /// already duplicated).
    pub runs: u64,
    pub duplicated_runs: u64,
    /// The first run that duplicated an event.
    pub failing: Option<FailingRun>,
}

/// The result of the search.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct TtlSearch {
    /// The crash depth each candidate was explored to (0: the scenario's own run only).
    pub depth: usize,
    /// The broker's replay window, if the scenario has one.
    pub window_ticks: Option<Tick>,
    pub cleanup_every_ticks: Tick,
    pub cleanup_batch: u32,
    /// Every TTL run, in the order the search tried them.
    pub candidates: Vec<TtlCandidate>,
    /// `None`: no TTL up to the bound on delays is safe (the scenario duplicates without
    /// any help from retention, or something redelivers later than that).
    pub smallest_safe_ttl_ticks: Option<Tick>,
    /// `None`: every TTL is safe, even 0.
    pub largest_unsafe_ttl_ticks: Option<Tick>,
    /// Both sides of the boundary were run: `smallest − 1` duplicated and `smallest` did
    /// not.
    pub boundary_verified: bool,
    /// Runs over all candidates (in the JSON, the summary's `runs`).
    #[serde(skip)]
    #[schemars(skip)]
    pub runs: u64,
}

impl TtlSearch {
    /// The verdict on the search (see [`crate::check::Judgement`]): it passes when it found
    /// a safe TTL and both sides of the boundary were run; with none safe, every TTL tried
    /// duplicated an event.
    pub fn judgement(&self, expect_failures: Option<usize>) -> crate::check::Judgement {
        use crate::check::{Coverage, Cutoff, FailureKind, Judgement};
        use crate::model::Guarantee;
        let over = Coverage::TtlSearch {
            tried: self.candidates.len() as u64,
        };
        let unsafe_ttls = self
            .candidates
            .iter()
            .filter(|c| c.failing.is_some())
            .count();
        let (guarantee, broken, cutoff) = match self.smallest_safe_ttl_ticks {
            Some(_) if self.boundary_verified || self.largest_unsafe_ttl_ticks.is_none() => {
                (Guarantee::ExactlyOnce, Vec::new(), None)
            }
            Some(_) => (Guarantee::ExactlyOnce, Vec::new(), Some(Cutoff::Limit)),
            None => {
                let broken = vec![(FailureKind::Duplicated, unsafe_ttls as u64)];
                (Guarantee::AtLeastOnce, broken, None)
            }
        };
        Judgement::over_runs(guarantee, over, &broken, cutoff, expect_failures)
    }

    pub fn candidate(&self, ttl: Tick) -> Option<&TtlCandidate> {
        self.candidates.iter().find(|c| c.ttl_ticks == ttl)
    }

    /// The largest unsafe TTL's failing run.
    pub fn largest_unsafe_failure(&self) -> Option<(Tick, &FailingRun)> {
        let ttl = self.largest_unsafe_ttl_ticks?;
        let failing = self.candidate(ttl)?.failing.as_ref()?;
        Some((ttl, failing))
    }
}

const SEARCH_RUN: RunOptions = RunOptions {
    fingerprints: false,
    hash_only: true,
    record_statements: false,
    every_cleanup_tick: false,
};

/// `scenario` with its inbox TTL set to `ttl` (its cleanup schedule kept).
pub fn with_ttl(scenario: &Scenario, ttl: Tick) -> Scenario {
    let mut s = scenario.clone();
    let retention = s
        .store
        .retention
        .map_or(Retention::with_ttl(ttl), |r| Retention {
            ttl_ticks: ttl,
            ..r
        });
    s.store.retention = Some(retention);
    s
}

/// Runs `scenario` with TTL `ttl`: its own run, then (if that did not duplicate and
/// `depth` ≥ 1) every schedule of up to `depth` crashes.
pub fn verify(scenario: &Scenario, ttl: Tick, depth: usize) -> TtlCandidate {
    let s = with_ttl(scenario, ttl);
    let own = world::run_with(&s, SEARCH_RUN);
    let duplicated = |v: &crate::check::Verdict| -> Vec<EventIndex> {
        v.events
            .iter()
            .filter(|e| e.outcome == crate::check::Outcome::Duplicated)
            .map(|e| e.event)
            .collect()
    };
    if own.verdict.duplicated > 0 {
        return TtlCandidate {
            ttl_ticks: ttl,
            safe: false,
            runs: 1,
            duplicated_runs: 1,
            failing: Some(FailingRun {
                crash_points: Vec::new(),
                own_faults: true,
                duplicated_events: duplicated(&own.verdict),
                trace_hash: own.trace.hash_hex(),
            }),
        };
    }
    if depth == 0 {
        return TtlCandidate {
            ttl_ticks: ttl,
            safe: true,
            runs: 1,
            duplicated_runs: 0,
            failing: None,
        };
    }
    let x = explore(
        &s,
        ExploreOptions {
            depth,
            max_schedules: DEFAULT_MAX_SCHEDULES,
            ..ExploreOptions::default()
        },
    );
    let failing = x
        .runs
        .iter()
        .find(|r| r.result.verdict.duplicated > 0)
        .map(|r| FailingRun {
            crash_points: r.crashes.clone(),
            own_faults: false,
            duplicated_events: duplicated(&r.result.verdict),
            trace_hash: r.result.trace.hash_hex(),
        });
    TtlCandidate {
        ttl_ticks: ttl,
        safe: failing.is_none(),
        runs: 1 + x.summary.runs,
        duplicated_runs: x.summary.duplicated_runs,
        failing,
    }
}

/// Searches the smallest TTL for which no run of `scenario` duplicates an event, each
/// candidate verified to crash depth `depth`, as the module docs describe.
pub fn smallest_safe_ttl(scenario: &Scenario, depth: usize) -> TtlSearch {
    let retention = scenario.store.retention.unwrap_or(Retention::with_ttl(0));
    let mut candidates: Vec<TtlCandidate> = Vec::new();
    let mut try_ttl = |ttl: Tick| -> bool {
        let c = verify(scenario, ttl, depth);
        let safe = c.safe;
        candidates.push(c);
        safe
    };
    // `lo`: the largest TTL seen unsafe; `hi`: the smallest seen safe.
    let start = retention.ttl_ticks;
    let (mut lo, mut hi): (Option<Tick>, Option<Tick>) = if try_ttl(start) {
        (None, Some(start))
    } else {
        (Some(start), None)
    };
    if hi.is_some() && start > 0 {
        if try_ttl(0) {
            hi = Some(0);
        } else {
            lo = Some(0);
        }
    }
    while hi.is_none() {
        let last = lo.expect("no safe TTL yet means an unsafe one");
        if last >= bounds::MAX_DELAY_TICKS {
            break;
        }
        let next = last
            .saturating_mul(2)
            .max(last + 1)
            .min(bounds::MAX_DELAY_TICKS);
        if try_ttl(next) {
            hi = Some(next);
        } else {
            lo = Some(next);
        }
    }
    if let (Some(mut l), Some(mut h)) = (lo, hi) {
        while h - l > 1 {
            let mid = l + (h - l) / 2;
            if try_ttl(mid) {
                h = mid;
            } else {
                l = mid;
            }
        }
        lo = Some(l);
        hi = Some(h);
    }
    let boundary_verified = match (lo, hi) {
        (Some(l), Some(h)) => h == l + 1,
        (None, Some(0)) => true,
        _ => false,
    };
    TtlSearch {
        depth,
        window_ticks: scenario.broker.late_redelivery_ticks,
        cleanup_every_ticks: retention.cleanup_every_ticks,
        cleanup_batch: retention.batch,
        runs: candidates.iter().map(|c| c.runs).sum(),
        candidates,
        smallest_safe_ttl_ticks: hi,
        largest_unsafe_ttl_ticks: lo,
        boundary_verified,
    }
}

/// Compares a search with `expect.smallest_safe_ttl`: one failure per expectation that
/// does not hold. Counts for another depth say nothing about this one.
pub fn failed_ttl_expectations(
    expect: &crate::scenario::TtlExpect,
    search: &TtlSearch,
) -> Vec<crate::check::ExpectationFailure> {
    use crate::check::{push_mismatch, ExpectationFailure};
    let mut failed = Vec::new();
    if expect.depth != search.depth {
        return failed;
    }
    let smallest = search.smallest_safe_ttl_ticks.unwrap_or(Tick::MAX);
    push_mismatch(
        &mut failed,
        "smallest_safe_ttl.ticks",
        expect.ticks,
        smallest,
    );
    push_mismatch(
        &mut failed,
        "smallest_safe_ttl.runs",
        expect.runs,
        search.runs,
    );
    if !search.boundary_verified {
        failed.push(ExpectationFailure::TtlUnverified);
    }
    failed
}

#[cfg(test)]
mod tests_support {
    use super::*;
    use crate::model::Protocol;

    pub fn scenario(window: Tick) -> Scenario {
        let mut s = Scenario::new(Protocol::built_in("inbox").unwrap());
        s.workload.events = 2;
        s.broker.late_redelivery_ticks = Some(window);
        s.store.retention = Some(Retention {
            ttl_ticks: 5,
            cleanup_every_ticks: 1,
            batch: 100,
        });
        s
    }
}

#[cfg(test)]
mod tests {
    use super::tests_support::scenario;
    use super::*;
    use crate::model::Protocol;

    #[test]
    fn the_search_finds_a_verified_boundary_above_the_window() {
        let s = scenario(20);
        let x = smallest_safe_ttl(&s, 0);
        let ttl = x.smallest_safe_ttl_ticks.expect("some TTL is safe");
        assert!(x.boundary_verified);
        assert_eq!(x.largest_unsafe_ttl_ticks, Some(ttl - 1));
        assert!(
            ttl >= 20,
            "a TTL shorter than the window cannot be safe: {ttl}"
        );
        assert!(x.candidate(ttl).unwrap().safe);
        assert!(!x.candidate(ttl - 1).unwrap().safe);
        assert_eq!(x.runs, x.candidates.len() as u64, "depth 0: one run each");
        // Independently: the answer and a much longer TTL are safe, one below is not.
        assert!(verify(&s, ttl + 50, 0).safe);
        assert!(!verify(&s, ttl - 1, 0).safe);
    }

    #[test]
    fn crashes_raise_the_floor() {
        let s = scenario(20);
        let plain = smallest_safe_ttl(&s, 0).smallest_safe_ttl_ticks.unwrap();
        let crashed = smallest_safe_ttl(&s, 1);
        assert!(crashed.boundary_verified);
        assert!(
            crashed.smallest_safe_ttl_ticks.unwrap() > plain,
            "a crash between commit and ack delays the ack, and the window with it"
        );
        let (_, failing) = crashed.largest_unsafe_failure().unwrap();
        assert!(!failing.own_faults && !failing.crash_points.is_empty());
    }

    #[test]
    fn without_a_replay_the_ttl_only_has_to_outlive_crash_redeliveries() {
        let mut s = scenario(20);
        s.broker.late_redelivery_ticks = None;
        assert_eq!(smallest_safe_ttl(&s, 0).smallest_safe_ttl_ticks, Some(0));
        let x = smallest_safe_ttl(&s, 1);
        assert!(
            x.smallest_safe_ttl_ticks.unwrap() > 0,
            "a redelivery after a crash needs the row"
        );
    }

    #[test]
    fn a_protocol_that_duplicates_anyway_has_no_safe_ttl() {
        let mut s = scenario(20);
        s.protocol = Protocol::built_in("no-dedup").unwrap();
        let x = smallest_safe_ttl(&s, 0);
        assert_eq!(x.smallest_safe_ttl_ticks, None);
        assert!(!x.boundary_verified);
        assert_eq!(x.largest_unsafe_ttl_ticks, Some(bounds::MAX_DELAY_TICKS));
    }
}

#[cfg(test)]
mod bound_tests {
    use super::tests_support::scenario;
    use super::*;

    /// The longest search: from a TTL of 0, doubling up to the bound on delays, then
    /// bisecting the widest range; it stays within MAX_CANDIDATES, which up-front estimates
    /// multiply by.
    #[test]
    fn the_longest_search_stays_within_max_candidates() {
        let mut s = scenario(bounds::MAX_DELAY_TICKS - 1000);
        // A cleanup every 50,000 ticks: at every tick, each run would take a million.
        s.store.retention = Some(Retention {
            ttl_ticks: 0,
            cleanup_every_ticks: 50_000,
            batch: 100,
        });
        let x = smallest_safe_ttl(&s, 0);
        assert!(x.boundary_verified, "{x:?}");
        assert!(
            x.candidates.len() as u128 <= MAX_CANDIDATES,
            "{}",
            x.candidates.len()
        );
        assert!(x.candidates.len() >= 35, "the worst case is near it");
        let mut none = scenario(20);
        none.protocol = crate::model::Protocol::built_in("no-dedup").unwrap();
        let x = smallest_safe_ttl(&none, 0);
        assert!(x.candidates.len() as u128 <= MAX_CANDIDATES);
    }
}
