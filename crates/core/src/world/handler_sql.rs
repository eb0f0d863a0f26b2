//! A Rust handler's SQL calls, performed for its consumer: each statement is checked once
//! per run as a scenario's own statements are when the file loads (one statement, named
//! parameters, no clock, randomness, transaction control, `ATTACH` or `PRAGMA`; on
//! PostgreSQL its form only, the server's answer saying the rest), then run on the
//! consumer's connection with the call's parameters and the delivery's.

use super::*;
use crate::model::handler::{Answer, Call, FailedCall, SqlErrorKind, Value as HandlerValue};
use crate::model::{Engine, NoDatabase, RefusalReason, SqlRefusal};
use crate::store::SqlChecker;

/// The checker of a handler's statements, and what it said of each statement so far.
pub(super) struct HandlerSql {
    /// `Err` when there is nothing to check against: no schema of the scenario's own, or
    /// one the checker refuses.
    checker: Result<SqlChecker, SqlRefusal>,
    verdicts: BTreeMap<String, Result<(), SqlRefusal>>,
}

impl HandlerSql {
    pub(super) fn new(scenario: &Scenario) -> HandlerSql {
        let checker = match &scenario.store.custom {
            None => Err(SqlRefusal::of(RefusalReason::NoOwnSchema)),
            Some(_) if scenario.store.engine == Engine::Postgres => SqlChecker::of_postgres_run()
                .map_err(|message| {
                    SqlRefusal::of(RefusalReason::NoDatabase(NoDatabase::Unreachable {
                        message,
                    }))
                }),
            Some(custom) => {
                SqlChecker::new(&custom.schema, &custom.setup).map_err(|(in_setup, index, r)| {
                    SqlRefusal::of(RefusalReason::SchemaRefused {
                        in_setup,
                        index,
                        refusal: Box::new(r),
                    })
                })
            }
        };
        HandlerSql {
            checker,
            verdicts: BTreeMap::new(),
        }
    }

    /// Whether `sql` may run as a handler's statement, and if not why.
    fn check(&mut self, sql: &str) -> Result<(), SqlRefusal> {
        if let Some(verdict) = self.verdicts.get(sql) {
            return verdict.clone();
        }
        let verdict = match &self.checker {
            Err(why) => Err(why.clone()),
            Ok(checker) => checker.prepare(sql).map(drop),
        };
        self.verdicts.insert(sql.to_string(), verdict.clone());
        verdict
    }
}

impl World<'_> {
    /// SQLite's answer to a handler's `begin` inside a transaction or `commit` outside one
    /// (the handler began twice, or SQLite rolled its transaction back after an error):
    /// nothing is run, the call fails with SQLite's message.
    pub(super) fn handler_misuse(
        &mut self,
        c: ConsumerId,
        step: Step,
        nth: u8,
    ) -> Option<(StepResult, TraceKind)> {
        if !self.consumers[c].is_handler() {
            return None;
        }
        assert!(
            step != Step::ExternalEffect || self.scenario.protocol.has(step),
            "the handler called external_effect, but its `sends_external_effect()` says it \
             sends none; say `true` there, so that the check judges the external effect"
        );
        let open = self.stores[c].in_transaction();
        let message = match step {
            Step::Begin if open => "cannot start a transaction within a transaction",
            Step::Commit if !open => "cannot commit - no transaction is active",
            _ => return None,
        };
        let failed = FailedCall::of(
            SqlErrorKind::Other,
            SqlRefusal::of(RefusalReason::Engine {
                engine: Engine::Sqlite,
                message: message.to_string(),
                sqlstate: None,
                quoted: false,
            }),
        );
        self.consumers[c].set_reply(Answer::Failed(failed.error()));
        let failure = failed.failure;
        Some((
            StepResult::Db(DbOutcome::Ran),
            TraceKind::SqlFailed { step, nth, failure },
        ))
    }

    /// Runs the SQL call consumer `c`'s handler waits on: the answer goes to the consumer,
    /// the outcome to the trace (a SQLite error as the step's `SqlFailed`: the handler
    /// decides what it means).
    pub(super) fn handler_call(
        &mut self,
        now: Tick,
        c: ConsumerId,
        nth: u8,
        d: &Delivery,
        call: Call,
    ) -> (StepResult, TraceKind) {
        let Call::Sql {
            step,
            sql,
            params,
            row,
        } = call
        else {
            unreachable!("only a SQL call is run here")
        };
        let step = Step::Sql(step);
        let checker = self
            .handler_sql
            .as_mut()
            .expect("a handler's run checks its SQL");
        let answer = match checker.check(&sql) {
            Err(refusal) => Err(FailedCall::of(SqlErrorKind::Other, refusal)),
            Ok(()) => {
                let binding = super::binding(&self.sql_events, &self.broker, now, c, d, None);
                let value = |name: &str| -> Option<HandlerValue> {
                    match params.iter().find(|(k, _)| k == name) {
                        Some((_, v)) => Some(v.clone()),
                        None => binding.get(name).map(HandlerValue::from),
                    }
                };
                match self.stores[c].execute_handler_sql(&sql, &value, row, now) {
                    Ok(answer) => answer,
                    Err(outcome) => {
                        return (
                            StepResult::Db(outcome),
                            TraceKind::Db { step, nth, outcome },
                        )
                    }
                }
            }
        };
        let (answer, kind) = match answer {
            Err(failed) => (
                Answer::Failed(failed.error()),
                TraceKind::SqlFailed {
                    step,
                    nth,
                    failure: failed.failure,
                },
            ),
            Ok(answer) => (
                answer,
                TraceKind::Db {
                    step,
                    nth,
                    outcome: DbOutcome::Ran,
                },
            ),
        };
        self.consumers[c].set_reply(answer);
        (StepResult::Db(DbOutcome::Ran), kind)
    }
}
