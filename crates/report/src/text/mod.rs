//! Text reports for people.

mod explore;
mod ladder;
mod matrix;
mod sweep;

pub use explore::*;
pub use ladder::*;
pub use matrix::*;
pub use sweep::*;

use crate::check::anomalies;
use crate::check::ExpectationFailure;
use crate::check::{CheckKind, Judgement, Outcome, ScopeOutcome, Status};
use crate::checks::FileCheck;
use crate::explore::retention::TtlSearch;
use crate::explore::shrink::Shrunk;
use crate::explore::sweep::{Finding, SwarmPlan};
use crate::explore::{matrix_rows, Exploration, Interleavings, MatrixColumn};
use crate::json::matrix_origin;
use crate::lang::{Lang, RunLabel};
use crate::model::{BoundaryPoint, Guarantee};
use crate::paint::Paint;
use crate::scenario::Scenario;
use crate::sim::StopReason;
use crate::world::RunResult;
use crate::Origin;
use std::fmt::Write as _;

/// How many events a run report lists one by one before summarising the rest.
const EVENT_ROWS: usize = 40;

fn expectation_lines_in(
    l: Lang,
    paint: Paint,
    out: &mut String,
    failures: Option<&[ExpectationFailure]>,
) {
    let label = pad(l.run_label(RunLabel::Expect));
    match failures {
        None => {}
        Some([]) => {
            let _ = writeln!(out, "{label}{}", paint.good(l.expect_held()));
        }
        Some(failures) => {
            let _ = writeln!(out, "{label}{}", paint.bad(l.expect_failed()));
            for f in failures {
                let _ = writeln!(out, "           - {}", l.expectation_failure(f));
            }
        }
    }
}

/// The checks `run FILE` made of everything its file pins (the run, each exploration
/// depth, the interleavings, the smallest safe TTL), as `run DIR` makes them: one line
/// each with the guarantee its runs showed and whether its expectations held; under a
/// failed one, what failed and the command that repeats it.
pub fn checks_text_in(l: Lang, paint: Paint, checks: &[FileCheck]) -> String {
    let mut out = String::new();
    let name_width = checks
        .iter()
        .map(|c| l.check_kind(c.kind).chars().count())
        .max()
        .unwrap_or(0);
    let status_width = [Status::Pass, Status::Fail, Status::Unknown]
        .map(|s| l.status(s).len())
        .into_iter()
        .max()
        .unwrap_or(0);
    let label = pad(l.run_label(RunLabel::Checks));
    for (i, c) in checks.iter().enumerate() {
        let status = l.status(c.verdict.status);
        let status = match c.verdict.status {
            Status::Pass => paint.good(&format!("{status:<status_width$}")),
            _ => paint.bad(&format!("{status:<status_width$}")),
        };
        let guarantee = c
            .guarantee
            .map_or_else(|| "-".to_string(), |g| g.to_string());
        let result = if c.failures.is_empty() {
            paint.good(l.expect_held())
        } else {
            paint.bad(l.expect_failed())
        };
        // The plain run is one run: its count says nothing.
        let runs = if c.kind == CheckKind::Run {
            String::new()
        } else {
            format!(" ({})", l.check_runs(c.runs))
        };
        let _ = writeln!(
            out,
            "{}{:<name_width$}  {status}  {guarantee:<13}  {result}{runs}",
            if i == 0 {
                label.as_str()
            } else {
                "           "
            },
            l.check_kind(c.kind),
        );
        if !c.failures.is_empty() {
            for f in &c.failures {
                let _ = writeln!(out, "             - {}", l.expectation_failure(f));
            }
            let _ = writeln!(
                out,
                "             {}  {}",
                l.run_label(RunLabel::Replay),
                c.replay
            );
        }
    }
    out
}

/// A label of the run report, padded to its column.
fn pad(label: &str) -> String {
    format!("{label:<11}")
}

/// The scenario's name (and description) and its protocol's steps.
fn header_in(l: Lang, scenario: &Scenario, with_description: bool) -> String {
    let mut out = format!(
        "{}{}\n",
        pad(l.run_label(RunLabel::Scenario)),
        scenario.name
    );
    let description = l.description(scenario);
    if with_description && !description.is_empty() {
        let _ = writeln!(out, "           {description}");
    }
    let _ = writeln!(
        out,
        "{}{}: {}",
        pad(l.run_label(RunLabel::Protocol)),
        scenario.protocol.name,
        scenario.protocol.arrow_list()
    );
    out
}

/// The verdict line a report leads with: `verdict    FAIL  at-least-once (…): …`, its
/// status painted.
pub fn verdict_line_in(l: Lang, paint: Paint, j: &Judgement) -> String {
    let line = l.judgement(j);
    let status = l.status(j.status);
    let painted = match j.status {
        Status::Pass => paint.good(status),
        Status::Fail | Status::Unknown => paint.bad(status),
    };
    format!(
        "{}{painted}{}\n",
        pad(l.run_label(RunLabel::Verdict)),
        &line[status.len()..]
    )
}

/// The summary of one run, ending with `replay`, the command that replays it; it leads
/// with the run's verdict (with its failed expectations, `failures`).
pub fn run_text(
    scenario: &Scenario,
    r: &RunResult,
    replay: &str,
    failures: Option<&[ExpectationFailure]>,
) -> String {
    let judgement = r.judgement(failures.map(<[ExpectationFailure]>::len));
    run_text_in(
        Lang::En,
        Paint::OFF,
        scenario,
        r,
        replay,
        failures,
        &judgement,
    )
}

/// [`run_text`] in language `l`, painted with `paint`. In English without paint it is
/// exactly [`run_text`].
#[allow(clippy::too_many_arguments)]
pub fn run_text_in(
    l: Lang,
    paint: Paint,
    scenario: &Scenario,
    r: &RunResult,
    replay: &str,
    failures: Option<&[ExpectationFailure]>,
    judgement: &Judgement,
) -> String {
    let v = &r.verdict;
    let mut out = verdict_line_in(l, paint, judgement);
    out.push_str(&header_in(l, scenario, true));
    let w = &scenario.workload;
    let run = l.run_line(
        scenario.seed,
        v.event_count(),
        w.republish.len(),
        w.republish_altered.len(),
        r.steps,
        r.end_tick,
        r.stop,
    );
    labeled(&mut out, l.run_label(RunLabel::Run), [run]);
    let crashes: Vec<String> = r
        .crashes
        .iter()
        .map(|c| l.crash_line(&c.point.to_string(), c.tick, c.cause, c.dropped_transaction))
        .collect();
    if crashes.is_empty() {
        labeled(&mut out, l.run_label(RunLabel::Crashes), [l.crashes_none()]);
    }
    labeled(&mut out, l.run_label(RunLabel::Crashes), crashes);
    labeled(
        &mut out,
        l.run_label(RunLabel::Effects),
        [l.effects_line(v)],
    );
    let boundaries = v.boundaries.iter().map(|b| l.describe_scope(b));
    labeled(&mut out, l.run_label(RunLabel::Boundaries), boundaries);
    if v.payload_alerts > 0 {
        let alerts = l.alerts_line(v.payload_alerts);
        labeled(&mut out, l.run_label(RunLabel::Alerts), [alerts]);
    }
    if let Some(ret) = scenario.store.retention {
        let line = l.retention_line(
            ret.ttl_ticks,
            ret.cleanup_every_ticks,
            ret.batch,
            r.inbox_rows_deleted,
        );
        labeled(&mut out, l.run_label(RunLabel::Retention), [line]);
    }
    if v.external_effects > 0 {
        let line = l.external_line(v.external_effects, &repeated_sends(r));
        labeled(&mut out, l.run_label(RunLabel::External), [line]);
    }
    labeled(&mut out, l.run_label(RunLabel::Events), [l.events_header()]);
    event_rows(l, paint, &mut out, v);
    anomaly_lines(l, paint, &mut out, v);
    let trace = l.trace_line(&r.trace.hash_hex(), r.trace.len());
    labeled(&mut out, l.run_label(RunLabel::Trace), [trace]);
    expectation_lines_in(l, paint, &mut out, failures);
    let _ = writeln!(out, "{}{replay}", pad(l.run_label(RunLabel::Replay)));
    out
}

/// Writes `lines`, the first after `label` and the others under it.
fn labeled(out: &mut String, label: &str, lines: impl IntoIterator<Item = impl AsRef<str>>) {
    for (i, line) in lines.into_iter().enumerate() {
        let label = if i == 0 { pad(label) } else { pad("") };
        let _ = writeln!(out, "{label}{}", line.as_ref());
    }
}

/// The events table of a run: one row per event (at most [`EVENT_ROWS`]), with notes on
/// amounts, alerts and replays for the events they concern.
fn event_rows(l: Lang, paint: Paint, out: &mut String, v: &crate::check::Verdict) {
    for e in v.events.iter().take(EVENT_ROWS) {
        let outcome = l.outcome(e.outcome);
        let _ = writeln!(
            out,
            "           e{:<4}{}  {:>7}  {:>5}  {:<5}  {}{}",
            e.event,
            e.event_id,
            e.effects,
            e.inbox_rows,
            l.yes_no(e.acked),
            if e.outcome == Outcome::Once {
                outcome
            } else {
                paint.bad(&outcome)
            },
            if e.external_effects > 0 {
                l.external_note(e.external_effects)
            } else {
                String::new()
            }
        );
        // Only for the events they concern, so that other runs print as they always did.
        let mut notes = Vec::new();
        if e.amounts_differ() {
            let amounts: Vec<String> = e.amounts_minor.iter().map(|a| a.to_string()).collect();
            notes.push(l.note_amounts(&amounts.join(", ")));
        }
        if !e.payload_alerts.is_empty() {
            notes.push(l.note_alerts(e.payload_alerts.len()));
        }
        if e.dead_letter_replays > 0 {
            notes.push(l.note_replays(e.dead_letter_replays));
        }
        if !notes.is_empty() {
            out.truncate(out.len() - 1);
            let _ = writeln!(out, " ({})", notes.join("; "));
        }
    }
    if v.events.len() > EVENT_ROWS {
        let _ = writeln!(
            out,
            "           {}",
            l.more_events(v.events.len() - EVENT_ROWS)
        );
    }
}

/// What reached the outside world more than once, per event and service: `e1 ×2` for an
/// email, `e1 topup ×2` for a named call (calls to two services are not one sent twice).
fn repeated_sends(r: &RunResult) -> Vec<String> {
    let mut sends: std::collections::BTreeMap<(usize, Option<&str>), u32> = Default::default();
    for x in &r.external_effects {
        *sends.entry((x.event, x.call)).or_default() += 1;
    }
    (sends.into_iter())
        .filter(|(_, n)| *n > 1)
        .map(|((event, call), n)| match call {
            Some(service) => format!("e{event} {service} ×{n}"),
            None => format!("e{event} ×{n}"),
        })
        .collect()
}

/// A run's anomalies, one line each (or a line saying there are none), then the intents
/// that did not happen once.
fn anomaly_lines(l: Lang, paint: Paint, out: &mut String, v: &crate::check::Verdict) {
    let anomalies = anomalies(&v.events);
    if anomalies.is_empty() {
        labeled(out, l.run_label(RunLabel::Anomalies), [l.anomalies_none()]);
    }
    let lines = anomalies.iter().map(|a| {
        let e = a.event;
        let what = l.run_anomaly(*a, v.effect());
        let points: Vec<String> = e.crash_points.iter().map(|p| p.to_string()).collect();
        let gave_up: Vec<String> = e.gave_up.iter().map(|g| l.gave_up(g)).collect();
        paint.bad(&l.anomaly_line(e.event, &e.event_id, &what, &points, &gave_up))
    });
    labeled(out, l.run_label(RunLabel::Anomalies), lines);
    for intent in &v.intents {
        if matches!(
            intent.outcome,
            ScopeOutcome::Once | ScopeOutcome::NotApplicable
        ) {
            continue;
        }
        labeled(out, l.run_label(RunLabel::Intent), [l.intent_line(intent)]);
    }
}

/// Every trace entry, one per line, in `lang`.
pub fn trace_text(lang: Lang, r: &RunResult) -> String {
    let mut out = String::new();
    for e in r.trace.entries() {
        let _ = writeln!(out, "{}", lang.trace_entry(e));
    }
    out
}
