//! The benchmark: how fast the simulator runs, next to the physical limit of a simulator
//! built on real SQLite, measured in one process on one machine.
//!
//! This module may read the wall clock: it measures the simulator from outside and never
//! feeds time into a run. Every figure comes from a timed loop of real runs.

use crate::explore::sweep::{self, SwarmLimits};
use crate::explore::{self, ExploreOptions};
use crate::fault::CrashSpec;
use crate::model::{Boundary, Protocol, Step};
use crate::scenario::Scenario;
use crate::store;
use crate::world::{self, RunOptions};
use std::time::{Duration, Instant};

mod postgres;
/// The figures are data the report renders (`report::bench`).
pub use crate::report::bench::*;
pub use postgres::postgres_figures;

/// How long each throughput loop runs.
const LOOP: Duration = Duration::from_millis(1500);

/// Runs `f` repeatedly for at least `budget` (and at least 3 times); returns calls per second.
fn per_second(budget: Duration, mut f: impl FnMut()) -> f64 {
    f(); // Warm up caches (templates, allocator) outside the measurement.
    let start = Instant::now();
    let mut calls = 0u64;
    while calls < 3 || start.elapsed() < budget {
        f();
        calls += 1;
    }
    calls as f64 / start.elapsed().as_secs_f64()
}

fn seconds(f: impl FnOnce() -> u64) -> (f64, u64) {
    let start = Instant::now();
    let runs = f();
    (start.elapsed().as_secs_f64(), runs)
}

/// The benchmark's one-crash run: `inbox`, 10 events, a crash between commit and ack of
/// event 4.
pub fn one_crash_inbox(events: usize) -> Scenario {
    let mut s = Scenario::new(Protocol::built_in("inbox").expect("built in"));
    s.workload.events = events;
    s.faults.crash = vec![CrashSpec {
        at: Boundary::after(Step::Commit),
        event: Some(events / 2),
        copy: None,
        delivery: Some(1),
    }];
    s
}

/// One machine's description, for the report.
fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!(
        "{cpu}, {cores} hardware threads, {} {}",
        std::env::consts::OS,
        std::env::consts::ARCH
    )
}

/// The 1-minute load average (Linux), so that figures from a busy machine say so.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".to_string())
}

/// Today's date (UTC) as YYYY-MM-DD, from the system clock (Howard Hinnant's civil date
/// algorithm; no date crate needed for one line of a report).
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

/// Runs every measurement.
pub fn run() -> Figures {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load_average = load_average();
    Figures {
        date: today(),
        machine: machine(),
        load_average,
        threads,
        raw_sqlite: raw_sqlite(),
        matrix: matrix(),
        growth: growth(),
        sweep: sweep_rates(threads),
        // The simulation against a real consumer process, per crash point.
        crosscheck: crosscheck_figures(),
        postgres: postgres::postgres_figures(threads),
    }
}

/// 1-3. The simulator against raw SQLite on the same run.
fn raw_sqlite() -> RawSqlite {
    let scenario = one_crash_inbox(10);
    let recorded = world::run_with(
        &scenario,
        RunOptions {
            record_statements: true,
            ..RunOptions::default()
        },
    );
    let statements = recorded.statements;
    let accounts = scenario.workload.accounts();
    let hashed = RunOptions {
        hash_only: true,
        ..RunOptions::default()
    };
    let traced_runs_per_second = per_second(LOOP, || {
        world::run(&scenario);
    });
    let hashed_runs_per_second = per_second(LOOP, || {
        world::run_with(&scenario, hashed);
    });
    let raw_runs_per_second = per_second(LOOP, || {
        let db = store::Store::open_in_memory(&scenario.store, &accounts).expect("a database");
        store::replay_statements(&db, &statements);
    });
    RawSqlite {
        statements: statements.len(),
        trace_entries: recorded.trace.len(),
        raw_runs_per_second,
        hashed_runs_per_second,
        traced_runs_per_second,
    }
}

/// 4. The matrix, at depths 1 and 2, on every thread.
fn matrix() -> Vec<MatrixFigure> {
    [1, 2]
        .into_iter()
        .map(|depth| {
            let (seconds, runs) = seconds(|| {
                explore::matrix(&Protocol::all_built_in(), 10, 0, depth)
                    .iter()
                    .map(|c| c.summaries[depth - 1].runs)
                    .sum()
            });
            MatrixFigure {
                depth,
                runs,
                seconds,
            }
        })
        .collect()
}

/// 5. How `explore` grows with events.
fn growth() -> Vec<GrowthFigure> {
    let mut growth = Vec::new();
    for events in [10usize, 20, 40, 80] {
        for depth in [1, 2] {
            let mut s = Scenario::new(Protocol::built_in("inbox").expect("built in"));
            s.workload.events = events;
            let start = Instant::now();
            let x = explore::explore(
                &s,
                ExploreOptions {
                    depth,
                    ..ExploreOptions::default()
                },
            );
            growth.push(GrowthFigure {
                events,
                depth,
                runs: x.summary.runs,
                equivalent_runs: x.summary.equivalent_runs,
                pruned_schedules: x.summary.pruned_schedules,
                seconds: start.elapsed().as_secs_f64(),
            });
        }
    }
    growth
}

/// 6. Sweep throughput on one thread and on all.
fn sweep_rates(threads: usize) -> SweepFigures {
    let mut s = Scenario::new(Protocol::built_in("inbox").expect("built in"));
    s.workload.events = 10;
    let limits = SwarmLimits::default();
    let seeds = 4_000u64;
    let mut rates = Vec::new();
    for n in [1, threads] {
        let (secs, runs) = seconds(|| {
            pool(n).install(|| {
                let mut start = 0;
                while start < seeds {
                    let end = (start + sweep::CHUNK).min(seeds);
                    sweep::sweep_chunk(&s, start..end, &limits, &|| {});
                    start = end;
                }
            });
            seeds
        });
        rates.push(SweepRate {
            threads: n,
            runs_per_second: runs as f64 / secs,
        });
    }
    SweepFigures { seeds, rates }
}

/// Section 7: `crosscheck` on every built-in protocol with 3 events: wall time per run, real
/// against simulated, and whether every verdict matched.
fn crosscheck_figures() -> CrosscheckFigures {
    let exe = std::env::current_exe().expect("the bench runs from the delivery-sim binary");
    let protocols = Protocol::all_built_in()
        .into_iter()
        .map(|protocol| {
            let mut s = Scenario::new(protocol);
            s.workload.events = 3;
            let rows: Vec<crate::crosscheck::Checked> = std::iter::once(None)
                .chain(crate::crosscheck::crash_points(&s).into_iter().map(Some))
                .map(|p| crosscheck_point(&s, p, &exe, store::CrashModel::RollBack))
                .collect();
            CrosscheckFigure {
                protocol: s.protocol.name.clone(),
                runs: rows.len(),
                matched: rows.iter().filter(|r| r.matches()).count(),
                simulated_seconds: rows.iter().map(|r| r.simulated_seconds).sum(),
                real_seconds: rows.iter().map(|r| r.real_seconds).sum(),
            }
        })
        .collect();
    CrosscheckFigures { protocols }
}

/// Cross-checks one point of `scenario` (see [`crate::crosscheck`]) and times both sides
/// from outside: the simulated run as the fastest of a few repetitions (one run takes
/// well under a millisecond, so a single timing is mostly noise), the real run once.
pub fn crosscheck_point(
    scenario: &Scenario,
    point: Option<crate::model::BoundaryPoint>,
    exe: &std::path::Path,
    model: store::CrashModel,
) -> crate::crosscheck::Checked {
    use crate::crosscheck;
    const REPEATS: usize = 5;
    let mut simulated_seconds = f64::INFINITY;
    let mut simulated = None;
    for _ in 0..REPEATS {
        let start = Instant::now();
        let o = crosscheck::simulate(scenario, point, model);
        simulated_seconds = simulated_seconds.min(start.elapsed().as_secs_f64());
        simulated.get_or_insert(o);
    }
    let simulated = simulated.expect("simulated at least once");
    let start = Instant::now();
    let real = crosscheck::real(scenario, point, exe).map_err(|e| e.to_string());
    let real_seconds = start.elapsed().as_secs_f64();
    let differences = match &real {
        Ok(real) => crosscheck::compare(&simulated, real),
        Err(_) => Vec::new(),
    };
    crosscheck::Checked {
        point,
        simulated,
        real,
        differences,
        simulated_seconds,
        real_seconds,
    }
}
