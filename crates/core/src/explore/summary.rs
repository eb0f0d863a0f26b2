//! An exploration's summary: its runs counted by outcome and boundary, and checked against
//! the scenario's `expect`.

use super::*;
use crate::check::{Counted, Coverage, Cutoff, ExpectationFailure, Judgement};

/// The summary over all runs of an exploration.
#[serde_with::skip_serializing_none]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Summary {
    pub depth: usize,
    pub runs: u64,
    /// Runs that lost an event (a dead-lettered one included).
    pub lost_runs: u64,
    pub duplicated_runs: u64,
    /// Runs in which the broker dead-lettered an event it never saw processed.
    pub dead_lettered_runs: u64,
    /// Runs with an event stuck: not resolved when the run ended.
    pub stuck_runs: u64,
    /// Runs that applied an altered copy's payload instead of an event's own.
    pub wrong_effect_runs: u64,
    /// Runs that failed liveness (an event stuck, or a limit stopped the healing phase):
    /// each fails the exploration, whatever the scenario expects.
    pub liveness_failed_runs: u64,
    /// Runs in which the projection rejected an event as out of order.
    pub rejected_runs: u64,
    /// Runs that ended with a completion still buffered in `pending_event`.
    pub pending_runs: u64,
    /// Runs that ended with some event not acked.
    pub unacked_runs: u64,
    /// Runs whose balances were not conserved (half an effect committed).
    pub unconserved_runs: u64,
    /// Runs stopped by a step or tick limit.
    pub limited_runs: u64,
    /// Runs whose state after their last crash equalled an earlier run's.
    pub equivalent_runs: u64,
    /// Extensions of those runs that were not run, because the earlier run's were.
    pub pruned_schedules: u64,
    /// Whether `max_schedules`, the memory budget or an interruption stopped the exploration
    /// before it was complete.
    pub truncated: bool,
    /// Whether the memory budget for kept runs ([`budget::KEPT_RUNS_BYTES`]) stopped it: a
    /// failure of the exploration, whose counts cover only the runs before it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub memory_limited: bool,
    /// Whether an interruption (Ctrl-C, [`interrupt`]) stopped it: the runs are a prefix of
    /// the schedules, in schedule order.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// Whether every schedule was run (`--no-prune`): its counts are not those a
    /// scenario pins, which describe the pruned exploration.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub no_prune: bool,
    /// The weakest guarantee over all runs.
    pub guarantee: Guarantee,
    /// The other guarantee boundaries the scenario has, over all runs.
    pub ledger_per_intent: Option<ScopeSummary>,
    pub email: Option<ScopeSummary>,
    pub output_topic: Option<ScopeSummary>,
    /// The calls to the external services that are not the business effect, all of them
    /// together (`call` boundaries).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<ScopeSummary>,
    /// Where the effects per event were counted, when not on the main database.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effect: Option<crate::model::Effect>,
}

/// One guarantee boundary over a set of runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ScopeSummary {
    /// The weakest over all runs.
    pub guarantee: Guarantee,
    /// Runs in which this boundary was not exactly-once.
    pub broken_runs: u64,
}

impl Summary {
    /// The verdict over the exploration (see [`Judgement`]): each property with the runs
    /// that broke it, the expectations that failed (`None`: none stated), and why it
    /// stopped early, if it did.
    pub fn judgement(&self, expect_failures: Option<usize>) -> Judgement {
        use crate::check::FailureKind as K;
        let mut broken = vec![
            (K::Lost, self.lost_runs),
            (K::Duplicated, self.duplicated_runs),
            (K::DeadLettered, self.dead_lettered_runs),
            (K::Stuck, self.stuck_runs),
            (K::WrongEffect, self.wrong_effect_runs),
            (K::Rejected, self.rejected_runs),
            (K::Pending, self.pending_runs),
            (K::Unconserved, self.unconserved_runs),
            (K::Unacked, self.unacked_runs),
            (K::Limited, self.limited_runs),
        ];
        for (scope, s) in self.scopes() {
            broken.push((K::Broken(scope), s.broken_runs));
        }
        let cutoff = match (self.memory_limited, self.interrupted, self.truncated) {
            (true, _, _) => Some(Cutoff::Memory),
            (_, true, _) => Some(Cutoff::Interrupted),
            (_, _, true) => Some(Cutoff::Limit),
            _ => None,
        };
        let over = Coverage::Exploration {
            runs: self.runs,
            depth: self.depth,
        };
        Judgement::over_runs(self.guarantee, over, &broken, cutoff, expect_failures).on(self.effect)
    }

    /// The boundaries beyond the ledger per event, with their summaries.
    pub fn scopes(&self) -> Vec<(Scope, ScopeSummary)> {
        [
            (Scope::LedgerPerIntent, self.ledger_per_intent),
            (Scope::Email, self.email),
            (Scope::OutputTopic, self.output_topic),
            (Scope::Call, self.call),
        ]
        .into_iter()
        .filter_map(|(scope, s)| s.map(|s| (scope, s)))
        .collect()
    }
}

/// A boundary's summary over `runs`, if their verdicts have that boundary (a run may have
/// several of one kind, a `call` boundary per service: a run breaks it when one breaks).
pub(super) fn scope_summary(runs: &[&ExploredRun], scope: Scope) -> Option<ScopeSummary> {
    let per_run: Vec<Vec<&crate::check::ScopeVerdict>> = runs
        .iter()
        .map(|r| {
            (r.result.verdict.boundaries.iter())
                .filter(|b| b.boundary == scope)
                .collect()
        })
        .filter(|v: &Vec<_>| !v.is_empty())
        .collect();
    if per_run.is_empty() {
        return None;
    }
    Some(ScopeSummary {
        // The weakest any run's boundary showed, as each run's own verdict judged it.
        guarantee: Guarantee::weakest(per_run.iter().flatten().map(|v| v.guarantee)),
        broken_runs: (per_run.iter())
            .filter(|v| v.iter().any(|b| b.guarantee != Guarantee::ExactlyOnce))
            .count() as u64,
    })
}

pub(super) fn summarize(
    runs: &[&ExploredRun],
    depth: usize,
    pruned_schedules: u64,
    truncated: bool,
) -> Summary {
    let count =
        |f: &dyn Fn(&RunResult) -> bool| runs.iter().filter(|r| f(&r.result)).count() as u64;
    let lost_runs = count(&|r| r.verdict.lost > 0);
    let duplicated_runs = count(&|r| r.verdict.duplicated > 0);
    Summary {
        depth,
        runs: runs.len() as u64,
        lost_runs,
        duplicated_runs,
        dead_lettered_runs: count(&|r| r.verdict.dead_lettered > 0),
        stuck_runs: count(&|r| r.verdict.stuck > 0),
        wrong_effect_runs: count(&|r| r.verdict.wrong_effects > 0),
        liveness_failed_runs: count(&|r| r.failure().fails_liveness()),
        rejected_runs: count(&|r| r.verdict.rejected > 0),
        pending_runs: count(&|r| r.verdict.pending > 0),
        unacked_runs: count(&|r| !r.verdict.all_acked),
        unconserved_runs: count(&|r| !r.verdict.conserved),
        limited_runs: count(&|r| r.stop != StopReason::Quiescent),
        equivalent_runs: runs.iter().filter(|r| r.equivalent_to.is_some()).count() as u64,
        pruned_schedules,
        truncated,
        memory_limited: false,
        interrupted: false,
        no_prune: false,
        guarantee: Guarantee::weakest(runs.iter().map(|r| r.result.verdict.guarantee)),
        ledger_per_intent: scope_summary(runs, Scope::LedgerPerIntent),
        email: scope_summary(runs, Scope::Email),
        output_topic: scope_summary(runs, Scope::OutputTopic),
        call: scope_summary(runs, Scope::Call),
        effect: runs.first().and_then(|r| r.result.verdict.effect()),
    }
}

/// Compares an exploration with the scenario's expectations. With an `expect.explore`
/// entry for the exploration's depth, its counts of runs are compared exactly. Without it, the top-level fields are read for a set
/// of runs: `guarantee` is the weakest over all runs; `lost`/`duplicated` of 0 mean no run
/// lost or duplicated an event and a positive value means at least one did (a count of
/// events per run has no single value across runs); `all_acked` and `conserved` must hold
/// in every run. Returns one line per failed expectation.
pub fn failed_expectations(
    expect: &crate::scenario::Expect,
    s: &Summary,
) -> Vec<ExpectationFailure> {
    let mut failed = Vec::new();
    let at_depth = expect.explore_at(s.depth);
    let guarantee = at_depth.map_or(expect.guarantee, |x| x.guarantee);
    if let Some(want) = guarantee.filter(|&g| g != s.guarantee) {
        failed.push(ExpectationFailure::Guarantee {
            over: Coverage::Exploration {
                runs: s.runs,
                depth: s.depth,
            },
            want,
            got: s.guarantee,
        });
    }
    if let Some(x) = at_depth {
        failed.extend(failed_at_depth(x, s));
        return failed;
    }
    for (counted, want, runs) in [
        (Counted::Lost, expect.lost, s.lost_runs),
        (Counted::Duplicated, expect.duplicated, s.duplicated_runs),
    ] {
        match want {
            Some(0) if runs > 0 => failed.push(ExpectationFailure::NoRunWith { counted, runs }),
            Some(n) if n > 0 && runs == 0 => {
                failed.push(ExpectationFailure::SomeRunWith { counted })
            }
            _ => {}
        }
    }
    if expect.all_acked == Some(true) && s.unacked_runs > 0 {
        failed.push(ExpectationFailure::EveryRunAcked {
            runs: s.unacked_runs,
        });
    }
    if expect.conserved == Some(true) && s.unconserved_runs > 0 {
        failed.push(ExpectationFailure::EveryRunConserved {
            runs: s.unconserved_runs,
        });
    }
    failed
}

/// The failures against an `expect.explore` entry for the exploration's depth.
fn failed_at_depth(x: &crate::scenario::ExploreExpect, s: &Summary) -> Vec<ExpectationFailure> {
    let mut failed = Vec::new();
    // Pinned counts describe the pruned exploration; `--no-prune` runs more schedules,
    // so only what is pinned of every run (the guarantees) applies to it.
    let mut counts = Vec::new();
    for (field, want, got) in [
        ("runs", x.runs, s.runs),
        ("lost_runs", x.lost_runs, s.lost_runs),
        ("duplicated_runs", x.duplicated_runs, s.duplicated_runs),
        (
            "dead_lettered_runs",
            x.dead_lettered_runs,
            s.dead_lettered_runs,
        ),
        ("rejected_runs", x.rejected_runs, s.rejected_runs),
        ("pending_runs", x.pending_runs, s.pending_runs),
        ("unacked_runs", x.unacked_runs, s.unacked_runs),
        ("unconserved_runs", x.unconserved_runs, s.unconserved_runs),
    ] {
        check::push_mismatch(&mut counts, field, want, got);
    }
    let scopes = s.scopes();
    for (scope, want) in &x.boundaries {
        let Some((_, got)) = scopes.iter().find(|(sc, _)| sc == scope) else {
            failed.push(ExpectationFailure::MissingBoundary {
                scope: *scope,
                present: None,
            });
            continue;
        };
        if let Some(g) = want.guarantee.filter(|&g| g != got.guarantee) {
            failed.push(ExpectationFailure::BoundaryGuaranteeOverRuns {
                scope: *scope,
                want: g,
                got: got.guarantee,
            });
        }
        let field = format!("{}.broken_runs", scope.key());
        check::push_mismatch(&mut counts, &field, want.broken_runs, got.broken_runs);
    }
    if !s.no_prune {
        failed.extend(counts);
    }
    failed
}
