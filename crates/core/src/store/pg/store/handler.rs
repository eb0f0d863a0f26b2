//! A Rust handler's statements on PostgreSQL: bound as literals, run on the consumer's
//! backend as a SQL step's are (settled, a wait for a lock a half-done call), their answers
//! read as typed values from their columns' types.
//!
//! Unlike SQLite, PostgreSQL aborts the whole transaction when one of its statements fails
//! (a unique violation too): every statement after it fails until `ROLLBACK`, and a
//! `COMMIT` rolls back. A handler that catches the error and goes on — as an insert-first
//! inbox written for SQLite or with a framework's "ignore duplicate" may — gets exactly
//! that, and its `commit` fails saying so.

use super::{clock, refusal, unbound, PgStore};
use crate::model::handler::{Answer, CallResult, FailedCall, SqlErrorKind, Value};
use crate::model::{BrokenTransaction, DbOutcome, Tick};
use crate::store::pg::lexer::{self, Literal};
use crate::store::pg::session::Exec;

/// The type oids read as integers, reals, booleans and bytes; any other is text.
const INTEGERS: [u32; 4] = [20, 21, 23, 26]; // int8, int2, int4, oid
const REALS: [u32; 3] = [700, 701, 1700]; // float4, float8, numeric
const BOOL: u32 = 16;
const BYTEA: u32 = 17;

impl PgStore {
    /// Runs one statement of a handler on the main database, parameters from `value`:
    /// the rows it changed, or its first row when `row`; PostgreSQL's error is the answer's.
    /// A wait for another transaction's lock is `Err(Blocked)`: the call is made again at
    /// the consumer's next turn, and answered once the lock holder ended.
    pub(in crate::store::pg) fn handler_statement(
        &mut self,
        sql: &str,
        value: &dyn Fn(&str) -> Option<Value>,
        row: bool,
        now: Tick,
    ) -> Result<CallResult, DbOutcome> {
        self.now = now;
        let bound = match lexer::bind(sql, &|name| value(name).map(literal)) {
            Ok(b) => b,
            Err(n) => return Ok(Err(FailedCall::of(SqlErrorKind::Other, unbound(n)))),
        };
        let began = self.began(0).unwrap_or(now);
        let text = format!("{}{bound}", clock(now, began));
        let session = self.session(0);
        let key = format!("handler#{sql}");
        let answer = match self
            .run
            .borrow_mut()
            .execute_typed(session, &key, &text, &bound)
        {
            Exec::Blocked => return Err(DbOutcome::Blocked { done: 0 }),
            Exec::Answered(answer) => answer,
        };
        match answer {
            Err(e) => {
                let kind = match e.is_unique_violation() {
                    true => SqlErrorKind::UniqueViolation,
                    false => SqlErrorKind::Other,
                };
                let mut failed = FailedCall::of(kind, refusal(&e));
                if self.began(0).is_some() && !self.aborted {
                    self.aborted = true;
                    failed.failure.broken = Some(BrokenTransaction::AbortedOnPostgres);
                }
                Ok(Err(failed))
            }
            Ok(ran) if row => {
                let first = ran.rows.into_iter().next();
                Ok(Ok(Answer::Row(first.map(|r| typed(r, &ran.types)))))
            }
            Ok(ran) => Ok(Ok(Answer::Changed(
                usize::try_from(ran.changed).unwrap_or(usize::MAX),
            ))),
        }
    }
}

pub(in crate::store::pg) fn literal(v: Value) -> Literal {
    match v {
        Value::Null => Literal::Null,
        Value::Integer(i) => Literal::Integer(i),
        Value::Real(x) => Literal::Real(x),
        Value::Text(s) => Literal::Text(s),
        Value::Blob(b) => Literal::Blob(b),
    }
}

/// A row's text values read by their columns' types (text when a type is not known).
pub(in crate::store::pg) fn typed(row: Vec<Option<String>>, types: &[u32]) -> Vec<Value> {
    row.into_iter()
        .enumerate()
        .map(|(i, v)| match (v, types.get(i).copied()) {
            (None, _) => Value::Null,
            (Some(v), Some(t)) if INTEGERS.contains(&t) => {
                v.parse().map_or(Value::Text(v), Value::Integer)
            }
            (Some(v), Some(t)) if REALS.contains(&t) => {
                v.parse().map_or(Value::Text(v), Value::Real)
            }
            (Some(v), Some(BOOL)) => Value::Integer(i64::from(v == "t")),
            (Some(v), Some(BYTEA)) => bytes(&v).map_or(Value::Text(v), Value::Blob),
            (Some(v), _) => Value::Text(v),
        })
        .collect()
}

/// `bytea`'s hex output (`\x0a1b…`) as bytes.
fn bytes(text: &str) -> Option<Vec<u8>> {
    let hex = text.strip_prefix("\\x")?;
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_answers_are_read_by_their_columns_types() {
        let row = ["7", "2.5", "t", "\\x00ff", "abc"]
            .map(|s| Some(s.to_string()))
            .into_iter()
            .chain([None])
            .collect();
        let values = typed(row, &[20, 701, 16, 17, 25, 23]);
        assert_eq!(
            values,
            [
                Value::Integer(7),
                Value::Real(2.5),
                Value::Integer(1),
                Value::Blob(vec![0, 255]),
                Value::Text("abc".into()),
                Value::Null,
            ]
        );
        // Numeric beyond a float's range of exact integers is still read, as a real.
        assert_eq!(
            typed(vec![Some("1e3".into())], &[1700]),
            [Value::Real(1000.0)]
        );
        assert_eq!(bytes("\\x0"), None);
    }

    #[test]
    fn a_handlers_values_bind_as_literals_postgresql_reads_back() {
        let sql = lexer::bind("SELECT :a, :b, :c, :d", &|n| {
            Some(match n {
                "a" => literal(Value::Null),
                "b" => literal(Value::Real(0.1)),
                "c" => literal(Value::Blob(vec![1, 171])),
                _ => literal(Value::Text("it's".into())),
            })
        })
        .unwrap();
        assert_eq!(sql, "SELECT NULL, '0.1'::float8, '\\x01ab'::bytea, 'it''s'");
    }
}
