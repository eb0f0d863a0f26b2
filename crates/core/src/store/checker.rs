//! The load-time check of a scenario's own SQL: a scratch database built from its schema
//! and setup, in the sandbox every run uses, against which each statement is prepared (not
//! run) when the file loads, so that a syntax error, an unknown table, a refused action or
//! a statement that would write a file exits 2 naming its field, never later in a run.
//! What SQLite reports while preparing (the functions called, triggers and views included;
//! whether the statement itself writes rows or changes the schema) is the statement's
//! [`StatementShape`].

use super::custom::{failure_refusal, first_value, show, sqlite_refusal};
use super::sandbox::{Sandbox, Seen};
use super::*;
use crate::model::{NoDatabase, RefusalReason, SandboxRule, SqlEvent, SqlRefusal};
use crate::sim::Stream;
use std::collections::{BTreeMap, BTreeSet};

/// A prepared statement's shape, for the load-time checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatementShape {
    /// Its named parameters, without their `:`, `@` or `$`.
    pub parameters: Vec<String>,
    /// How many columns a row of it has (0: it returns no rows).
    pub columns: usize,
    /// Their names, where the engine says them before a run (empty on PostgreSQL when it
    /// could not prepare the statement ahead).
    pub column_names: Vec<String>,
    /// Whether it writes nothing.
    pub readonly: bool,
    /// What SQLite's authorizer saw while preparing it.
    pub seen: Seen,
}

impl StatementShape {
    /// Whether the statement may read the clock: it binds `:now`, or calls a date or time
    /// function (itself, or through a trigger or a view). What a trigger, a view or a
    /// default it creates may call is asked of [`SqlChecker::reads_clock_after`].
    pub fn may_read_clock(&self) -> bool {
        self.parameters.iter().any(|p| p == "now") || calls_the_clock(&self.seen.functions)
    }
}

fn calls_the_clock(functions: &BTreeSet<String>) -> bool {
    (functions.iter()).any(|f| sandbox::CLOCK_FUNCTIONS.contains(&f.as_str()))
}

/// A scratch database built from a scenario's schema and setup, to prepare its statements
/// against when the scenario loads.
pub struct SqlChecker {
    conn: Connection,
    sandbox: Sandbox,
    /// On `store.engine: "postgres"`: the checks are PostgreSQL's (the SQLite connection
    /// above stays empty).
    pg: Option<super::pg::PgChecker>,
}

/// Where building a scenario's schema failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaProblem {
    /// Statement `index` of the schema (of the setup when `in_setup`) was refused.
    Statement {
        in_setup: bool,
        index: usize,
        refusal: SqlRefusal,
    },
    /// The engine could not give the check a database at all.
    NoDatabase(NoDatabase),
}

/// Where building a scenario's schema on SQLite failed: `(in setup, index, why)`.
pub type StatementProblem = (bool, usize, SqlRefusal);

impl From<StatementProblem> for SchemaProblem {
    fn from((in_setup, index, refusal): StatementProblem) -> SchemaProblem {
        SchemaProblem::Statement {
            in_setup,
            index,
            refusal,
        }
    }
}

/// The stream a database's setup draws from: the same for every run and seed, so that
/// every run starts from the same rows.
pub(super) const SETUP_STREAM: Stream = Stream::Database {
    db: 0,
    connection: u16::MAX,
};

impl SqlChecker {
    /// Builds the schema then the setup; the first statement that fails is named.
    pub fn new(schema: &[String], setup: &[String]) -> Result<SqlChecker, StatementProblem> {
        let conn = connect::open_in_memory().map_err(|e| (false, 0, engine_refusal(&e)))?;
        let sandbox = build_custom(&conn, schema, setup).map_err(|(in_setup, i, mut why)| {
            let sql = if in_setup { &setup[i] } else { &schema[i] };
            why.hint = super::dialect::hint(sql);
            (in_setup, i, why)
        })?;
        Ok(SqlChecker {
            conn,
            sandbox,
            pg: None,
        })
    }

    /// [`SqlChecker::new`] on `engine`: on PostgreSQL, the schema is built and every
    /// statement prepared by the server (a problem at index `usize::MAX` is the server's,
    /// not a statement's).
    pub fn new_on(
        engine: super::pg::Engine,
        schema: &[String],
        setup: &[String],
    ) -> Result<SqlChecker, SchemaProblem> {
        if engine == super::pg::Engine::Sqlite {
            return SqlChecker::new(schema, setup).map_err(SchemaProblem::from);
        }
        SqlChecker::on_postgres(super::pg::PgChecker::new(schema, setup)?)
            .map_err(|r| SchemaProblem::from((false, 0, r)))
    }

    /// The checker of a Rust handler's statements in a run on PostgreSQL: their form only
    /// (see [`super::pg::PgChecker::of_run`]).
    pub fn of_postgres_run() -> Result<SqlChecker, String> {
        let pg = super::pg::PgChecker::of_run()?;
        SqlChecker::on_postgres(pg).map_err(|r| r.english())
    }

    /// [`SqlChecker::new_on`] for named database `name`, made beside the main database's
    /// checker (on PostgreSQL, a schema beside the main one's; on SQLite, a database of its
    /// own).
    pub fn new_named_on(
        engine: super::pg::Engine,
        name: &str,
        schema: &[String],
        setup: &[String],
    ) -> Result<SqlChecker, SchemaProblem> {
        if engine == super::pg::Engine::Sqlite {
            return SqlChecker::new(schema, setup).map_err(SchemaProblem::from);
        }
        SqlChecker::on_postgres(super::pg::PgChecker::named(name, schema, setup)?)
            .map_err(|r| SchemaProblem::from((false, 0, r)))
    }

    /// The checker whose checks are `pg`'s (its SQLite connection stays empty).
    fn on_postgres(pg: super::pg::PgChecker) -> Result<SqlChecker, SqlRefusal> {
        let conn = connect::open_in_memory().map_err(|e| engine_refusal(&e))?;
        let sandbox = Sandbox::install(&conn, 0, SETUP_STREAM);
        Ok(SqlChecker {
            conn,
            sandbox,
            pg: Some(pg),
        })
    }

    /// On PostgreSQL: the values the parameters are prepared with (PostgreSQL infers a
    /// parameter's type from its literal); on SQLite nothing.
    pub fn set_samples(&self, samples: BTreeMap<String, crate::model::SqlValue>) {
        if let Some(pg) = &self.pg {
            pg.set_samples(samples);
        }
    }

    /// Prepares `sql` as a step or check statement: one statement, nothing the sandbox
    /// refuses, named parameters only.
    pub fn prepare(&self, sql: &str) -> Result<StatementShape, SqlRefusal> {
        if let Some(pg) = &self.pg {
            return pg.prepare(sql);
        }
        let guard = self.sandbox.user(0);
        let stmt = match self.conn.prepare(&super::pg::lexer::sqlite_text(sql)) {
            Ok(stmt) => stmt,
            Err(e) => {
                let reason = match guard.why_failed() {
                    Some(rule) => RefusalReason::Sandbox(rule),
                    None => sqlite_refusal(&e),
                };
                let mut why = SqlRefusal::of(reason);
                // SQLite's message may name what the statement's text hides (a function a
                // column default calls).
                why.hint =
                    super::dialect::hint(sql).or_else(|| super::dialect::hint(&why.english()));
                return Err(why);
            }
        };
        if stmt.expanded_sql().is_none() {
            return Err(SqlRefusal::of(RefusalReason::NoStatement));
        }
        let mut parameters = Vec::new();
        for i in 1..=stmt.parameter_count() {
            match stmt.parameter_name(i) {
                Some(name) if !name.starts_with('?') => {
                    parameters.push(super::pg::lexer::from_sqlite_name(&name[1..]).into_owned())
                }
                _ => return Err(SqlRefusal::of(RefusalReason::Positional { marker: None })),
            }
        }
        let shape = StatementShape {
            parameters,
            columns: stmt.column_count(),
            column_names: stmt.column_names().into_iter().map(String::from).collect(),
            readonly: stmt.readonly(),
            seen: guard.seen(),
        };
        drop(stmt);
        drop(guard);
        self.refuse_vacuum(sql)?;
        Ok(shape)
    }

    /// `VACUUM` rebuilds the database through a second one it attaches (`VACUUM INTO` a
    /// file): the authorizer would refuse that attach when it runs, but the statement is
    /// refused now, from SQLite's own program for it (its `Vacuum` instruction).
    fn refuse_vacuum(&self, sql: &str) -> Result<(), SqlRefusal> {
        let refused = |e: rusqlite::Error| SqlRefusal::of(sqlite_refusal(&e));
        let mut explain = self
            .conn
            .prepare(&format!("EXPLAIN {}", super::pg::lexer::sqlite_text(sql)))
            .map_err(refused)?;
        // Parameters left unbound are NULL; the program is the same whatever they are.
        let mut rows = explain.raw_query();
        let mut opcodes = Vec::new();
        while let Some(row) = rows.next().map_err(refused)? {
            opcodes.push(row.get::<_, String>(1).map_err(refused)?);
        }
        if opcodes.iter().any(|op| op == "Vacuum") {
            return Err(SqlRefusal::of(SandboxRule::Vacuum));
        }
        Ok(())
    }

    /// What check query `sql` gives for `event` on the database as every run starts: a
    /// count of effects must be 0 there, or it does not count what the consumer commits.
    pub fn value_before_any_delivery(&self, sql: &str, event: &SqlEvent) -> String {
        if let Some(pg) = &self.pg {
            return pg.value_before_any_delivery(sql, event);
        }
        let _check = self.sandbox.check(0);
        match first_value(&self.conn, sql, event) {
            Ok(v) => show(&v),
            Err(e) => e,
        }
    }

    /// Runs `change`, a statement that changes the schema, as a step would: the statements
    /// prepared after it see the table, index, trigger or view it creates (a consumer that
    /// creates its table on first use). One the schema does not take changes nothing.
    pub fn apply(&self, change: &str) {
        if let Some(pg) = &self.pg {
            return pg.apply(change);
        }
        let _user = self.sandbox.user(0);
        let _ = self.conn.execute_batch(change);
    }

    /// Whether, once `change` (a statement that changes the schema) has run, a column
    /// default calls the clock, or one of `statements` does (through a trigger or a view
    /// `change` created): the objects a step creates are known by its text, as it binds no
    /// parameter. A statement that no longer prepares calls nothing.
    pub fn reads_clock_after(&self, change: &str, statements: &[&str]) -> bool {
        if self.pg.is_some() {
            // On PostgreSQL a run whose steps change the schema is never fingerprinted
            // (`store::pg::digest`): the answer changes nothing.
            return true;
        }
        self.apply(change);
        if calls_the_clock(&self.default_functions()) {
            return true;
        }
        statements.iter().any(|sql| {
            let mut guard = self.sandbox.user(0);
            let prepared = self.conn.prepare(sql).is_ok();
            prepared && calls_the_clock(&guard.take_seen().functions)
        })
    }

    /// The functions the tables' column defaults call (see [`default_calls`]).
    pub fn default_functions(&self) -> BTreeSet<String> {
        default_calls(&self.conn, &self.sandbox)
            .into_iter()
            .flat_map(|(_, functions)| functions)
            .collect()
    }
}

/// Per column with a default (`table.column`), the functions its default calls, as SQLite
/// resolves them: the expression is prepared as a query under the authorizer, because
/// SQLite evaluates a default where no statement's authorizer sees it.
fn default_calls(conn: &Connection, sandbox: &Sandbox) -> Vec<(String, BTreeSet<String>)> {
    let defaults: Vec<(String, String)> = conn
        .prepare(
            "SELECT m.name || '.' || c.name, c.dflt_value \
             FROM sqlite_schema AS m, pragma_table_xinfo(m.name) AS c \
             WHERE m.type = 'table' AND c.dflt_value IS NOT NULL ORDER BY m.name, c.cid",
        )
        .and_then(|mut q| q.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
        .unwrap_or_default();
    let mut calls = Vec::new();
    for (column, default) in defaults {
        let mut guard = sandbox.user(0);
        // A default SQLite accepted is an expression; prepared alone, the authorizer
        // reports its functions (whether it allows them is the question asked after).
        let _ = conn.prepare(&format!("SELECT ({default})"));
        calls.push((column, guard.take_seen().functions));
    }
    calls
}

/// Why no statement could call what a column default of `conn`'s schema calls (a function
/// the sandbox refuses), if one does.
fn refused_default(conn: &Connection, sandbox: &Sandbox) -> Option<SqlRefusal> {
    default_calls(conn, sandbox)
        .into_iter()
        .find_map(|(column, functions)| {
            let rule = functions
                .iter()
                .find_map(|f| sandbox::refused_function(f))?;
            Some(SqlRefusal::of(RefusalReason::Default { column, rule }))
        })
}

/// Builds a scenario's schema and setup on `conn`, each statement in the sandbox at
/// virtual time 0, drawing from [`SETUP_STREAM`]; the sandbox stays installed.
pub(super) fn build_custom(
    conn: &Connection,
    schema: &[String],
    setup: &[String],
) -> Result<Sandbox, StatementProblem> {
    let sandbox = Sandbox::install(conn, 0, SETUP_STREAM);
    for (in_setup, list) in [(false, schema), (true, setup)] {
        for (i, sql) in list.iter().enumerate() {
            let guard = sandbox.user(0);
            if let Err(e) = conn.execute_batch(sql) {
                let why = match guard.why_failed() {
                    Some(rule) => RefusalReason::Sandbox(rule),
                    None => quoted(failure_refusal(&e)),
                };
                return Err((in_setup, i, SqlRefusal::of(why)));
            }
            drop(guard);
            if let Some(why) = refused_default(conn, &sandbox) {
                return Err((in_setup, i, why));
            }
        }
    }
    Ok(sandbox)
}

/// SQLite's refusal of a scratch database it could not open.
fn engine_refusal(e: &rusqlite::Error) -> SqlRefusal {
    SqlRefusal::of(RefusalReason::Engine {
        engine: crate::model::Engine::Sqlite,
        message: e.to_string(),
        sqlstate: None,
        quoted: false,
    })
}

/// `reason` as a schema statement's failure gives it: SQLite's message names SQLite.
fn quoted(mut reason: RefusalReason) -> RefusalReason {
    if let RefusalReason::Engine { quoted, .. } = &mut reason {
        *quoted = true;
    }
    reason
}
