//! A Rust handler's statements (issue 15, item 3), run on the consumer's connection to a
//! scenario's own database under the same budgets as a scenario's SQL steps. The executor
//! has checked each statement first with a [`super::SqlChecker`], as a scenario's
//! statements are checked when the file loads (the same refusals, the same messages).
//!
//! Unlike a SQL step, a failing statement is not the step's failure: its error goes back
//! to the handler, which decides (an insert-first inbox's unique violation means "already
//! processed"; anything else it usually propagates with `?`).

use super::custom::{failed_refusal, is_unique_violation, Ran};
use super::*;
use crate::model::handler::{Answer, CallResult, FailedCall, SqlErrorKind, Value as HandlerValue};
use crate::model::BrokenTransaction;

impl Store {
    /// Runs one statement of a handler, parameters from `value`: the rows it changed, or
    /// its first row when `row`; a SQLite error is `Ok(Err(…))`, with its kind and why.
    /// Lock contention is `Err` ([`DbOutcome::Busy`] or [`DbOutcome::StaleSnapshot`]):
    /// nothing happened and the call is made again later.
    pub fn execute_handler_sql(
        &mut self,
        sql: &str,
        value: &dyn Fn(&str) -> Option<HandlerValue>,
        row: bool,
        now: Tick,
    ) -> Result<CallResult, DbOutcome> {
        self.now = now;
        let in_transaction = self.in_transaction();
        let sandbox = self.sandbox(0);
        let mut guard = sandbox.user(now);
        let value = |name: &str| value(name).map(to_sqlite);
        match self.run_user_statement_on(0, sql, &value, row, &mut guard) {
            Ok(Ran {
                first: Some(first), ..
            }) if row => Ok(Ok(Answer::Row(Some(
                first.into_iter().map(from_sqlite).collect(),
            )))),
            Ok(_) if row => Ok(Ok(Answer::Row(None))),
            Ok(ran) => Ok(Ok(Answer::Changed(ran.changed))),
            Err(e) => {
                if let Some(outcome) = contention(&e, 0) {
                    return Err(outcome);
                }
                let kind = if is_unique_violation(&e) {
                    SqlErrorKind::UniqueViolation
                } else {
                    SqlErrorKind::Other
                };
                let mut failed = FailedCall::of(kind, failed_refusal(&guard, &e));
                if in_transaction && !self.in_transaction() {
                    self.rolled_back_by_sqlite = true;
                    failed.failure.broken = Some(BrokenTransaction::RolledBackBySqlite);
                }
                Ok(Err(failed))
            }
        }
    }
}

pub(super) fn to_sqlite(v: HandlerValue) -> Value {
    match v {
        HandlerValue::Null => Value::Null,
        HandlerValue::Integer(i) => Value::Integer(i),
        HandlerValue::Real(x) => Value::Real(x),
        HandlerValue::Text(s) => Value::Text(s),
        HandlerValue::Blob(b) => Value::Blob(b),
    }
}

pub(super) fn from_sqlite(v: Value) -> HandlerValue {
    match v {
        Value::Null => HandlerValue::Null,
        Value::Integer(i) => HandlerValue::Integer(i),
        Value::Real(x) => HandlerValue::Real(x),
        Value::Text(s) => HandlerValue::Text(s),
        Value::Blob(b) => HandlerValue::Blob(b),
    }
}
