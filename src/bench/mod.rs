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
use std::fmt::Write as _;
use std::time::{Duration, Instant};

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

/// What the growth table says: for each depth, the exponent of time in events (from the
/// first to the last size), split into the exponent of the number of runs and of the cost
/// of one run, and which of the two dominates.
fn growth_analysis(rows: &[(usize, usize, u64, f64)]) -> String {
    let mut out = String::from("\n");
    for depth in [1, 2] {
        let of_depth: Vec<_> = rows.iter().filter(|r| r.1 == depth).collect();
        let (Some(first), Some(last)) = (of_depth.first(), of_depth.last()) else {
            continue;
        };
        let ratio = last.0 as f64 / first.0 as f64;
        let exponent = |a: f64, b: f64| (b / a).ln() / ratio.ln();
        let runs_k = exponent(first.2 as f64, last.2 as f64);
        let time_k = exponent(first.3, last.3);
        let per_run_k = time_k - runs_k;
        let _ = writeln!(
            out,
            "- Depth {depth}, {} → {} events: time grows as events^{time_k:.1}: the number of \
             runs as events^{runs_k:.1}, the cost of one run as events^{per_run_k:.1}. {}",
            first.0,
            last.0,
            if runs_k >= per_run_k {
                "The number of schedules dominates."
            } else {
                "The cost of one run dominates."
            }
        );
    }
    out.push_str(
        "- One run's cost is a fixed part (copying the template database, preparing the \
         statements, the state fingerprint taken after each crash) plus a part per event (its \
         statements and trace entries); the fixed part weighs most at 10 events, the per-event \
         part beyond. Depth 2 adds a second crash at every point the first crash's run \
         reached, so its schedules grow with the square of the events; the equivalence check \
         prunes the extensions of runs whose state after the crash repeats an earlier one.\n",
    );
    out
}

/// Runs every measurement and returns the report as Markdown.
pub fn run() -> String {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut out = String::new();
    let _ = writeln!(out, "# Benchmarks\n");
    let _ = writeln!(
        out,
        "Generated by `cargo run --release -- bench --out-dir results/` on {}; machine: {}. \
         Figures are from one run of that command; they vary a few percent between runs on a \
         quiet machine, and drop when other processes share its cores (load average at the \
         start of this run: {}).\n",
        today(),
        machine(),
        load_average()
    );

    out.push_str(&raw_sqlite_section());
    out.push_str(&matrix_section(threads));
    out.push_str(&growth_section());
    out.push_str(&sweep_section(threads));
    // 7. The simulation against a real consumer process, per crash point.
    out.push_str(&crosscheck_section());
    out
}

/// 1-3. The simulator against raw SQLite on the same run.
fn raw_sqlite_section() -> String {
    let mut out = String::new();
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
    let sim_full = per_second(LOOP, || {
        world::run(&scenario);
    });
    let sim = per_second(LOOP, || {
        world::run_with(&scenario, hashed);
    });
    let raw = per_second(LOOP, || {
        let db = store::Store::open_in_memory(&scenario.store, &accounts).expect("a database");
        store::replay_statements(&db, &statements);
    });
    let _ = writeln!(out, "## The simulator against raw SQLite\n");
    let _ = writeln!(
        out,
        "One run: `inbox`, 10 events, one crash between commit and ack of event 5 \
         ({} SQL statements, {} trace entries). The baseline opens the database the same way \
         (the prebuilt template copied into a pooled connection) and sends the very same {} statements with the \
         same parameters through rusqlite's statement cache, and nothing else.\n",
        statements.len(),
        recorded.trace.len(),
        statements.len()
    );
    out.push_str("| what | runs per second (1 thread) |\n|---|---|\n");
    let _ = writeln!(out, "| raw SQLite baseline | {raw:.0} |");
    let _ = writeln!(
        out,
        "| simulator, trace hashed only (as explore and sweep run) | {sim:.0} |"
    );
    let _ = writeln!(
        out,
        "| simulator, trace kept (as `run` runs) | {sim_full:.0} |"
    );
    let _ = writeln!(
        out,
        "\nRatio simulator / baseline: **{:.2}** (hashed), {:.2} (trace kept); target ≥ 0.5.\n",
        sim / raw,
        sim_full / raw
    );
    out
}

/// 4. The matrix, at depths 1 and 2, on every thread.
fn matrix_section(threads: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## The matrix, 10 events, all {threads} threads\n");
    out.push_str("| depth | runs | seconds | runs per second |\n|---|---|---|---|\n");
    for depth in [1, 2] {
        let (secs, runs) = seconds(|| {
            explore::matrix(&Protocol::all_built_in(), 10, 0, depth)
                .iter()
                .map(|c| c.summaries[depth - 1].runs)
                .sum()
        });
        let _ = writeln!(
            out,
            "| {depth} | {runs} | {secs:.2} | {:.0} |",
            runs as f64 / secs
        );
    }
    out.push_str(
        "\nTarget: depth 2 over every built-in protocol with 10 events under 5 s on 2 cores.\n\n",
    );
    out
}

/// 5. How `explore` grows with events.
fn growth_section() -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## How `explore` grows with events (`inbox`, all threads)\n"
    );
    out.push_str("| events | depth | runs | equivalent (pruned) | seconds | µs per run |\n|---|---|---|---|---|---|\n");
    // (events, depth, runs, seconds)
    let mut growth: Vec<(usize, usize, u64, f64)> = Vec::new();
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
            let secs = start.elapsed().as_secs_f64();
            let _ = writeln!(
                out,
                "| {events} | {depth} | {} | {} ({}) | {secs:.2} | {:.0} |",
                x.summary.runs,
                x.summary.equivalent_runs,
                x.summary.pruned_schedules,
                secs * 1e6 / x.summary.runs as f64
            );
            growth.push((events, depth, x.summary.runs, secs));
        }
    }
    out.push_str(&growth_analysis(&growth));
    out.push('\n');
    out
}

/// 6. Sweep throughput on one thread and on all.
fn sweep_section(threads: usize) -> String {
    let mut out = String::new();
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
        rates.push((n, runs as f64 / secs));
    }
    let _ = writeln!(
        out,
        "## `sweep` throughput (`inbox`, 10 events, {seeds} seeds, default swarm limits)\n"
    );
    out.push_str("| threads | runs per second |\n|---|---|\n");
    for (n, rate) in &rates {
        let _ = writeln!(out, "| {n} | {rate:.0} |");
    }
    let _ = writeln!(
        out,
        "\nSpeed-up on {threads} threads: **{:.2}×**; target ≥ 1.8× on 2 cores.",
        rates[1].1 / rates[0].1
    );
    out
}

/// `crosscheck` on every built-in protocol with 3 events: wall time per run, real against
/// simulated, and whether every verdict matched.
fn crosscheck_section() -> String {
    let exe = std::env::current_exe().expect("the bench runs from the delivery-sim binary");
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n## crosscheck: real vs simulated per crash point (every built-in protocol, 3 events, 1 thread)\n"
    );
    out.push_str(
        "Each run is the crash-free run or one single crash point. Real: the consumer is a \
         child process on a SQLite file (WAL, `synchronous=FULL`), killed with SIGKILL at \
         the crash point and restarted on the same file, the parent playing the broker; \
         process start-up, the file's creation, fsyncs and the checker's reads included. \
         Simulated: the same run in the simulator with its trace kept, the fastest of five.\n\n",
    );
    out.push_str(
        "| protocol | runs | matched | simulated ms per run | real ms per run | real / simulated |\n\
         |---|---|---|---|---|---|\n",
    );
    let (mut all, mut matched, mut sim_total, mut real_total) = (0usize, 0usize, 0.0, 0.0);
    for protocol in Protocol::all_built_in() {
        let mut s = Scenario::new(protocol);
        s.workload.events = 3;
        let rows: Vec<crate::crosscheck::Checked> = std::iter::once(None)
            .chain(crate::crosscheck::crash_points(&s).into_iter().map(Some))
            .map(|p| crosscheck_point(&s, p, &exe, store::CrashModel::RollBack))
            .collect();
        let (sim, real, ratio) = crate::report::crosscheck::timing(&rows);
        let ok = rows.iter().filter(|r| r.matches()).count();
        let _ = writeln!(
            out,
            "| {} | {} | {ok} | {:.3} | {:.1} | {ratio:.0}× |",
            s.protocol.name,
            rows.len(),
            sim * 1e3,
            real * 1e3
        );
        all += rows.len();
        matched += ok;
        sim_total += rows.iter().map(|r| r.simulated_seconds).sum::<f64>();
        real_total += rows.iter().map(|r| r.real_seconds).sum::<f64>();
    }
    let _ = writeln!(
        out,
        "\n{matched} of {all} runs matched (same steps, same committed rows at the crash, same \
         verdict). Per run: simulated {:.3} ms, real {:.1} ms: the simulation is **{:.0}×** \
         faster per crash point; target ≥ 100×.",
        sim_total * 1e3 / all as f64,
        real_total * 1e3 / all as f64,
        real_total / sim_total
    );
    out
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
