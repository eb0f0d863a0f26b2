//! A scenario's own schema and SQL (issue 15): the database built from `store.schema` and
//! `store.setup` instead of the ledger, the SQL steps run on it with parameters bound from
//! the delivery, the scenario's check queries, and the load-time check that prepares every
//! statement against the schema.
//!
//! User SQL is held to what a simulation needs to stay a pure function of the scenario
//! and the seed, and to stay bounded:
//! - no clock and no randomness: `random()`, the date and time functions and
//!   `CURRENT_TIMESTAMP` are refused (virtual time is `:now`); so are `'now'` literals;
//! - no transaction control inside a step (`begin` and `commit` are the protocol's steps,
//!   so that crash points, recovery and commit timeouts know where a transaction is), no
//!   `ATTACH`, `DETACH` or `PRAGMA` (a connection setting would not survive the template
//!   copy, and a file must not be written);
//! - every statement runs under a budget of SQLite virtual-machine steps
//!   ([`MAX_VM_STEPS`]) and values are at most [`MAX_VALUE_BYTES`]: past them the statement
//!   fails (a failure of the step, deterministic, reported), never a hang.

use super::*;
use crate::model::{DuplicateIf, InvariantResult, SqlBinding, SqlEvent, SqlStep, SqlValue};
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;

/// A scenario's own database and the queries that judge it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct CustomSchema {
    /// `CREATE …` statements, run in order on an empty database.
    pub schema: Vec<String>,
    /// Rows every run starts with (`INSERT …`), run after the schema.
    pub setup: Vec<String>,
    /// Counts one event's committed effects; bound with `:event_id`, `:event_type` and
    /// the payload's fields.
    pub effects_per_event: String,
    /// Queries that must give true (a non-zero integer) at the end of every run.
    pub invariants: Vec<String>,
    /// The database each invariant reads, by position (see [`SqlStep::db`]); empty: every
    /// one reads the main database.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invariants_db: Vec<u8>,
    /// `store.databases`, in name order: database `k` of a step's `db` is `databases[k - 1]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub databases: Vec<NamedDatabase>,
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
                invariants: Vec::new(),
                invariants_db: Vec::new(),
                databases: Vec::new(),
            }),
            ..StoreConfig::default()
        }
    }
}

/// The most SQLite virtual-machine steps one user statement may take (an indexed insert
/// takes tens; a scan of a 10,000-row table some hundred thousand).
pub const MAX_VM_STEPS: u32 = 2_000_000;

/// The largest string or blob a user statement may build (`SQLITE_LIMIT_LENGTH`).
pub const MAX_VALUE_BYTES: i32 = 1_000_000;

/// The largest a scenario's own database may grow (`max_page_count`): a run holds a copy
/// of the template and each thread a few idle connections, so this keeps every command far
/// inside its memory budget.
pub const MAX_DATABASE_BYTES: i64 = 32 * 1024 * 1024;

/// The tables of a scenario's schema, in name order.
const TABLES: &str =
    "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name";

/// How many virtual-machine steps pass between two calls of the progress handler.
const VM_STEPS_PER_CALL: i32 = 1_000;

/// Functions whose result is not a function of the statement's arguments and the
/// database: the wall clock and randomness. (`CURRENT_TIMESTAMP` and its twins are refused
/// by [`refuse_now_literal`] before a statement is prepared or run.)
const NONDETERMINISTIC: [&str; 9] = [
    "random",
    "randomblob",
    "date",
    "time",
    "datetime",
    "julianday",
    "unixepoch",
    "strftime",
    "timediff",
];

/// Functions that read the connection's state rather than the database: a simulated crash
/// keeps the connection, a real one does not.
const CONNECTION_STATE: [&str; 3] = ["last_insert_rowid", "changes", "total_changes"];

/// A prepared statement's shape, for the load-time checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatementShape {
    /// Its named parameters, without their `:`, `@` or `$`.
    pub parameters: Vec<String>,
    /// How many columns a row of it has (0: it returns no rows).
    pub columns: usize,
    /// Whether it writes nothing.
    pub readonly: bool,
}

/// A scratch database built from a scenario's schema and setup, to prepare its statements
/// against when the scenario loads.
pub struct SqlChecker {
    conn: Connection,
}

/// Where building a scenario's schema failed: `(in setup, index, SQLite's message)`.
pub type SchemaProblem = (bool, usize, String);

impl SqlChecker {
    /// Builds the schema then the setup; the first statement that fails is named.
    pub fn new(schema: &[String], setup: &[String]) -> Result<SqlChecker, SchemaProblem> {
        let conn = Connection::open_in_memory().map_err(|e| (false, 0, e.to_string()))?;
        build_custom(&conn, schema, setup)?;
        Ok(SqlChecker { conn })
    }

    /// Prepares `sql` as a step or check statement: one statement, no forbidden function
    /// or statement, named parameters only.
    pub fn prepare(&self, sql: &str) -> Result<StatementShape, String> {
        refuse_now_literal(sql)?;
        let refused = guard(&self.conn);
        let prepared = self.conn.prepare(sql);
        self.conn
            .authorizer(None::<fn(AuthContext<'_>) -> Authorization>);
        let stmt = match prepared {
            Ok(stmt) => stmt,
            Err(e) => {
                return Err(match refused.lock().expect("not poisoned").take() {
                    Some(why) => why,
                    None => sqlite_message(&e),
                })
            }
        };
        if stmt.expanded_sql().is_none() {
            return Err("no statement here (only a comment?)".to_string());
        }
        let mut parameters = Vec::new();
        for i in 1..=stmt.parameter_count() {
            match stmt.parameter_name(i) {
                Some(name) if !name.starts_with('?') => parameters.push(name[1..].to_string()),
                _ => {
                    return Err(
                        "positional parameters (`?`) are not bound; name them (`:event_id`)"
                            .to_string(),
                    )
                }
            }
        }
        Ok(StatementShape {
            parameters,
            columns: stmt.column_count(),
            readonly: stmt.readonly(),
        })
    }
}

impl SqlChecker {
    /// What check query `sql` gives for `event` on the database as every run starts: a
    /// count of effects must be 0 there, or it does not count what the consumer commits.
    pub fn value_before_any_delivery(&self, sql: &str, event: &SqlEvent) -> String {
        match first_value(&self.conn, sql, event) {
            Ok(v) => show(&v),
            Err(e) => e,
        }
    }
}

/// Refuses, while statements are prepared on `conn`, what a simulated step must not do;
/// the reason of the last refusal is left in the returned cell.
fn guard(conn: &Connection) -> std::sync::Arc<std::sync::Mutex<Option<String>>> {
    let refused = std::sync::Arc::new(std::sync::Mutex::new(None));
    let cell = std::sync::Arc::clone(&refused);
    conn.authorizer(Some(move |ctx: AuthContext<'_>| {
        let why = match ctx.action {
            AuthAction::Transaction { .. } | AuthAction::Savepoint { .. } => Some(
                "transaction statements belong to the protocol's `begin` and `commit` steps, \
                 so that crash points, recovery and commit timeouts know where a \
                 transaction is"
                    .to_string(),
            ),
            AuthAction::Attach { .. } | AuthAction::Detach { .. } => {
                Some("ATTACH and DETACH are not allowed: a run writes no files".to_string())
            }
            AuthAction::Pragma { pragma_name, .. } => Some(format!(
                "PRAGMA {pragma_name} is not allowed: a connection setting does not carry \
                 over to the copies of the database each run starts from"
            )),
            AuthAction::CreateTempTable { .. }
            | AuthAction::CreateTempIndex { .. }
            | AuthAction::CreateTempTrigger { .. }
            | AuthAction::CreateTempView { .. }
            | AuthAction::CreateVtable { .. } => Some(
                "temporary tables, indexes, triggers and views live in a connection, which a \
                 restarted process does not have (and virtual tables are not part of a \
                 database file); create a table in the schema"
                    .to_string(),
            ),
            AuthAction::Function { function_name }
                if CONNECTION_STATE.contains(&function_name.to_ascii_lowercase().as_str()) =>
            {
                Some(format!(
                    "{function_name}() reads the connection's state, which a restarted process \
                     does not have; read the rows instead"
                ))
            }
            AuthAction::Function { function_name }
                if NONDETERMINISTIC.contains(&function_name.to_ascii_lowercase().as_str()) =>
            {
                Some(format!(
                    "{function_name}() reads the wall clock or a random source, so runs \
                     would not replay; use :now (the virtual time, an integer tick), \
                     :delivery or :event_id"
                ))
            }
            _ => None,
        };
        match why {
            Some(why) => {
                *cell.lock().expect("not poisoned") = Some(why);
                Authorization::Deny
            }
            None => Authorization::Allow,
        }
    }));
    refused
}

/// Refuses a `'now'` string literal, the date functions' wall clock, even where the
/// function itself is called through a column default.
fn refuse_now_literal(sql: &str) -> Result<(), String> {
    let lower = sql.to_ascii_lowercase();
    if lower.contains("'now'") || lower.contains("\"now\"") {
        return Err(
            "'now' reads the wall clock, so runs would not replay; use :now, the \
                    virtual time (an integer tick)"
                .to_string(),
        );
    }
    for keyword in ["current_timestamp", "current_date", "current_time"] {
        if lower.contains(keyword) {
            return Err(format!(
                "{} reads the wall clock, so runs would not replay; use :now, the virtual \
                 time (an integer tick)",
                keyword.to_ascii_uppercase()
            ));
        }
    }
    Ok(())
}

/// SQLite's own message for `e`, without rusqlite's wrapping.
fn sqlite_message(e: &rusqlite::Error) -> String {
    match e {
        rusqlite::Error::SqliteFailure(_, Some(message)) => message.clone(),
        rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
        rusqlite::Error::InvalidParameterName(name) if name.starts_with('?') => {
            "positional parameters (`?`) are not bound; name them (`:event_id`)".into()
        }
        rusqlite::Error::InvalidParameterName(name) => format!(
            "parameter {name} is not bound: give it in the call's parameters, or name a \
             delivery parameter (:event_id, :event_type, :now, :delivery, :consumer) or a \
             payload field"
        ),
        rusqlite::Error::MultipleStatement => {
            "more than one statement in one string; give a list of statements instead".into()
        }
        other => other.to_string(),
    }
}

/// Builds a scenario's schema and setup on `conn`, each statement under the same guard and
/// budget as a step's.
pub(super) fn build_custom(
    conn: &Connection,
    schema: &[String],
    setup: &[String],
) -> Result<(), SchemaProblem> {
    limit(conn);
    for (in_setup, list) in [(false, schema), (true, setup)] {
        for (i, sql) in list.iter().enumerate() {
            refuse_now_literal(sql).map_err(|m| (in_setup, i, m))?;
            let refused = guard(conn);
            let result = budgeted(conn, || conn.execute_batch(sql));
            conn.authorizer(None::<fn(AuthContext<'_>) -> Authorization>);
            if let Err(e) = result {
                let why = refused.lock().expect("not poisoned").take();
                let why = why.unwrap_or_else(|| format!("SQLite says: {}", sqlite_message(&e)));
                return Err((in_setup, i, why));
            }
            if let Some(why) = nondeterministic_default(conn) {
                return Err((in_setup, i, why));
            }
        }
    }
    Ok(())
}

/// A column default that calls a function of [`NONDETERMINISTIC`] or [`CONNECTION_STATE`]:
/// SQLite evaluates a default when a row is inserted without the column, where the
/// authorizer does not see it.
fn nondeterministic_default(conn: &Connection) -> Option<String> {
    let defaults: Vec<(String, String, String)> = conn
        .prepare(
            "SELECT m.name, c.name, c.dflt_value FROM sqlite_schema AS m, \
             pragma_table_xinfo(m.name) AS c \
             WHERE m.type = 'table' AND c.dflt_value IS NOT NULL ORDER BY m.name, c.cid",
        )
        .and_then(|mut q| {
            q.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect()
        })
        .unwrap_or_default();
    defaults.into_iter().find_map(|(table, column, default)| {
        let lower = default.to_ascii_lowercase();
        let calls = |f: &&&str| {
            lower.match_indices(**f).any(|(at, _)| {
                let before = lower[..at].chars().next_back();
                let after = lower[at + f.len()..].trim_start();
                !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                    && after.starts_with('(')
            })
        };
        let f = NONDETERMINISTIC
            .iter()
            .chain(&CONNECTION_STATE)
            .find(calls)?;
        Some(format!(
            "the default of {table}.{column} ({default}) calls {f}, which reads a clock, a \
             random source or the connection, so runs would not replay; give the value in \
             the INSERT (:now is the virtual time)"
        ))
    })
}

/// Caps the values a user statement may build on `conn`, and the database's size: a
/// statement that would grow it past [`MAX_DATABASE_BYTES`] fails ("database or disk is
/// full"), a failure of its step like any other.
pub(super) fn limit(conn: &Connection) {
    // Fails only for a limit SQLite does not know.
    let _ = conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES);
    let page_bytes: i64 = conn
        .pragma_query_value(None, "page_size", |r| r.get(0))
        .unwrap_or(4096);
    let pages = MAX_DATABASE_BYTES / page_bytes.max(512);
    conn.pragma_update(None, "max_page_count", pages)
        .expect("max_page_count is a pragma of every connection");
}

/// Runs `f` on `conn` under the budget of [`MAX_VM_STEPS`] virtual-machine steps.
fn budgeted<T>(conn: &Connection, f: impl FnOnce() -> T) -> T {
    let mut calls = 0u32;
    conn.progress_handler(
        VM_STEPS_PER_CALL,
        Some(move || {
            calls += 1;
            calls > MAX_VM_STEPS / VM_STEPS_PER_CALL as u32
        }),
    );
    let result = f();
    conn.progress_handler(0, None::<fn() -> bool>);
    result
}

pub(super) fn to_sql(v: SqlValue) -> Value {
    match v {
        SqlValue::Integer(i) => Value::Integer(i),
        SqlValue::Text(s) => Value::Text(s),
    }
}

/// A value read back, as text for people.
fn show(v: &Value) -> String {
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
    /// any other SQLite error is the step's failure, with SQLite's message.
    pub fn execute_sql(
        &mut self,
        step: &SqlStep,
        b: &SqlBinding<'_>,
        done: u8,
    ) -> Result<DbOutcome, String> {
        let in_transaction = !self.conn_at(step.db).is_autocommit();
        for (i, sql) in step.statements.iter().enumerate().skip(usize::from(done)) {
            let run =
                self.run_user_statement_on(step.db, sql, &|name| b.get(name).map(to_sql), false);
            let (rows, changed, _) = match run {
                Ok(counts) => counts,
                Err(e) => {
                    if let Some(o) = contention(&e, i as u8) {
                        return Ok(o);
                    }
                    if step.duplicate_if == Some(DuplicateIf::UniqueViolation)
                        && is_unique_violation(&e)
                    {
                        return Ok(DbOutcome::Duplicate);
                    }
                    if in_transaction && self.conn_at(step.db).is_autocommit() {
                        self.rolled_back_by_sqlite = true;
                        return Err(format!(
                            "{} (SQLite rolled the whole transaction back itself)",
                            failure_message(&e)
                        ));
                    }
                    return Err(failure_message(&e));
                }
            };
            match step.duplicate_if {
                Some(DuplicateIf::Row) if rows > 0 => return Ok(DbOutcome::RowFound),
                Some(DuplicateIf::NoChange) if changed == 0 => return Ok(DbOutcome::NoChange),
                _ => {}
            }
        }
        Ok(DbOutcome::Ran)
    }

    /// Runs one user statement, its parameters from `value`: the rows it returned, the
    /// rows it changed, and its first row when `keep_row`.
    pub(super) fn run_user_statement(
        &mut self,
        sql: &str,
        value: &dyn Fn(&str) -> Option<Value>,
        keep_row: bool,
    ) -> rusqlite::Result<(usize, usize, Option<Vec<Value>>)> {
        self.run_user_statement_on(0, sql, value, keep_row)
    }

    /// [`Store::run_user_statement`] on database `db` (0: the main one).
    fn run_user_statement_on(
        &mut self,
        db: u8,
        sql: &str,
        value: &dyn Fn(&str) -> Option<Value>,
        keep_row: bool,
    ) -> rusqlite::Result<(usize, usize, Option<Vec<Value>>)> {
        let conn = self.conn_at(db);
        let before = conn.total_changes();
        let counts = budgeted(conn, || {
            let mut stmt = conn.prepare_cached(sql)?;
            bind(&mut stmt, value)?;
            let mut rows = 0;
            let mut first = None;
            if stmt.column_count() > 0 {
                let columns = stmt.column_count();
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
            } else {
                stmt.raw_execute()?;
            }
            Ok::<_, rusqlite::Error>((rows, first))
        });
        // Whatever the statement came to: SQLite may have rolled the whole transaction back
        // (an interrupt, a full database), and then nothing is written any more.
        let changed = (conn.total_changes() - before) as usize;
        match usize::from(db).checked_sub(1) {
            None => {
                self.wrote_in_transaction =
                    !self.conn().is_autocommit() && (self.wrote_in_transaction || counts.is_ok())
            }
            Some(k) => {
                self.others_wrote[k] =
                    !self.others[k].is_autocommit() && (self.others_wrote[k] || counts.is_ok())
            }
        }
        let (rows, first) = counts?;
        Ok((rows, changed, first))
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
        let effects_here = only.is_none_or(|db| db == 0);
        for e in events.iter().filter(|_| effects_here) {
            // A count that is not a non-negative integer counts as no effect (never
            // "once"), and the check itself is reported broken.
            let count = match first_value(self.conn(), &custom.effects_per_event, e) {
                Ok(Value::Integer(n)) if n >= 0 => n,
                got => {
                    let value = match got {
                        Ok(v) => show(&v),
                        Err(e) => e,
                    };
                    state.invariants.push(InvariantResult {
                        sql: custom.effects_per_event.clone(),
                        holds: false,
                        value: format!("{value} for {}, not a count", e.event_id),
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
            let conn = self.conn_at(db);
            let (holds, value) = match first_value(conn, sql, &none) {
                Ok(v) => (matches!(v, Value::Integer(i) if i != 0), show(&v)),
                Err(e) => (false, e),
            };
            state.invariants.push(InvariantResult {
                sql: sql.clone(),
                holds,
                value,
            });
        }
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
        let Some(custom) = self.custom.clone() else {
            return 0;
        };
        let events = Rc::clone(&self.sql_events);
        let Some(e) = events.iter().find(|e| e.event_id == event_id) else {
            return 0;
        };
        match first_value(self.conn(), &custom.effects_per_event, e) {
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
        let v = value(&name[1..]).ok_or_else(|| unbound(&name))?;
        stmt.raw_bind_parameter(i, v)?;
    }
    Ok(())
}

/// The first column of the first row `sql` gives for event `e` (`NULL` for no row), or
/// the error's message.
fn first_value(conn: &Connection, sql: &str, e: &SqlEvent) -> Result<Value, String> {
    budgeted(conn, || {
        let mut stmt = conn.prepare_cached(sql)?;
        bind(&mut stmt, &|name| e.field(name).map(to_sql))?;
        let mut rows = stmt.raw_query();
        match rows.next()? {
            Some(row) => row.get::<_, Value>(0),
            None => Ok(Value::Null),
        }
    })
    .map_err(|e| failure_message(&e))
}

/// Whether `e` is a `UNIQUE` or `PRIMARY KEY` constraint's error.
pub(super) fn is_unique_violation(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
            || f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY)
}

/// A failed step's message: SQLite's, or the budget that interrupted it.
pub(super) fn failure_message(e: &rusqlite::Error) -> String {
    match e {
        rusqlite::Error::SqliteFailure(f, _) if f.code == ErrorCode::OperationInterrupted => {
            format!(
                "interrupted after {MAX_VM_STEPS} SQLite virtual-machine steps, the limit for \
                 one statement"
            )
        }
        other => sqlite_message(other),
    }
}
