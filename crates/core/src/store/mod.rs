//! The store: a real SQLite database (rusqlite, bundled), the only module that touches SQL.
//!
//! It holds the consumer's inbox (`processed_event`), the business effect (a ledger with one
//! row per debit and per credit, and `balance_projection`), and answers the checker's
//! questions about what is committed. Statements outside `BEGIN`…`COMMIT` autocommit, as
//! in any SQLite connection. A crash of the consumer drops its open transaction, which
//! SQLite rolls back; committed rows survive.
//!
//! A duplicate is recognised by the unique-constraint error of the inbox `INSERT`, never by
//! a `SELECT` before it; `check_inbox` exists only so that protocols which do check first
//! can be simulated and shown to be wrong.
//!
//! The inbox row keeps the event's payload and its fingerprint. When the `INSERT` hits the
//! constraint (or `check_inbox` finds the row), the fingerprints are compared: the same
//! `event_id` with another payload is not a duplicate but a producer's corruption, answered
//! as [`DbOutcome::PayloadMismatch`]. The consumer then records a `payload_alert` row, in
//! its own committed statement so that it survives crashes; a unique constraint on
//! (`event_id`, received fingerprint) keeps a redelivery from recording it twice.
//!
//! Two optional policies live here too. Inbox retention: a cleanup job deletes inbox rows
//! older than a TTL in bounded batches ([`Store::delete_expired_inbox`]), on its own
//! connection. Out-of-order completions: with [`OutOfOrder::Buffer`], a completion for a
//! transfer the projection does not know yet waits in `pending_event` and is applied in the
//! transaction that creates its transfer.

use crate::model::{Account, Event, EventType, Tick};
/// The database's answers are model types (see [`crate::model::DbOutcome`]).
pub use crate::model::{CommittedState, DbOutcome, LedgerCounts, PayloadAlertRow};
use crate::sim::StateHasher;
use rusqlite::types::{ToSqlOutput, Value};
use rusqlite::{params, Connection, ErrorCode, ToSql, MAIN_DB};
use serde::Serialize;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::hash::Hasher as _;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

pub(crate) mod admission;
mod checker;
pub mod connect;
mod consumer_db;
mod custom;
mod dialect;
mod effect;
mod handler_sql;
mod memory;
mod named;
mod ops;
mod outbox;
pub mod pg;
mod read;
mod retention;
mod sandbox;
mod schema;
mod sql;

pub use checker::{SchemaProblem, SqlChecker, StatementShape};
pub use consumer_db::ConsumerDb;
pub use custom::{CustomSchema, NamedDatabase, MAX_DATABASES};
pub use effect::EffectArgs;
pub use memory::STATEMENT_MEMORY_BYTES;
pub use named::{merge_parts, DatabaseView};
use ops::contention;
pub use outbox::{OutboxTable, ProducerDb, RelayDb, TransferWrite};
pub use read::replay_statements;
pub use retention::CleanupDb;
use sandbox::Sandbox;
pub use sandbox::{Seen, CLOCK_FUNCTIONS, MAX_DATABASE_BYTES, MAX_VALUE_BYTES, MAX_VM_STEPS};
use schema::*;
use sql::*;

/// The store's settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct StoreConfig {
    /// Whether `processed_event.event_id` is the primary key. `false` shows what the
    /// constraint protects: the inbox `INSERT` then never reports a duplicate.
    pub inbox_unique: bool,
    /// How `apply_effect` updates `balance_projection`.
    pub effect: EffectMode,
    /// Whether the ledger has a unique business key, `(transfer_id, direction)` for debits
    /// and credits: one transfer moves money once, whatever `event_id`s carry it.
    pub business_key_unique: bool,
    /// What a completion for a transfer the projection does not know does.
    pub out_of_order: OutOfOrder,
    /// `Some`: a cleanup job deletes inbox rows older than a TTL.
    pub retention: Option<Retention>,
    /// What a simulated crash does to the open transaction. Never set by a scenario: only
    /// `crosscheck`'s hidden `--wrong-model` sets [`CrashModel::KeepUncommitted`], to show
    /// that the cross-check catches a wrong model.
    #[serde(skip)]
    pub crash_model: CrashModel,
    /// `Some`: the scenario's own schema and check queries replace the ledger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<CustomSchema>,
    /// The engine the consumers' database runs on (`sqlite` unless the scenario says).
    #[serde(default, skip_serializing_if = "is_default")]
    pub engine: pg::Engine,
    /// On PostgreSQL: every connection's isolation level.
    #[serde(default, skip_serializing_if = "is_default")]
    pub isolation: pg::Isolation,
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// What the projection does with a `TransferCompleted` whose transfer it does not know.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum OutOfOrder {
    /// Records it in `rejected_event` and applies nothing: the transfer never completes.
    #[default]
    Reject,
    /// Keeps it in `pending_event` (in the same transaction as its inbox row); the
    /// transaction that creates the transfer applies it and deletes the pending row.
    Buffer,
}

/// The inbox retention policy: a periodic job that deletes inbox rows older than
/// `ttl_ticks`, at most `batch` rows per run, as the seeds propose.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Retention {
    /// Rows whose `processed_at` is more than this many ticks in the past are deleted.
    pub ttl_ticks: Tick,
    /// How often the job runs.
    pub cleanup_every_ticks: Tick,
    /// The most rows one run of the job deletes.
    pub batch: u32,
}

impl Retention {
    pub const DEFAULT_CLEANUP_EVERY_TICKS: Tick = 5;
    pub const DEFAULT_BATCH: u32 = 1_000;

    /// A TTL with the default schedule and batch.
    pub fn with_ttl(ttl_ticks: Tick) -> Retention {
        Retention {
            ttl_ticks,
            cleanup_every_ticks: Retention::DEFAULT_CLEANUP_EVERY_TICKS,
            batch: Retention::DEFAULT_BATCH,
        }
    }
}

/// What one run of the cleanup job did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CleanupOutcome {
    /// It deleted the rows of these events (none: no row was old enough).
    Deleted(Vec<String>),
    /// Another connection held the write lock: nothing was deleted; try again later.
    Busy,
}

/// What the simulation says a consumer crash does to its open SQLite transaction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CrashModel {
    /// SQLite rolls it back, as it does when a connection's process dies: the model.
    #[default]
    RollBack,
    /// Deliberately wrong, for tests only: the uncommitted writes are kept (committed).
    KeepUncommitted,
}

/// How the effect updates balances.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum EffectMode {
    /// `SET balance_minor = balance_minor + ?`: one statement, commutative.
    #[default]
    Atomic,
    /// `SELECT balance_minor`, then, on the consumer's next turn, `SET balance_minor = ?` with
    /// the value computed from what was read. Another consumer may write in between.
    ReadModifyWrite,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            inbox_unique: true,
            effect: EffectMode::Atomic,
            business_key_unique: false,
            out_of_order: OutOfOrder::Reject,
            retention: None,
            crash_model: CrashModel::RollBack,
            custom: None,
            engine: pg::Engine::Sqlite,
            isolation: pg::Isolation::ReadCommitted,
        }
    }
}

/// One database operation of a consumer step.
#[derive(Clone, Copy, Debug)]
pub enum StoreOp<'a> {
    Begin,
    /// `SELECT payload_fingerprint FROM processed_event WHERE event_id = ?`; `event` is the
    /// payload as received, compared with the stored one when the row is there.
    CheckInbox {
        event: &'a Event,
    },
    /// `INSERT INTO processed_event …` with the payload as received and its fingerprint,
    /// stamped with virtual time.
    InsertInbox {
        event: &'a Event,
    },
    /// Outside any transaction: `INSERT INTO payload_alert …` with the payload stored in the
    /// inbox and `event`, the payload received. The alert's unique constraint answers a
    /// second attempt for the same received payload.
    RecordPayloadAlert {
        event: &'a Event,
    },
    /// Debit then credit, each a ledger row and an atomic balance update (see
    /// [`EffectArgs`]).
    ApplyEffect(EffectArgs<&'a Event>),
    Commit,
    /// Rolls back every transaction the connections hold open (the main database's and
    /// the named ones'): a consumer's recovery after a duplicate or a failure.
    Rollback,
    /// `BEGIN`, `COMMIT` or `ROLLBACK` on the scenario's named database `db` (from 1, see
    /// [`CustomSchema::databases`]), or, for `RollbackOn(0)`, on the main one alone.
    BeginOn(u8),
    CommitOn(u8),
    RollbackOn(u8),
    /// `INSERT INTO email_outbox …` for the event, stamped with virtual time.
    EnqueueEmail {
        event: &'a Event,
    },
}

/// One of `apply_effect`'s four statements, in the order both engines run them: the
/// debit's ledger row, the debit's balance, the credit's row, the credit's balance.
pub(crate) struct EffectStatement<'e> {
    /// Its position (0 to 3): what a step that waited halfway counts as done.
    pub index: u8,
    pub direction: &'static str,
    pub account: &'e str,
    /// What it moves the account by (negative for the debit).
    pub delta: i64,
    /// The ledger row's `INSERT`; else the balance's `UPDATE`.
    pub ledger_row: bool,
}

impl EffectStatement<'_> {
    /// A read-modify-write's absolute balance: the account's, of the (source, target)
    /// balances read on the step's first turn, moved by `delta`.
    pub fn balance_after(&self, (source, target): (i64, i64)) -> i64 {
        let base = if self.direction == "debit" {
            source
        } else {
            target
        };
        base + self.delta
    }
}

/// `event`'s effect statements from `done` on (those before ran already).
pub(crate) fn effect_statements(
    event: &Event,
    done: u8,
) -> impl Iterator<Item = EffectStatement<'_>> {
    let legs = [
        ("debit", event.source.as_str(), -event.amount_minor),
        ("credit", event.target.as_str(), event.amount_minor),
    ];
    (done.min(4)..4).map(move |index| {
        let (direction, account, delta) = legs[usize::from(index / 2)];
        EffectStatement {
            index,
            direction,
            account,
            delta,
            ledger_row: index % 2 == 0,
        }
    })
}

/// The fingerprint of a payload: FNV-1a (64 bit) of its text, in hex. Stable across
/// platforms, like everything the store writes.
pub fn payload_fingerprint(payload: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in payload.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("could not set up the SQLite database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("could not write the database file: {0}")]
    Io(#[from] std::io::Error),
    /// The scenario's own schema or setup failed (checked when it loads, so not expected).
    #[error("the scenario's schema: {0}")]
    Custom(String),
}

pub struct Store {
    /// Always `Some` while the store lives; taken by `Drop` to go back to the idle pool.
    conn: Option<Connection>,
    /// Every statement run, when recording (for the raw-SQLite benchmark baseline).
    log: Option<Vec<LoggedStatement>>,
    /// For a connection that goes back to the idle pool when the store is dropped, the
    /// template its database came from (in-memory ones do; connections to a file are
    /// closed).
    pooled: Option<Arc<Vec<u8>>>,
    effect: EffectMode,
    out_of_order: OutOfOrder,
    crash_model: CrashModel,
    /// Whether the open transaction has run a write (kept for narration: only then may the
    /// connection be read mid-transaction without taking a snapshot that would change how
    /// SQLite answers its later writes).
    wrote_in_transaction: bool,
    /// The scenario's own schema and checks, if it has them.
    custom: Option<Rc<CustomSchema>>,
    /// The workload's events as the check queries see them (set by the run).
    sql_events: Rc<Vec<crate::model::SqlEvent>>,
    /// Whether SQLite itself rolled back the open transaction when a SQL step failed (it
    /// does on an interrupt or a full database): the consumer's `ROLLBACK` that follows
    /// then finds nothing to roll back, as a real consumer's would.
    rolled_back_by_sqlite: bool,
    /// The connections to the scenario's named databases (`store.databases`), in order:
    /// database `k` of a step is `others[k - 1]`. Each its own SQLite database with its own
    /// transactions, as a second store of a real service would be.
    others: Vec<Connection>,
    /// Per named database, whether its open transaction has written (see
    /// `wrote_in_transaction`).
    others_wrote: Vec<bool>,
    /// With a scenario's own schema, each connection's sandbox: the main database's, then
    /// the named ones'. Empty for the built-in ledger, whose statements are the tool's.
    sandboxes: Vec<Sandbox>,
    /// The latest virtual time the store was asked to act at: the clock its checks read.
    now: Tick,
    /// Per user statement run on the store, whether it inserts, updates or deletes rows
    /// itself (as SQLite's authorizer saw it prepared): only then does its row count
    /// come from `changes()`.
    writes_rows: BTreeMap<String, bool>,
}

/// How a logged statement was run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatementKind {
    /// `execute`: a write, or `BEGIN`/`COMMIT`/`ROLLBACK`.
    Execute,
    /// `query`: every row read, every column fetched.
    Query,
}

/// One statement a run sent to SQLite, with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct LoggedStatement {
    pub sql: &'static str,
    pub params: Vec<Value>,
    pub kind: StatementKind,
}

impl Store {
    /// An in-memory database with the schema and the accounts' opening balances: a pooled
    /// connection last used with the same template, reset in place, or else a copy of the
    /// template (built once per thread).
    pub fn open_in_memory(config: &StoreConfig, accounts: &[Account]) -> Result<Store, StoreError> {
        let bytes = template(config, accounts)?;
        if config.custom.is_some() {
            // A connection that ran a scenario's statements is never loaded with another
            // database: SQLite keeps a table-valued function's table (`json_each`,
            // `pragma_table_info`) pointing at the schema it was first used with, which
            // `deserialize` frees, so the next use would read freed memory. Each run gets a
            // new connection, closed when it ends.
            let mut conn = connect::open_in_memory()?;
            conn.deserialize_read_exact(MAIN_DB, bytes.as_slice(), bytes.len(), false)?;
            return Store::on(conn, config, None).with_named_in_memory(config);
        }
        // An idle connection loaded from this very template is reset in place; any other
        // gets the template's bytes.
        let idle = IDLE.with(|idle| {
            let mut idle = idle.borrow_mut();
            let same = idle.iter().position(|i| Arc::ptr_eq(&i.template, &bytes));
            same.or(idle.len().checked_sub(1))
                .map(|i| idle.swap_remove(i))
        });
        let conn = match idle {
            Some(Idle { template, conn }) if Arc::ptr_eq(&template, &bytes) => {
                reset_in_place(&conn)?;
                conn
            }
            other => {
                let mut conn = match other {
                    Some(Idle { conn, .. }) => {
                        conn.flush_prepared_statement_cache();
                        conn
                    }
                    None => {
                        let conn = connect::open_in_memory()?;
                        // Room for every statement a run uses, and the resets'.
                        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE_CAPACITY);
                        conn
                    }
                };
                conn.deserialize_read_exact(MAIN_DB, bytes.as_slice(), bytes.len(), false)?;
                conn
            }
        };
        Store::on(conn, config, Some(bytes)).with_named_in_memory(config)
    }

    /// A store on `conn` with `config`'s policies; `pooled` is the template it goes back to
    /// the pool with, if it came from there.
    fn on(conn: Connection, config: &StoreConfig, pooled: Option<Arc<Vec<u8>>>) -> Store {
        assert!(
            config.custom.is_none() || pooled.is_none(),
            "a connection that runs a scenario's statements is never pooled"
        );
        let sandboxes = match config.custom {
            Some(_) => vec![Sandbox::install(&conn, 0, sql_stream(0, 0))],
            None => Vec::new(),
        };
        Store {
            conn: Some(conn),
            log: None,
            pooled,
            effect: config.effect,
            out_of_order: config.out_of_order,
            crash_model: config.crash_model,
            wrote_in_transaction: false,
            custom: config.custom.clone().map(Rc::new),
            sql_events: Rc::default(),
            rolled_back_by_sqlite: false,
            others: Vec::new(),
            others_wrote: Vec::new(),
            sandboxes,
            now: 0,
            writes_rows: BTreeMap::new(),
        }
    }

    /// Adds in-memory connections to the scenario's named databases, each from its own
    /// template.
    fn with_named_in_memory(mut self, config: &StoreConfig) -> Result<Store, StoreError> {
        let Some(custom) = &config.custom else {
            return Ok(self);
        };
        for k in 1..=custom.databases.len() {
            let bytes = template(&custom.named_config(k as u8), &[])?;
            let mut conn = connect::open_in_memory()?;
            conn.deserialize_read_exact(MAIN_DB, bytes.as_slice(), bytes.len(), false)?;
            self.add_named(conn);
        }
        Ok(self)
    }

    /// Adds the connection to the next named database, under the same limits as the
    /// main one's.
    fn add_named(&mut self, conn: Connection) {
        let db = self.others.len() as u8 + 1;
        self.sandboxes
            .push(Sandbox::install(&conn, 0, sql_stream(db, 0)));
        self.others.push(conn);
        self.others_wrote.push(false);
    }

    /// The run's seed and this connection's number among the run's connections to its
    /// database: the scenario's `random()` draws from their stream (see
    /// [`crate::sim::Stream::Database`]).
    pub fn seed_sql(&mut self, seed: u64, connection: u16) {
        for (db, sandbox) in self.sandboxes.iter().enumerate() {
            sandbox.reseed(seed, sql_stream(db as u8, connection));
        }
    }

    /// Where each of its connections' random streams stands (see [`Store::seed_sql`]), in
    /// words drawn (a run draws far fewer than 2^64).
    pub fn sql_rng_positions(&self) -> Vec<u64> {
        let words = |s: &Sandbox| u64::try_from(s.rng_position()).expect("fewer than 2^64 words");
        self.sandboxes.iter().map(words).collect()
    }

    /// Puts each connection's random stream where `positions` say (a connection in another
    /// process goes on where the one before it stood).
    pub fn set_sql_rng_positions(&mut self, positions: &[u64]) {
        for (sandbox, p) in self.sandboxes.iter().zip(positions) {
            sandbox.set_rng_position(u128::from(*p));
        }
    }

    /// The virtual time the store's checks read the clock at, until its next operation
    /// (a connection opened only to read what another process committed).
    pub fn set_clock(&mut self, now: Tick) {
        self.now = now;
    }

    /// The SQLite virtual-machine steps the scenario's statements took on this store's
    /// connections so far (checks and narration's reads not counted).
    pub fn sql_vm_steps(&self) -> u64 {
        self.sandboxes.iter().map(Sandbox::vm_steps).sum()
    }

    /// The connection to database `db` (0: the main one).
    pub(super) fn conn_at(&self, db: u8) -> &Connection {
        match usize::from(db).checked_sub(1) {
            None => self.conn(),
            Some(k) => &self.others[k],
        }
    }

    /// Every connection: the main database's, then the named ones'.
    fn connections(&self) -> impl Iterator<Item = &Connection> {
        self.conn.iter().chain(&self.others)
    }

    /// The workload's events as the scenario's check queries see them.
    pub fn set_sql_events(&mut self, events: Rc<Vec<crate::model::SqlEvent>>) {
        self.sql_events = events;
    }

    /// `connections` connections to one new database file in `dir`, in WAL mode, each with
    /// its own locks and snapshots as separate processes would have: a write while another
    /// connection holds the write lock answers `SQLITE_BUSY` at once (no busy timeout: the
    /// scheduler decides when to retry), and a write on a snapshot older than another
    /// connection's commit answers `SQLITE_BUSY_SNAPSHOT`. `synchronous=OFF`: a simulated
    /// crash is a process crash, which loses nothing the OS already holds.
    pub fn open_shared(
        dir: &std::path::Path,
        config: &StoreConfig,
        accounts: &[Account],
        connections: usize,
    ) -> Result<Vec<Store>, StoreError> {
        let path = dir.join("delivery-sim.sqlite");
        write_in_wal_mode(&path, &template(config, accounts)?)?;
        let databases = config.custom.as_ref().map_or(&[][..], |c| &c.databases);
        let mut named = Vec::new();
        for (k, d) in databases.iter().enumerate() {
            let path = dir.join(format!("named-{}.sqlite", d.name));
            let custom = config.custom.as_ref().expect("named databases are custom");
            let bytes = template(&custom.named_config(k as u8 + 1), &[])?;
            write_in_wal_mode(&path, &bytes)?;
            named.push(path);
        }
        (0..connections)
            .map(|i| {
                let conn = open_wal(&path, i == 0)?;
                let mut store = Store::on(conn, config, None);
                for path in &named {
                    store.add_named(open_wal(path, i == 0)?);
                }
                Ok(store)
            })
            .collect()
    }

    /// One connection to the database file at `path`, as a real consumer process opens
    /// it: the file is created from the template (schema and opening balances) if it does
    /// not exist yet, and opened in WAL mode with `synchronous=FULL`, so that a commit is on
    /// disk before it returns. Opening a file that a killed process left behind is how
    /// SQLite recovers: the WAL's committed frames are kept, anything after the last commit
    /// frame is ignored. Used by `crosscheck`, whose consumer is a real child process.
    pub fn open_file(
        path: &std::path::Path,
        config: &StoreConfig,
        accounts: &[Account],
    ) -> Result<Store, StoreError> {
        let conn = open_durable(path, || template(config, accounts))?;
        let mut store = Store::on(conn, config, None);
        // The named databases are files beside it: `NAME.` before its name.
        let databases = config.custom.as_ref().map_or(&[][..], |c| &c.databases);
        for (k, d) in databases.iter().enumerate() {
            let file = path.file_name().map(|f| f.to_string_lossy().into_owned());
            let named = path.with_file_name(format!("{}.{}", d.name, file.unwrap_or_default()));
            let custom = config.custom.as_ref().expect("named databases are custom");
            let conn = open_durable(&named, || template(&custom.named_config(k as u8 + 1), &[]))?;
            store.add_named(conn);
        }
        Ok(store)
    }

    fn conn(&self) -> &Connection {
        self.conn.as_ref().expect("a live store has its connection")
    }

    /// Starts keeping every statement run from now on.
    pub fn record_statements(&mut self) {
        self.log = Some(Vec::new());
    }

    /// The statements run since [`Store::record_statements`].
    pub fn take_statements(&mut self) -> Vec<LoggedStatement> {
        self.log.take().unwrap_or_default()
    }

    fn remember(&mut self, sql: &'static str, params: &[&dyn ToSql], kind: StatementKind) {
        if let Some(log) = &mut self.log {
            let params = params
                .iter()
                .map(|p| match p.to_sql().expect("our parameters convert") {
                    ToSqlOutput::Borrowed(v) => v.into(),
                    ToSqlOutput::Owned(v) => v,
                    other => panic!("unexpected parameter {other:?}"),
                })
                .collect();
            log.push(LoggedStatement { sql, params, kind });
        }
    }

    /// Runs a write (or a transaction statement) through the statement cache.
    fn write(&mut self, sql: &'static str, params: &[&dyn ToSql]) -> rusqlite::Result<usize> {
        self.remember(sql, params, StatementKind::Execute);
        let result = self
            .conn()
            .prepare_cached(sql)
            .and_then(|mut statement| statement.execute(params));
        // A write that succeeded inside a transaction holds the write lock until the
        // transaction ends; `BEGIN` itself writes nothing.
        self.wrote_in_transaction = !self.conn().is_autocommit()
            && (self.wrote_in_transaction || (result.is_ok() && sql != "BEGIN"));
        result
    }

    /// Runs a query and hands every row to `row`.
    fn read(
        &mut self,
        sql: &'static str,
        params: &[&dyn ToSql],
        mut row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<()>,
    ) {
        self.remember(sql, params, StatementKind::Query);
        let mut stmt = self
            .conn()
            .prepare_cached(sql)
            .expect("our queries prepare");
        let mut rows = stmt.query(params).expect("our queries run");
        while let Some(r) = rows.next().expect("rows read") {
            row(r).expect("columns of the expected types");
        }
    }

    /// The consumer's process died: its connections' open transactions, if any, are rolled
    /// back, exactly as SQLite does when a connection goes away. Returns whether there was
    /// one.
    pub fn drop_open_transaction(&mut self) -> bool {
        let mut named = false;
        for conn in self.others.iter().filter(|c| !c.is_autocommit()) {
            conn.execute_batch("ROLLBACK")
                .expect("ROLLBACK of an open transaction");
            named = true;
        }
        self.others_wrote.fill(false);
        if self.conn().is_autocommit() {
            return named;
        }
        match self.crash_model {
            CrashModel::RollBack => {
                assert_eq!(self.control("ROLLBACK"), None, "ROLLBACK is never busy")
            }
            // The deliberately wrong model: what was written survives the crash.
            CrashModel::KeepUncommitted => {
                assert_eq!(self.control("COMMIT"), None, "a lone connection commits")
            }
        }
        true
    }

    /// Whether a transaction is open on any of its connections.
    pub fn in_transaction(&self) -> bool {
        self.connections().any(|c| !c.is_autocommit())
    }
}

/// The random stream of connection `connection` to database `db`.
fn sql_stream(db: u8, connection: u16) -> crate::sim::Stream {
    crate::sim::Stream::Database { db, connection }
}

/// A connection to the database file at `path` as a real process opens it (see
/// [`Store::open_file`]): created from `template` if it does not exist, WAL mode,
/// `synchronous=FULL`.
fn open_durable(
    path: &std::path::Path,
    template: impl FnOnce() -> Result<Arc<Vec<u8>>, StoreError>,
) -> Result<Connection, StoreError> {
    if !path.exists() {
        std::fs::write(path, template()?.as_slice())?;
    }
    let conn = connect::open_file(path)?;
    let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
    assert_eq!(mode, "wal", "a file database accepts WAL");
    conn.execute_batch("PRAGMA synchronous=FULL")?;
    Ok(conn)
}

/// Writes the database image `bytes` to `path` marked as a WAL database (bytes 18 and 19
/// of the header, the file format's write and read versions, are 2), so that the first
/// connection finds it in WAL mode instead of converting it through a rollback journal.
/// Written around those two bytes, so that the shared template is not copied per run.
fn write_in_wal_mode(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut file = std::fs::File::create(path)?;
    file.write_all(&bytes[..18])?;
    file.write_all(&[2, 2])?;
    file.write_all(&bytes[20..])
}

/// A connection to the database file at `path` for one of several processes: WAL mode
/// (set by the `first`), no busy timeout (the scheduler decides when to retry), and
/// `synchronous=OFF` (a simulated crash is a process crash, which loses nothing the OS
/// already holds).
fn open_wal(path: &std::path::Path, first: bool) -> Result<Connection, StoreError> {
    let conn = connect::open_file(path)?;
    conn.busy_timeout(std::time::Duration::ZERO)?;
    // Before the switch to WAL: the switch itself writes a rollback journal, which would
    // otherwise be synced to disk four times per run (most of a run's time on a disk).
    conn.execute_batch("PRAGMA synchronous=OFF")?;
    if first {
        let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        assert_eq!(mode, "wal", "a file database accepts WAL");
    }
    Ok(conn)
}

impl Drop for Store {
    /// The connection goes back to this thread's idle pool, with no transaction open and
    /// its prepared statements kept for the next run on the same template.
    fn drop(&mut self) {
        let Some(conn) = self.conn.take() else { return };
        let Some(template) = self.pooled.take() else {
            return; // Closed.
        };
        if !conn.is_autocommit() && conn.execute_batch("ROLLBACK").is_err() {
            return; // Closed instead of reused.
        }
        IDLE.with(|idle| {
            let mut idle = idle.borrow_mut();
            if idle.len() < MAX_IDLE {
                idle.push(Idle { template, conn });
            }
        });
    }
}

#[cfg(test)]
mod tests;
