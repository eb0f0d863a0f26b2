//! The isolation ladder: the same scenario's interleavings on SQLite and on PostgreSQL at
//! each isolation level, one rung each, and the weakest level at which the protocol holds.
//! The CLI loads the file once per rung (the engine decides how its SQL is checked) and
//! fills the rungs; this is the result, typed, for the reports.

use crate::model::Guarantee;
use crate::model::{Engine, Isolation};
use serde::Serialize;

/// One engine and level, and what its interleavings came to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Rung {
    pub engine: Engine,
    /// PostgreSQL's level; `None` on SQLite, which has one behaviour.
    pub isolation: Option<Isolation>,
    /// Whether this is the engine and level the file itself names (SQLite for a built-in
    /// protocol): the rung the ladder's verdict and the file's expectations are about.
    pub home: bool,
    pub outcome: RungOutcome,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RungOutcome {
    /// Every interleaving within the bound was run (or as many as the limits let).
    Explored {
        guarantee: Guarantee,
        runs: u64,
        breaking_runs: u64,
        /// Whether every interleaving within the bound ran.
        complete: bool,
        /// The command that replays the first breaking run.
        #[serde(skip_serializing_if = "Option::is_none")]
        first_breaking: Option<String>,
    },
    /// The scenario does not run on this engine (its SQL is another dialect's, or a part
    /// of it does not run there): the loader's refusal, worded by the command line in the
    /// reader's language (`--lang`).
    NotRun { reason: String },
}

/// The whole ladder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Ladder {
    /// The verdict over the home rung's interleavings (as `explore --interleavings` on
    /// the file gives it), with the file's expectations for them; a rung that could not
    /// finish its runs (liveness, memory) fails it too.
    pub verdict: crate::check::Judgement,
    pub max_preemptions: usize,
    pub with_crashes: bool,
    pub rungs: Vec<Rung>,
}

impl Rung {
    /// Whether every interleaving ran and none broke the protocol.
    pub fn holds(&self) -> bool {
        matches!(
            self.outcome,
            RungOutcome::Explored {
                breaking_runs: 0,
                complete: true,
                ..
            }
        )
    }
}

impl Ladder {
    /// The rungs, in order: SQLite, then PostgreSQL from the weakest level up.
    pub fn engines() -> Vec<(Engine, Option<Isolation>)> {
        let mut rungs = vec![(Engine::Sqlite, None)];
        rungs.extend(Isolation::ALL.map(|i| (Engine::Postgres, Some(i))));
        rungs
    }

    /// The weakest PostgreSQL level at which the protocol holds, if any.
    pub fn weakest_holding(&self) -> Option<Isolation> {
        (self.rungs.iter())
            .filter(|r| r.engine == Engine::Postgres && r.holds())
            .filter_map(|r| r.isolation)
            .min()
    }

    /// Whether SQLite's answer differs from PostgreSQL's at its default level: then a
    /// verdict reached on SQLite does not carry over to PostgreSQL as users run it. Only
    /// answers compare: a rung not run, or cut short before any run broke, has none.
    pub fn sqlite_misleads(&self) -> bool {
        let holds = |e: Engine, i: Option<Isolation>| {
            (self.rungs.iter())
                .find(|r| r.engine == e && r.isolation == i)
                .and_then(|r| match r.outcome {
                    RungOutcome::Explored {
                        breaking_runs,
                        complete,
                        ..
                    } if complete || breaking_runs > 0 => Some(breaking_runs == 0),
                    _ => None,
                })
        };
        matches!(
            (
                holds(Engine::Sqlite, None),
                holds(Engine::Postgres, Some(Isolation::ReadCommitted))
            ),
            (Some(a), Some(b)) if a != b
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rung(engine: Engine, isolation: Option<Isolation>, outcome: RungOutcome) -> Rung {
        Rung {
            engine,
            isolation,
            home: false,
            outcome,
        }
    }

    fn explored(breaking_runs: u64, complete: bool) -> RungOutcome {
        RungOutcome::Explored {
            guarantee: Guarantee::ExactlyOnce,
            runs: 10,
            breaking_runs,
            complete,
            first_breaking: None,
        }
    }

    fn ladder(sqlite: RungOutcome, postgres: RungOutcome) -> Ladder {
        Ladder {
            verdict: crate::check::Judgement::new(
                Guarantee::ExactlyOnce,
                crate::check::Coverage::Interleavings {
                    runs: 10,
                    complete: true,
                },
                Vec::new(),
            ),
            max_preemptions: 2,
            with_crashes: false,
            rungs: vec![
                rung(Engine::Sqlite, None, sqlite),
                rung(Engine::Postgres, Some(Isolation::ReadCommitted), postgres),
            ],
        }
    }

    #[test]
    fn sqlite_misleads_only_when_both_answered_and_differ() {
        assert!(ladder(explored(0, true), explored(3, true)).sqlite_misleads());
        assert!(ladder(explored(2, false), explored(0, true)).sqlite_misleads());
        assert!(!ladder(explored(0, true), explored(0, true)).sqlite_misleads());
        // SQLite could not load the file (PostgreSQL's dialect): no answer to compare.
        let not_run = RungOutcome::NotRun {
            reason: "SQLite says: near \"(\": syntax error".into(),
        };
        assert!(!ladder(not_run, explored(0, true)).sqlite_misleads());
        // Cut short before any run broke: no answer either.
        assert!(!ladder(explored(0, false), explored(4, true)).sqlite_misleads());
    }
}
