//! The one verdict every command that judges leads with, as Jepsen's `:valid?` is: **pass**,
//! **fail** or **unknown**, the guarantee observed with its scope (which boundary, over
//! what: one run, the runs of an exploration, the interleavings, the seeds of a sweep),
//! and the reasons, typed. It is computed from everything that was checked: a guarantee
//! word is never the verdict alone over a run that broke something.
//!
//! - **fail** when anything checked broke: an event lost, duplicated, stuck, wrongly
//!   applied, rejected as out of order, left pending or unacked; conservation or an
//!   invariant; a boundary beyond the ledger (email, output topic, intents); a limit that
//!   stopped a run; an expectation of the scenario; a difference from reality.
//! - **unknown** when nothing broke in what was checked, but a limit, the memory budget or
//!   an interruption stopped the search before it covered everything it set out to.
//! - **pass** otherwise.
//!
//! Whether the command exits 1 is another question, the expectations': a scenario may
//! expect a protocol to duplicate (its verdict then fails, and its expectations hold).

use super::failure::{FailureKind, FailureSignature};
use super::Verdict;
use crate::model::{Guarantee, Scope};
use serde::Serialize;

/// Pass, fail or unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pass,
    Fail,
    Unknown,
}

/// What a verdict covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Coverage {
    /// One run; counts are events.
    Run,
    /// The runs of a crash exploration to `depth`; counts are runs.
    Exploration { runs: u64, depth: usize },
    /// Interleavings of the consumers' steps (`complete`: all of them within the
    /// preemption bound); counts are runs.
    Interleavings { runs: u64, complete: bool },
    /// A search for the smallest safe inbox TTL; counts are TTLs tried.
    TtlSearch { tried: u64 },
    /// The seeds of a sweep; counts are seeds.
    Sweep { seeds: u64 },
    /// The crash points of a cross-check; counts are points.
    Crosscheck { points: u64 },
    /// The protocols of a matrix, each explored to `depth`; counts are protocols.
    Matrix { protocols: u64, depth: usize },
    /// The scenario files of a folder; counts are files.
    Folder { files: u64 },
    /// A scenario's run and every other check its file pins (`run FILE`, a row of
    /// `run DIR`): `checks` of them in all.
    Checks { checks: u64 },
}

/// A check a scenario file pins (see `run FILE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CheckKind {
    /// Its plain run.
    Run,
    /// An exploration to `depth` (`expect.explore`).
    Explore { depth: usize },
    /// The interleavings (`expect.interleavings`).
    Interleavings,
    /// The smallest safe TTL search (`expect.smallest_safe_ttl`).
    SmallestSafeTtl,
}

/// The boundary a verdict's guarantee is of, and what it covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct JudgedScope {
    pub boundary: Scope,
    pub over: Coverage,
    /// Where the effect the guarantee is of lives, when not in the main database: the
    /// named database `check.effects_per_event` counts on, or the external service whose
    /// calls `check.effect` declares the effect (the headline names it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effect: Option<crate::model::Effect>,
    /// Over scenario files whose effects live in different places (`run DIR`): the
    /// guarantee is each file's of its own effect, and `effect` names none.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub effects_differ: bool,
}

/// Why a search stopped before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Cutoff {
    /// A limit on the schedules, interleavings or runs it may take.
    Limit,
    /// The memory budget of the runs it keeps.
    Memory,
    /// Ctrl-C.
    Interrupted,
}

/// One reason of a verdict, with its figures (the unit is the coverage's: events of a run,
/// runs of an exploration, …).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reason {
    /// `count` of them broke `property`.
    Broke { property: FailureKind, count: u64 },
    /// `failed` of the scenario's expectations failed.
    Expectations { failed: u64 },
    /// `count` runs differ between the simulation and reality.
    Differs { count: u64 },
    /// The search stopped before its end.
    Incomplete { cutoff: Cutoff },
    /// `count` of them could not be checked (a scenario file that is bad input).
    Unchecked { count: u64 },
    /// Not a failure but a caveat: on SQLite, `count` of them held only because SQLite
    /// rolled back a writer whose snapshot was stale (`SQLITE_BUSY_SNAPSHOT`), which
    /// PostgreSQL at read committed does not do: the answer may not carry over
    /// (`explore --isolation-ladder` tells).
    SqliteSerialized { count: u64 },
    /// One of the checks of a scenario file did not pass: its status, guarantee and
    /// reasons (counted in its own unit: events of the run, runs of an exploration).
    Check {
        check: CheckKind,
        status: Status,
        #[serde(skip_serializing_if = "Option::is_none")]
        guarantee: Option<Guarantee>,
        over: Coverage,
        reasons: Vec<Reason>,
    },
}

impl Reason {
    /// Whether the reason is a failure (else it only leaves the verdict unknown).
    pub fn fails(&self) -> bool {
        match self {
            Reason::Incomplete { .. }
            | Reason::Unchecked { .. }
            | Reason::SqliteSerialized { .. } => false,
            Reason::Check { status, .. } => *status == Status::Fail,
            _ => true,
        }
    }
}

/// The verdict a command leads with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Judgement {
    pub status: Status,
    /// The guarantee observed, over the scope (the weakest of what was checked); none when
    /// nothing could be checked (a folder whose every file is bad input): no guarantee word
    /// is said of what was not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guarantee: Option<Guarantee>,
    pub scope: JudgedScope,
    pub reasons: Vec<Reason>,
}

impl Judgement {
    /// The verdict over `over` with these `reasons`: its status follows from them.
    pub fn new(guarantee: Guarantee, over: Coverage, reasons: Vec<Reason>) -> Judgement {
        Judgement::observed(Some(guarantee), over, reasons)
    }

    /// [`Judgement::new`], with no guarantee when nothing was checked.
    fn observed(guarantee: Option<Guarantee>, over: Coverage, reasons: Vec<Reason>) -> Judgement {
        let status = if reasons.iter().any(|r| r.fails()) {
            Status::Fail
        } else if reasons
            .iter()
            .all(|r| matches!(r, Reason::SqliteSerialized { .. }))
        {
            Status::Pass
        } else {
            Status::Unknown
        };
        Judgement {
            status,
            guarantee,
            scope: JudgedScope {
                boundary: Scope::LedgerPerEvent,
                over,
                effect: None,
                effects_differ: false,
            },
            reasons,
        }
    }

    /// The verdict on one run: what it broke (its [`FailureSignature`], each property with
    /// how many events broke it), and its failed expectations (`None`: it stated none).
    pub fn of_run(
        v: &Verdict,
        signature: &FailureSignature,
        expect_failures: Option<usize>,
    ) -> Judgement {
        let events = |pred: &dyn Fn(&super::EventReport) -> bool| {
            v.events.iter().filter(|e| pred(e)).count() as u64
        };
        let mut reasons: Vec<Reason> = signature
            .0
            .iter()
            .map(|&property| {
                let count = match property {
                    FailureKind::Lost => v.lost,
                    FailureKind::Duplicated => v.duplicated,
                    FailureKind::DeadLettered => v.dead_lettered,
                    FailureKind::Stuck => v.stuck,
                    FailureKind::WrongEffect => v.wrong_effects,
                    FailureKind::Rejected => v.rejected,
                    FailureKind::Pending => v.pending,
                    FailureKind::Unacked => events(&|e| !e.acked),
                    FailureKind::Unconserved => {
                        let broken = v.invariants.iter().filter(|i| !i.holds).count();
                        broken.max(1) as u64
                    }
                    FailureKind::Limited | FailureKind::Broken(_) => 1,
                };
                Reason::Broke { property, count }
            })
            .collect();
        push_expectations(&mut reasons, expect_failures);
        Judgement::new(v.guarantee, Coverage::Run, reasons).on(v.effect())
    }

    /// The same verdict, of an effect that lives where `effect` says (`None`: the main
    /// database).
    pub fn on(mut self, effect: Option<crate::model::Effect>) -> Judgement {
        self.scope.effect = effect;
        self
    }

    /// Names the effect of verdicts taken together (`effects`, one per verdict): theirs
    /// when they share it, else says that each is of its own.
    pub fn on_each(
        mut self,
        effects: impl IntoIterator<Item = Option<crate::model::Effect>>,
    ) -> Judgement {
        let mut effects = effects.into_iter();
        let first = effects.next().flatten();
        self.scope.effects_differ = effects.any(|e| e != first);
        self.scope.effect = first.filter(|_| !self.scope.effects_differ);
        self
    }

    /// Adds the caveat that `count` passing runs (or, for a run, stale transactions) held
    /// on SQLite only because it rolled a stale writer back: said of a verdict that
    /// passes, where it would otherwise read as the protocol's on any engine.
    pub fn caveat_sqlite_serialized(&mut self, count: u64) {
        if count > 0 && self.status == Status::Pass {
            self.reasons.push(Reason::SqliteSerialized { count });
        }
    }

    /// The verdict over many runs: `broken` lists each property with how many runs broke
    /// it (those with none are left out), `cutoff` why the search stopped early, if it did.
    pub fn over_runs(
        guarantee: Guarantee,
        over: Coverage,
        broken: &[(FailureKind, u64)],
        cutoff: Option<Cutoff>,
        expect_failures: Option<usize>,
    ) -> Judgement {
        let mut reasons: Vec<Reason> = broken
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|&(property, count)| Reason::Broke { property, count })
            .collect();
        push_expectations(&mut reasons, expect_failures);
        reasons.extend(cutoff.map(|cutoff| Reason::Incomplete { cutoff }));
        Judgement::new(guarantee, over, reasons)
    }

    /// The verdict over a scenario file's checks (its run first): the weakest guarantee,
    /// and each check that did not pass as a reason.
    pub fn of_checks(checks: &[(CheckKind, &Judgement)]) -> Judgement {
        let observed: Vec<Guarantee> = checks.iter().filter_map(|(_, j)| j.guarantee).collect();
        let guarantee = (!observed.is_empty()).then(|| Guarantee::weakest(observed));
        let reasons = (checks.iter())
            .filter(|(_, j)| j.status != Status::Pass)
            .map(|&(check, j)| Reason::Check {
                check,
                status: j.status,
                guarantee: j.guarantee,
                over: j.scope.over,
                reasons: j.reasons.clone(),
            })
            .collect();
        let over = Coverage::Checks {
            checks: checks.len() as u64,
        };
        let effect = checks.first().and_then(|(_, j)| j.scope.effect);
        Judgement::observed(guarantee, over, reasons).on(effect)
    }

    /// The same verdict, `count` unchecked items added (a bad scenario file of a folder),
    /// beside the `checked` ones. With none checked it says no guarantee: a guarantee word
    /// over items none of which ran would read as a result.
    pub fn with_unchecked(mut self, count: usize, checked: usize) -> Judgement {
        if count > 0 {
            self.reasons.push(Reason::Unchecked {
                count: count as u64,
            });
        }
        let scope = self.scope;
        let guarantee = self.guarantee.filter(|_| checked > 0);
        Judgement {
            scope,
            ..Judgement::observed(guarantee, scope.over, self.reasons)
        }
    }

    /// The same verdict, its expectations' failures added (`None`: none stated).
    pub fn with_expectations(mut self, failed: Option<usize>) -> Judgement {
        let mut reasons = std::mem::take(&mut self.reasons);
        reasons.retain(|r| !matches!(r, Reason::Expectations { .. }));
        push_expectations(&mut reasons, failed);
        Judgement::observed(self.guarantee, self.scope.over, reasons)
    }
}

/// How many of `signatures` (one per run) break each property, in the order of the
/// properties.
pub fn tally_failures<'a>(
    signatures: impl IntoIterator<Item = &'a FailureSignature>,
) -> Vec<(FailureKind, u64)> {
    let mut counts: std::collections::BTreeMap<FailureKind, u64> = Default::default();
    for s in signatures {
        for kind in &s.0 {
            *counts.entry(*kind).or_default() += 1;
        }
    }
    counts.into_iter().collect()
}

fn push_expectations(reasons: &mut Vec<Reason>, failed: Option<usize>) {
    if let Some(failed) = failed.filter(|n| *n > 0) {
        reasons.push(Reason::Expectations {
            failed: failed as u64,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_follows_from_the_reasons() {
        let broke = Reason::Broke {
            property: FailureKind::Unconserved,
            count: 38,
        };
        let stopped = Reason::Incomplete {
            cutoff: Cutoff::Limit,
        };
        let over = Coverage::Interleavings {
            runs: 62,
            complete: true,
        };
        let ok = Guarantee::ExactlyOnce;
        assert_eq!(Judgement::new(ok, over, vec![]).status, Status::Pass);
        // Exactly once per event, and an invariant broke: a failure, not a pass.
        assert_eq!(
            Judgement::new(ok, over, vec![broke.clone()]).status,
            Status::Fail
        );
        assert_eq!(
            Judgement::new(ok, over, vec![stopped.clone()]).status,
            Status::Unknown
        );
        assert_eq!(
            Judgement::new(ok, over, vec![stopped, broke]).status,
            Status::Fail
        );
        let expected = Judgement::new(ok, over, vec![]).with_expectations(Some(2));
        assert_eq!(expected.status, Status::Fail);
        assert_eq!(expected.with_expectations(Some(0)).status, Status::Pass);
    }

    /// Unchecked items leave the verdict unknown; with none checked it says no guarantee
    /// (a guarantee word over nothing run would read as a result).
    #[test]
    fn nothing_checked_is_no_guarantee() {
        let over = Coverage::Folder { files: 3 };
        let ok = Guarantee::ExactlyOnce;
        let some = Judgement::new(ok, over, vec![]).with_unchecked(2, 1);
        assert_eq!((some.status, some.guarantee), (Status::Unknown, Some(ok)));
        let none = Judgement::new(ok, over, vec![]).with_unchecked(3, 0);
        assert_eq!((none.status, none.guarantee), (Status::Unknown, None));
        let json = serde_json::to_value(&none).unwrap();
        assert!(json.get("guarantee").is_none(), "{json}");
        let checks = Judgement::of_checks(&[(CheckKind::Run, &none)]);
        assert_eq!(checks.guarantee, None);
    }
}
