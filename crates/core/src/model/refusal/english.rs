//! The fixed English text of a refusal, as a run's trace records it and a Rust handler's
//! call answers with it (see the parent module). Never reworded: a run's hash covers it.

use super::{DialectHint, NoDatabase, RefusalReason, SandboxRule};

impl RefusalReason {
    pub(super) fn english(&self) -> String {
        use RefusalReason::*;
        match self {
            Engine {
                engine,
                message,
                sqlstate,
                quoted,
            } => {
                let code = sqlstate.as_ref().map(|c| format!(" (SQLSTATE {c})"));
                let said = format!("{message}{}", code.unwrap_or_default());
                match (quoted, engine) {
                    (false, _) => said,
                    (true, crate::model::Engine::Sqlite) => format!("SQLite says: {said}"),
                    (true, crate::model::Engine::Postgres) => format!("PostgreSQL says: {said}"),
                }
            }
            Client { message } => format!("PostgreSQL: {message}"),
            Sandbox(rule) => rule.english(),
            Default { column, rule } => format!("the default of {column}: {}", rule.english()),
            NoStatement => "no statement here (only a comment?)".to_string(),
            SeveralStatements => {
                "more than one statement in one string; give a list of statements instead"
                    .to_string()
            }
            Positional { marker: None } => {
                "positional parameters (`?`) are not bound; name them (`:event_id`)".to_string()
            }
            Positional { marker: Some(p) } => format!(
                "positional parameters (`{p}`) are not bound; name them (`:event_id`, a \
                 payload field)"
            ),
            Unbound { name } => format!(
                "parameter {name} is not bound: give it in the call's parameters, or name a \
                 delivery parameter (:event_id, :event_type, :now, :delivery, :consumer) or a \
                 payload field"
            ),
            TransactionControl { word } => format!(
                "`{word}` is transaction control: the protocol's \"begin\" and \"commit\" steps \
                 open and end the consumer's transaction"
            ),
            ServerWide { verb, object } => format!(
                "`{verb} {object}` makes an object of the whole server, which would outlive \
                 the run; each run starts from the file's schema in a database emptied for it, \
                 so a schema may create tables, schemas, functions and triggers, not roles, \
                 databases or tablespaces"
            ),
            MachineClock { keyword } => format!(
                "`{keyword}` reads the machine's clock, which would make every run different; \
                 write now() (or clock_timestamp()), which the tool makes the run's virtual time"
            ),
            MachineFunction { function } => format!(
                "{function}() gives what the machine or the moment gives, so two runs of the \
                 same seed would differ; the simulator cannot make it deterministic"
            ),
            CatalogFunction { function } => format!(
                "pg_catalog.{function}() is the machine's; write {function}(), which the tool \
                 makes deterministic"
            ),
            NoOwnSchema => "a Rust handler runs on a scenario's own schema (store.schema, \
                            check.effects_per_event); this scenario has the built-in ledger"
                .to_string(),
            SchemaRefused {
                in_setup,
                index,
                refusal,
            } => {
                let part = if *in_setup { "setup" } else { "schema" };
                format!("store.{part}[{index}] fails: {}", refusal.english())
            }
            NoDatabase(n) => n.english(),
        }
    }
}

impl NoDatabase {
    /// Why the engine gave no database, in English (a handler's refused call carries it in
    /// the trace, see the parent module).
    pub fn english(&self) -> String {
        match self {
            NoDatabase::NoPostgresEngine => {
                "this build of delivery-sim-core has no PostgreSQL engine: build it with the \
                 feature `postgres` (the command line always has it)"
                    .to_string()
            }
            NoDatabase::Unreachable { message } => message.clone(),
            NoDatabase::SchemaTaken { name, message } => format!(
                "on PostgreSQL each named database is a schema of the run's database, and \
                 schema `{name}` cannot be made ({message}): does `store.schema` create a \
                 schema of that name? Rename one of them"
            ),
        }
    }
}

impl SandboxRule {
    fn english(&self) -> String {
        use SandboxRule::*;
        match self {
            Transaction => "transaction statements belong to the protocol's `begin` and \
                            `commit` steps, so that crash points, recovery and commit \
                            timeouts know where a transaction is"
                .to_string(),
            Attach => "ATTACH, DETACH and VACUUM are not allowed: a statement creates, writes \
                       and reads no file"
                .to_string(),
            Vacuum => "VACUUM is not allowed: it rebuilds the database through a second one \
                       (VACUUM INTO writes a file), and a statement creates, writes and reads \
                       no file"
                .to_string(),
            Pragma { name } => format!(
                "PRAGMA {name} is not allowed: a connection setting does not carry over to a \
                 restarted process, and a pragma may touch files (the read-only schema \
                 pragmas are allowed: {})",
                SandboxRule::READ_ONLY_PRAGMAS.join(", ")
            ),
            Temporary => "temporary tables, indexes, triggers and views live in a connection, \
                          which a restarted process does not have (and virtual tables are not \
                          supported); create a table in the schema"
                .to_string(),
            ConnectionState { function } => format!(
                "{function}() reads the connection's state, which a restarted process does \
                 not have; read the rows instead"
            ),
            LoadsCode { function } => {
                format!("{function}() is not allowed: it loads code into SQLite")
            }
            Memory { limit_mib } => format!(
                "the statement needed more than {limit_mib} MiB of memory, the limit for one \
                 statement"
            ),
            TemporaryFile => {
                "SQLite asked for a temporary file, and a statement writes no file".to_string()
            }
            Steps { limit } => format!(
                "interrupted after {limit} SQLite virtual-machine steps, the limit for one \
                 statement"
            ),
        }
    }
}

impl DialectHint {
    pub(super) fn english(self) -> &'static str {
        use DialectHint::*;
        match self {
            Now => {
                "SQLite has no now(): bind `:now` (the run's virtual time, an integer) or \
                 write CURRENT_TIMESTAMP (the run's clock, kept deterministic)"
            }
            Uuid => {
                "SQLite has no UUID function: write lower(hex(randomblob(16))) (drawn from \
                 the run's random stream, so deterministic), or use the delivery's own \
                 :event_id"
            }
            SkipLocked => {
                "SQLite has no row locks (SKIP LOCKED): one writer holds the whole database, \
                 so drop the clause"
            }
            ForUpdate => {
                "SQLite has no row locks (FOR UPDATE): the transaction's first write takes \
                 the whole database's write lock, so drop the clause"
            }
            ForShare => "SQLite has no row locks (FOR SHARE): drop the clause",
            OnDuplicateKeyUpdate => {
                "MySQL's ON DUPLICATE KEY UPDATE is written ON CONFLICT (key columns) DO \
                 UPDATE SET … in SQLite (and in PostgreSQL)"
            }
            InsertIgnore => {
                "MySQL's INSERT IGNORE is written INSERT OR IGNORE in SQLite, or INSERT … ON \
                 CONFLICT DO NOTHING (SQLite and PostgreSQL)"
            }
            DoubleColonCast => "SQLite has no `::` cast: write CAST(value AS type)",
            Ilike => "SQLite has no ILIKE: its LIKE already ignores the case of ASCII letters",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Engine, SqlRefusal};

    #[test]
    fn an_engine_message_is_quoted_as_each_engine_gives_it() {
        let sqlite = |quoted| RefusalReason::Engine {
            engine: Engine::Sqlite,
            message: "no such table: t".into(),
            sqlstate: None,
            quoted,
        };
        assert_eq!(SqlRefusal::of(sqlite(false)).english(), "no such table: t");
        assert_eq!(
            SqlRefusal::of(sqlite(true)).english(),
            "SQLite says: no such table: t"
        );
        let pg = RefusalReason::Engine {
            engine: Engine::Postgres,
            message: "relation \"t\" does not exist".into(),
            sqlstate: Some("42P01".into()),
            quoted: true,
        };
        assert_eq!(
            SqlRefusal::of(pg).english(),
            "PostgreSQL says: relation \"t\" does not exist (SQLSTATE 42P01)"
        );
    }

    #[test]
    fn a_failure_in_a_run_adds_what_the_engine_did_to_the_transaction() {
        // These bytes are a run's trace (hashed) and a handler's error message: pinned.
        let steps = SqlRefusal::of(SandboxRule::Steps { limit: 7 });
        let mut f = crate::model::SqlFailure::of(steps);
        assert_eq!(
            f.english(),
            "interrupted after 7 SQLite virtual-machine steps, the limit for one statement"
        );
        assert!(!f.is_the_engines());
        f.broken = Some(crate::model::BrokenTransaction::RolledBackBySqlite);
        assert_eq!(
            f.english(),
            "interrupted after 7 SQLite virtual-machine steps, the limit for one statement \
             (SQLite rolled the whole transaction back itself)"
        );
        let unique = RefusalReason::Engine {
            engine: Engine::Postgres,
            message: "duplicate key value violates unique constraint \"inbox_pkey\"".into(),
            sqlstate: Some("23505".into()),
            quoted: false,
        };
        let f = crate::model::SqlFailure {
            refusal: SqlRefusal::of(unique),
            broken: Some(crate::model::BrokenTransaction::AbortedOnPostgres),
        };
        assert!(f.is_the_engines());
        assert_eq!(
            f.english(),
            "duplicate key value violates unique constraint \"inbox_pkey\" (SQLSTATE 23505) \
             (PostgreSQL aborted the transaction: every statement until ROLLBACK fails, and \
             COMMIT rolls it back)"
        );
    }

    #[test]
    fn a_handlers_check_that_could_not_run_says_why() {
        let schema = RefusalReason::SchemaRefused {
            in_setup: true,
            index: 2,
            refusal: Box::new(SqlRefusal::of(RefusalReason::NoStatement)),
        };
        assert_eq!(
            SqlRefusal::of(schema).english(),
            "store.setup[2] fails: no statement here (only a comment?)"
        );
        assert!(SqlRefusal::of(RefusalReason::NoOwnSchema)
            .english()
            .starts_with("a Rust handler runs on a scenario's own schema"));
    }

    #[test]
    fn a_hint_follows_the_reason() {
        let r = SqlRefusal {
            reason: RefusalReason::Sandbox(SandboxRule::LoadsCode {
                function: "load_extension".into(),
            }),
            hint: Some(DialectHint::Ilike),
        };
        assert_eq!(
            r.english(),
            "load_extension() is not allowed: it loads code into SQLite; SQLite has no ILIKE: \
             its LIKE already ignores the case of ASCII letters; or run the SQL as written on \
             PostgreSQL with `--engine postgres` (or `store.engine: postgres`)"
        );
    }
}
