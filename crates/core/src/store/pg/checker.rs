//! The load-time check on PostgreSQL: the scenario's schema and setup built in a fresh
//! schema, each statement of the file prepared by PostgreSQL itself (so that a syntax
//! error, an unknown table or column, or a type PostgreSQL cannot infer exits 2 naming the
//! step), and what would make a run non-deterministic refused ([`super::det`]).

use super::det;
use super::lexer::{self, Literal, Token};
use super::session::{use_schema, worker, Worker, RUN_SCHEMA};
use super::store::message;
use crate::model::{NoDatabase, RefusalReason, SqlEvent, SqlRefusal, SqlValue};
use crate::store::{SchemaProblem, Seen, StatementShape};
use std::rc::Rc;

/// A scratch schema built from a scenario's schema and setup (the main database's, or a
/// named database's beside it).
pub struct PgChecker {
    worker: Rc<Worker>,
    /// The schema its statements read ([`super::session::RUN_SCHEMA`], or the named
    /// database's): the control connection is set to it before each (the checkers of one
    /// scenario share that connection).
    schema: String,
    samples: std::cell::RefCell<std::collections::BTreeMap<String, SqlValue>>,
    /// Whether statements are prepared by the server (at load time); a run's checker of a
    /// Rust handler's statements checks their form only, and the statement's own answer
    /// says the rest (a prepare on the control connection could wait for a lock a
    /// consumer holds).
    on_server: bool,
}

/// Statements a step cannot run: the consumer's transaction is the protocol's `begin` and
/// `commit` steps.
const TRANSACTION_WORDS: [&str; 9] = [
    "begin",
    "start",
    "commit",
    "end",
    "rollback",
    "savepoint",
    "release",
    "abort",
    "prepare",
];

/// Words that make a statement write (data or schema).
const WRITING_WORDS: [&str; 16] = [
    "insert", "update", "delete", "merge", "create", "drop", "alter", "truncate", "copy", "call",
    "do", "lock", "grant", "revoke", "comment", "refresh",
];

impl PgChecker {
    /// Builds the schema then the setup in a database emptied for it; the first statement
    /// that fails is named.
    pub fn new(schema: &[String], setup: &[String]) -> Result<PgChecker, SchemaProblem> {
        let worker = worker().map_err(unreachable)?;
        *worker.ledger_built.borrow_mut() = None;
        worker
            .control_batch(&format!(
                "{} SELECT set_config('ds.clock', '0', false), set_config('ds.txn', '0', \
                 false), set_config('ds.rng', '1', false); {}",
                super::session::empty_database(),
                use_schema(RUN_SCHEMA),
            ))
            .map_err(unreachable)?;
        PgChecker::build(worker, RUN_SCHEMA, schema, setup)
    }

    /// Builds named database `name` beside the main one (made first, by [`PgChecker::new`]):
    /// a schema of its own, as each run makes it.
    pub fn named(
        name: &str,
        schema: &[String],
        setup: &[String],
    ) -> Result<PgChecker, SchemaProblem> {
        let worker = worker().map_err(unreachable)?;
        let create = format!("CREATE SCHEMA \"{name}\"; {}", use_schema(name));
        if let Err(message) = worker.control_batch(&create) {
            let name = name.to_string();
            return Err(SchemaProblem::NoDatabase(NoDatabase::SchemaTaken {
                name,
                message,
            }));
        }
        PgChecker::build(worker, name, schema, setup)
    }

    fn build(
        worker: Rc<Worker>,
        name: &str,
        schema: &[String],
        setup: &[String],
    ) -> Result<PgChecker, SchemaProblem> {
        for (in_setup, list) in [(false, schema), (true, setup)] {
            for (i, sql) in list.iter().enumerate() {
                let refused = det::refusal(sql).or_else(|| cluster_wide(sql));
                let failed = || worker.control_statement(sql).err().map(|e| says(&e));
                if let Some(why) = refused.or_else(failed) {
                    let (index, refusal) = (i, SqlRefusal::of(why));
                    return Err(SchemaProblem::Statement {
                        in_setup,
                        index,
                        refusal,
                    });
                }
            }
        }
        Ok(PgChecker {
            worker,
            schema: name.to_string(),
            samples: Default::default(),
            on_server: true,
        })
    }

    /// The checker of a Rust handler's statements during a run: their form (one
    /// statement, no transaction control, nothing non-deterministic), not their tables.
    pub fn of_run() -> Result<PgChecker, String> {
        Ok(PgChecker {
            worker: worker()?,
            schema: RUN_SCHEMA.to_string(),
            samples: Default::default(),
            on_server: false,
        })
    }

    /// Makes the control connection read this checker's database.
    fn read_here(&self) -> Result<(), String> {
        self.worker
            .control_batch(&use_schema(&self.schema))
            .map(drop)
    }

    /// Prepares `sql` as a step or check statement: one statement, no transaction control,
    /// nothing non-deterministic; its shape.
    pub fn prepare(&self, sql: &str) -> Result<StatementShape, SqlRefusal> {
        if let Some(why) = det::refusal(sql) {
            return Err(SqlRefusal::of(why));
        }
        let toks = lexer::tokens(sql);
        let words: Vec<String> = (toks.iter())
            .filter_map(|t| match t {
                Token::Word(w) => Some(w.to_ascii_lowercase()),
                _ => None,
            })
            .collect();
        let Some(first) = words.first() else {
            return Err(SqlRefusal::of(RefusalReason::NoStatement));
        };
        let semicolon = toks.iter().position(|t| *t == Token::Punct(';'));
        if semicolon.is_some_and(|k| k + 1 < toks.len()) {
            return Err(SqlRefusal::of(RefusalReason::SeveralStatements));
        }
        if let Some(p) = words.iter().find(|w| is_positional(w)) {
            let marker = Some(p.clone());
            return Err(SqlRefusal::of(RefusalReason::Positional { marker }));
        }
        if TRANSACTION_WORDS.contains(&first.as_str()) {
            let word = first.to_uppercase();
            return Err(SqlRefusal::of(RefusalReason::TransactionControl { word }));
        }
        let parameters = lexer::parameters(sql);
        // A parameter no event has cannot be bound: PostgreSQL would report the type it
        // cannot infer (`operator is not unique: - unknown`) where the caller says which
        // parameter is unknown, from the parameters of the shape.
        // A named result's column (`:claim.count`) is prepared as NULL.
        let unknown = {
            let samples = self.samples.borrow();
            (parameters.iter()).any(|p| !samples.contains_key(p) && !p.contains('.'))
        };
        let (columns, column_names) = if unknown || !self.on_server {
            (1, Vec::new())
        } else {
            self.read_here().map_err(bare)?;
            let names = self.columns(sql)?;
            (names.len(), names)
        };
        let writes = words.iter().any(|w| WRITING_WORDS.contains(&w.as_str()));
        let dml = ["insert", "update", "delete", "merge"].contains(&first.as_str());
        let ddl = ["create", "drop", "alter", "comment"].contains(&first.as_str());
        Ok(StatementShape {
            parameters,
            columns,
            column_names,
            readonly: !writes,
            seen: Seen {
                writes_rows: dml,
                changes_schema: ddl,
                ..Seen::default()
            },
        })
    }

    /// The names of the columns `sql` returns, as PostgreSQL prepares it with each
    /// parameter written as the run writes it: a sample of its value (the first event's,
    /// the delivery's), so that PostgreSQL infers the types it will infer in a run.
    fn columns(&self, sql: &str) -> Result<Vec<String>, SqlRefusal> {
        let samples = self.samples.borrow();
        let text = lexer::bind(sql, &|name| {
            Some(match samples.get(name) {
                Some(SqlValue::Integer(i)) => Literal::Integer(*i),
                Some(SqlValue::Text(s)) => Literal::Text(s.clone()),
                None if name.contains('.') => Literal::Null,
                None => Literal::Text(String::new()),
            })
        })
        .map_err(|n| bare(n.into()))?;
        let c = std::sync::Arc::clone(&self.worker.control);
        let prepared = self
            .worker
            .rt
            .block_on(async move { c.prepare(&text).await });
        prepared
            .map(|s| s.columns().iter().map(|c| c.name().to_string()).collect())
            .map_err(|e| SqlRefusal::of(pg_says(&e)))
    }

    /// The values the statements' parameters are prepared with.
    pub fn set_samples(&self, samples: std::collections::BTreeMap<String, SqlValue>) {
        *self.samples.borrow_mut() = samples;
    }

    /// What check query `sql` gives for `event` on the schema and setup alone.
    pub fn value_before_any_delivery(&self, sql: &str, event: &SqlEvent) -> String {
        let value = |name: &str| {
            event.field(name).map(|v| match v {
                SqlValue::Integer(i) => Literal::Integer(i),
                SqlValue::Text(s) => Literal::Text(s),
            })
        };
        let bound = match lexer::bind(sql, &value) {
            Ok(b) => b,
            Err(e) => return e.into(),
        };
        if let Err(e) = self.read_here() {
            return e;
        }
        match self.worker.control_value(&bound) {
            Ok(Some(v)) => v,
            Ok(None) => "NULL".into(),
            Err(e) => message(&e),
        }
    }

    /// Runs `change` (a statement that changes the schema), so that the statements prepared
    /// after it see what it creates.
    pub fn apply(&self, change: &str) {
        let _ = self.read_here();
        let _ = self.worker.control_statement(change);
    }
}

/// Why `sql` (a schema or setup statement) is refused if it makes an object of the whole
/// server (a role, a database, a tablespace…), which would outlive the run: every run
/// starts from the file's schema in a database emptied for it.
fn cluster_wide(sql: &str) -> Option<RefusalReason> {
    let words = lexer::words(sql);
    let verb = words.first()?;
    if !["create", "alter", "drop"].contains(&verb.as_str()) {
        return None;
    }
    let object = (words.iter().skip(1))
        .find(|w| !["or", "replace", "if", "not", "exists"].contains(&w.as_str()))?;
    [
        "role",
        "user",
        "group",
        "database",
        "tablespace",
        "event",
        "publication",
        "subscription",
    ]
    .contains(&object.as_str())
    .then(|| RefusalReason::ServerWide {
        verb: verb.to_uppercase(),
        object: object.to_uppercase(),
    })
}

/// `$1`, `$2`…: a positional parameter (a dollar quote is not a word).
fn is_positional(word: &str) -> bool {
    word.strip_prefix('$')
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

fn pg_says(e: &tokio_postgres::Error) -> RefusalReason {
    match e.as_db_error() {
        Some(_) => says(&super::wire::db_error(e)),
        None => RefusalReason::Client {
            message: e.to_string(),
        },
    }
}

/// A schema statement's failure, as the server gave it.
fn says(e: &super::wire::DbError) -> RefusalReason {
    RefusalReason::Engine {
        engine: crate::model::Engine::Postgres,
        message: e.message.clone(),
        sqlstate: (!e.code.is_empty()).then(|| e.code.clone()),
        quoted: true,
    }
}

/// The server's text, given bare, as the refusal of the statement at hand.
fn bare(message: String) -> SqlRefusal {
    SqlRefusal::of(RefusalReason::Engine {
        engine: crate::model::Engine::Postgres,
        message,
        sqlstate: None,
        quoted: false,
    })
}

/// The server could not be reached or readied for the check.
fn unreachable(message: String) -> SchemaProblem {
    SchemaProblem::NoDatabase(NoDatabase::Unreachable { message })
}
