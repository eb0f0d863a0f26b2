//! Exhaustive exploration of crash points, and the protocol × crash-point matrix.
//!
//! `explore` runs a scenario once without crashes (the baseline), collects every step
//! boundary that run reaches, then reruns the scenario once per boundary with a single crash
//! there. Because runs are deterministic, the rerun follows the baseline exactly up to the
//! crash, so every reached boundary is really crashed at (asserted). The scenario's own
//! planned and random crashes are replaced; its step failures and republishes are kept,
//! so the points on redelivered attempts they cause are explored too.

use crate::fault::CrashSpec;
use crate::model::{Boundary, BoundaryPoint, Guarantee, Protocol, Step};
use crate::scenario::Scenario;
use crate::sim::StopReason;
use crate::world::{self, RunResult};
use serde::Serialize;

/// One run of an exploration: the crash it injected (none for the baseline) and its result.
#[derive(Debug)]
pub struct ExploredRun {
    pub crash: Option<BoundaryPoint>,
    pub result: RunResult,
}

/// The summary over all runs of an exploration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub runs: u64,
    pub lost_runs: u64,
    pub duplicated_runs: u64,
    /// Runs in which the broker dead-lettered an event it never saw processed.
    pub dead_lettered_runs: u64,
    /// Runs that ended with some event not acked.
    pub unacked_runs: u64,
    /// Runs whose balances were not conserved (half an effect committed).
    pub unconserved_runs: u64,
    /// Runs stopped by a step or tick limit.
    pub limited_runs: u64,
    /// The weakest guarantee over all runs.
    pub guarantee: Guarantee,
}

#[derive(Debug)]
pub struct Exploration {
    pub runs: Vec<ExploredRun>,
    pub summary: Summary,
}

impl Exploration {
    /// The runs that lost or duplicated an event.
    pub fn failing(&self) -> impl Iterator<Item = &ExploredRun> {
        self.runs
            .iter()
            .filter(|r| r.result.verdict.guarantee != Guarantee::ExactlyOnce)
    }
}

/// The scenario without its planned and random crashes: what every explored run starts from.
fn without_crashes(scenario: &Scenario) -> Scenario {
    let mut base = scenario.clone();
    base.faults.crash.clear();
    base.faults.random_crash = None;
    base
}

/// One run per single crash point reached by the crash-free run, plus that run itself.
pub fn single_crash_points(scenario: &Scenario) -> Exploration {
    let base = without_crashes(scenario);
    let baseline = world::run(&base);
    let points = baseline.reached.clone();
    let mut runs = vec![ExploredRun {
        crash: None,
        result: baseline,
    }];
    for point in points {
        let mut s = base.clone();
        s.faults.crash = vec![CrashSpec::exactly(point)];
        let result = world::run(&s);
        assert_eq!(
            result.crashes.first().map(|c| c.point),
            Some(point),
            "a deterministic rerun reaches the baseline's boundary {point}"
        );
        runs.push(ExploredRun {
            crash: Some(point),
            result,
        });
    }
    let summary = summarize(&runs);
    Exploration { runs, summary }
}

fn summarize(runs: &[ExploredRun]) -> Summary {
    let count =
        |f: &dyn Fn(&RunResult) -> bool| runs.iter().filter(|r| f(&r.result)).count() as u64;
    let lost_runs = count(&|r| r.verdict.lost > 0);
    let duplicated_runs = count(&|r| r.verdict.duplicated > 0);
    Summary {
        runs: runs.len() as u64,
        lost_runs,
        duplicated_runs,
        dead_lettered_runs: count(&|r| r.verdict.dead_lettered > 0),
        unacked_runs: count(&|r| !r.verdict.all_acked),
        unconserved_runs: count(&|r| !r.verdict.conserved),
        limited_runs: count(&|r| r.stop != StopReason::Quiescent),
        guarantee: Guarantee::from_anomalies(lost_runs > 0, duplicated_runs > 0),
    }
}

/// The outcomes observed when crashing at one boundary, over every event and attempt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MatrixCell {
    pub at: Boundary,
    pub runs: u64,
    pub once: u64,
    pub lost: u64,
    pub duplicated: u64,
    /// The first run at this boundary that lost or duplicated an event, to replay.
    pub first_failure: Option<BoundaryPoint>,
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
    pub summary: Summary,
    pub cells: Vec<MatrixCell>,
    pub exploration: Exploration,
}

/// Every protocol of `protocols` against every single crash point, on a workload of
/// `events` events without other faults.
pub fn matrix(protocols: &[Protocol], events: usize, seed: u64) -> Vec<MatrixColumn> {
    protocols
        .iter()
        .map(|p| {
            let mut s = Scenario::new(p.clone());
            s.seed = seed;
            s.workload.events = events;
            let exploration = single_crash_points(&s);
            let cells = Boundary::all_of(&p.steps)
                .into_iter()
                .map(|at| {
                    let mut cell = MatrixCell {
                        at,
                        runs: 0,
                        once: 0,
                        lost: 0,
                        duplicated: 0,
                        first_failure: None,
                    };
                    for r in exploration
                        .runs
                        .iter()
                        .filter(|r| r.crash.is_some_and(|c| c.boundary == at))
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
                            cell.first_failure = r.crash;
                        }
                    }
                    cell
                })
                .collect();
            MatrixColumn {
                protocol: p.clone(),
                summary: exploration.summary,
                cells,
                exploration,
            }
        })
        .collect()
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

/// Compares an exploration with the scenario's expectations. With `expect.explore`, its
/// counts of runs are compared exactly. Without it, the top-level fields are read for a set
/// of runs: `guarantee` is the weakest over all runs; `lost`/`duplicated` of 0 mean no run
/// lost or duplicated an event and a positive value means at least one did (a count of
/// events per run has no single value across runs); `all_acked` and `conserved` must hold
/// in every run. Returns one line per failed expectation.
pub fn failed_expectations(expect: &crate::scenario::Expect, s: &Summary) -> Vec<String> {
    let mut failed = Vec::new();
    let guarantee = expect
        .explore
        .as_ref()
        .map_or(expect.guarantee, |x| x.guarantee);
    if let Some(g) = guarantee {
        if g != s.guarantee {
            failed.push(format!(
                "expected guarantee {g} over all runs, observed {}",
                s.guarantee
            ));
        }
    }
    if let Some(x) = &expect.explore {
        for (what, want, got) in [
            ("runs", x.runs, s.runs),
            ("lost_runs", x.lost_runs, s.lost_runs),
            ("duplicated_runs", x.duplicated_runs, s.duplicated_runs),
            ("unacked_runs", x.unacked_runs, s.unacked_runs),
            ("unconserved_runs", x.unconserved_runs, s.unconserved_runs),
        ] {
            if let Some(want) = want {
                if want != got {
                    failed.push(format!("expected {what} = {want}, observed {got}"));
                }
            }
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
