//! The built-in ledger on PostgreSQL: the seven protocols' tables in PostgreSQL's dialect,
//! their operations ([`StoreOp`]) as statements on the actor's backend, and the committed
//! state the checker reads, so that `--protocol inbox --engine postgres` and
//! `matrix --engine postgres` judge the same protocol as on SQLite, on a real server.
//!
//! The statements are SQLite's ([`crate::store`]) with PostgreSQL's types; what differs is
//! what the server answers: a second writer of a row waits (blocked) instead of failing
//! busy; at REPEATABLE READ or SERIALIZABLE an update of a row another transaction changed
//! fails with 40001; a lock cycle is a deadlock (40P01); a unique violation aborts the
//! whole transaction (the protocol rolls it back, as it does on SQLite).

use super::PgStore;
use crate::model::PayloadAlertRow;
use crate::model::{Account, CommittedState, DbOutcome, Event, EventType, LedgerCounts, Tick};
use crate::store::pg::lexer::Literal;
use crate::store::pg::session::{Answer, DbError, Exec};
use crate::store::schema::{builtin_tables, TablesDialect};
use crate::store::{
    effect_statements, payload_fingerprint, EffectArgs, EffectMode, StoreConfig, StoreOp,
};

/// PostgreSQL's built-in tables: SQLite's, with its types, a `seq` where SQLite orders by
/// rowid, and the consumer's `email_outbox` among them.
const POSTGRES_TABLES: TablesDialect = TablesDialect {
    int: "BIGINT",
    id_key: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
    seq: true,
    email_outbox: "CREATE TABLE email_outbox (
             email_id    BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
             event_id    TEXT NOT NULL,
             event_index BIGINT NOT NULL,
             sent        INTEGER NOT NULL DEFAULT 0,
             created_at  BIGINT NOT NULL
         );
         ",
    pending_note: &[
        "`seq`: the completions that waited are applied in the order they arrived, as",
        "SQLite's rowid orders them. No key on event_id, as on SQLite: the inbox is what",
        "deduplicates.",
    ],
};

/// The ledger's tables: those of [`crate::store`]'s SQLite ledger (the consumer's
/// `email_outbox`, the transfer lifecycle's and the producer's `transfer` and `outbox`
/// included), and the producer's own database, when it has one: a schema of its own,
/// [`PRODUCER_SCHEMA`], with its `transfer` and `outbox`.
pub(in crate::store::pg) fn schema(config: &StoreConfig, accounts: &[Account]) -> String {
    let mut sql = builtin_tables(config.inbox_unique, &POSTGRES_TABLES);
    sql.push_str(&producer_tables(""));
    sql.push_str(&format!("CREATE SCHEMA {PRODUCER_SCHEMA};"));
    sql.push_str(&producer_tables(&format!("{PRODUCER_SCHEMA}.")));
    if config.business_key_unique {
        // Debits and credits only, as on SQLite: a transfer's completions are not money.
        sql.push_str(
            "CREATE UNIQUE INDEX ledger_business_key ON ledger_entry (transfer_id, direction) \
             WHERE direction IN ('debit', 'credit');",
        );
    }
    sql.push_str(&balances(accounts));
    sql
}

/// The schema that is the producer's database when it has its own
/// (`producer.database: "own"`); with `"shared"`, its tables are the consumers' schema's.
pub(in crate::store::pg) const PRODUCER_SCHEMA: &str = "producer";

/// The producer's tables, each name after `prefix`: its business row, and the outbox its
/// relay drains.
fn producer_tables(prefix: &str) -> String {
    format!(
        "CREATE TABLE {prefix}transfer (
         transfer_id  TEXT PRIMARY KEY,
         source       TEXT NOT NULL,
         target       TEXT NOT NULL,
         amount_minor BIGINT NOT NULL,
         created_at   BIGINT NOT NULL
     );
     CREATE TABLE {prefix}outbox (
         outbox_id   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
         transfer_id TEXT NOT NULL,
         event_index BIGINT NOT NULL,
         event_id    TEXT NOT NULL,
         sent        INTEGER NOT NULL DEFAULT 0,
         created_at  BIGINT NOT NULL
     );"
    )
}

/// Every table of the ledger, as the control connection names them (it reads the
/// consumers' schema): what a reset empties and a `VACUUM` cleans.
const TABLES: [&str; 12] = [
    "processed_event",
    "payload_alert",
    "ledger_entry",
    "balance_projection",
    "email_outbox",
    "transfer_state",
    "rejected_event",
    "pending_event",
    "transfer",
    "outbox",
    "producer.transfer",
    "producer.outbox",
];

/// The opening balances.
fn balances(accounts: &[Account]) -> String {
    let mut sql = String::new();
    for a in accounts {
        sql.push_str(&format!(
            "INSERT INTO balance_projection VALUES ('{}', {});",
            a.name.replace('\'', "''"),
            a.initial_balance_minor
        ));
    }
    sql
}

/// The ledger of the last run, built by [`schema`] from the same definition, back to its
/// first state: every table emptied, the identities set back to 1 (so that a run's rows
/// are numbered as in a fresh schema; every read that depends on an order names one), the
/// opening balances inserted again. `DELETE` and `setval`, not `TRUNCATE` or `RESTART`,
/// which give each table and sequence a new file: measured, they cost as much as building
/// the schema again. The dead rows are vacuumed every [`VACUUM_EVERY`] resets (the
/// cluster runs without autovacuum).
pub(in crate::store::pg) fn reset(accounts: &[Account]) -> String {
    let restart = [
        "processed_event.seq",
        "payload_alert.alert_id",
        "ledger_entry.entry_id",
        "email_outbox.email_id",
        "pending_event.seq",
        "outbox.outbox_id",
        "producer.outbox.outbox_id",
    ]
    .map(|c| {
        let (table, column) = c.rsplit_once('.').expect("table.column");
        format!(
            "pg_catalog.setval(pg_catalog.pg_get_serial_sequence('{table}', '{column}'), 1, false)"
        )
    })
    .join(", ");
    let empty: String = TABLES.map(|t| format!("DELETE FROM {t}; ")).concat();
    format!("{empty}SELECT {restart}; {}", balances(accounts))
}

/// How many resets between two `VACUUM`s of the ledger's tables.
pub(in crate::store::pg) const VACUUM_EVERY: u32 = 200;

/// The `VACUUM` of the ledger's tables (a statement of its own: it cannot run inside the
/// implicit transaction of several statements sent at once).
pub(in crate::store::pg) fn vacuum() -> String {
    format!("VACUUM {}", TABLES.join(", "))
}

/// The email the protocol's `enqueue_email` queues, in the consumer's transaction; the
/// email relay sends it and marks it sent ([`super::super::relay`]).
const INSERT_EMAIL: &str = "INSERT INTO email_outbox (event_id, event_index, created_at)
     VALUES (:event_id, :event_index, :now)";

const INSERT_INBOX: &str = "INSERT INTO processed_event
     (event_id, event_type, payload_fingerprint, payload, processed_at)
     VALUES (:event_id, :event_type, :fingerprint, :payload, :now)";
/// `ORDER BY seq`: without the unique key an event may have two rows, and the first
/// inserted is the one read, as SQLite's lowest rowid is (a table's physical order is not
/// the insertion order once rows were deleted).
const SELECT_INBOX: &str = "SELECT payload_fingerprint FROM processed_event
     WHERE event_id = :event_id ORDER BY seq LIMIT 1";
const INSERT_ALERT: &str = "INSERT INTO payload_alert
     (event_id, stored_payload, received_payload, received_fingerprint, detected_at)
     VALUES (:event_id,
             COALESCE((SELECT payload FROM processed_event WHERE event_id = :event_id
                       ORDER BY seq LIMIT 1), ''),
             :payload, :fingerprint, :now)";
const INSERT_LEDGER: &str = "INSERT INTO ledger_entry
     (event_id, transfer_id, account, direction, amount_minor, applied_at)
     VALUES (:event_id, :transfer_id, :account, :direction, :delta, :now)";
const UPDATE_BALANCE: &str =
    "UPDATE balance_projection SET balance_minor = balance_minor + :delta WHERE account = :account";
const SET_BALANCE: &str =
    "UPDATE balance_projection SET balance_minor = :balance WHERE account = :account";
const SELECT_BALANCE: &str =
    "SELECT balance_minor FROM balance_projection WHERE account = :account";

/// What a ledger statement's failure means for the protocol, when it is not a bug.
fn failure(e: &DbError) -> Option<DbOutcome> {
    match e.code.as_str() {
        "40001" => Some(DbOutcome::SerializationFailure),
        "40P01" => Some(DbOutcome::Deadlock),
        _ => None,
    }
}

impl PgStore {
    /// Sends one ledger statement with its parameters bound; `key` names it while it waits.
    pub(in crate::store::pg) fn ledger_statement(
        &mut self,
        key: &str,
        sql: &str,
        values: &[(&str, Literal)],
    ) -> Exec {
        let bound = crate::store::pg::lexer::bind(sql, &|name| {
            values
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.clone())
        })
        .expect("the ledger's statements bind every parameter they name");
        self.run_statement(key, &bound)
    }

    /// Runs one operation of a built-in protocol on the ledger.
    pub(in crate::store::pg) fn execute_ledger(&mut self, op: StoreOp<'_>, now: Tick) -> DbOutcome {
        match op {
            StoreOp::CheckInbox { event } => {
                match self.ledger_statement("check_inbox", SELECT_INBOX, &ids(event)) {
                    Exec::Blocked => DbOutcome::Blocked { done: 0 },
                    Exec::Answered(a) => match first(a, "check_inbox") {
                        Ok(None) => DbOutcome::NotFound,
                        Ok(Some(stored)) if stored == payload_hash(event) => DbOutcome::Found,
                        Ok(Some(_)) => DbOutcome::PayloadMismatch,
                        Err(outcome) => outcome,
                    },
                }
            }
            StoreOp::InsertInbox { event } => self.insert_inbox(event, now),
            StoreOp::ApplyEffect(effect) => {
                let (event, done) = (effect.event, effect.done);
                if event.event_type == EventType::TransferCompleted {
                    return self.complete(event, done, now);
                }
                match self.apply_effect(effect, now) {
                    DbOutcome::Applied if effect.track_transfer => {
                        self.track_transfer(event, done, now)
                    }
                    outcome => outcome,
                }
            }
            StoreOp::RecordPayloadAlert { event } => {
                let mut values = ids(event);
                values.extend(payload_values(event, now));
                match self.ledger_statement("alert", INSERT_ALERT, &values) {
                    Exec::Blocked => DbOutcome::Blocked { done: 0 },
                    Exec::Answered(Ok(_)) => DbOutcome::AlertRecorded,
                    Exec::Answered(Err(e)) if e.is_unique_violation() => DbOutcome::AlertExists,
                    Exec::Answered(Err(e)) => unexpected("payload_alert INSERT", &e),
                }
            }
            StoreOp::EnqueueEmail { event } => {
                let values = [
                    ("event_id", Literal::Text(event.event_id.clone())),
                    ("event_index", Literal::Integer(event.index as i64)),
                    ("now", Literal::Integer(now as i64)),
                ];
                match self.ledger_statement("email", INSERT_EMAIL, &values) {
                    Exec::Blocked => DbOutcome::Blocked { done: 0 },
                    Exec::Answered(Ok(_)) => DbOutcome::EmailQueued,
                    Exec::Answered(Err(e)) => unexpected("email_outbox INSERT", &e),
                }
            }
            other => panic!(
                "{other:?} is not an operation of the built-in ledger (transactions are the \
                 store's, named databases a scenario's own)"
            ),
        }
    }

    /// The inbox `INSERT`. Its unique violation aborts PostgreSQL's transaction, so the
    /// stored payload that tells a duplicate from a corruption is read from the committed
    /// row (the violation is raised only once that row is committed).
    fn insert_inbox(&mut self, event: &Event, now: Tick) -> DbOutcome {
        let mut values = ids(event);
        values.extend(payload_values(event, now));
        match self.ledger_statement("insert_inbox", INSERT_INBOX, &values) {
            Exec::Blocked => DbOutcome::Blocked { done: 0 },
            Exec::Answered(Ok(_)) => DbOutcome::Inserted,
            Exec::Answered(Err(e)) if e.is_unique_violation() => {
                let sql = crate::store::pg::lexer::bind(SELECT_INBOX, &|n| {
                    (n == "event_id").then(|| Literal::Text(event.event_id.clone()))
                })
                .expect("bound");
                match self.committed_value(&sql) {
                    Some(stored) if stored != payload_hash(event) => DbOutcome::PayloadMismatch,
                    _ => DbOutcome::Duplicate,
                }
            }
            Exec::Answered(Err(e)) => unexpected("inbox INSERT", &e),
        }
    }

    /// The business effect, statement `done` on: two ledger rows and two balance updates
    /// (or, for a read-modify-write, the balances read on the first turn and absolute
    /// writes on the next), as on SQLite.
    fn apply_effect(&mut self, effect: EffectArgs<&Event>, now: Tick) -> DbOutcome {
        let (event, done, read) = (effect.event, effect.done, effect.read);
        if self.effect() == EffectMode::ReadModifyWrite && read.is_none() {
            return self.read_balances(event, done);
        }
        for st in effect_statements(event, done) {
            if st.direction == "credit" && effect.fail_credit {
                return DbOutcome::CreditFailed;
            }
            let mut values = ids(event);
            values.push(("account", Literal::Text(st.account.to_string())));
            values.push(("now", Literal::Integer(now as i64)));
            let (sql, key) = if st.ledger_row {
                values.push(("direction", Literal::Text(st.direction.to_string())));
                values.push(("delta", Literal::Integer(st.delta)));
                (INSERT_LEDGER, "ledger")
            } else if let Some(read) = read {
                values.push(("balance", Literal::Integer(st.balance_after(read))));
                (SET_BALANCE, "set_balance")
            } else {
                values.push(("delta", Literal::Integer(st.delta)));
                (UPDATE_BALANCE, "balance")
            };
            let i = st.index;
            match self.ledger_statement(&format!("{key}#{i}"), sql, &values) {
                Exec::Blocked => return DbOutcome::Blocked { done: i },
                Exec::Answered(Ok(ran)) if !st.ledger_row => {
                    assert_eq!(
                        ran.changed, 1,
                        "account {} is in balance_projection",
                        st.account
                    )
                }
                Exec::Answered(Ok(_)) => {}
                Exec::Answered(Err(e)) if e.is_unique_violation() && st.ledger_row => {
                    return DbOutcome::BusinessDuplicate
                }
                Exec::Answered(Err(e)) => return unexpected(st.direction, &e),
            }
        }
        DbOutcome::Applied
    }

    /// A read-modify-write's first turn: both balances, read in the transaction.
    fn read_balances(&mut self, event: &Event, done: u8) -> DbOutcome {
        let mut balances = [0i64; 2];
        for (i, account) in [&event.source, &event.target].into_iter().enumerate() {
            let values = [("account", Literal::Text(account.clone()))];
            let key = format!("read_balance#{i}");
            let answer = match self.ledger_statement(&key, SELECT_BALANCE, &values) {
                Exec::Blocked => return DbOutcome::Blocked { done },
                Exec::Answered(a) => a,
            };
            match first(answer, "balance SELECT") {
                Ok(v) => balances[i] = v.and_then(|v| v.parse().ok()).unwrap_or(0),
                Err(outcome) => return outcome,
            }
        }
        DbOutcome::BalancesRead {
            source: balances[0],
            target: balances[1],
        }
    }

    /// Everything committed in the ledger, read on the control connection (which sees
    /// what PostgreSQL committed, and nothing of an open transaction).
    pub(in crate::store::pg) fn ledger_state(&mut self) -> CommittedState {
        let mut state = CommittedState::default();
        let counts = |r: &[Option<String>]| LedgerCounts {
            debits: int(&r[1]) as u32,
            credits: int(&r[2]) as u32,
            completions: int(&r[3]) as u32,
        };
        let by = |key: &str| {
            format!(
                "SELECT {key}, count(*) FILTER (WHERE direction = 'debit'), \
                 count(*) FILTER (WHERE direction = 'credit'), \
                 count(*) FILTER (WHERE direction = 'completion') \
                 FROM ledger_entry GROUP BY 1 ORDER BY 1"
            )
        };
        for r in self.control_rows(&by("event_id")) {
            state.ledger.insert(text(&r[0]), counts(&r));
        }
        for r in self.control_rows(&by("transfer_id")) {
            state.ledger_by_transfer.insert(text(&r[0]), counts(&r));
        }
        for r in self
            .control_rows("SELECT event_id, count(*) FROM processed_event GROUP BY 1 ORDER BY 1")
        {
            state.inbox.insert(text(&r[0]), int(&r[1]) as u32);
        }
        for (table, into) in [
            ("rejected_event", &mut state.rejected),
            ("pending_event", &mut state.pending),
        ] {
            let sql = format!("SELECT event_id, count(*) FROM {table} GROUP BY 1 ORDER BY 1");
            for r in self.control_rows(&sql) {
                into.insert(text(&r[0]), int(&r[1]) as u32);
            }
        }
        for r in self.control_rows("SELECT account, balance_minor FROM balance_projection") {
            state.balances.insert(text(&r[0]), int(&r[1]));
        }
        for r in self.control_rows(
            "SELECT account, sum(amount_minor) FROM ledger_entry GROUP BY 1 ORDER BY 1",
        ) {
            state.ledger_sums.insert(text(&r[0]), int(&r[1]));
        }
        for r in self.control_rows(
            "SELECT event_id, amount_minor FROM ledger_entry WHERE direction = 'credit' \
             ORDER BY entry_id",
        ) {
            let amounts = state.credit_amounts.entry(text(&r[0])).or_default();
            amounts.push(int(&r[1]));
        }
        for r in self.control_rows(
            "SELECT event_id, stored_payload, received_payload, detected_at FROM payload_alert \
             ORDER BY alert_id",
        ) {
            state.payload_alerts.push(PayloadAlertRow {
                event_id: text(&r[0]),
                stored_payload: text(&r[1]),
                received_payload: text(&r[2]),
                detected_at: int(&r[3]) as Tick,
            });
        }
        state
    }

    /// The committed (ledger, inbox) rows of one event.
    pub(in crate::store::pg) fn ledger_event_rows(&mut self, event_id: &str) -> (u32, u32) {
        let id = event_id.replace('\'', "''");
        let count = |store: &mut PgStore, table: &str| {
            let sql = format!("SELECT count(*) FROM {table} WHERE event_id = '{id}'");
            store
                .control_rows(&sql)
                .first()
                .map_or(0, |r| int(&r[0]) as u32)
        };
        (count(self, "ledger_entry"), count(self, "processed_event"))
    }
}

fn ids(event: &Event) -> Vec<(&'static str, Literal)> {
    vec![
        ("event_id", Literal::Text(event.event_id.clone())),
        (
            "event_type",
            Literal::Text(event.event_type.as_str().to_string()),
        ),
        ("transfer_id", Literal::Text(event.transfer_id.clone())),
    ]
}

fn payload_values(event: &Event, now: Tick) -> [(&'static str, Literal); 3] {
    [
        ("payload", Literal::Text(event.payload())),
        ("fingerprint", Literal::Text(payload_hash(event))),
        ("now", Literal::Integer(now as i64)),
    ]
}

fn payload_hash(event: &Event) -> String {
    payload_fingerprint(&event.payload())
}

/// The first column of the first row, or what the failure means.
fn first(answer: Answer, what: &str) -> Result<Option<String>, DbOutcome> {
    match answer {
        Ok(ran) => Ok(ran
            .rows
            .into_iter()
            .next()
            .and_then(|r| r.into_iter().next().flatten())),
        Err(e) => Err(unexpected(what, &e)),
    }
}

/// A failure the protocol recovers from (40001, 40P01), or a bug of the simulator: the
/// schema and statements are ours.
pub(in crate::store::pg) fn unexpected(what: &str, e: &DbError) -> DbOutcome {
    failure(e).unwrap_or_else(|| panic!("{what} on PostgreSQL: {} ({})", e.message, e.code))
}

fn text(v: &Option<String>) -> String {
    v.clone().unwrap_or_default()
}

fn int(v: &Option<String>) -> i64 {
    v.as_deref().and_then(|v| v.parse().ok()).unwrap_or(0)
}
