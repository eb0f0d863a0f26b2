//! The protocol × crash-point matrix: every built-in protocol explored against every crash
//! point, with the confirmed state and the recovery of each.

use super::*;
use crate::model::{Engine, Isolation};

/// What happened to the crashed event after one single crash: the seeds' "recuperación".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PointRow {
    pub at: Boundary,
    /// What was confirmed at the crash (rows counted as there or not: the table's words).
    pub confirmed: Confirmed,
    /// What happened to the event after it (of the row's first event).
    pub recovery: Recovery,
    pub outcome: crate::check::Outcome,
    pub events: Vec<usize>,
}

impl PointRow {
    /// What the table says of it: rows that read the same are one row.
    fn reads(&self) -> (String, String, crate::check::Outcome) {
        (
            self.confirmed.describe(),
            self.recovery.describe(&self.confirmed),
            self.outcome,
        )
    }
}

/// The outcomes observed when crashing once at one boundary, over every event and attempt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct MatrixCell {
    pub at: Boundary,
    pub runs: u64,
    pub once: u64,
    pub lost: u64,
    pub duplicated: u64,
    /// The first run at this boundary that lost or duplicated an event, to replay.
    pub first_failure: Option<BoundaryPoint>,
    /// The first run at this boundary, whatever its outcome: what the HTML page shows of a
    /// cell where nothing failed. Not printed, so that the matrix's JSON stays as it was.
    #[serde(skip)]
    #[schemars(skip)]
    pub first_run: Option<BoundaryPoint>,
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
    /// The engine the consumers' database ran on, and on PostgreSQL its isolation level.
    pub engine: Engine,
    pub isolation: Option<Isolation>,
    /// The summary at each depth, 1 to the matrix's depth.
    pub summaries: Vec<Summary>,
    pub cells: Vec<MatrixCell>,
}

/// The verdict over a matrix (see [`crate::check::Judgement`]): the weakest guarantee of
/// its protocols at its deepest depth, each property with how many protocols broke it
/// there, and, as failed expectations, the protocols that did not show the guarantee they
/// are documented with.
pub fn matrix_judgement(columns: &[MatrixColumn]) -> crate::check::Judgement {
    use crate::check::{Coverage, FailureKind, Judgement, Reason};
    let deepest: Vec<&Summary> = columns.iter().filter_map(|c| c.summaries.last()).collect();
    let depth = deepest.first().map_or(1, |s| s.depth);
    let mut broken: BTreeMap<FailureKind, u64> = BTreeMap::new();
    for s in &deepest {
        for reason in s.judgement(None).reasons {
            if let Reason::Broke { property, .. } = reason {
                *broken.entry(property).or_default() += 1;
            }
        }
    }
    let broken: Vec<(FailureKind, u64)> = broken.into_iter().collect();
    let undocumented = columns.iter().filter(|c| !c.as_documented()).count();
    let over = Coverage::Matrix {
        protocols: columns.len() as u64,
        depth,
    };
    let guarantee = Guarantee::weakest(deepest.iter().map(|s| s.guarantee));
    Judgement::over_runs(guarantee, over, &broken, None, Some(undocumented))
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
    matrix_on(
        protocols,
        events,
        seed,
        depth,
        Engine::Sqlite,
        Isolation::default(),
    )
}

/// [`matrix`] with the consumers' database on `engine` at `isolation` (PostgreSQL's only).
pub fn matrix_on(
    protocols: &[Protocol],
    events: usize,
    seed: u64,
    depth: usize,
    engine: Engine,
    isolation: Isolation,
) -> Vec<MatrixColumn> {
    protocols
        .iter()
        .map(|p| {
            let mut s = Scenario::new(p.clone());
            s.store.engine = engine;
            s.store.isolation = isolation;
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
                engine,
                isolation: (engine == Engine::Postgres).then_some(isolation),
                summaries,
                cells,
            }
        })
        .collect()
}

pub(super) fn cell(x: &Exploration, at: Boundary) -> MatrixCell {
    let mut cell = MatrixCell {
        at,
        runs: 0,
        once: 0,
        lost: 0,
        duplicated: 0,
        first_failure: None,
        first_run: None,
        rows: Vec::new(),
    };
    for r in x
        .runs
        .iter()
        .filter(|r| r.crashes.len() == 1 && r.crashes[0].boundary == at)
    {
        cell.runs += 1;
        cell.first_run.get_or_insert(r.crashes[0]);
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
        let confirmed = Confirmed {
            ledger_rows: crash.confirmed.ledger_rows.min(1),
            inbox_rows: crash.confirmed.inbox_rows.min(1),
            acked: crash.confirmed.acked,
        };
        let row = PointRow {
            at,
            confirmed,
            recovery: Recovery::of(&r.result),
            outcome: v
                .event(event)
                .expect("the report of an event a crash hit is always kept")
                .outcome,
            events: vec![event],
        };
        match cell.rows.iter_mut().find(|x| x.reads() == row.reads()) {
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
///
/// A step some protocol repeats has a pair of rows per occurrence (`commit`, `commit#2`).
pub fn matrix_rows(columns: &[MatrixColumn]) -> Vec<Boundary> {
    Step::ALL
        .iter()
        .flat_map(|s| {
            let most = columns
                .iter()
                .map(|c| c.protocol.steps.iter().filter(|t| *t == s).count())
                .max()
                .unwrap_or(0);
            (1..=most).flat_map(move |n| {
                let nth = u8::try_from(n).expect("a protocol has fewer than 256 steps");
                [Boundary::before(*s).nth(nth), Boundary::after(*s).nth(nth)]
            })
        })
        .collect()
}
