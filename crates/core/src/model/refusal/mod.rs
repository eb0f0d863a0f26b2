//! Why a database engine or the tool's sandbox refuses a scenario's statement, as data:
//! which rule, with the names and numbers it needs, and the engine's own message quoted
//! where it is the engine that refused. `report::lang` words a refusal for people, in
//! their language.
//!
//! [`SqlRefusal::english`] is the one English text of a refusal that stays in the core, for
//! the same reason as the trace's own line (`model::trace::english`): a run's trace records
//! a failed statement's message (`TraceKind::SqlFailed`) and hashes it, and a Rust
//! handler's call answers with it (`handler::SqlError::message`), so those bytes are part
//! of a run and never reworded. The report's English is this text; its Spanish is its own.

use serde::{Deserialize, Serialize};

use super::Engine;

/// A refused statement: the reason, and what to write instead when the statement is
/// another database's dialect (the hint never replaces the reason).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SqlRefusal {
    pub reason: RefusalReason,
    pub hint: Option<DialectHint>,
}

/// One of a scenario's statements (or a Rust handler's) that failed while a run was going
/// (`TraceKind::SqlFailed`): why, and what the engine did to the consumer's open
/// transaction because of it. Its English ([`SqlFailure::english`]) is what the trace
/// hashes and what a handler's call answers with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SqlFailure {
    pub refusal: SqlRefusal,
    pub broken: Option<BrokenTransaction>,
}

/// What the engine did to a transaction a failed statement ran in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BrokenTransaction {
    /// SQLite rolled the whole transaction back itself (as it does on some errors, and
    /// on an interrupted write): the consumer is no longer in a transaction.
    RolledBackBySqlite,
    /// PostgreSQL aborted the transaction: every statement until `ROLLBACK` fails, and
    /// `COMMIT` rolls it back.
    AbortedOnPostgres,
}

/// The rule a statement broke, or the engine's own refusal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RefusalReason {
    /// The engine refused it with `message`, its own words (`sqlstate`: PostgreSQL's
    /// error code). `quoted`: the text names the engine ("SQLite says: …"), as a schema
    /// statement's failure does; a statement prepared for a step gives the message bare.
    Engine {
        engine: Engine,
        message: String,
        sqlstate: Option<String>,
        quoted: bool,
    },
    /// The PostgreSQL client library's own error, when the server gave no message.
    Client { message: String },
    /// A rule of the sandbox every scenario's SQL runs in.
    Sandbox(SandboxRule),
    /// A column default (`table.column`) calls what the sandbox refuses.
    Default { column: String, rule: SandboxRule },
    /// A blank statement, or only a comment.
    NoStatement,
    /// More than one statement in one string.
    SeveralStatements,
    /// A positional parameter: SQLite's `?` (`marker` `None`), or PostgreSQL's `$1`.
    Positional { marker: Option<String> },
    /// Parameter `name` (with its `:`) has no value: neither the call's, a delivery's nor
    /// a payload field.
    Unbound { name: String },
    /// PostgreSQL: `word` (upper-case) is transaction control, which is the protocol's.
    TransactionControl { word: String },
    /// PostgreSQL: `verb object` (upper-case) makes an object of the whole server.
    ServerWide { verb: String, object: String },
    /// PostgreSQL: `keyword` (upper-case) reads the machine's clock.
    MachineClock { keyword: String },
    /// PostgreSQL: `function()` gives what the machine or the moment gives.
    MachineFunction { function: String },
    /// PostgreSQL: `pg_catalog.function()` is the machine's own, not the tool's.
    CatalogFunction { function: String },
    /// A Rust handler's statement, on a scenario with the built-in ledger: a handler's
    /// statements run on a scenario's own schema.
    NoOwnSchema,
    /// A Rust handler's statement could not be checked: statement `index` of `store.setup`
    /// (`in_setup`) or `store.schema` is refused, for `refusal`.
    SchemaRefused {
        in_setup: bool,
        index: usize,
        refusal: Box<SqlRefusal>,
    },
    /// A Rust handler's statement could not be checked: the engine gave no database.
    NoDatabase(NoDatabase),
}

/// Why the engine could not give the load-time check a database to build a scenario's
/// schema in (no statement of the scenario is to blame).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NoDatabase {
    /// This build of the core has no PostgreSQL engine (the feature `postgres`).
    NoPostgresEngine,
    /// The server could not be reached or started: its (or the client's) own text.
    Unreachable { message: String },
    /// On PostgreSQL a named database is a schema of the run's database, and schema `name`
    /// could not be made (`message`: the server's text), most likely because
    /// `store.schema` creates one of that name.
    SchemaTaken { name: String, message: String },
}

/// A rule of the sandbox a scenario's own SQL runs in (`store::sandbox`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SandboxRule {
    /// Transaction statements are the protocol's `begin` and `commit` steps.
    Transaction,
    /// `ATTACH` and `DETACH` (and `VACUUM`, which attaches): a statement touches no file.
    Attach,
    /// `VACUUM`, refused from SQLite's own program for it.
    Vacuum,
    /// `PRAGMA name`, not one of [`SandboxRule::READ_ONLY_PRAGMAS`].
    Pragma { name: String },
    /// Temporary or virtual tables, indexes, triggers and views.
    Temporary,
    /// `function()` reads the connection's state (`changes()`, `last_insert_rowid()`).
    ConnectionState { function: String },
    /// `function()` loads code into SQLite.
    LoadsCode { function: String },
    /// The statement needed more than `limit_mib` MiB of memory.
    Memory { limit_mib: u64 },
    /// SQLite asked for a temporary file.
    TemporaryFile,
    /// The statement took more than `limit` virtual-machine steps.
    Steps { limit: u32 },
}

/// A construct of another database's dialect that SQLite does not have, found in a
/// refused statement: what to write instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DialectHint {
    Now,
    Uuid,
    SkipLocked,
    ForUpdate,
    ForShare,
    OnDuplicateKeyUpdate,
    InsertIgnore,
    DoubleColonCast,
    Ilike,
}

impl SqlRefusal {
    /// A refusal with no dialect hint.
    pub fn of(reason: impl Into<RefusalReason>) -> SqlRefusal {
        SqlRefusal {
            reason: reason.into(),
            hint: None,
        }
    }

    /// The refusal's fixed English text, as a run's trace records it (see the module's
    /// documentation).
    pub fn english(&self) -> String {
        let hint = match self.hint {
            Some(h) => format!(
                "; {}; or run the SQL as written on PostgreSQL with `--engine postgres` (or \
                 `store.engine: postgres`)",
                h.english()
            ),
            None => String::new(),
        };
        self.reason.english() + &hint
    }
}

impl SqlFailure {
    /// A failure that left the consumer's transaction as it was.
    pub fn of(refusal: SqlRefusal) -> SqlFailure {
        SqlFailure {
            refusal,
            broken: None,
        }
    }

    /// The failure's fixed English text, as a run's trace records it and a Rust handler's
    /// call answers with it (see the module's documentation).
    pub fn english(&self) -> String {
        let broken = match self.broken {
            None => "",
            Some(BrokenTransaction::RolledBackBySqlite) => {
                " (SQLite rolled the whole transaction back itself)"
            }
            Some(BrokenTransaction::AbortedOnPostgres) => {
                " (PostgreSQL aborted the transaction: every statement until ROLLBACK fails, \
                 and COMMIT rolls it back)"
            }
        };
        self.refusal.english() + broken
    }

    /// Whether the engine itself refused the statement (its own message), rather than a
    /// rule of the tool's.
    pub fn is_the_engines(&self) -> bool {
        matches!(
            self.refusal.reason,
            RefusalReason::Engine { .. } | RefusalReason::Client { .. }
        )
    }
}

impl From<SqlRefusal> for SqlFailure {
    fn from(refusal: SqlRefusal) -> SqlFailure {
        SqlFailure::of(refusal)
    }
}

impl SandboxRule {
    /// The pragmas a statement may use: they read the schema and change nothing (a
    /// table-valued `pragma_table_info(…)` is one of them too).
    pub const READ_ONLY_PRAGMAS: [&'static str; 8] = [
        "table_info",
        "table_xinfo",
        "table_list",
        "index_list",
        "index_info",
        "index_xinfo",
        "foreign_key_list",
        "foreign_key_check",
    ];
}

impl From<SandboxRule> for RefusalReason {
    fn from(rule: SandboxRule) -> RefusalReason {
        RefusalReason::Sandbox(rule)
    }
}

mod english;
