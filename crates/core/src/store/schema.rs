//! The schema and the template databases: each store configuration's database is built
//! once per thread, serialized, and copied (or reset in place) for every run.

use super::*;

/// Built databases, serialized, by (schema, accounts). Creating the schema and the accounts
/// costs far more than copying their bytes into a fresh connection, and every run of a
/// scenario starts from the same database, so each is built once per thread (per thread,
/// not per process: a shared map behind a lock made parallel runs wait on each other).
/// The bytes are exactly what building would give, so this changes no run.
/// Keyed by the whole store configuration as text, so that a setting that changes the
/// schema can never be served another setting's template.
pub(super) type TemplateKey = (String, Vec<(String, i64)>);
thread_local! {
    static TEMPLATES: RefCell<BTreeMap<TemplateKey, Arc<Vec<u8>>>> =
        const { RefCell::new(BTreeMap::new()) };
    /// Connections of finished runs, reused by the next runs on this thread: opening and
    /// closing a connection cost more than a whole small run. Each reuse either resets the
    /// database in place (the same template: see [`reset_in_place`]) or replaces it
    /// wholesale with another template, so nothing of a previous run survives.
    pub(super) static IDLE: RefCell<Vec<Idle>> = const { RefCell::new(Vec::new()) };
}

/// An idle connection and the template its database was loaded from.
pub(super) struct Idle {
    pub(super) template: Arc<Vec<u8>>,
    pub(super) conn: Connection,
}

/// The prepared statements a pooled connection keeps: more than the store's statements and
/// the resets' together, so that none is evicted and prepared again.
pub(super) const STATEMENT_CACHE_CAPACITY: usize = 64;

/// The most idle connections kept per thread.
pub(super) const MAX_IDLE: usize = 4;

/// Built databases of scenarios with their own schema, for every thread: such a database
/// may be megabytes, so one copy is shared (a run of such a scenario is slow enough that
/// the lock costs nothing), and the cache is emptied when it would hold more than
/// [`SHARED_TEMPLATES_BYTES`].
static SHARED_TEMPLATES: Mutex<BTreeMap<String, Arc<Vec<u8>>>> = Mutex::new(BTreeMap::new());

/// The most bytes [`SHARED_TEMPLATES`] keeps: the templates of one scenario at its bounds
/// (five databases of [`super::MAX_DATABASE_BYTES`]), and some more.
pub const SHARED_TEMPLATES_BYTES: usize = 96 << 20;

/// The serialized database a run starts from, built on first use on this thread (with
/// the scenario's own schema, in this process).
pub(super) fn template(
    config: &StoreConfig,
    accounts: &[Account],
) -> Result<Arc<Vec<u8>>, StoreError> {
    if config.custom.is_some() {
        return shared_template(config);
    }
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
            .map(|(_, bytes)| Arc::clone(bytes))
    });
    let bytes = match cached {
        Some(bytes) => bytes,
        None => {
            let built = connect::open_in_memory()?;
            build(&built, config, accounts)?;
            let bytes = Arc::new(built.serialize(MAIN_DB)?.to_vec());
            let key: TemplateKey = (
                format!("{config:?}"),
                accounts
                    .iter()
                    .map(|a| (a.name.clone(), a.initial_balance_minor))
                    .collect(),
            );
            TEMPLATES.with(|t| t.borrow_mut().insert(key, Arc::clone(&bytes)));
            bytes
        }
    };
    Ok(bytes)
}

/// The database of a scenario with its own schema (which has no accounts), from the
/// shared cache or built now.
fn shared_template(config: &StoreConfig) -> Result<Arc<Vec<u8>>, StoreError> {
    let key = format!("{config:?}");
    let lock = || SHARED_TEMPLATES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(bytes) = lock().get(&key) {
        return Ok(Arc::clone(bytes));
    }
    let built = connect::open_in_memory()?;
    build(&built, config, &[])?;
    let bytes = Arc::new(built.serialize(MAIN_DB)?.to_vec());
    let mut cache = lock();
    let held: usize = cache.values().map(|b| b.len()).sum();
    if held + bytes.len() > SHARED_TEMPLATES_BYTES {
        cache.clear();
    }
    cache.insert(key, Arc::clone(&bytes));
    Ok(bytes)
}

/// Builds the schema and opening balances on `conn`.
pub(super) fn build(
    conn: &Connection,
    config: &StoreConfig,
    accounts: &[Account],
) -> Result<(), StoreError> {
    if let Some(custom) = &config.custom {
        return checker::build_custom(conn, &custom.schema, &custom.setup)
            .map(drop)
            .map_err(|(setup, i, message)| {
                let section = if setup { "setup" } else { "schema" };
                StoreError::Custom(format!("store.{section}[{i}]: {}", message.english()))
            });
    }
    conn.execute_batch(&builtin_tables(config.inbox_unique, &SQLITE_TABLES))?;
    conn.execute_batch(outbox::SCHEMA)?;
    if config.business_key_unique {
        conn.execute_batch(outbox::BUSINESS_KEY)?;
    }
    opening_balances(conn, accounts)
}

/// What the built-in tables' text differs in between the engines; the rest of it, the
/// same tables and columns, is [`builtin_tables`]'s for both.
pub(crate) struct TablesDialect {
    /// The integer type: `INTEGER` on SQLite, `BIGINT` on PostgreSQL.
    pub int: &'static str,
    /// A generated key column's type (SQLite's `INTEGER PRIMARY KEY` is its rowid).
    pub id_key: &'static str,
    /// A `seq` identity column first in `processed_event` and `pending_event`, where
    /// PostgreSQL has no rowid to order them by.
    pub seq: bool,
    /// The consumer's `email_outbox`, after `balance_projection` (SQLite's stands in
    /// `outbox::SCHEMA`): the whole statement, or nothing.
    pub email_outbox: &'static str,
    /// The comment's lines above `pending_event`.
    pub pending_note: &'static [&'static str],
}

impl TablesDialect {
    /// The `seq` column and the indent of the next, padded to `width` as the table's other
    /// columns are; nothing without one.
    fn seq(&self, width: usize) -> String {
        let int = self.int;
        match self.seq {
            true => format!(
                "{:width$}{int} GENERATED ALWAYS AS IDENTITY,\n             ",
                "seq"
            ),
            false => String::new(),
        }
    }

    /// The note above `pending_event`, a comment line each, indented as the statements are.
    fn pending_note(&self) -> String {
        self.pending_note
            .iter()
            .map(|line| format!("-- {line}\n         "))
            .collect()
    }
}

/// SQLite's built-in tables.
const SQLITE_TABLES: TablesDialect = TablesDialect {
    int: "INTEGER",
    id_key: "INTEGER PRIMARY KEY",
    seq: false,
    email_outbox: "",
    pending_note: &[
        "Completions that arrived before their transfer (out_of_order: buffer). No key on",
        "event_id: the inbox is what deduplicates, and without it a redelivered",
        "completion is buffered twice and applied twice, as it would be in production.",
    ],
};

/// The built-in protocols' tables, in dialect `d`: the inbox (its `event_id` the key with
/// `inbox_unique`, else only required), the payload alerts, the ledger, the balances, the
/// transfers, the rejected and the buffered events.
pub(crate) fn builtin_tables(inbox_unique: bool, d: &TablesDialect) -> String {
    let inbox_key = if inbox_unique {
        "PRIMARY KEY"
    } else {
        "NOT NULL"
    };
    let (int, id_key, email_outbox) = (d.int, d.id_key, d.email_outbox);
    let (inbox_seq, pending_seq, pending_note) = (d.seq(20), d.seq(12), d.pending_note());
    format!(
        "CREATE TABLE processed_event (
             {inbox_seq}event_id            TEXT {inbox_key},
             event_type          TEXT NOT NULL,
             payload_fingerprint TEXT NOT NULL,
             payload             TEXT NOT NULL,
             processed_at        {int} NOT NULL
         );
         CREATE TABLE payload_alert (
             alert_id             {id_key},
             event_id             TEXT NOT NULL,
             stored_payload       TEXT NOT NULL,
             received_payload     TEXT NOT NULL,
             received_fingerprint TEXT NOT NULL,
             detected_at          {int} NOT NULL,
             UNIQUE (event_id, received_fingerprint)
         );
         CREATE TABLE ledger_entry (
             entry_id     {id_key},
             event_id     TEXT NOT NULL,
             transfer_id  TEXT NOT NULL,
             account      TEXT NOT NULL,
             direction    TEXT NOT NULL
                          CHECK (direction IN ('debit', 'credit', 'completion')),
             amount_minor {int} NOT NULL,
             applied_at   {int} NOT NULL
         );
         CREATE TABLE balance_projection (
             account       TEXT PRIMARY KEY,
             balance_minor {int} NOT NULL
         );
         {email_outbox}CREATE TABLE transfer_state (
             transfer_id TEXT PRIMARY KEY,
             status      TEXT NOT NULL CHECK (status IN ('created', 'completed'))
         );
         CREATE TABLE rejected_event (
             event_id    TEXT NOT NULL,
             transfer_id TEXT NOT NULL,
             reason      TEXT NOT NULL,
             rejected_at {int} NOT NULL
         );
         {pending_note}CREATE TABLE pending_event (
             {pending_seq}event_id    TEXT NOT NULL,
             transfer_id TEXT NOT NULL,
             event_type  TEXT NOT NULL,
             buffered_at {int} NOT NULL
         );
         CREATE INDEX pending_event_by_transfer ON pending_event (transfer_id);"
    )
}

/// The opening balances of `accounts`, kept twice: `balance_projection` is what runs
/// change, and `opening_balance` is what `reset_in_place` restores it from.
fn opening_balances(conn: &Connection, accounts: &[Account]) -> Result<(), StoreError> {
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

pub(super) const RESTORE_BALANCES: &str = "INSERT INTO balance_projection (account, balance_minor)
     SELECT account, balance_minor FROM opening_balance ORDER BY rowid";
pub(super) const TABLES_TO_EMPTY: &str = "SELECT name FROM sqlite_schema
     WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'opening_balance'
     ORDER BY name";

/// Brings a database loaded from a template back to that template's rows without touching
/// its schema: every table but `opening_balance` is emptied, then the balances are copied
/// back from it. Replacing the database (`deserialize`) would make SQLite parse the
/// schema and prepare every statement again, which is about half of a small run's time;
/// this keeps the connection's prepared statements. No table has `AUTOINCREMENT`, so the
/// rowids of the next run start at 1 again, as they do in a fresh copy.
pub(super) fn reset_in_place(conn: &Connection) -> rusqlite::Result<()> {
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
