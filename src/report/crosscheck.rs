//! `crosscheck`'s output: the table of crash points with the simulated and the real
//! outcome side by side, the timings, and, for every point that does not match, what
//! differs and both consumer traces. Text for people, JSON for programs.

use super::Origin;
use crate::crosscheck::{self, Checked, Line};
use crate::model::BoundaryPoint;
use crate::scenario::Scenario;
use serde::Serialize;
use std::fmt::Write as _;

fn point_name(c: &Checked) -> String {
    c.point
        .map_or_else(|| "(no crash)".to_string(), |p| p.to_string())
}

fn real_outcome(c: &Checked) -> String {
    match &c.real {
        Ok(o) => crosscheck::outcome(&o.verdict),
        Err(_) => "(could not run)".to_string(),
    }
}

fn ms(seconds: f64) -> f64 {
    seconds * 1e3
}

/// Mean wall time per run, simulated and real, in seconds, and real / simulated.
pub fn timing(rows: &[Checked]) -> (f64, f64, f64) {
    let n = rows.len().max(1) as f64;
    let sim = rows.iter().map(|r| r.simulated_seconds).sum::<f64>() / n;
    let real = rows.iter().map(|r| r.real_seconds).sum::<f64>() / n;
    (sim, real, ratio(sim, real))
}

fn ratio(sim: f64, real: f64) -> f64 {
    if sim > 0.0 {
        real / sim
    } else {
        0.0
    }
}

/// The report for people.
pub fn text(scenario: &Scenario, origin: &str, rows: &[Checked]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "crosscheck {origin}: protocol {} ({}), {} events, seed {}",
        scenario.protocol.name,
        scenario.protocol.arrow_list(),
        scenario.workload.events,
        scenario.seed
    );
    out.push_str(
        "Real runs: the consumer is a child process on a SQLite file (WAL, synchronous=FULL), \
         killed with SIGKILL at the crash point and restarted on the same file; the parent \
         plays the broker and the clock.\n\n",
    );
    let width = rows
        .iter()
        .map(|r| point_name(r).len())
        .max()
        .unwrap_or(0)
        .max("crash point".len());
    let sim_width = rows
        .iter()
        .map(|r| crosscheck::outcome(&r.simulated.verdict).len())
        .max()
        .unwrap_or(0)
        .max("simulated".len());
    let real_width = rows
        .iter()
        .map(|r| real_outcome(r).len())
        .max()
        .unwrap_or(0)
        .max("real".len());
    let _ = writeln!(
        out,
        "{:<width$}  {:<sim_width$}  {:<real_width$}  {:<5}  {:>8}  {:>8}  {:>6}",
        "crash point", "simulated", "real", "match", "sim ms", "real ms", "ratio"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:<width$}  {:<sim_width$}  {:<real_width$}  {:<5}  {:>8.3}  {:>8.2}  {:>5.0}×",
            point_name(r),
            crosscheck::outcome(&r.simulated.verdict),
            real_outcome(r),
            if r.matches() { "yes" } else { "NO" },
            ms(r.simulated_seconds),
            ms(r.real_seconds),
            ratio(r.simulated_seconds, r.real_seconds)
        );
    }
    let matched = rows.iter().filter(|r| r.matches()).count();
    let (sim, real, ratio) = timing(rows);
    let _ = writeln!(
        out,
        "\n{matched} of {} runs match (the crash-free run and {} single crash points).",
        rows.len(),
        rows.len().saturating_sub(1)
    );
    let _ = writeln!(
        out,
        "Wall time per run: simulated {:.3} ms, real {:.2} ms; the simulation is {ratio:.0}× \
         faster.",
        ms(sim),
        ms(real)
    );
    for r in rows.iter().filter(|r| !r.matches()) {
        let _ = writeln!(out, "\nMISMATCH at {}:", point_name(r));
        match &r.real {
            Err(e) => {
                let _ = writeln!(out, "  the real run could not be carried out: {e}");
            }
            Ok(real) => {
                for d in &r.differences {
                    let _ = writeln!(out, "  {}", d.what);
                    let _ = writeln!(out, "    simulated: {}", d.simulated);
                    let _ = writeln!(out, "    real:      {}", d.real);
                }
                if r.simulated.lines.is_empty() {
                    let _ = writeln!(
                        out,
                        "  (traces not kept: the first {} mismatches keep theirs)",
                        crosscheck::MAX_DETAILED_MISMATCHES
                    );
                } else {
                    out.push_str(&traces(&r.simulated.lines, &real.lines));
                }
            }
        }
    }
    out
}

/// Both consumer traces, one after the other, the lines that differ marked with `!`.
fn traces(sim: &[Line], real: &[Line]) -> String {
    let mut out = String::new();
    for (name, lines, other) in [("simulated", sim, real), ("real", real, sim)] {
        let _ = writeln!(out, "  {name} consumer trace:");
        for (i, l) in lines.iter().enumerate() {
            let same = other.get(i).is_some_and(|o| o.to_string() == l.to_string());
            let _ = writeln!(out, "   {} {l}", if same { ' ' } else { '!' });
        }
    }
    out
}

/// One run of `crosscheck --json`: the crash-free run, or one single crash point.
#[serde_with::skip_serializing_none]
#[derive(Serialize, schemars::JsonSchema)]
pub struct CrosscheckRunJson<'a> {
    /// The crash of this run (empty for the crash-free run), as explore writes a run's.
    pub crash_points: Vec<BoundaryPoint>,
    /// The simulated run's outcome per event (`once`, `lost`, …).
    pub simulated: String,
    /// The real run's, absent when the real process could not run.
    pub real: Option<String>,
    #[serde(rename = "match")]
    pub matches: bool,
    /// Why the real process could not run.
    pub error: Option<&'a str>,
    pub differences: &'a [crosscheck::Difference],
    pub simulated_ms: f64,
    pub real_ms: f64,
    /// real / simulated wall time.
    pub ratio: f64,
    /// Both consumer traces, for a run that does not match.
    pub simulated_trace: Option<Vec<String>>,
    pub real_trace: Option<Vec<String>>,
    /// The command that runs the simulated side alone.
    pub replay: String,
}

/// The summary over every run of a crosscheck.
#[derive(Serialize, schemars::JsonSchema)]
pub struct CrosscheckSummary {
    pub runs: usize,
    pub matched: usize,
    pub all_match: bool,
    pub simulated_ms_per_run: f64,
    pub real_ms_per_run: f64,
    /// real / simulated, over every run.
    pub ratio: f64,
}

/// `crosscheck --json`.
#[derive(Serialize, schemars::JsonSchema)]
pub struct CrosscheckJson<'a> {
    pub scenario: &'a str,
    pub protocol: &'a str,
    pub events: usize,
    pub seed: u64,
    pub runs: Vec<CrosscheckRunJson<'a>>,
    pub summary: CrosscheckSummary,
}

/// The report for programs.
pub fn json<'a>(
    scenario: &'a Scenario,
    origin: &Origin,
    rows: &'a [Checked],
) -> CrosscheckJson<'a> {
    let (sim, real, ratio_all) = timing(rows);
    let lines = |l: &[Line]| l.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    let runs = rows
        .iter()
        .map(|r| {
            let show = !r.matches();
            let crash_points: Vec<BoundaryPoint> = r.point.into_iter().collect();
            CrosscheckRunJson {
                replay: origin.replay_command(scenario.seed, &crash_points),
                crash_points,
                simulated: crosscheck::outcome(&r.simulated.verdict),
                real: r
                    .real
                    .as_ref()
                    .ok()
                    .map(|o| crosscheck::outcome(&o.verdict)),
                matches: r.matches(),
                error: r.real.as_ref().err().map(String::as_str),
                differences: &r.differences,
                simulated_ms: ms(r.simulated_seconds),
                real_ms: ms(r.real_seconds),
                ratio: ratio(r.simulated_seconds, r.real_seconds),
                simulated_trace: show.then(|| lines(&r.simulated.lines)),
                real_trace: show
                    .then(|| r.real.as_ref().ok().map(|o| lines(&o.lines)))
                    .flatten(),
            }
        })
        .collect();
    let matched = rows.iter().filter(|r| r.matches()).count();
    CrosscheckJson {
        scenario: &scenario.name,
        protocol: &scenario.protocol.name,
        events: scenario.workload.events,
        seed: scenario.seed,
        runs,
        summary: CrosscheckSummary {
            runs: rows.len(),
            matched,
            all_match: matched == rows.len(),
            simulated_ms_per_run: ms(sim),
            real_ms_per_run: ms(real),
            ratio: ratio_all,
        },
    }
}
