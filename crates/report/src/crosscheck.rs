//! `crosscheck`'s output: the table of crash points with the simulated and the real
//! outcome side by side, the timings, and, for every point that does not match, what
//! differs and both consumer traces. Text for people, JSON for programs.

use super::Origin;
use crate::lang::Lang;
use crate::model::BoundaryPoint;
use crate::scenario::Scenario;
use delivery_sim_crosscheck::{self as crosscheck, Checked, Line};
use serde::Serialize;
use std::fmt::Write as _;

fn point_name(l: Lang, c: &Checked) -> String {
    c.point
        .map_or_else(|| l.crosscheck_no_crash().to_string(), |p| p.to_string())
}

fn real_outcome(l: Lang, c: &Checked) -> String {
    match &c.real {
        Ok(o) => l.crosscheck_outcome(&o.verdict),
        Err(_) => l.crosscheck_could_not_run().to_string(),
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

/// The report for people, in language `l`.
pub fn text(l: Lang, scenario: &Scenario, origin: &str, rows: &[Checked]) -> String {
    let judgement = crosscheck::judgement(rows);
    let mut out = super::text::verdict_line_in(l, super::paint::Paint::OFF, &judgement);
    let protocol = (
        scenario.protocol.name.as_str(),
        scenario.protocol.arrow_list(),
    );
    let head = l.crosscheck_head(
        origin,
        (protocol.0, &protocol.1),
        (scenario.workload.events, scenario.seed),
        (scenario.store.engine == crate::model::Engine::Postgres)
            .then_some(scenario.store.isolation),
    );
    let _ = writeln!(out, "{head}\n");
    let header = l.crosscheck_header();
    // Columns are as wide as their widest cell, counted in characters (`sí`, `caída`).
    let widest = |cells: Vec<String>, title: &str| {
        cells
            .iter()
            .map(|c| c.chars().count())
            .max()
            .unwrap_or(0)
            .max(title.chars().count())
    };
    let width = widest(rows.iter().map(|r| point_name(l, r)).collect(), header[0]);
    let sim_width = widest(
        rows.iter()
            .map(|r| l.crosscheck_outcome(&r.simulated.verdict))
            .collect(),
        header[1],
    );
    let real_width = widest(rows.iter().map(|r| real_outcome(l, r)).collect(), header[2]);
    let match_width = header[3].chars().count().max(5);
    let _ = writeln!(
        out,
        "{:<width$}  {:<sim_width$}  {:<real_width$}  {:<match_width$}  {:>8}  {:>8}  {:>6}",
        header[0], header[1], header[2], header[3], header[4], header[5], header[6]
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:<width$}  {:<sim_width$}  {:<real_width$}  {:<match_width$}  {:>8.3}  {:>8.2}  {:>5.0}×",
            point_name(l, r),
            l.crosscheck_outcome(&r.simulated.verdict),
            real_outcome(l, r),
            l.crosscheck_yes_no(r.matches()),
            ms(r.simulated_seconds),
            ms(r.real_seconds),
            ratio(r.simulated_seconds, r.real_seconds)
        );
    }
    let matched = rows.iter().filter(|r| r.matches()).count();
    let (sim, real, ratio) = timing(rows);
    let _ = writeln!(out, "\n{}", l.crosscheck_matched(matched, rows.len()));
    let _ = writeln!(out, "{}", l.crosscheck_timing(ms(sim), ms(real), ratio));
    for r in rows.iter().filter(|r| !r.matches()) {
        mismatch(l, &mut out, r);
    }
    out
}

/// The block of a point that does not match: what differs, and both consumer traces.
fn mismatch(l: Lang, out: &mut String, r: &Checked) {
    let _ = writeln!(out, "\n{}", l.crosscheck_mismatch(&point_name(l, r)));
    match &r.real {
        Err(e) => {
            let _ = writeln!(out, "  {}", l.crosscheck_not_carried_out(&e.to_string()));
        }
        Ok(real) => {
            let (simulated, real_side) = l.crosscheck_sides();
            for d in &r.differences {
                let [what, sim, real] = l.crosscheck_difference(d);
                let _ = writeln!(out, "  {what}");
                let _ = writeln!(out, "    {simulated}{sim}");
                let _ = writeln!(out, "    {real_side}{real}");
            }
            if r.simulated.lines.is_empty() {
                let kept = crosscheck::MAX_DETAILED_MISMATCHES;
                let _ = writeln!(out, "  {}", l.crosscheck_traces_not_kept(kept));
            } else {
                out.push_str(&traces(l, &r.simulated.lines, &real.lines));
            }
        }
    }
}

/// Both consumer traces, one after the other, the lines that differ marked with `!`.
fn traces(l: Lang, sim: &[Line], real: &[Line]) -> String {
    let mut out = String::new();
    for (simulated, lines, other) in [(true, sim, real), (false, real, sim)] {
        let _ = writeln!(out, "  {}", l.crosscheck_trace_title(simulated));
        for (i, line) in lines.iter().enumerate() {
            let same = other.get(i) == Some(line);
            let line = l.crosscheck_line(Some(line));
            let _ = writeln!(out, "   {} {line}", if same { ' ' } else { '!' });
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
    pub differences: Vec<DifferenceJson>,
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

/// One difference between the simulated and the real run, in English (JSON keeps one
/// language): what differs, and each side's value there.
#[derive(Serialize, schemars::JsonSchema)]
pub struct DifferenceJson {
    /// What differs (`verdict.events[0].effects`, `consumer trace, line 7`, …).
    pub what: String,
    pub simulated: String,
    pub real: String,
}

impl DifferenceJson {
    fn of(d: &crosscheck::Difference) -> DifferenceJson {
        let [what, simulated, real] = Lang::En.crosscheck_difference(d);
        DifferenceJson {
            what,
            simulated,
            real,
        }
    }
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
    /// The verdict over every point (see `crosscheck::judgement`).
    pub verdict: crate::check::Judgement,
    pub scenario: &'a str,
    pub protocol: &'a str,
    /// The engine the consumer's database ran on, in both runs.
    pub engine: crate::model::Engine,
    /// On PostgreSQL: the isolation level of the consumer's connection.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub isolation: Option<crate::model::Isolation>,
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
    let lines = |l: &[Line]| {
        (l.iter())
            .map(|l| Lang::En.crosscheck_line(Some(l)))
            .collect::<Vec<_>>()
    };
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
                differences: r.differences.iter().map(DifferenceJson::of).collect(),
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
        verdict: crosscheck::judgement(rows),
        scenario: &scenario.name,
        protocol: &scenario.protocol.name,
        engine: scenario.store.engine,
        isolation: (scenario.store.engine == crate::model::Engine::Postgres)
            .then_some(scenario.store.isolation),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Protocol;
    use delivery_sim_crosscheck::{simulate, CrashModel};

    /// A point whose "real" run kept what the crash interrupted (the wrong model): the
    /// block that shows it, worded in each language from the comparer's data.
    #[test]
    fn a_mismatch_is_worded_in_the_readers_language() {
        let s = Scenario::new(Protocol::built_in("inbox").unwrap()).with_events(2);
        let p = BoundaryPoint::parse("before:commit e0 d1").unwrap();
        let simulated = simulate(&s, Some(p), CrashModel::RollBack);
        let real = simulate(&s, Some(p), CrashModel::KeepUncommitted);
        let differences = crosscheck::compare(&simulated, &real);
        let rows = [Checked {
            point: Some(p),
            simulated,
            real: Ok(real),
            differences,
            simulated_seconds: 0.001,
            real_seconds: 0.01,
        }];
        let en = text(Lang::En, &s, "t.json", &rows);
        for words in [
            "  crash 0\n    simulated: at t=",
            "transaction open yes, confirmed nothing (ledger rows 0, inbox rows 0)",
            "confirmed effect + inbox row (ledger rows 2, inbox rows 1)",
            "  consumer trace, line ",
            "  verdict.events[0].duplicates_discarded\n",
            "   ! t=",
        ] {
            assert!(en.contains(words), "{words:?} in\n{en}");
        }
        let es = text(Lang::Es, &s, "t.json", &rows);
        for words in [
            "  caída 0\n    simulada: en t=",
            "transacción abierta sí, confirmado: nada",
            "  traza del consumer, línea ",
        ] {
            assert!(es.contains(words), "{words:?} in\n{es}");
        }
        for english in ["transaction open", "consumer trace, line", "no crash"] {
            assert!(!es.contains(english), "{english:?} in\n{es}");
        }
        let json = serde_json::to_value(json(&s, &Origin::File("t.json".into()), &rows)).unwrap();
        let first = &json["runs"][0]["differences"][0];
        assert_eq!(
            first,
            &serde_json::json!({"what": "steps", "simulated": "18", "real": "17"})
        );
    }
}
