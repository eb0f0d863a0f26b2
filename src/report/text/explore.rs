//! The text of an exploration: its summary, the table of its runs, the failing runs with
//! their replay commands; of interleavings; of a retention TTL search.

use super::*;

pub(super) fn outcome_cell(r: &RunResult) -> &'static str {
    match r.verdict.guarantee {
        Guarantee::ExactlyOnce => "once",
        Guarantee::AtMostOnce => "LOST",
        Guarantee::AtLeastOnce => "DUPLICATED",
        Guarantee::None => "LOST+DUPLICATED",
    }
}

/// How many runs an exploration lists one by one, and how many failing runs.
pub(super) const EXPLORE_ROWS: usize = 200;

pub(super) const FAILING_ROWS: usize = 50;

pub(super) fn schedule_text(crashes: &[BoundaryPoint]) -> String {
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

/// One line per run of `x`, when there are not too many.
fn run_table(out: &mut String, x: &Exploration) {
    if x.runs.len() <= EXPLORE_ROWS {
        let width = x
            .runs
            .iter()
            .map(|r| schedule_text(&r.crashes).len())
            .max()
            .unwrap_or(0)
            .max("crash schedule".len());
        // The run numbers, from 0 for the crash-free run: what `≡ run N` refers to.
        let number_width = (x.runs.len().saturating_sub(1)).to_string().len().max(3);
        let _ = writeln!(
            out,
            "  {:>number_width$}  {:<width$}  {:<16} {:>4} {:>4} {:>4}  {:<5}  trace hash",
            "run", "crash schedule", "outcome", "once", "lost", "dup", "acked"
        );
        for (i, r) in x.runs.iter().enumerate() {
            let v = &r.result.verdict;
            let _ = writeln!(
                out,
                "  {i:>number_width$}  {:<width$}  {:<16} {:>4} {:>4} {:>4}  {:<5}  {}{}",
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
}

/// The failing runs, the ones that could not finish first, each with its replay command.
fn failing_runs(out: &mut String, scenario: &Scenario, x: &Exploration, origin: &Origin) {
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
    if s.equivalent_runs > 0 && s.pruned_schedules > 0 {
        let _ = writeln!(
            out,
            "skipped    {} runs had the same state after their last crash as an earlier run; \
             their {} extensions were not run (the earlier run's were)",
            s.equivalent_runs, s.pruned_schedules
        );
    } else if s.equivalent_runs > 0 {
        // At the last depth a run has no extensions: nothing was skipped.
        let _ = writeln!(
            out,
            "same state {} runs had the same state after their last crash as an earlier run \
             (≡ run N below); at depth {} none has an extension to skip",
            s.equivalent_runs, s.depth
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
    run_table(&mut out, x);
    failing_runs(&mut out, scenario, x, origin);
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

/// The TTL search's answer: the smallest safe TTL and why it is that, or that there is none.
fn smallest_line(out: &mut String, x: &TtlSearch) {
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
    smallest_line(&mut out, x);
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
