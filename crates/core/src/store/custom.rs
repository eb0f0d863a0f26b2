//! A scenario's own schema and SQL (issue 15): the database built from `store.schema` and
//! `store.setup` instead of the ledger, the SQL steps run on it with parameters bound from
//! the delivery, and the scenario's check queries.
//!
//! Every user statement runs in the connection's sandbox ([`super::sandbox`]): SQLite's
//! authorizer refuses what a simulated step must not do, `random()` and the clock are the
//! run's, and each statement is bounded in virtual-machine steps ([`MAX_VM_STEPS`]),
//! value size and memory; past a bound the statement fails (a failure of the step,
//! deterministic, reported), never a hang. The load-time check is [`super::checker`].

use super::pg::lexer;
use super::*;
use crate::model::{
    BrokenTransaction, CheckValue, DuplicateIf, InvariantResult, RefusalReason, SandboxRule,
    SqlBinding, SqlEvent, SqlFailure, SqlRan, SqlRefusal, SqlStep, SqlValue,
};
use sandbox::{Guard, Sandbox, MAX_VM_STEPS};

/// A scenario's own database and the queries that judge it.
#[derive(
    Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct CustomSchema {
    /// `CREATE …` statements, run in order on an empty database.
    pub schema: Vec<String>,
    /// Rows every run starts with (`INSERT …`), run after the schema.
    pub setup: Vec<String>,
    /// Counts one event's committed effects; bound with `:event_id`, `:event_type` and
    /// the payload's fields. Empty when the effect is an external call (`effect_call`).
    pub effects_per_event: String,
    /// `check.effect: {"external": S}`: the business effect is the calls to service `S`,
    /// counted per event as the outside world saw them, not rows of a database.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect_call: Option<String>,
    /// The database `effects_per_event` reads (see [`SqlStep::db`]): 0, the main one.
    #[serde(default, skip_serializing_if = "is_main")]
    pub effects_db: u8,
    /// Queries that must give true (a non-zero integer) at the end of every run.
    pub invariants: Vec<String>,
    /// The database each invariant reads, by position (see [`SqlStep::db`]); empty: every
    /// one reads the main database.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invariants_db: Vec<u8>,
    /// `store.databases`, in name order: database `k` of a step's `db` is `databases[k - 1]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub databases: Vec<NamedDatabase>,
    /// Whether a statement of the scenario may read the clock, as SQLite reported when
    /// the file loaded (see [`StatementShape::may_read_clock`]): then the instant is part
    /// of the state that decides the rest of a run.
    #[serde(skip)]
    #[schemars(skip)]
    pub reads_clock: bool,
}

fn is_main(db: &u8) -> bool {
    *db == 0
}

/// One of a scenario's named databases (`store.databases`): a SQLite database of its own,
/// with its own connection per consumer and its own transactions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct NamedDatabase {
    pub name: String,
    pub schema: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub setup: Vec<String>,
}

/// The most named databases a scenario may have.
pub const MAX_DATABASES: usize = 4;

impl CustomSchema {
    /// The name of database `db` (0: `main`).
    pub fn db_name(&self, db: u8) -> &str {
        match usize::from(db).checked_sub(1) {
            None => "main",
            Some(k) => &self.databases[k].name,
        }
    }

    /// Where the business effect lives when not in the main database: the named database
    /// `effects_per_event` reads, or the external service `check.effect` names.
    pub fn effect(&self) -> Option<crate::model::Effect> {
        use crate::model::{sql::intern, Effect};
        match &self.effect_call {
            Some(call) => intern(call).map(Effect::External),
            None if self.effects_db != 0 => intern(self.db_name(self.effects_db)).map(Effect::Db),
            None => None,
        }
    }

    /// The database invariant `i` reads.
    pub fn invariant_db(&self, i: usize) -> u8 {
        self.invariants_db.get(i).copied().unwrap_or(0)
    }

    /// The [`StoreConfig`] of named database `k` (from 1) alone, for its template.
    pub(super) fn named_config(&self, db: u8) -> StoreConfig {
        let d = &self.databases[usize::from(db) - 1];
        StoreConfig {
            custom: Some(CustomSchema {
                schema: d.schema.clone(),
                setup: d.setup.clone(),
                effects_per_event: String::new(),
                effect_call: None,
                effects_db: 0,
                invariants: Vec::new(),
                invariants_db: Vec::new(),
                databases: Vec::new(),
                reads_clock: false,
            }),
            ..StoreConfig::default()
        }
    }
}

/// The tables of a scenario's schema, in name order.
const TABLES: &str =
    "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name";

/// SQLite's refusal of a statement: its own message, or a parameter the tool could not
/// bind, or a string of several statements.
pub(super) fn sqlite_refusal(e: &rusqlite::Error) -> RefusalReason {
    let engine = |message: String| RefusalReason::Engine {
        engine: crate::model::Engine::Sqlite,
        message,
        sqlstate: None,
        quoted: false,
    };
    match e {
        rusqlite::Error::SqliteFailure(_, Some(message)) => engine(message.clone()),
        rusqlite::Error::SqlInputError { msg, .. } => engine(msg.clone()),
        rusqlite::Error::InvalidParameterName(name) if name.starts_with('?') => {
            RefusalReason::Positional { marker: None }
        }
        rusqlite::Error::InvalidParameterName(name) => {
            RefusalReason::Unbound { name: name.clone() }
        }
        rusqlite::Error::MultipleStatement => RefusalReason::SeveralStatements,
        other => engine(other.to_string()),
    }
}

pub(super) fn to_sql(v: SqlValue) -> Value {
    match v {
        SqlValue::Integer(i) => Value::Integer(i),
        SqlValue::Text(s) => Value::Text(s),
    }
}

/// What a check query gave, as the checker keeps it: a blob by its size, any other value
/// as SQL writes it ([`show`]).
fn checked(v: &Value) -> CheckValue {
    match v {
        Value::Blob(b) => CheckValue::Blob { bytes: b.len() },
        other => CheckValue::Read(show(other)),
    }
}

/// A value read back, as text for people.
pub(super) fn show(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Integer(i) => i.to_string(),
        Value::Real(x) => x.to_string(),
        Value::Text(s) => format!("'{s}'"),
        Value::Blob(b) => format!("a blob of {} bytes", b.len()),
    }
}

impl Store {
    /// Runs SQL step `step` from its statement `done` on (earlier ones ran before SQLite
    /// answered busy), parameters bound from `b`. Lock contention is
    /// [`DbOutcome::Busy`] or [`DbOutcome::StaleSnapshot`]; the step's `duplicate_if`
    /// gives [`DbOutcome::Duplicate`], [`DbOutcome::RowFound`] or [`DbOutcome::NoChange`];
    /// any other SQLite error is the step's failure, with SQLite's message (or the
    /// sandbox's reason, when the sandbox made it fail).
    pub fn execute_sql(
        &mut self,
        step: &SqlStep,
        b: &SqlBinding<'_>,
        done: u8,
    ) -> Result<SqlRan, SqlFailure> {
        self.now = b.now;
        let in_transaction = !self.conn_at(step.db).is_autocommit();
        let sandbox = self.sandbox(step.db);
        let mut guard = sandbox.user(b.now);
        let last = step.statements.len() - 1;
        let mut kept = None;
        for (i, sql) in step.statements.iter().enumerate().skip(usize::from(done)) {
            let value = |name: &str| b.value(name).map(handler_sql::to_sqlite);
            let keep = step.into.is_some() && i == last;
            let ran = match self.run_user_statement_on(step.db, sql, &value, keep, &mut guard) {
                Ok(ran) => ran,
                Err(e) => {
                    if let Some(o) = contention(&e, i as u8) {
                        return Ok(o.into());
                    }
                    if step.duplicate_if == Some(DuplicateIf::UniqueViolation)
                        && is_unique_violation(&e)
                    {
                        return Ok(DbOutcome::Duplicate.into());
                    }
                    let mut failure = SqlFailure::of(failed_refusal(&guard, &e));
                    if in_transaction && self.conn_at(step.db).is_autocommit() {
                        self.rolled_back_by_sqlite = true;
                        failure.broken = Some(BrokenTransaction::RolledBackBySqlite);
                    }
                    return Err(failure);
                }
            };
            match step.duplicate_if {
                Some(DuplicateIf::Row) if ran.rows > 0 => return Ok(DbOutcome::RowFound.into()),
                Some(DuplicateIf::NoChange) if ran.changed == 0 => {
                    return Ok(DbOutcome::NoChange.into())
                }
                _ => {}
            }
            if keep {
                kept = ran.first.map(|values| {
                    let names = ran.names.into_iter();
                    names
                        .zip(values.into_iter().map(handler_sql::from_sqlite))
                        .collect()
                });
            }
        }
        Ok(SqlRan {
            outcome: DbOutcome::Ran,
            row: kept,
        })
    }

    /// The sandbox of database `db` (0: the main one): every connection of a store with
    /// a scenario's own schema has one.
    pub(super) fn sandbox(&self, db: u8) -> Sandbox {
        self.sandboxes[usize::from(db)].clone()
    }

    /// Runs one user statement on database `db` (0: the main one) under `guard`, its
    /// parameters from `value`: the rows it returned, the rows it changed itself (as a
    /// driver's `rowcount`: not its triggers' rows), and its first row when `keep_row`.
    pub(super) fn run_user_statement_on(
        &mut self,
        db: u8,
        sql: &str,
        value: &dyn Fn(&str) -> Option<Value>,
        keep_row: bool,
        guard: &mut Guard<'_>,
    ) -> rusqlite::Result<Ran> {
        guard.next_statement();
        let conn = self.conn_at(db);
        let result = run_prepared(conn, sql, value, keep_row);
        // SQLite's authorizer saw the statement's actions if it was prepared just now; a
        // statement prepared earlier in the run was seen then.
        let fresh = guard.take_seen();
        let writes_rows = *self
            .writes_rows
            .entry(sql.to_string())
            .or_insert(fresh.writes_rows);
        // `changes()` counts the rows the last INSERT, UPDATE or DELETE changed itself
        // (not its triggers', not a foreign key's); any other statement leaves it alone.
        let changed = if writes_rows {
            self.conn_at(db).changes() as usize
        } else {
            0
        };
        // Whatever the statement came to: SQLite may have rolled the whole transaction back
        // (an interrupt, a full database), and then nothing is written any more.
        let ok = result.is_ok();
        match usize::from(db).checked_sub(1) {
            None => {
                self.wrote_in_transaction =
                    !self.conn().is_autocommit() && (self.wrote_in_transaction || ok)
            }
            Some(k) => {
                self.others_wrote[k] =
                    !self.others[k].is_autocommit() && (self.others_wrote[k] || ok)
            }
        }
        let (rows, first, names) = result?;
        Ok(Ran {
            rows,
            changed,
            first,
            names,
        })
    }

    /// The scenario's check queries on the committed database: each event's effects, and
    /// every invariant.
    pub(super) fn read_custom(&mut self, state: &mut CommittedState) {
        self.read_custom_on(None, state);
    }

    /// [`Store::read_custom`] for database `only` alone (its tables and invariants, and for
    /// the main one the effects), or every database for `None`.
    pub(super) fn read_custom_on(&mut self, only: Option<u8>, state: &mut CommittedState) {
        let Some(custom) = self.custom.clone() else {
            return;
        };
        state.custom = true;
        state.tables = self.table_rows(&custom, only);
        let events = Rc::clone(&self.sql_events);
        // An effect that is an external call has no query: the checker counts the calls.
        let effects_here =
            only.is_none_or(|db| db == custom.effects_db) && !custom.effects_per_event.is_empty();
        for e in events.iter().filter(|_| effects_here) {
            // A count that is not a non-negative integer counts as no effect (never
            // "once"), and the check itself is reported broken.
            let count = match self.check_value(custom.effects_db, &custom.effects_per_event, e) {
                Ok(Value::Integer(n)) if n >= 0 => n,
                got => {
                    let got = match got {
                        Ok(v) => checked(&v),
                        Err(f) => CheckValue::Failed(f),
                    };
                    state.invariants.push(InvariantResult {
                        sql: custom.effects_per_event.clone(),
                        holds: false,
                        value: CheckValue::NotACount {
                            event_id: e.event_id.clone(),
                            got: Box::new(got),
                        },
                    });
                    0
                }
            };
            state.effects.insert(e.event_id.clone(), count);
        }
        // An invariant names no parameter (checked at load): no event to bind.
        let none = SqlEvent::default();
        for (i, sql) in custom.invariants.iter().enumerate() {
            let db = custom.invariant_db(i);
            if only.is_some_and(|only| only != db) {
                continue;
            }
            let (holds, value) = match self.check_value(db, sql, &none) {
                Ok(v) => (matches!(v, Value::Integer(i) if i != 0), checked(&v)),
                Err(f) => (false, CheckValue::Failed(f)),
            };
            state.invariants.push(InvariantResult {
                sql: sql.clone(),
                holds,
                value,
            });
        }
    }

    /// What check query `sql` gives for event `e` on database `db`, run as a check: in
    /// the sandbox, at the store's latest virtual time, drawing from a check's stream.
    fn check_value(&self, db: u8, sql: &str, e: &SqlEvent) -> Result<Value, SqlFailure> {
        let sandbox = self.sandbox(db);
        let guard = sandbox.check(self.now);
        query_first(self.conn_at(db), sql, e)
            .map_err(|error| SqlFailure::of(failed_refusal(&guard, &error)))
    }

    /// The rows of every table of the scenario's schema; a named database's tables are
    /// `NAME.table`.
    fn table_rows(&self, custom: &CustomSchema, only: Option<u8>) -> BTreeMap<String, i64> {
        let mut rows = BTreeMap::new();
        let all = 0..=self.others.len() as u8;
        for db in all.filter(|db| only.is_none_or(|only| only == *db)) {
            let conn = self.conn_at(db);
            let prefix = match db {
                0 => String::new(),
                _ => format!("{}.", custom.db_name(db)),
            };
            let names: Vec<String> = conn
                .prepare_cached(TABLES)
                .and_then(|mut q| q.query_map([], |r| r.get(0))?.collect())
                .expect("the schema query");
            for t in names {
                let sql = format!("SELECT count(*) FROM \"{}\"", t.replace('"', "\"\""));
                let n = conn
                    .prepare_cached(&sql)
                    .and_then(|mut q| q.query_row([], |r| r.get(0)))
                    .expect("a count");
                rows.insert(format!("{prefix}{t}"), n);
            }
        }
        rows
    }

    /// The committed effects of event `event_id` alone, as `check.effects_per_event` counts
    /// them (0 for a count that is not one).
    pub(super) fn own_effects_of(&mut self, event_id: &str) -> u32 {
        let Some(custom) = self
            .custom
            .clone()
            .filter(|c| !c.effects_per_event.is_empty())
        else {
            return 0;
        };
        let events = Rc::clone(&self.sql_events);
        let Some(e) = events.iter().find(|e| e.event_id == event_id) else {
            return 0;
        };
        match self.check_value(custom.effects_db, &custom.effects_per_event, e) {
            Ok(Value::Integer(n)) => u32::try_from(n).unwrap_or(if n < 0 { 0 } else { u32::MAX }),
            _ => 0,
        }
    }
}

/// Binds every named parameter of `stmt` from `value`. Each parameter of a scenario's
/// statement was checked when it loaded; a handler's statement may name one that `value`
/// does not know, or be positional (`?`): that is an error of the statement.
pub(super) fn bind(
    stmt: &mut rusqlite::Statement<'_>,
    value: &dyn Fn(&str) -> Option<Value>,
) -> rusqlite::Result<()> {
    for i in 1..=stmt.parameter_count() {
        let unbound = |name: &str| rusqlite::Error::InvalidParameterName(name.to_string());
        let name = match stmt.parameter_name(i) {
            Some(name) if !name.starts_with('?') => name.to_string(),
            other => return Err(unbound(other.unwrap_or("?"))),
        };
        let v = value(&lexer::from_sqlite_name(&name[1..])).ok_or_else(|| unbound(&name))?;
        stmt.raw_bind_parameter(i, v)?;
    }
    Ok(())
}

/// What one user statement gave: the rows it returned, the rows it changed itself, and
/// its first row when asked for.
pub(super) struct Ran {
    pub rows: usize,
    pub changed: usize,
    pub first: Option<Vec<Value>>,
    /// The names of its columns, when its first row was asked for.
    pub names: Vec<String>,
}

/// Prepares (through the statement cache) and runs `sql` to its end on `conn`: the rows
/// it returned, and its first row when `keep_row`.
fn run_prepared(
    conn: &Connection,
    sql: &str,
    value: &dyn Fn(&str) -> Option<Value>,
    keep_row: bool,
) -> rusqlite::Result<(usize, Option<Vec<Value>>, Vec<String>)> {
    let mut stmt = conn.prepare_cached(&lexer::sqlite_text(sql))?;
    bind(&mut stmt, value)?;
    let mut rows = 0;
    let mut first = None;
    if stmt.column_count() == 0 {
        stmt.raw_execute()?;
        return Ok((0, None, Vec::new()));
    }
    let columns = stmt.column_count();
    let names = match keep_row {
        true => stmt.column_names().into_iter().map(String::from).collect(),
        false => Vec::new(),
    };
    let mut it = stmt.raw_query();
    while let Some(row) = it.next()? {
        if keep_row && first.is_none() {
            first = Some(
                (0..columns)
                    .map(|i| row.get::<_, Value>(i))
                    .collect::<rusqlite::Result<Vec<_>>>()?,
            );
        }
        rows += 1;
    }
    Ok((rows, first, names))
}

/// The first column of the first row `sql` gives for event `e` (`NULL` for no row), or
/// the error's message; run by the caller inside a check's guard.
pub(super) fn first_value(conn: &Connection, sql: &str, e: &SqlEvent) -> Result<Value, String> {
    query_first(conn, sql, e).map_err(|e| failure_message(&e))
}

/// The first column of the first row `sql` gives for event `e` (`NULL` for no row).
fn query_first(conn: &Connection, sql: &str, e: &SqlEvent) -> rusqlite::Result<Value> {
    let mut stmt = conn.prepare_cached(sql)?;
    bind(&mut stmt, &|name| e.field(name).map(to_sql))?;
    let mut rows = stmt.raw_query();
    match rows.next()? {
        Some(row) => row.get::<_, Value>(0),
        None => Ok(Value::Null),
    }
}

/// Whether `e` is a `UNIQUE` or `PRIMARY KEY` constraint's error.
pub(super) fn is_unique_violation(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
            || f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY)
}

/// Why a statement failed: SQLite's refusal, or the budget of steps that interrupted it.
pub(super) fn failure_refusal(e: &rusqlite::Error) -> RefusalReason {
    match e {
        rusqlite::Error::SqliteFailure(f, _) if f.code == ErrorCode::OperationInterrupted => {
            RefusalReason::Sandbox(SandboxRule::Steps {
                limit: MAX_VM_STEPS,
            })
        }
        other => sqlite_refusal(other),
    }
}

/// A failed step's message: SQLite's, or the budget that interrupted it.
pub(super) fn failure_message(e: &rusqlite::Error) -> String {
    SqlRefusal::of(failure_refusal(e)).english()
}

/// Why a statement that failed under `guard` failed: the sandbox's rule when the sandbox
/// made it fail, else [`failure_refusal`].
pub(super) fn failed_refusal(guard: &Guard<'_>, e: &rusqlite::Error) -> SqlRefusal {
    match guard.why_failed() {
        Some(rule) => SqlRefusal::of(rule),
        None => SqlRefusal::of(failure_refusal(e)),
    }
}
