//! The text of an exploration: its summary, the table of its runs, the failing runs with
//! their replay commands; of interleavings; of a retention TTL search.

use super::*;
use crate::check::ExpectationFailure;
use crate::lang::{ExploreLabel, InterleavingsEnd};

pub(crate) fn outcome_cell(l: Lang, r: &RunResult) -> &'static str {
    let g = r.verdict.guarantee;
    l.explore_outcome(
        matches!(g, Guarantee::AtMostOnce | Guarantee::None),
        matches!(g, Guarantee::AtLeastOnce | Guarantee::None),
    )
}

/// How many runs an exploration lists one by one, and how many failing runs.
pub(super) const EXPLORE_ROWS: usize = 200;

pub(super) const FAILING_ROWS: usize = 50;

pub(crate) fn schedule_text(l: Lang, crashes: &[BoundaryPoint]) -> String {
    if crashes.is_empty() {
        l.no_crash().to_string()
    } else {
        crashes
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(" + ")
    }
}

/// One line per run of `x`, when there are not too many.
fn run_table(l: Lang, out: &mut String, x: &Exploration) {
    if x.runs.len() <= EXPLORE_ROWS {
        let [run, schedule, outcome, once, lost, dup, acked, hash] = l.explore_columns();
        let width = x
            .runs
            .iter()
            .map(|r| schedule_text(l, &r.crashes).chars().count())
            .max()
            .unwrap_or(0)
            .max(schedule.chars().count());
        // The run numbers, from 0 for the crash-free run: what `≡ run N` refers to.
        let number_width = (x.runs.len().saturating_sub(1))
            .to_string()
            .len()
            .max(run.chars().count());
        let _ = writeln!(
            out,
            "  {run:>number_width$}  {schedule:<width$}  {outcome:<16} {once:>4} {lost:>4} \
             {dup:>4}  {acked:<5}  {hash}"
        );
        for (i, r) in x.runs.iter().enumerate() {
            let v = &r.result.verdict;
            let _ = writeln!(
                out,
                "  {i:>number_width$}  {:<width$}  {:<16} {:>4} {:>4} {:>4}  {:<5}  {}{}",
                schedule_text(l, &r.crashes),
                outcome_cell(l, &r.result),
                v.exactly_once,
                v.lost,
                v.duplicated,
                l.yes_no(v.all_acked),
                r.result.trace.hash_hex(),
                r.equivalent_to
                    .map_or(String::new(), |i| format!("  {}", l.same_as_run(i)))
            );
        }
    } else {
        let _ = writeln!(out, "  {}", l.too_many_runs(x.runs.len()));
    }
}

/// The failing runs, the ones that could not finish first, each with its replay command.
fn failing_runs(l: Lang, out: &mut String, scenario: &Scenario, x: &Exploration, origin: &Origin) {
    // The runs that could not finish first: each fails the exploration.
    let failing: Vec<_> = x
        .not_live()
        .chain(x.failing().filter(|r| !r.result.failure().fails_liveness()))
        .collect();
    if !failing.is_empty() {
        let _ = writeln!(out, "\n{}", l.failing_runs_header());
        for r in failing.iter().take(FAILING_ROWS) {
            let events: Vec<String> = r
                .result
                .verdict
                .events
                .iter()
                .filter(|e| e.outcome != Outcome::Once)
                .map(|e| {
                    // What an error policy did to it, when that is what lost it.
                    let policy = (e.gave_up.last())
                        .filter(|g| g.then != crate::model::GiveUp::Redeliver)
                        .map(|g| format!(" ({})", l.gave_up(g)))
                        .unwrap_or_default();
                    format!("e{} {}{policy}", e.event, outcome_word(l, e.outcome))
                })
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
                schedule_text(l, &r.crashes),
                events.join(", "),
                origin.replay_command(scenario.seed, &r.crashes)
            );
        }
        if failing.len() > FAILING_ROWS {
            let _ = writeln!(out, "  {}", l.and_more(failing.len() - FAILING_ROWS));
        }
    }
}

/// An event's outcome in a list of failing runs: the checker's name in English (`lost`),
/// the table's word in lower case in Spanish (`perdido`).
fn outcome_word(l: Lang, o: Outcome) -> String {
    match l {
        Lang::En => o.name().to_string(),
        Lang::Es => l.outcome(o).to_lowercase(),
    }
}

/// The summary of an exploration, in `l`: one line per run (when there are not too many),
/// the failing runs with their replay commands, and the summary.
pub fn explore_text(
    l: Lang,
    scenario: &Scenario,
    x: &Exploration,
    origin: &Origin,
    failures: Option<&[ExpectationFailure]>,
) -> String {
    let s = &x.summary;
    let judgement = s.judgement(failures.map(<[ExpectationFailure]>::len));
    let mut out = verdict_line_in(l, Paint::OFF, &judgement);
    out.push_str(&header_in(l, scenario, false));
    let _ = writeln!(
        out,
        "{}{}",
        l.explore_label(ExploreLabel::Explored),
        l.explored(s.runs, s.depth)
    );
    if s.equivalent_runs > 0 && s.pruned_schedules > 0 {
        let _ = writeln!(
            out,
            "{}",
            l.explore_skipped(s.equivalent_runs, s.pruned_schedules)
        );
    } else if s.equivalent_runs > 0 {
        // At the last depth a run has no extensions: nothing was skipped.
        let _ = writeln!(out, "{}", l.explore_same_state(s.equivalent_runs, s.depth));
    }
    if s.interrupted {
        let _ = writeln!(out, "{}", l.explore_interrupted(s.runs));
    } else if s.memory_limited {
        let _ = writeln!(out, "{}", l.explore_memory_limited(s.runs));
    } else if s.truncated {
        let _ = writeln!(out, "{}", l.explore_schedule_limited());
    }
    out.push('\n');
    run_table(l, &mut out, x);
    failing_runs(l, &mut out, scenario, x, origin);
    let _ = writeln!(
        out,
        "\n{}{}",
        l.explore_label(ExploreLabel::Summary),
        l.explore_summary(s)
    );
    for (scope, b) in s.scopes() {
        let _ = writeln!(
            out,
            "           {}",
            l.explore_scope_line(&l.scope(scope), b.guarantee.name(), b.broken_runs, s.runs)
        );
    }
    expectation_lines_in(l, Paint::OFF, &mut out, failures);
    out
}

/// The summary of an interleaving exploration, in `l`.
pub fn interleavings_text(
    l: Lang,
    scenario: &Scenario,
    x: &Interleavings,
    replays: &[String],
    failures: Option<&[ExpectationFailure]>,
) -> String {
    let judgement = x.judgement(failures.map(<[ExpectationFailure]>::len));
    let mut out = verdict_line_in(l, Paint::OFF, &judgement);
    out.push_str(&header_in(l, scenario, false));
    let ending = if x.complete {
        InterleavingsEnd::Complete
    } else if x.memory_limited {
        InterleavingsEnd::Memory
    } else {
        InterleavingsEnd::Limit
    };
    let _ = writeln!(
        out,
        "{}{}",
        l.explore_label(ExploreLabel::Explored),
        l.interleavings_explored(
            x.runs.len(),
            scenario.consumers,
            x.with_crashes,
            x.max_preemptions,
            ending
        )
    );
    let _ = writeln!(
        out,
        "{}{}",
        l.explore_label(ExploreLabel::Breaking),
        l.interleavings_breaking(x)
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
        let _ = writeln!(out, "\n{}", l.breaking_interleavings_header());
        for (r, replay) in failing.iter().take(FAILING_ROWS) {
            let events: Vec<String> = r
                .result
                .verdict
                .events
                .iter()
                .filter(|e| e.outcome != Outcome::Once || !e.acked)
                .map(|e| format!("e{} {}", e.event, outcome_word(l, e.outcome)))
                .chain(
                    r.result
                        .verdict
                        .drifted_accounts
                        .iter()
                        .map(|a| l.lost_update_on(a)),
                )
                .collect();
            let crash = r
                .crash
                .map_or(String::new(), |p| l.crashed_at_note(&p.to_string()));
            let _ = writeln!(out, "  {}{crash}\n    {replay}", events.join(", "));
        }
        if failing.len() > FAILING_ROWS {
            let _ = writeln!(out, "  {}", l.and_more(failing.len() - FAILING_ROWS));
        }
    }
    expectation_lines_in(l, Paint::OFF, &mut out, failures);
    out
}

/// The TTL search's answer: the smallest safe TTL and why it is that, or that there is none.
fn smallest_line(l: Lang, out: &mut String, x: &TtlSearch) {
    let answer = match x.smallest_safe_ttl_ticks {
        Some(ttl) => l.ttl_smallest(ttl, x.window_ticks, x.depth > 0),
        None => l.ttl_none_safe(crate::scenario::bounds::MAX_DELAY_TICKS),
    };
    let _ = writeln!(out, "{}{answer}", l.explore_label(ExploreLabel::Smallest));
}

/// The result of `explore --smallest-safe-ttl`, in `l`: every TTL tried, the answer, and
/// the evidence for it (the largest unsafe TTL's failing run, with `replay`).
pub fn ttl_search_text(
    l: Lang,
    scenario: &Scenario,
    x: &TtlSearch,
    replay: Option<&str>,
    failures: Option<&[ExpectationFailure]>,
) -> String {
    let judgement = x.judgement(failures.map(<[ExpectationFailure]>::len));
    let mut out = verdict_line_in(l, Paint::OFF, &judgement);
    out.push_str(&header_in(l, scenario, false));
    let _ = writeln!(
        out,
        "{}{}",
        l.explore_label(ExploreLabel::Searched),
        l.ttl_searched(x)
    );
    let _ = writeln!(out, "\n{}", l.ttl_table_header());
    let (ttl_w, verdict_w, runs_w, dup_w) = match l {
        Lang::En => (9, 7, 4, 15),
        Lang::Es => (9, 9, 8, 19),
    };
    for c in &x.candidates {
        let _ = writeln!(
            out,
            "  {:>ttl_w$}  {:<verdict_w$}  {:>runs_w$}  {:>dup_w$}",
            c.ttl_ticks,
            l.ttl_safe(c.safe),
            c.runs,
            c.duplicated_runs
        );
    }
    out.push('\n');
    smallest_line(l, &mut out, x);
    if let Some((ttl, failing)) = x.largest_unsafe_failure() {
        let events: Vec<String> = failing
            .duplicated_events
            .iter()
            .map(|e| format!("e{e}"))
            .collect();
        let crashes = (!failing.own_faults).then(|| schedule_text(l, &failing.crash_points));
        let _ = writeln!(
            out,
            "{}{}",
            l.explore_label(ExploreLabel::Unsafe),
            l.ttl_unsafe(ttl, crashes.as_deref(), &events.join(", "))
        );
        if let Some(replay) = replay {
            let _ = writeln!(out, "           {replay}");
        }
    }
    let _ = writeln!(
        out,
        "{}{}",
        l.explore_label(ExploreLabel::Boundary),
        l.ttl_boundary(x.boundary_verified, x.smallest_safe_ttl_ticks)
    );
    let _ = writeln!(
        out,
        "{}{}",
        l.explore_label(ExploreLabel::Runs),
        l.ttl_runs(x.runs, x.candidates.len())
    );
    expectation_lines_in(l, Paint::OFF, &mut out, failures);
    out
}
