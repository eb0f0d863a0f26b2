//! The wire to PostgreSQL, below everything else of the engine: where the server is
//! ([`Target`]), a connection opened with given settings, one simple query sent and its
//! answer read ([`Answer`]: the rows as text, or PostgreSQL's error), and the statements
//! that make a connection read a run's schema. It knows no run, no worker and no
//! settling: [`super::session`] builds those on it; [`super::server`] and [`super::link`]
//! use it without reaching the session.

use std::path::PathBuf;
use tokio_postgres::{Client, NoTls, SimpleQueryMessage};

/// The superuser of a cluster the tool starts.
pub(super) const CLUSTER_USER: &str = "delivery_sim";

/// Where the server is.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Target {
    /// A cluster this process started: its socket directory.
    Own { socket_dir: PathBuf },
    /// A server named by a URL.
    Url(String),
}

impl Target {
    /// The connection configuration for database `dbname`.
    pub fn config(&self, dbname: &str) -> Result<tokio_postgres::Config, String> {
        let mut config = match self {
            Target::Own { socket_dir } => {
                let mut c = tokio_postgres::Config::new();
                c.host_path(socket_dir).port(5432).user(CLUSTER_USER);
                c
            }
            Target::Url(url) => url
                .parse::<tokio_postgres::Config>()
                .map_err(|e| format!("the database URL does not parse: {e}"))?,
        };
        config.dbname(dbname).application_name("delivery-sim");
        Ok(config)
    }

    /// The database to connect to for creating and dropping scratch databases.
    pub fn admin_database(&self) -> String {
        match self {
            Target::Own { .. } => "postgres".into(),
            Target::Url(url) => url
                .parse::<tokio_postgres::Config>()
                .ok()
                .and_then(|c| c.get_dbname().map(str::to_string))
                .unwrap_or_else(|| "postgres".into()),
        }
    }
}

/// The schema every run's tables live in; the deterministic clock and random functions
/// are in [`DET_SCHEMA`], searched before `pg_catalog`.
pub const RUN_SCHEMA: &str = "run";
pub const DET_SCHEMA: &str = "ds";

/// Empties the scratch database for a scenario's schema: every schema a file may have
/// made (`run`, `public`, any it created) dropped with what it holds, then `run` and an
/// empty `public` made again; only the system's and the deterministic functions' stay.
pub fn empty_database() -> String {
    format!(
        "DO $$DECLARE s text; BEGIN FOR s IN SELECT nspname FROM pg_catalog.pg_namespace \
         WHERE nspname NOT IN ('pg_catalog', 'information_schema', '{DET_SCHEMA}') AND \
         nspname NOT LIKE 'pg\\_%' LOOP EXECUTE pg_catalog.format('DROP SCHEMA %I CASCADE', \
         s); END LOOP; END $$; CREATE SCHEMA {RUN_SCHEMA}; CREATE SCHEMA public;"
    )
}

/// What one statement gave: the last statement's rows (as text) and its row count, or
/// PostgreSQL's error.
pub type Answer = Result<Ran, DbError>;

#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Ran {
    pub rows: Vec<Vec<Option<String>>>,
    /// The rows the statement inserted, updated or deleted (its command tag's count).
    pub changed: u64,
    /// The type (oid) of each column of `rows`, when asked for
    /// ([`super::session::RunDb::execute_typed`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub types: Vec<u32>,
    /// The names of the columns of `rows` (empty with no row).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
}

/// An error PostgreSQL answered.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DbError {
    /// The SQLSTATE (`23505`, `40001`, `40P01`…); empty when the connection was lost.
    pub code: String,
    pub message: String,
}

impl DbError {
    pub fn is_unique_violation(&self) -> bool {
        self.code == "23505"
    }
}

pub(super) fn db_error(e: &tokio_postgres::Error) -> DbError {
    match e.as_db_error() {
        Some(d) => DbError {
            code: d.code().code().to_string(),
            message: d.message().to_string(),
        },
        None => DbError {
            code: String::new(),
            message: e.to_string(),
        },
    }
}

pub(super) fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .map_err(|e| format!("cannot start the PostgreSQL client's runtime: {e}"))
}

/// Runs `statements` (filled by `fill`) one by one on database `dbname` of `target`, on a
/// connection of its own (creating and dropping scratch databases).
pub fn blocking_admin(
    target: &Target,
    dbname: &str,
    fill: impl FnOnce(&mut Vec<String>),
) -> Result<(), String> {
    let rt = runtime()?;
    let mut statements = Vec::new();
    fill(&mut statements);
    rt.block_on(async {
        let client = connect(&rt, target, dbname, &[]).await?;
        for s in &statements {
            client
                .simple_query(s)
                .await
                .map_err(|e| format!("`{s}`: {}", db_error(&e).message))?;
        }
        Ok(())
    })
}

/// A new connection to `dbname`, its driver spawned on `rt`, with `options` as startup
/// settings (`-c name=value`).
pub(super) async fn connect(
    rt: &tokio::runtime::Runtime,
    target: &Target,
    dbname: &str,
    options: &[(&str, String)],
) -> Result<Client, String> {
    let mut config = target.config(dbname)?;
    let text: Vec<String> = options
        .iter()
        .map(|(k, v)| format!("-c {k}={}", v.replace('\\', "\\\\").replace(' ', "\\ ")))
        .collect();
    if !text.is_empty() {
        config.options(text.join(" "));
    }
    let (client, connection) = config
        .connect(NoTls)
        .await
        .map_err(|e| format!("cannot connect to PostgreSQL: {e}"))?;
    rt.spawn(async move {
        let _ = connection.await;
    });
    Ok(client)
}

/// The search path of a connection to database `schema` (the run's `run`, or a named
/// database's own schema): its tables, then the deterministic functions, searched before
/// `pg_catalog`.
pub fn search_path(schema: &str) -> String {
    format!("\"{schema}\",{DET_SCHEMA},pg_catalog")
}

/// The tool's statement that makes the connection it is sent on read database `schema`.
pub fn use_schema(schema: &str) -> String {
    format!(
        "SELECT pg_catalog.set_config('search_path', '{}', false);",
        search_path(schema)
    )
}

/// Runs `sql` on `client` as one simple query: the answer of its statements after the
/// tool's own first `skip`.
pub(super) async fn simple(client: &Client, sql: &str, skip: usize) -> Answer {
    let r = client.simple_query(sql).await;
    if r.is_err() {
        // PostgreSQL reports an error before it aborts the transaction (and releases its
        // locks): an empty query is answered only once the abort is done, so that no other
        // statement is seen waiting for those locks.
        let _ = client.simple_query("").await;
    }
    answer(r, skip)
}

/// The answer of a simple query whose first `skip` statements are the tool's own: the
/// rows and count of the statement after them.
pub(super) fn answer(
    r: Result<Vec<SimpleQueryMessage>, tokio_postgres::Error>,
    skip: usize,
) -> Answer {
    let messages = r.map_err(|e| db_error(&e))?;
    let mut ran = Ran::default();
    let mut completed = 0;
    for m in messages {
        match m {
            SimpleQueryMessage::CommandComplete(n) if completed >= skip => {
                ran.changed = n;
                completed += 1;
            }
            SimpleQueryMessage::CommandComplete(_) => completed += 1,
            SimpleQueryMessage::Row(row) if completed >= skip => {
                if ran.rows.is_empty() {
                    ran.names = row.columns().iter().map(|c| c.name().to_string()).collect();
                }
                ran.rows.push(
                    (0..row.len())
                        .map(|i| row.get(i).map(str::to_string))
                        .collect(),
                );
            }
            _ => {}
        }
    }
    Ok(ran)
}
