//! Text reports for people.

use super::json::{anomalies, differing_amounts, matrix_origin};
use super::lang::{Lang, RunLabel};
use super::paint::Paint;
use super::Origin;
use crate::check::{Outcome, ScopeOutcome};
use crate::explore::retention::TtlSearch;
use crate::explore::shrink::Shrunk;
use crate::explore::sweep::{Finding, SwarmPlan};
use crate::explore::{matrix_rows, Exploration, Interleavings, MatrixColumn};
use crate::model::{BoundaryPoint, Guarantee, BUILT_IN};
use crate::scenario::Scenario;
use crate::sim::StopReason;
use crate::world::RunResult;
use std::fmt::Write as _;

/// How many events a run report lists one by one before summarising the rest.
const EVENT_ROWS: usize = 40;

fn stop_text(stop: StopReason) -> &'static str {
    match stop {
        StopReason::Quiescent => "nothing left to do",
        StopReason::StepLimit => "STEP LIMIT REACHED",
        StopReason::TickLimit => "TICK LIMIT REACHED",
        StopReason::TraceLimit => "TRACE LIMIT REACHED",
    }
}

fn expectation_lines(out: &mut String, failures: Option<&[String]>) {
    expectation_lines_in(Lang::En, Paint::OFF, out, failures);
}

fn expectation_lines_in(l: Lang, paint: Paint, out: &mut String, failures: Option<&[String]>) {
    let label = pad(l.run_label(RunLabel::Expect));
    match failures {
        None => {}
        Some([]) => {
            let _ = writeln!(out, "{label}{}", paint.good(l.expect_held()));
        }
        Some(failures) => {
            let _ = writeln!(out, "{label}{}", paint.bad(l.expect_failed()));
            for f in failures {
                let _ = writeln!(out, "           - {f}");
            }
        }
    }
}

/// A label of the run report, padded to its column.
fn pad(label: &str) -> String {
    format!("{label:<11}")
}

/// The scenario's name (and description) and its protocol's steps.
fn header(scenario: &Scenario, with_description: bool) -> String {
    header_in(Lang::En, scenario, with_description)
}

fn header_in(l: Lang, scenario: &Scenario, with_description: bool) -> String {
    let mut out = format!(
        "{}{}\n",
        pad(l.run_label(RunLabel::Scenario)),
        scenario.name
    );
    if with_description && !scenario.description.is_empty() {
        let _ = writeln!(out, "           {}", scenario.description);
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

/// The summary of one run, ending with `replay`, the command that replays it.
pub fn run_text(
    scenario: &Scenario,
    r: &RunResult,
    replay: &str,
    failures: Option<&[String]>,
) -> String {
    run_text_in(Lang::En, Paint::OFF, scenario, r, replay, failures)
}

/// [`run_text`] in language `l`, painted with `paint`. In English without paint it is
/// exactly [`run_text`].
pub fn run_text_in(
    l: Lang,
    paint: Paint,
    scenario: &Scenario,
    r: &RunResult,
    replay: &str,
    failures: Option<&[String]>,
) -> String {
    let v = &r.verdict;
    let mut out = header_in(l, scenario, true);
    let _ = writeln!(
        out,
        "{}{}",
        pad(l.run_label(RunLabel::Run)),
        l.run_line(
            scenario.seed,
            r.verdict.event_count(),
            scenario.workload.republish.len(),
            scenario.workload.republish_altered.len(),
            r.steps,
            r.end_tick,
            r.stop
        )
    );
    if r.crashes.is_empty() {
        let _ = writeln!(
            out,
            "{}{}",
            pad(l.run_label(RunLabel::Crashes)),
            l.crashes_none()
        );
    }
    for (i, c) in r.crashes.iter().enumerate() {
        let _ = writeln!(
            out,
            "{}{}",
            if i == 0 {
                pad(l.run_label(RunLabel::Crashes))
            } else {
                pad("")
            },
            l.crash_line(&c.point.to_string(), c.tick, c.cause, c.dropped_transaction)
        );
    }
    let guarantee = if v.guarantee == Guarantee::ExactlyOnce {
        paint.good(v.guarantee.name())
    } else {
        paint.bad(v.guarantee.name())
    };
    let _ = writeln!(
        out,
        "{}{}",
        pad(l.run_label(RunLabel::Verdict)),
        l.verdict_line(v, &guarantee)
    );
    for (i, b) in v.boundaries.iter().enumerate() {
        let _ = writeln!(
            out,
            "{}{}",
            if i == 0 {
                pad(l.run_label(RunLabel::Boundaries))
            } else {
                pad("")
            },
            l.describe_scope(b)
        );
    }
    if v.payload_alerts > 0 {
        let _ = writeln!(
            out,
            "{}{}",
            pad(l.run_label(RunLabel::Alerts)),
            l.alerts_line(v.payload_alerts)
        );
    }
    if let Some(ret) = scenario.store.retention {
        let _ = writeln!(
            out,
            "{}{}",
            pad(l.run_label(RunLabel::Retention)),
            l.retention_line(
                ret.ttl_ticks,
                ret.cleanup_every_ticks,
                ret.batch,
                r.inbox_rows_deleted
            )
        );
    }
    if v.external_effects > 0 {
        let repeated: Vec<String> = v
            .events
            .iter()
            .filter(|e| e.external_effects > 1)
            .map(|e| format!("e{} ×{}", e.event, e.external_effects))
            .collect();
        let _ = writeln!(
            out,
            "{}{}",
            pad(l.run_label(RunLabel::External)),
            l.external_line(v.external_effects, &repeated)
        );
    }
    let _ = writeln!(
        out,
        "{}{}",
        pad(l.run_label(RunLabel::Events)),
        l.events_header()
    );
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
        if differing_amounts(e).is_some() {
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
    let anomalies = anomalies(&v.events);
    if anomalies.is_empty() {
        let _ = writeln!(
            out,
            "{}{}",
            pad(l.run_label(RunLabel::Anomalies)),
            l.anomalies_none()
        );
    }
    for (i, a) in anomalies.iter().enumerate() {
        let what = l.run_anomaly(a, v.event(a.event).expect("an anomaly's report is kept"));
        let points: Vec<String> = a.crash_points.iter().map(|p| p.to_string()).collect();
        let _ = writeln!(
            out,
            "{}{}",
            if i == 0 {
                pad(l.run_label(RunLabel::Anomalies))
            } else {
                pad("")
            },
            paint.bad(&l.anomaly_line(a.event, &a.event_id, &what, &points))
        );
    }
    for intent in &v.intents {
        if matches!(
            intent.outcome,
            ScopeOutcome::Once | ScopeOutcome::NotApplicable
        ) {
            continue;
        }
        let _ = writeln!(
            out,
            "{}{}",
            pad(l.run_label(RunLabel::Intent)),
            l.intent_line(intent)
        );
    }
    let _ = writeln!(
        out,
        "{}{}",
        pad(l.run_label(RunLabel::Trace)),
        l.trace_line(&r.trace.hash_hex(), r.trace.len())
    );
    expectation_lines_in(l, paint, &mut out, failures);
    let _ = writeln!(out, "{}{replay}", pad(l.run_label(RunLabel::Replay)));
    out
}

/// Every trace entry, one per line.
pub fn trace_text(r: &RunResult) -> String {
    let mut out = String::new();
    for e in r.trace.entries() {
        let _ = writeln!(out, "{e}");
    }
    out
}

fn outcome_cell(r: &RunResult) -> &'static str {
    match r.verdict.guarantee {
        Guarantee::ExactlyOnce => "once",
        Guarantee::AtMostOnce => "LOST",
        Guarantee::AtLeastOnce => "DUPLICATED",
        Guarantee::None => "LOST+DUPLICATED",
    }
}

/// How many runs an exploration lists one by one, and how many failing runs.
const EXPLORE_ROWS: usize = 200;
const FAILING_ROWS: usize = 50;

fn schedule_text(crashes: &[BoundaryPoint]) -> String {
    if crashes.is_empty() {
        "(no crash)".to_string()
    } else {
        crashes
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(" + ")
    }
}

/// The summary of an exploration: one line per run (when there are not too many), the
/// failing runs with their replay commands, and the summary.
pub fn explore_text(
    scenario: &Scenario,
    x: &Exploration,
    origin: &Origin,
    failures: Option<&[String]>,
) -> String {
    let mut out = header(scenario, false);
    let s = &x.summary;
    let _ = writeln!(
        out,
        "explored   {} runs to depth {}: the crash-free run, then every schedule of up to {} crash(es), \
         each crash at a boundary the previous crashes' run reached",
        s.runs, s.depth, s.depth
    );
    if s.equivalent_runs > 0 {
        let _ = writeln!(
            out,
            "skipped    {} runs had the same state after their last crash as an earlier run; \
             their {} extensions were not run (the earlier run's were)",
            s.equivalent_runs, s.pruned_schedules
        );
    }
    if s.interrupted {
        let _ = writeln!(
            out,
            "INTERRUPTED  Ctrl-C stopped the exploration after {} runs, a prefix of its \
             schedules in order: the counts above are for those runs only; explore has no \
             partial resume, rerun the same command for the whole (it is deterministic)",
            s.runs
        );
    } else if s.memory_limited {
        let _ = writeln!(
            out,
            "TRUNCATED  the memory budget for kept runs stopped the exploration after {} \
             runs, before it was complete: the counts above are for those runs only",
            s.runs
        );
    } else if s.truncated {
        let _ = writeln!(
            out,
            "TRUNCATED  the schedule limit stopped the exploration before it was complete"
        );
    }
    out.push('\n');
    if x.runs.len() <= EXPLORE_ROWS {
        let width = x
            .runs
            .iter()
            .map(|r| schedule_text(&r.crashes).len())
            .max()
            .unwrap_or(0)
            .max("crash schedule".len());
        let _ = writeln!(
            out,
            "  {:<width$}  {:<16} {:>4} {:>4} {:>4}  {:<5}  trace hash",
            "crash schedule", "outcome", "once", "lost", "dup", "acked"
        );
        for r in &x.runs {
            let v = &r.result.verdict;
            let _ = writeln!(
                out,
                "  {:<width$}  {:<16} {:>4} {:>4} {:>4}  {:<5}  {}{}",
                schedule_text(&r.crashes),
                outcome_cell(&r.result),
                v.exactly_once,
                v.lost,
                v.duplicated,
                if v.all_acked { "yes" } else { "NO" },
                r.result.trace.hash_hex(),
                r.equivalent_to
                    .map_or(String::new(), |i| format!("  ≡ run {i}"))
            );
        }
    } else {
        let _ = writeln!(
            out,
            "  ({} runs: too many to list; see --json)",
            x.runs.len()
        );
    }
    // The runs that could not finish first: each fails the exploration.
    let failing: Vec<_> = x
        .not_live()
        .chain(x.failing().filter(|r| !r.result.failure().fails_liveness()))
        .collect();
    if !failing.is_empty() {
        let _ = writeln!(
            out,
            "\nfailing runs, each with the command that replays it:"
        );
        for r in failing.iter().take(FAILING_ROWS) {
            let events: Vec<String> = r
                .result
                .verdict
                .events
                .iter()
                .filter(|e| e.outcome != Outcome::Once)
                .map(|e| format!("e{} {}", e.event, e.outcome.name()))
                .chain(
                    r.result
                        .verdict
                        .boundaries
                        .iter()
                        .skip(1)
                        .filter(|b| b.guarantee != Guarantee::ExactlyOnce)
                        .map(|b| b.describe()),
                )
                .collect();
            let _ = writeln!(
                out,
                "  {} → {}\n    {}",
                schedule_text(&r.crashes),
                events.join(", "),
                origin.replay_command(scenario.seed, &r.crashes)
            );
        }
        if failing.len() > FAILING_ROWS {
            let _ = writeln!(
                out,
                "  … {} more (see --json)",
                failing.len() - FAILING_ROWS
            );
        }
    }
    let _ =
        writeln!(
        out,
        "\nsummary    {}: {} of {} runs lost an event, {} duplicated one, {} dead-lettered one; \
         {}{} left an event unacked; {} broke conservation; {} hit a limit{}",
        s.guarantee,
        s.lost_runs,
        s.runs,
        s.duplicated_runs,
        s.dead_lettered_runs,
        if s.rejected_runs + s.pending_runs > 0 {
            format!(
                "{} rejected one as out of order, {} ended with a completion still pending; ",
                s.rejected_runs, s.pending_runs
            )
        } else {
            String::new()
        },
        s.unacked_runs,
        s.unconserved_runs,
        s.limited_runs,
        crate::report::lang::nonzero(
            "; ",
            &[
                (s.stuck_runs, "left an event stuck"),
                (s.wrong_effect_runs, "applied an altered copy instead of an event"),
            ]
        )
    );
    for (scope, b) in s.scopes() {
        let _ = writeln!(
            out,
            "           {}: {} over all runs ({} of {} runs broke it)",
            scope.name(),
            b.guarantee,
            b.broken_runs,
            s.runs
        );
    }
    expectation_lines(&mut out, failures);
    out
}

/// The protocol × crash-point table.
pub fn matrix_text(columns: &[MatrixColumn], events: usize, seed: u64, depth: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "delivery-sim matrix: {} protocols × every crash point, single crashes and up to {} per run; \
         {} events per run, seed {}\n",
        columns.len(),
        depth,
        events,
        seed
    );
    let rows = matrix_rows(columns);
    let first = rows
        .iter()
        .map(|r| r.to_string().len())
        .max()
        .unwrap_or(0)
        .max("guarantee, depth 1".len());
    let widths: Vec<usize> = columns
        .iter()
        .map(|c| {
            c.protocol.name.len().max("DUPLICATED".len()).max(
                c.summaries
                    .iter()
                    .map(|s| s.guarantee.name().len())
                    .max()
                    .unwrap_or(0),
            )
        })
        .collect();
    let line = |out: &mut String, head: &str, cells: Vec<String>| {
        let _ = write!(out, "{head:<first$}");
        for (cell, w) in cells.iter().zip(&widths) {
            let _ = write!(out, "  {cell:<w$}");
        }
        // Padding the last column would leave trailing blanks on every line.
        out.truncate(out.trim_end_matches(' ').len());
        out.push('\n');
    };
    line(
        &mut out,
        "crash point",
        columns.iter().map(|c| c.protocol.name.clone()).collect(),
    );
    line(
        &mut out,
        "",
        widths.iter().map(|w| "-".repeat(*w)).collect(),
    );
    for row in &rows {
        let cells = columns
            .iter()
            .map(|c| match c.cells.iter().find(|cell| cell.at == *row) {
                None => "·".to_string(),
                Some(cell) => match cell.outcome() {
                    "once" => "once".to_string(),
                    "lost" => "LOST".to_string(),
                    "duplicated" => "DUPLICATED".to_string(),
                    _ => "LOST+DUP".to_string(),
                },
            })
            .collect();
        line(&mut out, &row.to_string(), cells);
    }
    line(
        &mut out,
        "",
        widths.iter().map(|w| "-".repeat(*w)).collect(),
    );
    for depth in 1..=depth {
        line(
            &mut out,
            &format!("runs, depth {depth}"),
            columns
                .iter()
                .map(|c| c.summaries[depth - 1].runs.to_string())
                .collect(),
        );
        line(
            &mut out,
            &format!("guarantee, depth {depth}"),
            columns
                .iter()
                .map(|c| c.summaries[depth - 1].guarantee.name().to_string())
                .collect(),
        );
    }
    let mismatches: Vec<&MatrixColumn> = columns.iter().filter(|c| !c.as_documented()).collect();
    out.push_str(
        "\nonce = every event's effect committed exactly once; LOST = some event has no committed\n\
         effect; DUPLICATED = some event's effect committed twice; · = the protocol has no such\n\
         step. A cell covers every event and delivery attempt crashed once at that boundary;\n\
         the run then recovers. Depth 2 adds a second crash at every point the first crash's\n\
         run reached, its recovery included.\n",
    );
    out.push_str("\nto replay the first failing run of each failing cell:\n");
    for c in columns {
        for cell in &c.cells {
            if let Some(p) = cell.first_failure {
                let _ = writeln!(
                    out,
                    "  {}",
                    matrix_origin(c, events).replay_command(seed, &[p])
                );
            }
        }
    }
    if mismatches.is_empty() {
        out.push_str("every built-in protocol showed the guarantee it is documented to have.\n");
    }
    for c in mismatches {
        let shown: Vec<String> = c
            .summaries
            .iter()
            .map(|s| format!("{} at depth {}", s.guarantee, s.depth))
            .collect();
        let _ = writeln!(
            out,
            "MISMATCH: {} is documented as {} but showed {}",
            c.protocol.name,
            c.protocol.known_crash_guarantee().expect("filtered"),
            shown.join(", ")
        );
    }
    out
}

/// The built-in protocols with their steps and description.
pub fn protocols_text() -> String {
    let mut out = String::new();
    for b in BUILT_IN {
        let steps: Vec<&str> = b.steps.iter().map(|s| s.name()).collect();
        let _ = writeln!(
            out,
            "{:<17} {}\n{:<17} steps: {}\n{:<17} under single crashes: {}\n",
            b.name,
            b.description,
            "",
            steps.join(" → "),
            "",
            b.crash_guarantee
        );
    }
    out.push_str(
        "A scenario may define its own: \"protocol\": {\"name\": \"...\", \"steps\": [...]}, with steps from\n\
         receive, begin, check_inbox, insert_inbox, apply_effect, commit, ack, external_effect.\n",
    );
    out
}

/// A sweep's plan in a few words: `crashes 12% ×3, fails apply_effect e1 ×2, republishes e0`.
pub fn plan_text(plan: &SwarmPlan) -> String {
    let mut parts = Vec::new();
    if let Some(rc) = plan.faults.random_crash {
        parts.push(format!(
            "crashes {:.1}% per step, at most {}",
            f64::from(rc.per_step_ppm) / 10_000.0,
            rc.max_crashes
        ));
    }
    for f in &plan.faults.fail {
        parts.push(format!(
            "fails {}{} ×{}",
            f.step,
            f.event.map_or(String::new(), |e| format!(" e{e}")),
            f.times
        ));
    }
    if !plan.republish.is_empty() {
        let events: Vec<String> = plan.republish.iter().map(|e| format!("e{e}")).collect();
        parts.push(format!("republishes {}", events.join(", ")));
    }
    for st in &plan.faults.stall {
        parts.push(format!(
            "stalls {} ticks at {} e{}",
            st.ticks,
            st.at,
            st.event.unwrap_or(0)
        ));
    }
    if plan.jitter_ticks > 0 {
        parts.push(format!(
            "deliveries delayed up to {} ticks",
            plan.jitter_ticks
        ));
    }
    if plan.stale_ack == crate::broker::StaleAck::Accept {
        parts.push("stale acks accepted".to_string());
    }
    for (what, faults) in [
        ("loses the ack of", &plan.faults.lose_ack),
        ("broker duplicates", &plan.faults.duplicate_delivery),
    ] {
        for f in faults.iter() {
            parts.push(format!("{what} e{}", f.event.unwrap_or(0)));
        }
    }
    parts.join(", ")
}

/// One line for a failing seed: what broke, under which plan, and how to replay it.
pub fn finding_line(f: &Finding, replay: &str) -> String {
    let v = &f.result.verdict;
    let mut broke: Vec<String> = v
        .events
        .iter()
        .filter(|e| e.outcome != Outcome::Once || !e.acked || e.torn)
        .map(|e| {
            let mut what = format!("e{} {}", e.event, e.outcome.name());
            if e.torn {
                what.push_str(" (torn)");
            }
            if !e.acked && !matches!(e.outcome, Outcome::DeadLettered | Outcome::Stuck) {
                what.push_str(" (unacked)");
            }
            what
        })
        .collect();
    broke.extend(
        v.boundaries
            .iter()
            .skip(1)
            .filter(|b| b.guarantee != Guarantee::ExactlyOnce)
            .map(|b| b.describe()),
    );
    if f.result.stop != StopReason::Quiescent {
        broke.push(stop_text(f.result.stop).to_string());
    }
    format!(
        "seed {}: {} — {}; {} crash(es)\n    {}",
        f.seed,
        broke.join(", "),
        plan_text(&f.plan),
        f.result.crashes.len(),
        replay
    )
}

/// A finding's shrunk run, under its finding line: how small it got, from what, in how many
/// runs, how it fails, its crashes, and the command that replays it.
pub fn shrunk_lines(s: &Shrunk) -> String {
    let crashes: Vec<String> = s
        .result
        .crashes
        .iter()
        .map(|c| c.point.to_string())
        .collect();
    format!(
        "    shrunk to {} in {} runs{} (from {}): {}{}\n    {}",
        s.size.describe(),
        s.runs,
        if s.exhausted {
            ", the budget (a smaller run may exist)"
        } else {
            ""
        },
        s.original.describe(),
        s.signature,
        if crashes.is_empty() {
            String::new()
        } else {
            format!("; crash at {}", crashes.join(", then "))
        },
        super::token_command(&s.token())
    )
}

/// The description of a regression scenario written from a replay token: where it came
/// from, how its run fails, and what its `expect` block is for.
pub fn regression_description(
    r: &RunResult,
    failure: &crate::explore::shrink::FailureSignature,
    token: &str,
    schedule: &[u32],
) -> String {
    let v = &r.verdict;
    let events: Vec<String> = v
        .events
        .iter()
        .filter(|e| e.outcome != Outcome::Once)
        .map(|e| format!("e{} {}", e.event, e.outcome.name()))
        .collect();
    let crashes: Vec<String> = r.crashes.iter().map(|c| c.point.to_string()).collect();
    let mut text = format!(
        "Regression scenario written by `delivery-sim replay --scenario-out` from a replay \
         token. Its run fails this way: {failure}{}{}. The expect block pins the run as \
         observed, so `delivery-sim run` on this file exits 0 while the run still comes out \
         exactly so, and 1 once it changes (the protocol fixed, or the simulator changed).",
        if events.is_empty() {
            String::new()
        } else {
            format!(" ({})", events.join(", "))
        },
        if crashes.is_empty() {
            String::new()
        } else {
            format!(", with a crash at {}", crashes.join(", then "))
        },
    );
    if let Some(last) = schedule.iter().rposition(|&c| c != 0) {
        let list: Vec<String> = schedule[..=last].iter().map(|c| c.to_string()).collect();
        text.push_str(&format!(
            " Its consumers' scheduling choices are not part of a scenario file: run it with \
             `--schedule {}`.",
            list.join(",")
        ));
    }
    text.push_str(&format!(" Replay token: {token}"));
    text
}

/// The summary of an interleaving exploration.
pub fn interleavings_text(
    scenario: &Scenario,
    x: &Interleavings,
    replays: &[String],
    failures: Option<&[String]>,
) -> String {
    let mut out = header(scenario, false);
    let _ = writeln!(
        out,
        "explored   {} interleavings of {} consumers' steps{}, departing from round-robin at most \
         {} time(s){}",
        x.runs.len(),
        scenario.consumers,
        if x.with_crashes {
            ", each without a crash and with one crash at every boundary"
        } else {
            ""
        },
        x.max_preemptions,
        if x.complete {
            " (all of them)"
        } else if x.memory_limited {
            " — INCOMPLETE: the memory budget for kept runs stopped it"
        } else {
            " — INCOMPLETE: the interleaving limit stopped it"
        }
    );
    let _ = writeln!(
        out,
        "breaking   {} of {} interleavings break the protocol: {} lost an event, {} duplicated one, \
         {} rejected one as out of order, {} broke conservation{}",
        x.breaking_runs,
        x.runs.len(),
        x.lost_runs,
        x.duplicated_runs,
        x.rejected_runs,
        x.unconserved_runs,
        if x.pending_runs > 0 {
            format!(", {} ended with a completion still pending", x.pending_runs)
        } else {
            String::new()
        }
    );
    let failing: Vec<(&crate::explore::InterleavedRun, &String)> = x
        .runs
        .iter()
        .zip(replays)
        .filter(|(r, _)| {
            let v = &r.result.verdict;
            v.guarantee != Guarantee::ExactlyOnce
                || !v.all_acked
                || !v.conserved
                || v.rejected > 0
                || v.pending > 0
        })
        .collect();
    if !failing.is_empty() {
        let _ = writeln!(
            out,
            "\nbreaking interleavings, each with the command that replays it:"
        );
        for (r, replay) in failing.iter().take(FAILING_ROWS) {
            let events: Vec<String> = r
                .result
                .verdict
                .events
                .iter()
                .filter(|e| e.outcome != Outcome::Once || !e.acked)
                .map(|e| format!("e{} {}", e.event, e.outcome.name()))
                .chain(
                    r.result
                        .verdict
                        .drifted_accounts
                        .iter()
                        .map(|a| format!("lost update on {a}")),
                )
                .collect();
            let crash = r
                .crash
                .map_or(String::new(), |p| format!(" (crash at {p})"));
            let _ = writeln!(out, "  {}{crash}\n    {replay}", events.join(", "));
        }
        if failing.len() > FAILING_ROWS {
            let _ = writeln!(
                out,
                "  … {} more (see --json)",
                failing.len() - FAILING_ROWS
            );
        }
    }
    let _ = writeln!(out, "\nsummary    {} over all interleavings", x.guarantee);
    expectation_lines(&mut out, failures);
    out
}

/// The result of `explore --smallest-safe-ttl`: every TTL tried, the answer, and the
/// evidence for it (the largest unsafe TTL's failing run, with `replay`).
pub fn ttl_search_text(
    scenario: &Scenario,
    x: &TtlSearch,
    replay: Option<&str>,
    failures: Option<&[String]>,
) -> String {
    let mut out = header(scenario, false);
    let _ = writeln!(
        out,
        "searched   the smallest inbox TTL with no duplicated event; {}, cleanup every {} ticks \
         in batches of at most {}; each TTL verified by the scenario's own run{}",
        match x.window_ticks {
            Some(w) => format!("broker replay window {w} ticks after each ack"),
            None => "no broker replay window".to_string(),
        },
        x.cleanup_every_ticks,
        x.cleanup_batch,
        if x.depth == 0 {
            String::new()
        } else {
            format!(" and every schedule of up to {} crash(es)", x.depth)
        }
    );
    out.push_str("\n  ttl ticks  verdict  runs  duplicated runs\n");
    for c in &x.candidates {
        let _ = writeln!(
            out,
            "  {:>9}  {:<7}  {:>4}  {:>15}",
            c.ttl_ticks,
            if c.safe { "safe" } else { "UNSAFE" },
            c.runs,
            c.duplicated_runs
        );
    }
    out.push('\n');
    match x.smallest_safe_ttl_ticks {
        Some(ttl) => {
            let _ = writeln!(
                out,
                "smallest   {ttl} ticks{}",
                match x.window_ticks {
                    Some(w) if ttl >= w => format!(
                        " = the {w}-tick replay window + {} ticks of lag: the inbox row is \
                         written before the ack the window counts from, the replay is checked \
                         after it is delivered{}",
                        ttl - w,
                        if x.depth > 0 {
                            ", and a crash before the ack delays the ack"
                        } else {
                            ""
                        }
                    ),
                    _ => String::new(),
                }
            );
        }
        None => {
            let _ = writeln!(
                out,
                "smallest   NONE: every TTL up to {} ticks duplicates an event (the protocol \
                 duplicates without any help from retention)",
                crate::scenario::bounds::MAX_DELAY_TICKS
            );
        }
    }
    if let Some((ttl, failing)) = x.largest_unsafe_failure() {
        let events: Vec<String> = failing
            .duplicated_events
            .iter()
            .map(|e| format!("e{e}"))
            .collect();
        let _ = writeln!(
            out,
            "unsafe     {ttl} ticks: {} duplicated {}",
            if failing.own_faults {
                "the scenario's own run".to_string()
            } else {
                format!(
                    "the run crashing at {}",
                    schedule_text(&failing.crash_points)
                )
            },
            events.join(", ")
        );
        if let Some(replay) = replay {
            let _ = writeln!(out, "           {replay}");
        }
    }
    let _ = writeln!(
        out,
        "boundary   {}",
        match (x.boundary_verified, x.smallest_safe_ttl_ticks) {
            (true, Some(0)) => "verified: even TTL 0 is safe".to_string(),
            (true, Some(ttl)) => format!("verified: {} unsafe, {ttl} safe", ttl - 1),
            _ => "NOT VERIFIED".to_string(),
        }
    );
    let _ = writeln!(
        out,
        "runs       {} runs over {} candidate TTLs",
        x.runs,
        x.candidates.len()
    );
    expectation_lines(&mut out, failures);
    out
}
