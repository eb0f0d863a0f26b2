//! A Rust handler's SQL calls, performed for its consumer: each statement is checked once
//! per run as a scenario's own statements are when the file loads (one statement, named
//! parameters, no clock, randomness, transaction control, `ATTACH` or `PRAGMA`; on
//! PostgreSQL its form only, the server's answer saying the rest), then run on the
//! consumer's connection with the call's parameters and the delivery's.

use super::*;
use crate::model::handler::{Answer, Call, SqlError, SqlErrorKind, Value as HandlerValue};
use crate::store::SqlChecker;

/// The checker of a handler's statements, and what it said of each statement so far.
pub(super) struct HandlerSql {
    /// `Err` when the scenario has no schema of its own to check against.
    checker: Result<SqlChecker, String>,
    verdicts: BTreeMap<String, Result<(), String>>,
}

impl HandlerSql {
    pub(super) fn new(scenario: &Scenario) -> HandlerSql {
        let checker = match &scenario.store.custom {
            None => Err(
                "a Rust handler runs on a scenario's own schema (store.schema, \
                 check.effects_per_event); this scenario has the built-in ledger"
                    .to_string(),
            ),
            Some(_) if scenario.store.engine == crate::model::Engine::Postgres => {
                SqlChecker::of_postgres_run()
            }
            Some(custom) => {
                SqlChecker::new(&custom.schema, &custom.setup).map_err(|(in_setup, i, message)| {
                    let part = if in_setup { "setup" } else { "schema" };
                    format!("store.{part}[{i}] fails: {}", message.english())
                })
            }
        };
        HandlerSql {
            checker,
            verdicts: BTreeMap::new(),
        }
    }

    /// Whether `sql` may run as a handler's statement, and if not why.
    fn check(&mut self, sql: &str) -> Result<(), String> {
        if let Some(verdict) = self.verdicts.get(sql) {
            return verdict.clone();
        }
        let verdict = match &self.checker {
            Err(why) => Err(why.clone()),
            Ok(checker) => checker.prepare(sql).map(drop).map_err(|r| r.english()),
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
        self.consumers[c].set_reply(Answer::Failed(SqlError {
            kind: SqlErrorKind::Other,
            message: message.to_string(),
        }));
        let message = message.to_string();
        Some((
            StepResult::Db(DbOutcome::Ran),
            TraceKind::SqlFailed { step, nth, message },
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
            Err(message) => Answer::Failed(SqlError {
                kind: SqlErrorKind::Other,
                message,
            }),
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
        let kind = match &answer {
            Answer::Failed(e) => TraceKind::SqlFailed {
                step,
                nth,
                message: e.message.clone(),
            },
            _ => TraceKind::Db {
                step,
                nth,
                outcome: DbOutcome::Ran,
            },
        };
        self.consumers[c].set_reply(answer);
        (StepResult::Db(DbOutcome::Ran), kind)
    }
}
