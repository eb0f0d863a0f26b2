//! The cross-check of the crash model against reality: the same scenario, crash point by
//! crash point, run once in the simulator and once with the consumer's connection held by a
//! real process on a real SQLite file, killed with SIGKILL at the crash point.
//!
//! The simulator's claim is that a crashed consumer loses its open transaction and keeps
//! what it committed. Both runs are the simulator's own executor ([`crate::world::run_on`]):
//! the same consumer state machine, broker, clock and fault plan, in this process. Only the
//! consumer's connection differs. Simulated, it is an in-memory [`Store`] whose crash is a
//! modelled rollback. Real, it is `remote::RemoteDb`: a child process (the binary's hidden
//! `__consumer` mode, [`child`]) that holds a connection to a database file in WAL mode with
//! `synchronous=FULL` and runs each operation the executor sends over pipes ([`wire`]). At a
//! crash point the executor kills it (SIGKILL: no destructor, no clean-up, the transaction
//! left open); the next operation starts a new process, which opens the file and recovers
//! as SQLite does. At the end the checker reads the file through the store's
//! committed-state queries.
//!
//! So the two runs must agree on everything: the consumer's steps and the database's
//! answers, the points reached, what was committed at each crash, and the verdict.
//! [`compare`] lists every difference. Only what one process against one file can
//! reproduce is cross-checked: one consumer, the queue broker, a direct producer
//! ([`refusal`] says why anything else is refused).
//!
//! This module reads no clock: the caller times [`simulate`] and [`real`] from outside.

// The core's layers, under the paths this code has always named them by.
use delivery_sim_core::{check, explore, fault, model, scenario, sim, store, world};

pub mod child;
mod compare;
mod postgres;
mod process;
mod remote;
pub mod wire;

/// What [`simulate`] models a crash as (the wrong model only in tests).
pub use crate::store::CrashModel;
pub use compare::*;
use process::ChildProcess;
use remote::RemoteDb;

use crate::check::Verdict;
use crate::fault::{CrashRecord, CrashSpec};
use crate::model::{BoundaryPoint, EventIndex, Step, Tick};
use crate::scenario::Scenario;
use crate::sim::{Actor, StopReason};
use crate::store::{Store, StoreError};
use crate::world::RunResult;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use wire::{FromChild, Setup, ToChild, WireError};

/// The hidden subcommand that runs the consumer process.
pub const CHILD_COMMAND: &str = "__consumer";

/// Why `crosscheck` cannot reproduce a scenario with one real process (worded in
/// `report::lang::input`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unfit {
    /// It has this many consumers; the interleavings of several real processes are the
    /// operating system's choice, not a schedule that can be replayed.
    Consumers(usize),
    /// It runs a producer process (`producer.mode`); crosscheck publishes directly.
    Producer,
    /// Its protocol has `enqueue_email`, which needs the email relay, a second process.
    EmailRelay,
    /// It runs the inbox retention job (`store.inbox_ttl_ticks`), a second connection.
    Retention,
}

/// Why `crosscheck` cannot reproduce `s` with one real process, if it cannot.
pub fn refusal(s: &Scenario) -> Option<Unfit> {
    if s.consumers != 1 {
        Some(Unfit::Consumers(s.consumers))
    } else if s.producer.active() {
        Some(Unfit::Producer)
    } else if s.protocol.has(Step::EnqueueEmail) {
        Some(Unfit::EmailRelay)
    } else if s.store.retention.is_some() {
        Some(Unfit::Retention)
    } else {
        None
    }
}

/// Every single crash point `explore` enumerates for `scenario` at depth 1, in its order.
pub fn crash_points(scenario: &Scenario) -> Vec<BoundaryPoint> {
    explore::single_crash_points(scenario)
        .runs
        .iter()
        .skip(1)
        .map(|r| r.crashes[0])
        .collect()
}

/// `scenario` with exactly one planned crash at `point` (none for `None`) and no random
/// crashes: what each cross-checked run is.
pub fn with_crash(scenario: &Scenario, point: Option<BoundaryPoint>) -> Scenario {
    let mut s = scenario.clone();
    s.faults.crash = point.into_iter().map(CrashSpec::exactly).collect();
    s.faults.random_crash = None;
    s
}

/// Runs `scenario` with a crash at `point` in the simulator, with the crash model `model`
/// (only a test sets the wrong one).
pub fn simulate(
    scenario: &Scenario,
    point: Option<BoundaryPoint>,
    model: CrashModel,
) -> Observation {
    let mut s = with_crash(scenario, point);
    s.store.crash_model = model;
    observation(crate::world::run(&s))
}

/// What a run is compared on: consumer 0's trace lines and the rest of its result.
fn observation(result: RunResult) -> Observation {
    let failure = result.failure();
    let lines = result
        .trace
        .entries()
        .iter()
        .filter(|e| e.actor == Actor::Consumer(0))
        .map(|e| Line {
            tick: e.tick,
            action: e.action(),
            event: e.event,
            copy: e.copy,
            delivery: e.delivery,
            kind: e.kind.clone(),
        })
        .collect();
    Observation {
        lines,
        reached: result.reached,
        crashes: result.crashes,
        stop: result.stop,
        failure,
        end_tick: result.end_tick,
        steps: result.steps,
        verdict: result.verdict,
    }
}

/// A verdict in a few words: `exactly-once (3 once)`, `at-least-once (2 once, 1
/// duplicated)`.
pub fn outcome(v: &Verdict) -> String {
    let parts = crate::check::tally(
        v.exactly_once,
        &[
            (v.lost, "lost"),
            (v.duplicated, "duplicated"),
            (v.dead_lettered, "dead-lettered"),
            (v.rejected, "rejected"),
        ],
    );
    format!("{} ({parts})", v.guarantee)
}

/// One cross-checked point: both runs, their differences, and how long each took (measured
/// by the caller, from outside).
#[derive(Debug)]
pub struct Checked {
    /// The crash point (`None`: the crash-free run).
    pub point: Option<BoundaryPoint>,
    pub simulated: Observation,
    /// The real run, or why it could not be carried out (which counts as a mismatch).
    pub real: Result<Observation, String>,
    pub differences: Vec<Difference>,
    pub simulated_seconds: f64,
    pub real_seconds: f64,
}

/// The verdict over a cross-check (see [`crate::check::Judgement`]): what the simulated
/// runs broke, each property with the points that broke it, and the points whose real run
/// differs (or could not be carried out).
pub fn judgement(rows: &[Checked]) -> crate::check::Judgement {
    use crate::check::{tally_failures, Coverage, Judgement, Reason};
    let signatures = rows.iter().map(|r| &r.simulated.failure);
    let guarantee =
        crate::model::Guarantee::weakest(rows.iter().map(|r| r.simulated.verdict.guarantee));
    let over = Coverage::Crosscheck {
        points: rows.len() as u64,
    };
    let effect = rows.first().and_then(|r| r.simulated.verdict.effect());
    let mut j = Judgement::over_runs(guarantee, over, &tally_failures(signatures), None, None);
    let differ = rows.iter().filter(|r| !r.matches()).count() as u64;
    if differ > 0 {
        let mut reasons = std::mem::take(&mut j.reasons);
        reasons.push(Reason::Differs { count: differ });
        j = Judgement::new(guarantee, over, reasons);
    }
    j.on(effect)
}

impl Checked {
    /// Whether the real run happened and showed no difference.
    pub fn matches(&self) -> bool {
        self.real.is_ok() && self.differences.is_empty()
    }

    /// Keeps what the report reads of a point whose traces it does not print (a match, or
    /// a mismatch past the first [`MAX_DETAILED_MISMATCHES`]): the outcomes, the
    /// differences and the timings; so that a cross-check of hundreds of points does not
    /// hold hundreds of traces.
    pub fn slim(&mut self) {
        for o in std::iter::once(&mut self.simulated).chain(self.real.as_mut().ok()) {
            o.lines = Vec::new();
            o.reached = Vec::new();
            o.verdict.slim();
        }
    }
}

/// How many mismatching points keep both consumer traces for the report.
pub const MAX_DETAILED_MISMATCHES: usize = 16;

/// The most consumer steps one cross-check may take in real processes, estimated up front
/// (points × steps of the crash-free run): each real step is a statement on a file synced
/// to disk, a few thousand a second, so this is some ten minutes.
pub const MAX_REAL_STEPS: u128 = 2_000_000;

/// Why a real run could not be carried out (never a difference of outcome: those are
/// [`Difference`]s).
#[derive(Debug, thiserror::Error)]
pub enum RealError {
    #[error("could not start the consumer process {exe}: {error}")]
    Spawn { exe: PathBuf, error: std::io::Error },
    #[error("talking to the consumer process: {0}")]
    Wire(#[from] WireError),
    #[error("the consumer process broke the protocol: {0}")]
    Protocol(String),
    #[error("the database file: {0}")]
    Store(#[from] StoreError),
    #[error("PostgreSQL: {0}")]
    Postgres(String),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Runs `scenario` for real with a SIGKILL at `point` (none for `None`): the consumer is
/// `exe __consumer`, a child process, on a database file in a private temporary directory
/// that is removed when this returns, whatever happened (the children are killed first);
/// on PostgreSQL, a child process holding its connection to the run's database.
pub fn real(
    scenario: &Scenario,
    point: Option<BoundaryPoint>,
    exe: &Path,
) -> Result<Observation, RealError> {
    if scenario.store.engine == crate::model::Engine::Postgres {
        let s = with_crash(scenario, point);
        return postgres::real_on_postgres(&s, exe).map(observation);
    }
    // Declared first, dropped last: every child is dead before the directory goes.
    let dir = tempfile::Builder::new()
        .prefix("delivery-sim-crosscheck-")
        .tempdir()?;
    let s = with_crash(scenario, point);
    let db = dir.path().join("consumer.sqlite");
    let accounts = s.workload.accounts();
    // The parent creates the file (schema and opening balances), as a deployment would
    // before its consumer starts; it is closed before the first child opens it.
    drop(Store::open_file(&db, &s.store, &accounts)?);
    let mut remote = RemoteDb::open(
        exe,
        Setup {
            db,
            store: s.store.clone(),
            accounts,
            sql_events: s.sql_events(&s.events()),
            seed: s.seed,
        },
    )?;
    let result = crate::world::run_on(&s, Box::new(&mut remote));
    remote.finish()?;
    Ok(observation(result))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Protocol;

    fn scenario(protocol: &str) -> Scenario {
        Scenario::new(Protocol::built_in(protocol).unwrap()).with_events(2)
    }

    #[test]
    fn one_consumer_on_the_queue_broker_is_accepted_and_the_rest_refused_with_a_reason() {
        assert_eq!(refusal(&scenario("inbox")), None);
        let two = scenario("inbox").with_consumers(2);
        assert_eq!(refusal(&two), Some(Unfit::Consumers(2)));
        // What the executor does in-process, whatever the connection, is accepted.
        let mut log = scenario("inbox");
        log.broker.log = Some(delivery_sim_core::broker::LogConfig::default());
        log.store.effect = crate::store::EffectMode::ReadModifyWrite;
        assert_eq!(refusal(&log), None);
        use Step::*;
        let steps = vec![
            Receive,
            Begin,
            InsertInbox,
            ApplyEffect,
            EnqueueEmail,
            Commit,
            Ack,
        ];
        let email = Scenario::new(Protocol::new("email", "", steps).unwrap());
        assert_eq!(refusal(&email), Some(Unfit::EmailRelay));
        let mut ttl = scenario("inbox");
        ttl.store.retention = Some(crate::store::Retention::with_ttl(50));
        assert_eq!(refusal(&ttl), Some(Unfit::Retention));
    }

    #[test]
    fn the_points_are_explores_single_crash_points_in_its_order() {
        let s = scenario("inbox");
        let points = crash_points(&s);
        let explored = explore::single_crash_points(&s);
        assert_eq!(points.len() as u64 + 1, explored.summary.runs);
        // Two boundaries per step, per delivery of the crash-free run.
        assert_eq!(points.len(), 2 * 2 * s.protocol.steps.len());
        assert_eq!(points[0].to_string(), "before:receive e0 d1");
    }

    #[test]
    fn a_simulated_observation_keeps_the_consumer_lines_and_names_crashes_by_place() {
        let s = scenario("inbox");
        let p = BoundaryPoint::parse("after:apply_effect e0 d1").unwrap();
        let o = simulate(&s, Some(p), CrashModel::RollBack);
        let crash: Vec<&Line> = o.lines.iter().filter(|l| l.action == "crash").collect();
        assert_eq!(
            crash[0].kind.to_string(),
            "crash at after:apply_effect (faults.crash[0])"
        );
        assert_eq!(
            crash[1].kind.to_string(),
            "open transaction rolled back by the database"
        );
        assert!(o.lines.iter().any(|l| l.action == "restart"));
        assert_eq!(compare(&o, &o.clone()), Vec::new());
    }

    #[test]
    fn the_wrong_model_keeps_what_the_crash_interrupted_and_compare_says_where() {
        let s = scenario("inbox");
        let p = BoundaryPoint::parse("before:commit e0 d1").unwrap();
        let right = simulate(&s, Some(p), CrashModel::RollBack);
        let wrong = simulate(&s, Some(p), CrashModel::KeepUncommitted);
        assert_eq!(right.crashes[0].confirmed.ledger_rows, 0);
        assert_eq!(wrong.crashes[0].confirmed.ledger_rows, 2);
        let differences = compare(&right, &wrong);
        let has = |f: &dyn Fn(&Difference) -> bool| differences.iter().any(f);
        assert!(
            has(&|d| matches!(d, Difference::Crash { index: 0, .. })),
            "{differences:?}"
        );
        assert!(has(&|d| matches!(
            d,
            Difference::Verdict { path, .. } if path == "verdict.events[0].duplicates_discarded"
        )));
        assert!(has(&|d| matches!(d, Difference::TraceLine { .. })));
        // Outside a transaction the two models agree.
        let p = BoundaryPoint::parse("after:commit e0 d1").unwrap();
        let (a, b) = (
            simulate(&s, Some(p), CrashModel::RollBack),
            simulate(&s, Some(p), CrashModel::KeepUncommitted),
        );
        assert_eq!(compare(&a, &b), Vec::new());
    }

    #[test]
    fn outcomes_are_short() {
        let s = scenario("no-dedup");
        let p = BoundaryPoint::parse("after:commit e1 d1").unwrap();
        let o = simulate(&s, Some(p), CrashModel::RollBack);
        assert_eq!(outcome(&o.verdict), "at-least-once (1 once, 1 duplicated)");
    }
}
