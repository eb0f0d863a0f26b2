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

mod outbox;
pub use outbox::{OutboxTable, TransferWrite};

/// The store's settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
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
}

/// What the projection does with a `TransferCompleted` whose transfer it does not know.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
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
    /// Debit then credit, each a ledger row and an atomic balance update. With
    /// `fail_credit` the debit runs and the credit fails (the seeds' "applyCredit fails").
    /// `done` statements of it already ran before SQLite answered busy (outside a
    /// transaction each statement commits on its own, so a retry must not repeat them).
    ApplyEffect {
        event: &'a Event,
        fail_credit: bool,
        done: u8,
        /// With [`EffectMode::ReadModifyWrite`]: the (source, target) balances read on the
        /// step's first turn; `None` on that first turn.
        read: Option<(i64, i64)>,
        /// Record the transfer in `transfer_state` (the lifecycle workload needs it; the
        /// plain workload skips the statement).
        track_transfer: bool,
    },
    Commit,
    Rollback,
    /// `INSERT INTO email_outbox …` for the event, stamped with virtual time.
    EnqueueEmail {
        event: &'a Event,
    },
}

/// What a failed statement means for the simulation: lock contention is a scheduling event
/// (wait, or roll back on a stale snapshot); anything else is a bug of ours.
fn contention(e: &rusqlite::Error, done: u8) -> Option<DbOutcome> {
    match e {
        rusqlite::Error::SqliteFailure(f, _)
            if f.extended_code == rusqlite::ffi::SQLITE_BUSY_SNAPSHOT =>
        {
            Some(DbOutcome::StaleSnapshot)
        }
        rusqlite::Error::SqliteFailure(f, _)
            if matches!(f.code, ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) =>
        {
            Some(DbOutcome::Busy { done })
        }
        _ => None,
    }
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
}

pub struct Store {
    /// Always `Some` while the store lives; taken by `Drop` to go back to the idle pool.
    conn: Option<Connection>,
    /// Every statement run, when recording (for the raw-SQLite benchmark baseline).
    log: Option<Vec<LoggedStatement>>,
    /// For a connection that goes back to the idle pool when the store is dropped, the
    /// template its database came from (in-memory ones do; connections to a file are
    /// closed).
    pooled: Option<Rc<Vec<u8>>>,
    effect: EffectMode,
    out_of_order: OutOfOrder,
    crash_model: CrashModel,
    /// Whether the open transaction has run a write (kept for narration: only then may the
    /// connection be read mid-transaction without taking a snapshot that would change how
    /// SQLite answers its later writes).
    wrote_in_transaction: bool,
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

const INSERT_INBOX: &str = "INSERT INTO processed_event
     (event_id, event_type, payload_fingerprint, payload, processed_at)
     VALUES (?1, ?2, ?3, ?4, ?5)";
const SELECT_INBOX: &str =
    "SELECT payload_fingerprint FROM processed_event WHERE event_id = ?1 LIMIT 1";
/// The stored payload is read by the statement itself, from the committed inbox row.
const INSERT_ALERT: &str = "INSERT INTO payload_alert
     (event_id, stored_payload, received_payload, received_fingerprint, detected_at)
     VALUES (?1,
             COALESCE((SELECT payload FROM processed_event WHERE event_id = ?1 LIMIT 1), ''),
             ?2, ?3, ?4)";
const PAYLOAD_ALERTS: &str = "SELECT event_id, stored_payload, received_payload, detected_at
     FROM payload_alert ORDER BY alert_id";
const CREDIT_AMOUNTS: &str = "SELECT event_id, amount_minor FROM ledger_entry
     WHERE direction = 'credit' ORDER BY entry_id";
const INSERT_LEDGER: &str = "INSERT INTO ledger_entry
     (event_id, transfer_id, account, direction, amount_minor, applied_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
const UPDATE_BALANCE: &str =
    "UPDATE balance_projection SET balance_minor = balance_minor + ?1 WHERE account = ?2";
const SELECT_BALANCE: &str = "SELECT balance_minor FROM balance_projection WHERE account = ?1";
const SET_BALANCE: &str = "UPDATE balance_projection SET balance_minor = ?1 WHERE account = ?2";
const LEDGER_BY_ACCOUNT: &str =
    "SELECT account, SUM(amount_minor) FROM ledger_entry GROUP BY account";
const LEDGER_BY_EVENT: &str =
    "SELECT event_id, SUM(direction = 'debit'), SUM(direction = 'credit'),
     SUM(direction = 'completion') FROM ledger_entry GROUP BY event_id";
const REJECTED_BY_EVENT: &str = "SELECT event_id, COUNT(*) FROM rejected_event GROUP BY event_id";
const INSERT_TRANSFER: &str =
    "INSERT OR IGNORE INTO transfer_state (transfer_id, status) VALUES (?1, 'created')";
const COMPLETE_TRANSFER: &str = "UPDATE transfer_state SET status = 'completed'
     WHERE transfer_id = ?1 AND status = 'created'";
const TRANSFER_KNOWN: &str = "SELECT 1 FROM transfer_state WHERE transfer_id = ?1";
const INSERT_REJECTED: &str =
    "INSERT INTO rejected_event (event_id, transfer_id, reason, rejected_at)
     VALUES (?1, ?2, 'completion of an unknown transfer', ?3)";
const INSERT_PENDING: &str =
    "INSERT INTO pending_event (event_id, transfer_id, event_type, buffered_at)
     VALUES (?1, ?2, ?3, ?4)";
/// The completions that waited for this transfer take effect: one `completion` row each.
const APPLY_PENDING: &str = "INSERT INTO ledger_entry
     (event_id, transfer_id, account, direction, amount_minor, applied_at)
     SELECT event_id, transfer_id, ?2, 'completion', 0, ?3
     FROM pending_event WHERE transfer_id = ?1 ORDER BY rowid";
const DELETE_PENDING: &str = "DELETE FROM pending_event WHERE transfer_id = ?1";
const PENDING_BY_EVENT: &str = "SELECT event_id, COUNT(*) FROM pending_event GROUP BY event_id";
/// The seeds' bounded batch: the oldest-by-rowid rows past the TTL, at most `?2` of them.
const DELETE_EXPIRED_INBOX: &str = "DELETE FROM processed_event WHERE rowid IN
     (SELECT rowid FROM processed_event WHERE processed_at < ?1 LIMIT ?2)
     RETURNING event_id";
const EARLIEST_INBOX_ROW: &str = "SELECT MIN(processed_at) FROM processed_event";
const INBOX_BY_EVENT: &str = "SELECT event_id, COUNT(*) FROM processed_event GROUP BY event_id";
const LEDGER_ROWS_OF_EVENT: &str = "SELECT COUNT(*) FROM ledger_entry WHERE event_id = ?1";
const INBOX_ROWS_OF_EVENT: &str = "SELECT COUNT(*) FROM processed_event WHERE event_id = ?1";
const BALANCES: &str = "SELECT account, balance_minor FROM balance_projection";

/// Built databases, serialized, by (schema, accounts). Creating the schema and the accounts
/// costs far more than copying their bytes into a fresh connection, and every run of a
/// scenario starts from the same database, so each is built once per thread (per thread,
/// not per process: a shared map behind a lock made parallel runs wait on each other).
/// The bytes are exactly what building would give, so this changes no run.
/// Keyed by the whole store configuration as text, so that a setting that changes the
/// schema can never be served another setting's template.
type TemplateKey = (String, Vec<(String, i64)>);
thread_local! {
    static TEMPLATES: RefCell<BTreeMap<TemplateKey, Rc<Vec<u8>>>> =
        const { RefCell::new(BTreeMap::new()) };
    /// Connections of finished runs, reused by the next runs on this thread: opening and
    /// closing a connection cost more than a whole small run. Each reuse either resets the
    /// database in place (the same template: see [`reset_in_place`]) or replaces it
    /// wholesale with another template, so nothing of a previous run survives.
    static IDLE: RefCell<Vec<Idle>> = const { RefCell::new(Vec::new()) };
}

/// An idle connection and the template its database was loaded from.
struct Idle {
    template: Rc<Vec<u8>>,
    conn: Connection,
}

/// The prepared statements a pooled connection keeps: more than the store's statements and
/// the resets' together, so that none is evicted and prepared again.
const STATEMENT_CACHE_CAPACITY: usize = 64;

/// The most idle connections kept per thread.
const MAX_IDLE: usize = 4;

/// The serialized database a run starts from, built on first use on this thread.
fn template(config: &StoreConfig, accounts: &[Account]) -> Result<Rc<Vec<u8>>, StoreError> {
    let cached = TEMPLATES.with(|t| {
        t.borrow()
            .iter()
            .find(|((schema, accs), _)| {
                *schema == format!("{config:?}")
                    && accs.len() == accounts.len()
                    && accs.iter().zip(accounts).all(|((name, balance), a)| {
                        *name == a.name && *balance == a.initial_balance_minor
                    })
            })
            .map(|(_, bytes)| Rc::clone(bytes))
    });
    let bytes = match cached {
        Some(bytes) => bytes,
        None => {
            let built = Connection::open_in_memory()?;
            build(&built, config, accounts)?;
            let bytes = Rc::new(built.serialize(MAIN_DB)?.to_vec());
            let key: TemplateKey = (
                format!("{config:?}"),
                accounts
                    .iter()
                    .map(|a| (a.name.clone(), a.initial_balance_minor))
                    .collect(),
            );
            TEMPLATES.with(|t| t.borrow_mut().insert(key, Rc::clone(&bytes)));
            bytes
        }
    };
    Ok(bytes)
}

/// Builds the schema and opening balances on `conn`.
fn build(conn: &Connection, config: &StoreConfig, accounts: &[Account]) -> rusqlite::Result<()> {
    let inbox_key = if config.inbox_unique {
        "PRIMARY KEY"
    } else {
        "NOT NULL"
    };
    conn.execute_batch(&format!(
        "CREATE TABLE processed_event (
             event_id            TEXT {inbox_key},
             event_type          TEXT NOT NULL,
             payload_fingerprint TEXT NOT NULL,
             payload             TEXT NOT NULL,
             processed_at        INTEGER NOT NULL
         );
         CREATE TABLE payload_alert (
             alert_id             INTEGER PRIMARY KEY,
             event_id             TEXT NOT NULL,
             stored_payload       TEXT NOT NULL,
             received_payload     TEXT NOT NULL,
             received_fingerprint TEXT NOT NULL,
             detected_at          INTEGER NOT NULL,
             UNIQUE (event_id, received_fingerprint)
         );
         CREATE TABLE ledger_entry (
             entry_id     INTEGER PRIMARY KEY,
             event_id     TEXT NOT NULL,
             transfer_id  TEXT NOT NULL,
             account      TEXT NOT NULL,
             direction    TEXT NOT NULL
                          CHECK (direction IN ('debit', 'credit', 'completion')),
             amount_minor INTEGER NOT NULL,
             applied_at   INTEGER NOT NULL
         );
         CREATE TABLE balance_projection (
             account       TEXT PRIMARY KEY,
             balance_minor INTEGER NOT NULL
         );
         CREATE TABLE transfer_state (
             transfer_id TEXT PRIMARY KEY,
             status      TEXT NOT NULL CHECK (status IN ('created', 'completed'))
         );
         CREATE TABLE rejected_event (
             event_id    TEXT NOT NULL,
             transfer_id TEXT NOT NULL,
             reason      TEXT NOT NULL,
             rejected_at INTEGER NOT NULL
         );
         -- Completions that arrived before their transfer (out_of_order: buffer). No key on
         -- event_id: the inbox is what deduplicates, and without it a redelivered
         -- completion is buffered twice and applied twice, as it would be in production.
         CREATE TABLE pending_event (
             event_id    TEXT NOT NULL,
             transfer_id TEXT NOT NULL,
             event_type  TEXT NOT NULL,
             buffered_at INTEGER NOT NULL
         );
         CREATE INDEX pending_event_by_transfer ON pending_event (transfer_id);"
    ))?;
    conn.execute_batch(outbox::SCHEMA)?;
    if config.business_key_unique {
        conn.execute_batch(outbox::BUSINESS_KEY)?;
    }
    // The opening balances are kept twice: `balance_projection` is what runs change, and
    // `opening_balance` is what `reset_in_place` restores it from.
    conn.execute_batch(
        "CREATE TABLE opening_balance (
             account       TEXT PRIMARY KEY,
             balance_minor INTEGER NOT NULL
         );",
    )?;
    let mut insert =
        conn.prepare("INSERT INTO opening_balance (account, balance_minor) VALUES (?1, ?2)")?;
    for a in accounts {
        insert.execute(params![a.name, a.initial_balance_minor])?;
    }
    conn.execute_batch(RESTORE_BALANCES)?;
    Ok(())
}

const RESTORE_BALANCES: &str = "INSERT INTO balance_projection (account, balance_minor)
     SELECT account, balance_minor FROM opening_balance ORDER BY rowid";
const TABLES_TO_EMPTY: &str = "SELECT name FROM sqlite_schema
     WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'opening_balance'
     ORDER BY name";

/// Brings a database loaded from a template back to that template's rows without touching
/// its schema: every table but `opening_balance` is emptied, then the balances are copied
/// back from it. Replacing the database (`deserialize`) would make SQLite parse the
/// schema and prepare every statement again, which is about half of a small run's time;
/// this keeps the connection's prepared statements. No table has `AUTOINCREMENT`, so the
/// rowids of the next run start at 1 again, as they do in a fresh copy.
fn reset_in_place(conn: &Connection) -> rusqlite::Result<()> {
    assert!(
        conn.is_autocommit(),
        "an idle connection has no transaction"
    );
    let tables: Vec<String> = conn
        .prepare_cached(TABLES_TO_EMPTY)?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    conn.execute_batch("BEGIN")?;
    for table in &tables {
        conn.prepare_cached(&format!("DELETE FROM \"{table}\""))?
            .execute([])?;
    }
    conn.prepare_cached(RESTORE_BALANCES)?.execute([])?;
    conn.execute_batch("COMMIT")
}

impl Store {
    /// An in-memory database with the schema and the accounts' opening balances: a pooled
    /// connection last used with the same template, reset in place, or else a copy of the
    /// template (built once per thread).
    pub fn open_in_memory(config: &StoreConfig, accounts: &[Account]) -> Result<Store, StoreError> {
        let bytes = template(config, accounts)?;
        // An idle connection loaded from this very template is reset in place; any other
        // gets the template's bytes.
        let idle = IDLE.with(|idle| {
            let mut idle = idle.borrow_mut();
            let same = idle.iter().position(|i| Rc::ptr_eq(&i.template, &bytes));
            same.or(idle.len().checked_sub(1))
                .map(|i| idle.swap_remove(i))
        });
        let conn = match idle {
            Some(Idle { template, conn }) if Rc::ptr_eq(&template, &bytes) => {
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
                        let conn = Connection::open_in_memory()?;
                        // Room for every statement a run uses, and the resets'.
                        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE_CAPACITY);
                        conn
                    }
                };
                conn.deserialize_read_exact(MAIN_DB, bytes.as_slice(), bytes.len(), false)?;
                conn
            }
        };
        Ok(Store {
            conn: Some(conn),
            log: None,
            pooled: Some(bytes),
            effect: config.effect,
            out_of_order: config.out_of_order,
            crash_model: config.crash_model,
            wrote_in_transaction: false,
        })
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
        std::fs::write(&path, template(config, accounts)?.as_slice())?;
        (0..connections)
            .map(|i| {
                let conn = Connection::open(&path)?;
                conn.busy_timeout(std::time::Duration::ZERO)?;
                if i == 0 {
                    let mode: String =
                        conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
                    assert_eq!(mode, "wal", "a file database accepts WAL");
                }
                conn.execute_batch("PRAGMA synchronous=OFF")?;
                Ok(Store {
                    conn: Some(conn),
                    log: None,
                    pooled: None,
                    effect: config.effect,
                    out_of_order: config.out_of_order,
                    crash_model: config.crash_model,
                    wrote_in_transaction: false,
                })
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
        if !path.exists() {
            std::fs::write(path, template(config, accounts)?.as_slice())?;
        }
        let conn = Connection::open(path)?;
        let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        assert_eq!(mode, "wal", "a file database accepts WAL");
        conn.execute_batch("PRAGMA synchronous=FULL")?;
        Ok(Store {
            conn: Some(conn),
            log: None,
            pooled: None,
            effect: config.effect,
            out_of_order: config.out_of_order,
            crash_model: config.crash_model,
            wrote_in_transaction: false,
        })
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

    /// Runs one operation at virtual time `now`. Lock contention comes back as
    /// [`DbOutcome::Busy`] or [`DbOutcome::StaleSnapshot`]; other SQLite errors than the
    /// inbox's unique violation are bugs of the simulator (the schema and statements are
    /// ours), so they panic with the statement that failed.
    pub fn execute(&mut self, op: StoreOp<'_>, now: Tick) -> DbOutcome {
        match op {
            StoreOp::Begin => {
                assert!(self.conn().is_autocommit(), "BEGIN inside a transaction");
                self.control("BEGIN").unwrap_or(DbOutcome::Begun)
            }
            StoreOp::CheckInbox { event } => match self.stored_fingerprint(event) {
                None => DbOutcome::NotFound,
                Some(stored) if stored == payload_fingerprint(&event.payload()) => DbOutcome::Found,
                Some(_) => DbOutcome::PayloadMismatch,
            },
            StoreOp::InsertInbox { event } => {
                let payload = event.payload();
                let fingerprint = payload_fingerprint(&payload);
                let result = self.write(
                    INSERT_INBOX,
                    &[
                        &event.event_id,
                        &event.event_type.as_str(),
                        &fingerprint,
                        &payload,
                        &(now as i64),
                    ],
                );
                match result {
                    Ok(1) => DbOutcome::Inserted,
                    Err(rusqlite::Error::SqliteFailure(e, _))
                        if e.code == ErrorCode::ConstraintViolation =>
                    {
                        // The constraint said "already there"; only then is the stored
                        // payload read, to tell a duplicate from a corruption.
                        match self.stored_fingerprint(event) {
                            Some(stored) if stored != fingerprint => DbOutcome::PayloadMismatch,
                            _ => DbOutcome::Duplicate,
                        }
                    }
                    Err(e) => contention(&e, 0)
                        .unwrap_or_else(|| panic!("inbox INSERT: unexpected {e:?}")),
                    Ok(n) => panic!("inbox INSERT changed {n} rows"),
                }
            }
            StoreOp::ApplyEffect {
                event,
                fail_credit,
                done,
                read,
                track_transfer,
            } => {
                if event.event_type == EventType::TransferCompleted {
                    return self.complete(event, done, now);
                }
                let rmw = self.effect == EffectMode::ReadModifyWrite;
                let read = match (rmw, read) {
                    (true, None) => {
                        let mut balances = [0i64; 2];
                        for (i, account) in [&event.source, &event.target].into_iter().enumerate() {
                            self.read(SELECT_BALANCE, &[account], |r| {
                                balances[i] = r.get(0)?;
                                Ok(())
                            });
                        }
                        return DbOutcome::BalancesRead {
                            source: balances[0],
                            target: balances[1],
                        };
                    }
                    (_, read) => read,
                };
                // Four statements: debit row, debit balance, credit row, credit balance.
                let legs = [
                    ("debit", event.source.as_str(), -event.amount_minor),
                    ("credit", event.target.as_str(), event.amount_minor),
                ];
                for i in done.min(4)..4 {
                    let (direction, account, delta) = legs[usize::from(i / 2)];
                    if direction == "credit" && fail_credit {
                        return DbOutcome::CreditFailed;
                    }
                    let result = if i % 2 == 0 {
                        self.write(
                            INSERT_LEDGER,
                            &[
                                &event.event_id,
                                &event.transfer_id,
                                &account,
                                &direction,
                                &delta,
                                &(now as i64),
                            ],
                        )
                    } else {
                        match read {
                            // Writes back an absolute value computed from the earlier read.
                            Some((source, target)) => {
                                let base = if direction == "debit" { source } else { target };
                                self.write(SET_BALANCE, &[&(base + delta), &account])
                            }
                            None => self.write(UPDATE_BALANCE, &[&delta, &account]),
                        }
                        .inspect(|&n| {
                            assert_eq!(n, 1, "account {account} exists in balance_projection")
                        })
                    };
                    match result {
                        Err(rusqlite::Error::SqliteFailure(f, _))
                            if f.code == ErrorCode::ConstraintViolation && i % 2 == 0 =>
                        {
                            return DbOutcome::BusinessDuplicate;
                        }
                        Err(e) => {
                            return contention(&e, i).unwrap_or_else(|| {
                                panic!("{direction} of {}: {e}", event.event_id)
                            })
                        }
                        Ok(_) => {}
                    }
                }
                if track_transfer && done <= 4 {
                    if let Err(e) = self.write(INSERT_TRANSFER, &[&event.transfer_id]) {
                        return contention(&e, 4)
                            .unwrap_or_else(|| panic!("transfer_state INSERT: {e}"));
                    }
                }
                if track_transfer && self.out_of_order == OutOfOrder::Buffer {
                    return self.release_pending(event, done, now);
                }
                DbOutcome::Applied
            }
            StoreOp::RecordPayloadAlert { event } => {
                assert!(
                    self.conn().is_autocommit(),
                    "an alert is committed on its own, after the rollback"
                );
                let payload = event.payload();
                let result = self.write(
                    INSERT_ALERT,
                    &[
                        &event.event_id,
                        &payload,
                        &payload_fingerprint(&payload),
                        &(now as i64),
                    ],
                );
                match result {
                    Ok(1) => DbOutcome::AlertRecorded,
                    Err(rusqlite::Error::SqliteFailure(e, _))
                        if e.code == ErrorCode::ConstraintViolation =>
                    {
                        DbOutcome::AlertExists
                    }
                    Err(e) => contention(&e, 0)
                        .unwrap_or_else(|| panic!("payload_alert INSERT: unexpected {e:?}")),
                    Ok(n) => panic!("payload_alert INSERT changed {n} rows"),
                }
            }
            StoreOp::Commit => {
                assert!(!self.conn().is_autocommit(), "COMMIT outside a transaction");
                self.control("COMMIT").unwrap_or(DbOutcome::Committed)
            }
            StoreOp::EnqueueEmail { event } => {
                match self.write(
                    outbox::INSERT_EMAIL,
                    &[&event.event_id, &(event.index as i64), &(now as i64)],
                ) {
                    Ok(_) => DbOutcome::EmailQueued,
                    Err(e) => contention(&e, 0)
                        .unwrap_or_else(|| panic!("email_outbox INSERT: unexpected {e:?}")),
                }
            }
            StoreOp::Rollback => {
                assert!(
                    !self.conn().is_autocommit(),
                    "ROLLBACK outside a transaction"
                );
                self.control("ROLLBACK").unwrap_or(DbOutcome::RolledBack)
            }
        }
    }

    /// The payload fingerprint the inbox holds for `event`'s id, if a row is there.
    fn stored_fingerprint(&mut self, event: &Event) -> Option<String> {
        let mut stored = None;
        self.read(SELECT_INBOX, &[&event.event_id], |r| {
            stored = Some(r.get(0)?);
            Ok(())
        });
        stored
    }

    /// The consumer's process died: its connection's open transaction, if any, is rolled
    /// back, exactly as SQLite does when a connection goes away. Returns whether there was
    /// one.
    pub fn drop_open_transaction(&mut self) -> bool {
        if self.conn().is_autocommit() {
            return false;
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

    pub fn in_transaction(&self) -> bool {
        !self.conn().is_autocommit()
    }

    /// A `TransferCompleted`: marks its transfer completed and writes a `completion` ledger
    /// row, or records a rejection if the transfer is unknown. `done`: 1 once the status
    /// UPDATE took effect, 2 once the rejection was decided (for retries after busy).
    fn complete(&mut self, event: &Event, done: u8, now: Tick) -> DbOutcome {
        let busy = |e: rusqlite::Error, at: u8| {
            contention(&e, at).unwrap_or_else(|| panic!("completion of {}: {e}", event.event_id))
        };
        let mut step = done;
        if step == 0 {
            match self.write(COMPLETE_TRANSFER, &[&event.transfer_id]) {
                Ok(1) => step = 1,
                Ok(_) => {
                    let mut known = false;
                    self.read(TRANSFER_KNOWN, &[&event.transfer_id], |_| {
                        known = true;
                        Ok(())
                    });
                    if known {
                        return DbOutcome::AlreadyCompleted;
                    }
                    step = 2;
                }
                Err(e) => return busy(e, 0),
            }
        }
        if step == 1 {
            return match self.write(
                INSERT_LEDGER,
                &[
                    &event.event_id,
                    &event.transfer_id,
                    &event.source,
                    &"completion",
                    &0i64,
                    &(now as i64),
                ],
            ) {
                Ok(_) => DbOutcome::Applied,
                Err(e) => busy(e, 1),
            };
        }
        if self.out_of_order == OutOfOrder::Buffer {
            return match self.write(
                INSERT_PENDING,
                &[
                    &event.event_id,
                    &event.transfer_id,
                    &event.event_type.as_str(),
                    &(now as i64),
                ],
            ) {
                Ok(_) => DbOutcome::Buffered,
                Err(e) => busy(e, 2),
            };
        }
        match self.write(
            INSERT_REJECTED,
            &[&event.event_id, &event.transfer_id, &(now as i64)],
        ) {
            Ok(_) => DbOutcome::Rejected,
            Err(e) => busy(e, 2),
        }
    }

    /// After a `TransferCreated` with [`OutOfOrder::Buffer`]: applies the completions that
    /// waited in `pending_event` for its transfer (a `completion` row each, the transfer
    /// marked completed) and deletes them, in the creation's own transaction. Three
    /// statements, each atomic: `done` 5, 6 and 7 resume after busy at the one that was
    /// refused (6 and 7 only happen when some completion was waiting).
    fn release_pending(&mut self, event: &Event, done: u8, now: Tick) -> DbOutcome {
        let busy = |e: rusqlite::Error, at: u8| {
            contention(&e, at)
                .unwrap_or_else(|| panic!("pending completions of {}: {e}", event.transfer_id))
        };
        if done <= 5 {
            match self.write(
                APPLY_PENDING,
                &[&event.transfer_id, &event.source, &(now as i64)],
            ) {
                Ok(0) => return DbOutcome::Applied,
                Ok(_) => {}
                Err(e) => return busy(e, 5),
            }
        }
        if done <= 6 {
            if let Err(e) = self.write(COMPLETE_TRANSFER, &[&event.transfer_id]) {
                return busy(e, 6);
            }
        }
        match self.write(DELETE_PENDING, &[&event.transfer_id]) {
            Ok(_) => DbOutcome::AppliedWithPending,
            Err(e) => busy(e, 7),
        }
    }

    /// The cleanup job, at virtual time `now`: deletes at most `batch` inbox rows whose
    /// `processed_at` is more than `ttl_ticks` ago, in one autocommitted statement (the
    /// seeds' bounded batch). Returns how many it deleted, or busy if another connection
    /// holds the write lock.
    /// (`RETURNING` names the events whose rows went, for the report.)
    pub fn delete_expired_inbox(
        &mut self,
        now: Tick,
        ttl_ticks: Tick,
        batch: u32,
    ) -> CleanupOutcome {
        assert!(
            self.conn().is_autocommit(),
            "the cleanup job runs no transaction"
        );
        let cutoff = now as i64 - ttl_ticks as i64;
        let params: [&dyn ToSql; 2] = [&cutoff, &i64::from(batch)];
        self.remember(DELETE_EXPIRED_INBOX, &params, StatementKind::Query);
        let deleted = (|| {
            let mut stmt = self.conn().prepare_cached(DELETE_EXPIRED_INBOX)?;
            let mut rows = stmt.query(&params[..])?;
            let mut ids = Vec::new();
            while let Some(r) = rows.next()? {
                ids.push(r.get(0)?);
            }
            Ok(ids)
        })();
        match deleted {
            Ok(ids) => CleanupOutcome::Deleted(ids),
            Err(e) => match contention(&e, 0) {
                Some(_) => CleanupOutcome::Busy,
                None => panic!("inbox cleanup: {e}"),
            },
        }
    }

    /// For the cleanup job: the earliest `processed_at` of any inbox row, through this
    /// connection (outside any transaction), or `None` when the inbox is empty. Tells when
    /// the job can next find a row to delete. Not logged with the run's statements.
    pub fn earliest_inbox_row(&mut self) -> Option<Tick> {
        assert!(
            self.conn().is_autocommit(),
            "the cleanup job runs no transaction"
        );
        let earliest: Option<i64> = self
            .conn()
            .prepare_cached(EARLIEST_INBOX_ROW)
            .and_then(|mut stmt| stmt.query_row([], |r| r.get(0)))
            .unwrap_or_else(|e| panic!("earliest inbox row: {e}"));
        earliest.map(|t| Tick::try_from(t).unwrap_or(0))
    }

    /// `BEGIN`, `COMMIT` or `ROLLBACK`, prepared once per connection like every statement.
    /// Returns the contention outcome if SQLite answered busy.
    fn control(&mut self, sql: &'static str) -> Option<DbOutcome> {
        match self.write(sql, &[]) {
            Ok(_) => None,
            Err(e) => Some(contention(&e, 0).unwrap_or_else(|| panic!("{sql}: {e}"))),
        }
    }

    /// The committed ledger rows and inbox rows of one event.
    pub fn event_rows(&mut self, event_id: &str) -> (u32, u32) {
        let mut counts = (0, 0);
        self.read(LEDGER_ROWS_OF_EVENT, &[&event_id], |r| {
            counts.0 = r.get(0)?;
            Ok(())
        });
        self.read(INBOX_ROWS_OF_EVENT, &[&event_id], |r| {
            counts.1 = r.get(0)?;
            Ok(())
        });
        counts
    }

    /// Feeds every committed row of every table of this connection's database (the schema
    /// read from `sqlite_master`, so a table or a column added later is in it without
    /// anyone remembering to add it here), with its rowid, in rowid order (which is the
    /// order of a scan, as in the retention job's `DELETE`).
    ///
    /// Instant columns (named `*_at`) are history: no statement of a run reads them, except
    /// the retention job, which compares `processed_at` with the clock. So `processed_at`
    /// is fed relative to `now` when `ages_matter` (with retention), and every other
    /// instant is left out; the store's unit test `only_processed_at_is_read_by_a_later_statement`
    /// keeps that true of the statements.
    pub fn fingerprint_database(&self, now: Tick, ages_matter: bool, h: &mut StateHasher) {
        let Store {
            conn: _, // Read below, through its committed rows.
            log: _,  // Recording of statements, for the benchmark.
            pooled: _,
            effect: _, // Configuration: the same for every run of a scenario.
            out_of_order: _,
            crash_model: _,
            wrote_in_transaction,
        } = self;
        let conn = self.conn();
        assert!(
            conn.is_autocommit() && !wrote_in_transaction,
            "only a database with no open transaction on this connection is fingerprinted"
        );
        let mut tables = conn
            .prepare_cached("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .expect("the schema query");
        let names: Vec<String> = tables
            .query_map([], |r| r.get(0))
            .expect("the schema query")
            .collect::<Result<_, _>>()
            .expect("table names");
        for table in names {
            h.section(&table);
            let sql = format!("SELECT rowid, * FROM \"{table}\" ORDER BY rowid");
            let mut q = conn.prepare_cached(&sql).expect("a table scan");
            let columns: Vec<String> = q.column_names().iter().map(|c| c.to_string()).collect();
            let mut rows = q.query([]).expect("a table scan");
            while let Some(row) = rows.next().expect("a row") {
                h.write_u8(0xfe);
                for (i, name) in columns.iter().enumerate() {
                    let v: Value = row.get(i).expect("a column");
                    if name.ends_with("_at") {
                        if name == "processed_at" && ages_matter {
                            let Value::Integer(at) = v else {
                                panic!("processed_at is an integer tick")
                            };
                            h.instant(at as Tick, now);
                        }
                        continue;
                    }
                    match v {
                        Value::Null => h.value(&0u8),
                        Value::Integer(x) => h.value(&(1u8, x)),
                        Value::Real(x) => h.value(&(2u8, x.to_bits())),
                        Value::Text(s) => h.value(&(3u8, s)),
                        Value::Blob(b) => h.value(&(4u8, b)),
                    }
                }
            }
        }
    }

    /// The digest of this connection's committed database, times relative to `now`, with
    /// the inbox's ages (as with retention).
    #[cfg(test)]
    pub(crate) fn digest(&self, now: Tick) -> crate::sim::Digest {
        let mut h = StateHasher::default();
        self.fingerprint_database(now, true, &mut h);
        h.digest()
    }

    /// Reads what is committed. It must not be called with a transaction open, because the
    /// connection would see its own uncommitted writes.
    pub fn committed_state(&mut self) -> CommittedState {
        assert!(
            self.conn().is_autocommit(),
            "the checker reads committed state only"
        );
        self.read_state()
    }

    /// For narration during a run: what changes when this connection writes a row or ends
    /// a transaction (its count of changed rows, and whether it is outside a transaction).
    /// The committed state changes only after some connection's mark did.
    pub fn change_mark(&self) -> (u64, bool) {
        let conn = self.conn();
        (conn.total_changes(), conn.is_autocommit())
    }

    /// For narration during a run: the committed state read through this connection, or
    /// `None` when it has a transaction open (it would see its own writes). The reads are
    /// not logged with the run's statements.
    pub fn committed_snapshot(&mut self) -> Option<CommittedState> {
        if !self.conn().is_autocommit() {
            return None;
        }
        let log = self.log.take();
        let state = self.read_state();
        self.log = log;
        Some(state)
    }

    /// For narration during a run: what this connection's open transaction sees, that is
    /// the committed rows plus its own uncommitted writes, in the shape of the committed
    /// state. `None` when no transaction is open; `Some(None)` when one is open and has
    /// written nothing yet. In that case it is deliberately not read: a read would give a
    /// deferred transaction its snapshot early, and a later write could then fail with
    /// `SQLITE_BUSY_SNAPSHOT` where the run without narration succeeds.
    pub fn open_transaction_view(&mut self) -> Option<Option<CommittedState>> {
        if self.conn().is_autocommit() {
            return None;
        }
        if !self.wrote_in_transaction {
            return Some(None);
        }
        let log = self.log.take();
        let state = self.read_state();
        self.log = log;
        Some(Some(state))
    }

    /// Every committed-state query, through this connection as it is.
    fn read_state(&mut self) -> CommittedState {
        let mut state = CommittedState::default();
        self.read(LEDGER_BY_EVENT, &[], |r| {
            let counts = LedgerCounts {
                debits: r.get(1)?,
                credits: r.get(2)?,
                completions: r.get(3)?,
            };
            state.ledger.insert(r.get(0)?, counts);
            Ok(())
        });
        self.read(INBOX_BY_EVENT, &[], |r| {
            state.inbox.insert(r.get(0)?, r.get(1)?);
            Ok(())
        });
        self.read(BALANCES, &[], |r| {
            state.balances.insert(r.get(0)?, r.get(1)?);
            Ok(())
        });
        self.read(LEDGER_BY_ACCOUNT, &[], |r| {
            state.ledger_sums.insert(r.get(0)?, r.get(1)?);
            Ok(())
        });
        self.read(REJECTED_BY_EVENT, &[], |r| {
            state.rejected.insert(r.get(0)?, r.get(1)?);
            Ok(())
        });
        self.read(outbox::LEDGER_BY_TRANSFER, &[], |r| {
            let counts = LedgerCounts {
                debits: r.get(1)?,
                credits: r.get(2)?,
                completions: r.get(3)?,
            };
            state.ledger_by_transfer.insert(r.get(0)?, counts);
            Ok(())
        });
        self.read(CREDIT_AMOUNTS, &[], |r| {
            state
                .credit_amounts
                .entry(r.get(0)?)
                .or_default()
                .push(r.get(1)?);
            Ok(())
        });
        self.read(PAYLOAD_ALERTS, &[], |r| {
            state.payload_alerts.push(PayloadAlertRow {
                event_id: r.get(0)?,
                stored_payload: r.get(1)?,
                received_payload: r.get(2)?,
                detected_at: r.get::<_, i64>(3)? as Tick,
            });
            Ok(())
        });
        self.read(PENDING_BY_EVENT, &[], |r| {
            state.pending.insert(r.get(0)?, r.get(1)?);
            Ok(())
        });
        state
    }
}

/// Replays logged statements on `conn` exactly as the store ran them: the raw-SQLite
/// baseline of the benchmark. Constraint violations are expected (they are how duplicates
/// are detected) and ignored; anything else is a bug.
pub fn replay_statements(store: &Store, statements: &[LoggedStatement]) {
    let conn = store.conn();
    for s in statements {
        let mut stmt = conn
            .prepare_cached(s.sql)
            .expect("logged statements prepare");
        let params = rusqlite::params_from_iter(s.params.iter());
        match s.kind {
            StatementKind::Execute => match stmt.execute(params) {
                Ok(_) => {}
                Err(rusqlite::Error::SqliteFailure(e, _))
                    if e.code == ErrorCode::ConstraintViolation => {}
                Err(e) => panic!("{}: {e}", s.sql),
            },
            StatementKind::Query => {
                let columns = stmt.column_count();
                let mut rows = stmt.query(params).expect("logged queries run");
                while let Some(r) = rows.next().expect("rows read") {
                    for i in 0..columns {
                        let _: Value = r.get(i).expect("any column reads as a Value");
                    }
                }
            }
        }
    }
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
mod tests {
    use super::*;
    use crate::model::EventType;

    pub(in crate::store) fn accounts() -> Vec<Account> {
        ["acc_00001", "acc_00002"]
            .iter()
            .map(|n| Account {
                name: n.to_string(),
                initial_balance_minor: 100_000,
            })
            .collect()
    }

    fn event() -> Event {
        Event {
            index: 0,
            event_id: "11111111-1111-4111-8111-111111111111".into(),
            event_type: EventType::TransferCreated,
            transfer_id: "tr_00000".into(),
            source: "acc_00001".into(),
            target: "acc_00002".into(),
            amount_minor: 10_000,
        }
    }

    fn store(unique: bool) -> Store {
        Store::open_in_memory(
            &StoreConfig {
                inbox_unique: unique,
                ..StoreConfig::default()
            },
            &accounts(),
        )
        .unwrap()
    }

    #[test]
    fn lock_contention_is_a_scheduling_outcome_and_anything_else_is_not() {
        let failure = |code| rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None);
        assert_eq!(
            contention(&failure(rusqlite::ffi::SQLITE_BUSY_SNAPSHOT), 3),
            Some(DbOutcome::StaleSnapshot)
        );
        assert_eq!(
            contention(&failure(rusqlite::ffi::SQLITE_BUSY), 3),
            Some(DbOutcome::Busy { done: 3 })
        );
        assert_eq!(
            contention(&failure(rusqlite::ffi::SQLITE_LOCKED), 0),
            Some(DbOutcome::Busy { done: 0 })
        );
        assert_eq!(
            contention(&failure(rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE), 0),
            None
        );
        assert_eq!(contention(&rusqlite::Error::InvalidQuery, 0), None);
    }

    #[test]
    fn the_template_cache_gives_each_configuration_and_set_of_accounts_its_own_database() {
        // Alternating on one thread (one cache): each store gets its own schema, never a
        // cached neighbour's.
        for _ in 0..2 {
            for unique in [true, false] {
                let mut s = store(unique);
                let e = event();
                s.execute(StoreOp::InsertInbox { event: &e }, 1);
                let second = s.execute(StoreOp::InsertInbox { event: &e }, 2);
                let want = if unique {
                    DbOutcome::Duplicate
                } else {
                    DbOutcome::Inserted
                };
                assert_eq!(second, want, "inbox_unique = {unique}");
            }
        }
        let balances = |accounts: &[Account]| {
            Store::open_in_memory(&StoreConfig::default(), accounts)
                .unwrap()
                .committed_state()
                .balances
        };
        let mut a = accounts();
        assert_eq!(balances(&a)["acc_00002"], 100_000);
        a[1].initial_balance_minor = 7;
        assert_eq!(balances(&a)["acc_00002"], 7, "another opening balance");
        a[1].name = "acc_00009".into();
        let b = balances(&a);
        assert_eq!((b.get("acc_00009"), b.get("acc_00002")), (Some(&7), None));
        // Every name differs, or every balance: still another database.
        let renamed: Vec<Account> = accounts()
            .into_iter()
            .map(|x| Account {
                name: format!("{}x", x.name),
                ..x
            })
            .collect();
        assert!(balances(&renamed).contains_key("acc_00001x"));
        let richer: Vec<Account> = accounts()
            .into_iter()
            .map(|x| Account {
                initial_balance_minor: 5,
                ..x
            })
            .collect();
        assert_eq!(balances(&richer)["acc_00001"], 5);
        a.pop();
        assert_eq!(balances(&a).len(), 1, "fewer accounts");
        assert_eq!(
            balances(&accounts())["acc_00002"],
            100_000,
            "the first again"
        );
    }

    #[test]
    fn an_open_transaction_is_viewed_only_once_it_has_written() {
        let mut s = store(true);
        let e = event();
        assert_eq!(s.open_transaction_view(), None, "no transaction");
        s.execute(StoreOp::Begin, 1);
        assert_eq!(
            s.open_transaction_view(),
            Some(None),
            "BEGIN writes nothing"
        );
        s.execute(StoreOp::InsertInbox { event: &e }, 1);
        let view = s.open_transaction_view().unwrap().unwrap();
        assert_eq!(view.inbox[&e.event_id], 1, "its own write");
        s.execute(StoreOp::Commit, 2);
        assert_eq!(s.open_transaction_view(), None);
        // The next transaction starts unwritten again, and a refused write writes nothing.
        s.execute(StoreOp::Begin, 3);
        assert_eq!(s.open_transaction_view(), Some(None));
        assert_eq!(
            s.execute(StoreOp::InsertInbox { event: &e }, 3),
            DbOutcome::Duplicate
        );
        assert_eq!(s.open_transaction_view(), Some(None), "the insert failed");
    }

    #[test]
    fn the_second_inbox_insert_is_a_duplicate_by_constraint() {
        let mut s = store(true);
        let e = event();
        assert_eq!(
            s.execute(StoreOp::InsertInbox { event: &e }, 1),
            DbOutcome::Inserted
        );
        assert_eq!(
            s.execute(StoreOp::InsertInbox { event: &e }, 2),
            DbOutcome::Duplicate
        );
        assert_eq!(s.committed_state().inbox[&e.event_id], 1);
    }

    #[test]
    fn without_the_constraint_the_insert_never_sees_a_duplicate() {
        let mut s = store(false);
        let e = event();
        assert_eq!(
            s.execute(StoreOp::InsertInbox { event: &e }, 1),
            DbOutcome::Inserted
        );
        assert_eq!(
            s.execute(StoreOp::InsertInbox { event: &e }, 2),
            DbOutcome::Inserted
        );
        assert_eq!(s.committed_state().inbox[&e.event_id], 2);
    }

    #[test]
    fn a_committed_effect_moves_money_and_writes_two_ledger_rows() {
        let mut s = store(true);
        let e = event();
        s.execute(StoreOp::Begin, 1);
        assert_eq!(
            s.execute(
                StoreOp::ApplyEffect {
                    event: &e,
                    fail_credit: false,
                    done: 0,
                    read: None,
                    track_transfer: true,
                },
                2
            ),
            DbOutcome::Applied
        );
        s.execute(StoreOp::Commit, 3);
        let c = s.committed_state();
        assert_eq!(
            c.ledger[&e.event_id],
            LedgerCounts {
                debits: 1,
                credits: 1,
                completions: 0
            }
        );
        assert_eq!(c.balances["acc_00001"], 90_000);
        assert_eq!(c.balances["acc_00002"], 110_000);
    }

    #[test]
    fn a_crash_drops_the_open_transaction_and_keeps_what_was_committed() {
        let mut s = store(true);
        let e = event();
        s.execute(StoreOp::InsertInbox { event: &e }, 1); // autocommits
        s.execute(StoreOp::Begin, 2);
        s.execute(
            StoreOp::ApplyEffect {
                event: &e,
                fail_credit: false,
                done: 0,
                read: None,
                track_transfer: true,
            },
            3,
        );
        assert!(s.drop_open_transaction());
        assert!(!s.drop_open_transaction(), "nothing left to drop");
        let c = s.committed_state();
        assert!(c.ledger.is_empty());
        assert_eq!(c.inbox[&e.event_id], 1);
        assert_eq!(c.balances["acc_00001"], 100_000);
    }

    #[test]
    fn a_failed_credit_outside_a_transaction_leaves_a_torn_effect() {
        let mut s = store(true);
        let e = event();
        assert_eq!(
            s.execute(
                StoreOp::ApplyEffect {
                    event: &e,
                    fail_credit: true,
                    done: 0,
                    read: None,
                    track_transfer: true,
                },
                1
            ),
            DbOutcome::CreditFailed
        );
        let c = s.committed_state();
        assert_eq!(
            c.ledger[&e.event_id],
            LedgerCounts {
                debits: 1,
                credits: 0,
                completions: 0
            }
        );
        assert_eq!(c.balances.values().sum::<i64>(), 190_000);
    }

    #[test]
    fn stores_opened_from_the_same_template_are_independent() {
        let e = event();
        let mut a = store(true);
        a.execute(StoreOp::InsertInbox { event: &e }, 1);
        let mut b = store(true);
        assert!(
            b.committed_state().inbox.is_empty(),
            "a's write did not reach the template"
        );
        assert_eq!(b.committed_state().balances["acc_00001"], 100_000);
        assert_eq!(a.committed_state().inbox.len(), 1);
    }

    #[test]
    fn replaying_the_logged_statements_rebuilds_the_same_state() {
        let e = event();
        let mut s = store(true);
        s.record_statements();
        s.execute(StoreOp::Begin, 1);
        s.execute(StoreOp::InsertInbox { event: &e }, 2);
        s.execute(
            StoreOp::ApplyEffect {
                event: &e,
                fail_credit: false,
                done: 0,
                read: None,
                track_transfer: true,
            },
            3,
        );
        s.execute(StoreOp::Commit, 4);
        s.execute(StoreOp::InsertInbox { event: &e }, 5);
        let expected = s.committed_state();
        let log = s.take_statements();
        assert_eq!(
            log.len(),
            19,
            "BEGIN, INSERT, 2×(INSERT, UPDATE), transfer_state INSERT, COMMIT, INSERT and the \
             read of the stored fingerprint it calls for, 9 reads"
        );
        drop(s); // Its connection goes back to the pool and is reused below.
        let mut raw = store(true);
        assert!(
            raw.committed_state().inbox.is_empty(),
            "a reused connection starts afresh"
        );
        replay_statements(&raw, &log);
        assert_eq!(raw.committed_state(), expected);
    }

    #[test]
    fn a_store_dropped_mid_transaction_leaves_nothing_for_the_next() {
        let e = event();
        let mut a = store(true);
        a.execute(StoreOp::Begin, 1);
        a.execute(StoreOp::InsertInbox { event: &e }, 2);
        drop(a);
        let mut b = store(true);
        assert!(!b.in_transaction());
        assert!(b.committed_state().inbox.is_empty());
    }

    #[test]
    fn a_read_modify_write_effect_writes_what_it_read_plus_the_amount() {
        let e = event();
        let config = StoreConfig {
            effect: EffectMode::ReadModifyWrite,
            ..StoreConfig::default()
        };
        let mut s = Store::open_in_memory(&config, &accounts()).unwrap();
        let op = |read| StoreOp::ApplyEffect {
            event: &e,
            fail_credit: false,
            done: 0,
            read,
            track_transfer: false,
        };
        let read = s.execute(op(None), 1);
        assert_eq!(
            read,
            DbOutcome::BalancesRead {
                source: 100_000,
                target: 100_000
            }
        );
        // Values read earlier (stale, say) are written back as they are: that is the bug
        // a read-modify-write has under concurrency.
        assert_eq!(s.execute(op(Some((50_000, 70_000))), 2), DbOutcome::Applied);
        let c = s.committed_state();
        assert_eq!(c.balances["acc_00001"], 40_000);
        assert_eq!(c.balances["acc_00002"], 80_000);
        assert_eq!(
            c.ledger_sums["acc_00001"], -10_000,
            "the ledger says what really moved"
        );
    }

    #[test]
    fn a_completion_needs_its_transfer_and_is_rejected_without_it() {
        let created = event();
        let completed = Event {
            index: 1,
            event_id: "22222222-2222-4222-8222-222222222222".into(),
            event_type: EventType::TransferCompleted,
            ..event()
        };
        let apply = |e| StoreOp::ApplyEffect {
            event: e,
            fail_credit: false,
            done: 0,
            read: None,
            track_transfer: true,
        };
        let mut s = store(true);
        assert_eq!(
            s.execute(apply(&completed), 1),
            DbOutcome::Rejected,
            "unknown transfer"
        );
        assert_eq!(s.execute(apply(&created), 2), DbOutcome::Applied);
        assert_eq!(s.execute(apply(&completed), 3), DbOutcome::Applied);
        assert_eq!(s.execute(apply(&completed), 4), DbOutcome::AlreadyCompleted);
        let c = s.committed_state();
        assert_eq!(c.ledger[&completed.event_id].completions, 1);
        assert_eq!(c.rejected[&completed.event_id], 1);
        assert_eq!(
            c.ledger_sums["acc_00001"], -10_000,
            "a completion moves no money"
        );
    }

    fn completed_of(created: &Event) -> Event {
        Event {
            index: 1,
            event_id: "22222222-2222-4222-8222-222222222222".into(),
            event_type: EventType::TransferCompleted,
            ..created.clone()
        }
    }

    fn apply(e: &Event) -> StoreOp<'_> {
        StoreOp::ApplyEffect {
            event: e,
            fail_credit: false,
            done: 0,
            read: None,
            track_transfer: true,
        }
    }

    fn buffering_store() -> Store {
        let config = StoreConfig {
            out_of_order: OutOfOrder::Buffer,
            ..StoreConfig::default()
        };
        Store::open_in_memory(&config, &accounts()).unwrap()
    }

    #[test]
    fn a_buffered_completion_waits_and_is_applied_by_its_creations_transaction() {
        let created = event();
        let completed = completed_of(&created);
        let mut s = buffering_store();
        s.execute(StoreOp::Begin, 1);
        s.execute(StoreOp::InsertInbox { event: &completed }, 2);
        assert_eq!(s.execute(apply(&completed), 3), DbOutcome::Buffered);
        s.execute(StoreOp::Commit, 4);
        let c = s.committed_state();
        assert_eq!(
            c.pending[&completed.event_id], 1,
            "committed with its inbox row"
        );
        assert!(c.rejected.is_empty() && !c.ledger.contains_key(&completed.event_id));

        s.execute(StoreOp::Begin, 5);
        assert_eq!(s.execute(apply(&created), 6), DbOutcome::AppliedWithPending);
        // Rolled back: the pending row is still there, nothing applied.
        s.execute(StoreOp::Rollback, 7);
        assert_eq!(s.committed_state().pending[&completed.event_id], 1);

        s.execute(StoreOp::Begin, 8);
        assert_eq!(s.execute(apply(&created), 9), DbOutcome::AppliedWithPending);
        s.execute(StoreOp::Commit, 10);
        let c = s.committed_state();
        assert!(
            c.pending.is_empty(),
            "the pending row went with the creation"
        );
        assert_eq!(c.ledger[&completed.event_id].completions, 1);
        assert_eq!(c.ledger[&created.event_id].debits, 1);
        assert_eq!(
            s.execute(apply(&completed), 11),
            DbOutcome::AlreadyCompleted,
            "a late copy of the completion finds the transfer completed"
        );
    }

    #[test]
    fn a_creation_with_nothing_pending_is_a_plain_apply_and_reject_mode_never_buffers() {
        let created = event();
        let completed = completed_of(&created);
        let mut s = buffering_store();
        assert_eq!(s.execute(apply(&created), 1), DbOutcome::Applied);
        assert_eq!(s.execute(apply(&completed), 2), DbOutcome::Applied);
        let mut r = store(true);
        assert_eq!(r.execute(apply(&completed), 1), DbOutcome::Rejected);
        assert!(r.committed_state().pending.is_empty());
    }

    #[test]
    fn without_the_inbox_a_completion_buffered_twice_is_applied_twice() {
        let created = event();
        let completed = completed_of(&created);
        let mut s = buffering_store();
        assert_eq!(s.execute(apply(&completed), 1), DbOutcome::Buffered);
        assert_eq!(s.execute(apply(&completed), 2), DbOutcome::Buffered);
        assert_eq!(s.execute(apply(&created), 3), DbOutcome::AppliedWithPending);
        assert_eq!(
            s.committed_state().ledger[&completed.event_id].completions,
            2
        );
    }

    #[test]
    fn the_cleanup_deletes_rows_older_than_the_ttl_in_bounded_batches() {
        let mut s = store(true);
        let ids: Vec<Event> = (0..5)
            .map(|i| Event {
                event_id: format!("id-{i}"),
                ..event()
            })
            .collect();
        for (i, e) in ids.iter().enumerate() {
            s.execute(StoreOp::InsertInbox { event: e }, i as Tick * 10);
        }
        // At t=35 with a TTL of 10, rows stamped before t=25 are expired: 0, 10 and 20.
        let deleted =
            |ids: &[&str]| CleanupOutcome::Deleted(ids.iter().map(|i| i.to_string()).collect());
        assert_eq!(
            s.delete_expired_inbox(35, 10, 2),
            deleted(&["id-0", "id-1"])
        );
        assert_eq!(s.delete_expired_inbox(35, 10, 2), deleted(&["id-2"]));
        assert_eq!(s.delete_expired_inbox(35, 10, 2), deleted(&[]));
        let left: Vec<String> = s.committed_state().inbox.into_keys().collect();
        assert_eq!(left, ["id-3", "id-4"]);
        // The ages of what is left decide what goes next: part of the state.
        let mut older = s.digest(35);
        assert_ne!(older, s.digest(36));
        assert_eq!(older, s.digest(35));
        older = s.digest(36);
        assert_ne!(older, s.digest(35));
        // A row exactly TTL old is kept; one tick older is not.
        assert_eq!(s.delete_expired_inbox(40, 10, 10), deleted(&[]));
        assert_eq!(s.delete_expired_inbox(41, 10, 10), deleted(&["id-3"]));
        // Before the TTL has passed since t=0, nothing can be old enough.
        let mut fresh = store(true);
        fresh.execute(StoreOp::InsertInbox { event: &ids[0] }, 0);
        assert_eq!(fresh.delete_expired_inbox(3, 10, 10), deleted(&[]));
    }

    #[test]
    fn an_inbox_insert_blocked_by_another_writer_is_busy_not_a_duplicate() {
        let dir = tempfile::tempdir().unwrap();
        let mut stores =
            Store::open_shared(dir.path(), &StoreConfig::default(), &accounts(), 2).unwrap();
        let e = event();
        stores[0].execute(StoreOp::Begin, 1);
        assert_eq!(
            stores[0].execute(StoreOp::InsertInbox { event: &e }, 1),
            DbOutcome::Inserted
        );
        stores[1].execute(StoreOp::Begin, 2);
        let other = Event {
            event_id: "other".into(),
            ..event()
        };
        assert_eq!(
            stores[1].execute(StoreOp::InsertInbox { event: &other }, 2),
            DbOutcome::Busy { done: 0 }
        );
    }

    #[test]
    fn an_effect_or_an_alert_blocked_by_another_writer_is_busy_not_a_duplicate() {
        let dir = tempfile::tempdir().unwrap();
        let mut stores = Store::open_shared(
            dir.path(),
            &StoreConfig {
                business_key_unique: true,
                ..StoreConfig::default()
            },
            &accounts(),
            2,
        )
        .unwrap();
        let e = event();
        stores[0].execute(StoreOp::Begin, 1);
        stores[0].execute(StoreOp::InsertInbox { event: &e }, 1);
        let other = Event {
            event_id: "other".into(),
            transfer_id: "tr_00009".into(),
            ..event()
        };
        stores[1].execute(StoreOp::Begin, 2);
        assert_eq!(
            stores[1].execute(apply(&other), 2),
            DbOutcome::Busy { done: 0 },
            "the ledger insert waits for the lock; it is no business duplicate"
        );
        stores[1].execute(StoreOp::Rollback, 2);
        assert_eq!(
            stores[1].execute(StoreOp::RecordPayloadAlert { event: &other }, 3),
            DbOutcome::Busy { done: 0 },
            "the alert insert waits for the lock; no alert exists"
        );
    }

    #[test]
    fn the_database_digest_is_every_committed_row_with_ages_relative_to_now() {
        let e = event();
        let mut early = store(true);
        let mut late = store(true);
        assert_eq!(early.digest(0), late.digest(0));
        early.execute(StoreOp::InsertInbox { event: &e }, 1);
        assert_ne!(early.digest(0), late.digest(0));
        late.execute(StoreOp::InsertInbox { event: &e }, 900);
        assert_eq!(early.digest(5), late.digest(904), "the same ages");
        assert_ne!(early.digest(5), late.digest(905), "other ages");
        // Without retention the inbox's ages play no part, nor any other instant.
        let plain = |s: &Store, now| {
            let mut h = StateHasher::default();
            s.fingerprint_database(now, false, &mut h);
            h.digest()
        };
        assert_eq!(plain(&early, 5), plain(&late, 905));
        // Every table is in it, whatever its name: a balance, a rejection, a row of a
        // table no code here knows of.
        let before = plain(&early, 5);
        early
            .conn()
            .execute_batch("CREATE TABLE added_later (x INTEGER)")
            .unwrap();
        assert_ne!(plain(&early, 5), before, "a new table");
        let empty = plain(&early, 5);
        early
            .conn()
            .execute_batch("INSERT INTO added_later VALUES (1)")
            .unwrap();
        assert_ne!(plain(&early, 5), empty, "a row of it");
        let one = plain(&early, 5);
        early
            .conn()
            .execute_batch(
                "UPDATE balance_projection SET balance_minor = balance_minor + 1 WHERE rowid = 1",
            )
            .unwrap();
        assert_ne!(plain(&early, 5), one, "a balance");
    }

    /// Instants are left out of the database digest because no statement of a run reads
    /// them, except the retention job's `processed_at`: keep it so. Every statement the
    /// store runs is in this file as a constant; an `_at` column may appear only where it
    /// is written (an `INSERT`'s column list), in the retention job's statements, or in
    /// the checker's read of payload alerts.
    #[test]
    fn only_processed_at_is_read_by_a_later_statement() {
        let source = [include_str!("mod.rs"), include_str!("outbox.rs")].concat();
        let statements = source
            .split("const ")
            .skip(1)
            .filter_map(|c| c.split_once(": &str = "))
            .map(|(name, rest)| (name, rest.split("\";").next().unwrap_or("")));
        let mut checked = 0;
        for (name, sql) in statements {
            checked += 1;
            let reads_an_instant = sql
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w.ends_with("_at") && w != "processed_at");
            let writes = sql
                .trim_start_matches('"')
                .trim_start()
                .starts_with("INSERT")
                || sql.contains("CREATE TABLE");
            assert!(
                !reads_an_instant || writes || name == "PAYLOAD_ALERTS",
                "{name} reads an instant column: feed it to the digest (fingerprint_database)"
            );
            if sql.contains("processed_at") && !writes {
                assert!(
                    name == "DELETE_EXPIRED_INBOX" || name == "EARLIEST_INBOX_ROW",
                    "{name} reads processed_at outside the retention job"
                );
            }
        }
        assert!(checked > 10, "the statements were found");
    }

    #[test]
    fn a_committed_snapshot_is_taken_only_outside_a_transaction() {
        let e = event();
        let mut s = store(true);
        s.execute(StoreOp::InsertInbox { event: &e }, 1);
        let snapshot = s.committed_snapshot().unwrap();
        assert_eq!(snapshot.inbox[&e.event_id], 1);
        assert_eq!(snapshot.balances, s.committed_state().balances);
        s.execute(StoreOp::Begin, 2);
        assert_eq!(s.committed_snapshot(), None);
    }

    #[test]
    fn only_a_pooled_connection_without_a_transaction_goes_back_to_the_idle_pool() {
        // A thread of its own: the pool is per thread.
        std::thread::spawn(|| {
            let idle = || IDLE.with(|i| i.borrow().len());
            IDLE.with(|i| i.borrow_mut().clear());
            let dir = tempfile::tempdir().unwrap();
            drop(Store::open_shared(dir.path(), &StoreConfig::default(), &accounts(), 2).unwrap());
            assert_eq!(idle(), 0, "file connections are closed");
            let mut open = store(true);
            open.execute(StoreOp::Begin, 1);
            open.execute(StoreOp::InsertInbox { event: &event() }, 1);
            drop(open);
            assert_eq!(idle(), 1, "rolled back, then pooled");
            let many: Vec<Store> = (0..MAX_IDLE + 2).map(|_| store(true)).collect();
            assert_eq!(idle(), 0, "each open takes an idle connection");
            drop(many);
            assert_eq!(idle(), MAX_IDLE, "the pool keeps at most MAX_IDLE");
            let mut reused = store(true);
            assert!(reused.committed_state().inbox.is_empty(), "afresh");
            assert_eq!(idle(), MAX_IDLE - 1);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_connection_reused_for_its_template_is_reset_to_the_templates_rows() {
        // A thread of its own: the pool is per thread.
        std::thread::spawn(|| {
            IDLE.with(|i| i.borrow_mut().clear());
            let fresh = store(true).digest(0);
            let rows = |s: &Store| -> Vec<(String, i64)> {
                let tables: Vec<String> = s
                    .conn()
                    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
                    .unwrap()
                    .query_map([], |r| r.get(0))
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                tables
                    .into_iter()
                    .map(|t| {
                        let sql = format!("SELECT COUNT(*) FROM \"{t}\"");
                        let n = s.conn().query_row(&sql, [], |r| r.get(0)).unwrap();
                        (t, n)
                    })
                    .collect()
            };
            let template_rows = rows(&store(true));
            IDLE.with(|i| i.borrow_mut().truncate(1));
            let mut s = store(true);
            assert_eq!(
                IDLE.with(|i| i.borrow().len()),
                0,
                "s has the pooled connection"
            );
            let e = event();
            s.execute(StoreOp::Begin, 1);
            s.execute(StoreOp::InsertInbox { event: &e }, 1);
            s.execute(apply(&e), 2);
            s.execute(StoreOp::Commit, 3);
            s.execute(StoreOp::RecordPayloadAlert { event: &e }, 4);
            assert_eq!(
                s.insert_transfer(&e, true, 5),
                outbox::TransferWrite::Recorded
            );
            assert!(s.commit_transfer());
            assert_ne!(rows(&s), template_rows);
            let changes_at_drop = s.conn().total_changes();
            drop(s);
            let again = store(true);
            assert!(
                again.conn().total_changes() > changes_at_drop,
                "the same connection, emptied by statements (which keeps its prepared \
                 statements), not given a new copy of the template"
            );
            assert_eq!(again.digest(0), fresh);
            assert_eq!(
                rows(&again),
                template_rows,
                "every table as in the template"
            );
            drop(again);

            // Rowids start at 1 again, as in a fresh copy.
            let mut again = store(true);
            again.execute(apply(&e), 6);
            let first: i64 = again
                .conn()
                .query_row("SELECT MIN(entry_id) FROM ledger_entry", [], |r| r.get(0))
                .unwrap();
            assert_eq!(first, 1);
            drop(again);

            // A connection last used with another template gets that one's schema: the
            // business key does not follow it.
            IDLE.with(|i| i.borrow_mut().clear());
            drop(
                Store::open_in_memory(
                    &StoreConfig {
                        business_key_unique: true,
                        ..StoreConfig::default()
                    },
                    &accounts(),
                )
                .unwrap(),
            );
            assert_eq!(IDLE.with(|i| i.borrow().len()), 1);
            let mut plain = store(true);
            let second = Event {
                event_id: "another".into(),
                ..event()
            };
            assert_eq!(plain.execute(apply(&e), 7), DbOutcome::Applied);
            assert_eq!(plain.execute(apply(&second), 8), DbOutcome::Applied);
        })
        .join()
        .unwrap();
    }

    #[test]
    #[should_panic(expected = "ROLLBACK")]
    fn replaying_a_statement_that_fails_other_than_by_a_constraint_is_a_bug() {
        let s = store(true);
        replay_statements(
            &s,
            &[LoggedStatement {
                sql: "ROLLBACK",
                params: Vec::new(),
                kind: StatementKind::Execute,
            }],
        );
    }

    #[test]
    fn a_single_connection_file_database_is_in_wal_mode_too() {
        let dir = tempfile::tempdir().unwrap();
        let stores =
            Store::open_shared(dir.path(), &StoreConfig::default(), &accounts(), 1).unwrap();
        let mode: String = stores[0]
            .conn()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }

    #[test]
    fn the_cleanup_is_busy_while_a_consumer_holds_the_write_lock() {
        let dir = tempfile::tempdir().unwrap();
        let mut stores =
            Store::open_shared(dir.path(), &StoreConfig::default(), &accounts(), 2).unwrap();
        let e = event();
        stores[0].execute(StoreOp::InsertInbox { event: &e }, 0);
        stores[0].execute(StoreOp::Begin, 20);
        stores[0].execute(
            StoreOp::InsertInbox {
                event: &Event {
                    event_id: "other".into(),
                    ..event()
                },
            },
            21,
        );
        assert_eq!(
            stores[1].delete_expired_inbox(30, 10, 10),
            CleanupOutcome::Busy
        );
        stores[0].execute(StoreOp::Commit, 22);
        assert_eq!(
            stores[1].delete_expired_inbox(30, 10, 10),
            CleanupOutcome::Deleted(vec![e.event_id.clone()])
        );
        assert_eq!(stores[0].committed_state().inbox.len(), 1);
    }

    #[test]
    fn the_same_event_id_with_another_payload_is_a_mismatch_not_a_duplicate() {
        let mut s = store(true);
        let e = event();
        let altered = e.altered(1);
        assert_eq!(
            s.execute(StoreOp::InsertInbox { event: &e }, 1),
            DbOutcome::Inserted
        );
        assert_eq!(
            s.execute(StoreOp::InsertInbox { event: &e }, 2),
            DbOutcome::Duplicate,
            "the same payload is a plain duplicate"
        );
        let mismatch = s.execute(StoreOp::InsertInbox { event: &altered }, 3);
        assert_eq!(mismatch, DbOutcome::PayloadMismatch);
        assert!(!mismatch.is_duplicate(), "never counted as a duplicate");
        assert_eq!(
            s.execute(StoreOp::CheckInbox { event: &e }, 4),
            DbOutcome::Found
        );
        assert_eq!(
            s.execute(StoreOp::CheckInbox { event: &altered }, 5),
            DbOutcome::PayloadMismatch,
            "a read finds the corruption too"
        );
        assert_eq!(s.committed_state().inbox[&e.event_id], 1);
    }

    #[test]
    fn a_payload_alert_is_committed_once_per_received_payload_with_both_payloads() {
        let mut s = store(true);
        let e = event();
        s.execute(StoreOp::InsertInbox { event: &e }, 1);
        let (twice, thrice) = (e.altered(1), e.altered(2));
        let alert =
            |s: &mut Store, event, now| s.execute(StoreOp::RecordPayloadAlert { event }, now);
        assert_eq!(alert(&mut s, &twice, 2), DbOutcome::AlertRecorded);
        assert_eq!(
            alert(&mut s, &twice, 3),
            DbOutcome::AlertExists,
            "a redelivery of the same corrupt copy"
        );
        assert_eq!(alert(&mut s, &thrice, 4), DbOutcome::AlertRecorded);
        let c = s.committed_state();
        assert_eq!(c.payload_alerts.len(), 2);
        let first = &c.payload_alerts[0];
        assert_eq!(first.event_id, e.event_id);
        assert_eq!(first.stored_payload, e.payload());
        assert_eq!(first.received_payload, twice.payload());
        assert!(first.received_payload.contains("\"amount_minor\":20000"));
        assert_eq!(first.detected_at, 2);
        assert_eq!(c.payload_alerts[1].received_payload, thrice.payload());
    }

    #[test]
    fn committed_credit_amounts_show_an_applied_copy_with_another_payload() {
        let mut s = store(true);
        let e = event();
        let apply = |s: &mut Store, event| {
            s.execute(
                StoreOp::ApplyEffect {
                    event,
                    fail_credit: false,
                    done: 0,
                    read: None,
                    track_transfer: false,
                },
                1,
            )
        };
        apply(&mut s, &e);
        apply(&mut s, &e.altered(1));
        let c = s.committed_state();
        assert_eq!(c.credit_amounts[&e.event_id], [10_000, 20_000]);
        assert_eq!(
            c.balances.values().sum::<i64>(),
            200_000,
            "each copy moves money consistently"
        );
    }

    #[test]
    fn payload_fingerprints_are_stable_and_tell_payloads_apart() {
        let e = event();
        assert_eq!(payload_fingerprint("a"), "af63dc4c8601ec8c");
        assert_eq!(
            payload_fingerprint(&e.payload()),
            payload_fingerprint(&e.payload())
        );
        assert_ne!(
            payload_fingerprint(&e.payload()),
            payload_fingerprint(&e.altered(1).payload())
        );
    }

    #[test]
    fn the_inbox_row_carries_virtual_time() {
        let mut s = store(true);
        let e = event();
        s.execute(StoreOp::InsertInbox { event: &e }, 42);
        let at: i64 = s
            .conn()
            .query_row("SELECT processed_at FROM processed_event", [], |r| r.get(0))
            .unwrap();
        assert_eq!(at, 42);
    }

    #[test]
    fn a_file_database_is_created_once_in_wal_mode_and_reopened_with_its_committed_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("consumer.sqlite");
        let config = StoreConfig::default();
        let e = event();
        {
            let mut s = Store::open_file(&path, &config, &accounts()).unwrap();
            assert_eq!(s.execute(StoreOp::Begin, 1), DbOutcome::Begun);
            s.execute(StoreOp::InsertInbox { event: &e }, 2);
            assert_eq!(s.execute(StoreOp::Commit, 3), DbOutcome::Committed);
            let mode: String = s
                .conn()
                .query_row("PRAGMA journal_mode", [], |r| r.get(0))
                .unwrap();
            assert_eq!(mode, "wal");
            let sync: i64 = s
                .conn()
                .query_row("PRAGMA synchronous", [], |r| r.get(0))
                .unwrap();
            assert_eq!(sync, 2, "FULL");
            // Left open: closing the connection rolls it back.
            s.execute(StoreOp::Begin, 4);
            s.execute(
                StoreOp::InsertInbox {
                    event: &Event {
                        event_id: "other".into(),
                        ..e.clone()
                    },
                },
                5,
            );
        }
        let mut again = Store::open_file(&path, &config, &accounts()).unwrap();
        let state = again.committed_state();
        assert_eq!(state.inbox.get(&e.event_id), Some(&1));
        assert_eq!(state.inbox.len(), 1, "the uncommitted row is gone");
        assert_eq!(state.balances.len(), 2, "the accounts were created once");
    }

    #[test]
    fn a_crash_rolls_the_open_transaction_back_and_the_wrong_model_keeps_it() {
        let e = event();
        for (model, kept) in [(CrashModel::RollBack, 0), (CrashModel::KeepUncommitted, 1)] {
            let config = StoreConfig {
                crash_model: model,
                ..StoreConfig::default()
            };
            let mut s = Store::open_in_memory(&config, &accounts()).unwrap();
            s.execute(StoreOp::Begin, 1);
            s.execute(StoreOp::InsertInbox { event: &e }, 2);
            assert!(s.drop_open_transaction());
            assert!(!s.drop_open_transaction(), "nothing open any more");
            assert_eq!(s.event_rows(&e.event_id), (0, kept), "{model:?}");
        }
    }

    #[test]
    fn the_business_key_guards_each_leg_and_a_credit_row_alone_is_a_business_duplicate() {
        // The simulator always writes a transfer's debit before its credit, so a business
        // key violation normally comes from the debit. A credit row already there on its
        // own (written by another system sharing the ledger) must be refused the same way,
        // not taken for a bug.
        let config = StoreConfig {
            business_key_unique: true,
            ..StoreConfig::default()
        };
        let mut s = Store::open_in_memory(&config, &accounts()).unwrap();
        let e = event();
        s.conn()
            .execute(
                INSERT_LEDGER,
                rusqlite::params!["elsewhere", e.transfer_id, e.target, "credit", 1, 0],
            )
            .unwrap();
        s.execute(StoreOp::Begin, 1);
        assert_eq!(s.execute(apply(&e), 2), DbOutcome::BusinessDuplicate);
        s.execute(StoreOp::Rollback, 3);
        let c = s.committed_state();
        assert!(!c.ledger.contains_key(&e.event_id), "the debit rolled back");
        assert_eq!(c.balances["acc_00001"], 100_000);
    }

    #[test]
    fn a_transfer_state_row_is_written_only_when_the_lifecycle_needs_it() {
        let transfers = |s: &Store| -> i64 {
            s.conn()
                .query_row("SELECT COUNT(*) FROM transfer_state", [], |r| r.get(0))
                .unwrap()
        };
        for track_transfer in [false, true] {
            let mut s = store(true);
            let e = event();
            let op = StoreOp::ApplyEffect {
                event: &e,
                fail_credit: false,
                done: 0,
                read: None,
                track_transfer,
            };
            assert_eq!(s.execute(op, 1), DbOutcome::Applied);
            assert_eq!(transfers(&s), i64::from(track_transfer), "{track_transfer}");
        }
    }
}
