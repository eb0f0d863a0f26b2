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

use crate::model::{Account, Event, Tick};
use rusqlite::{params, Connection, ErrorCode};
use serde::Serialize;
use std::collections::BTreeMap;

/// The store's settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StoreConfig {
    /// Whether `processed_event.event_id` is the primary key. `false` shows what the
    /// constraint protects: the inbox `INSERT` then never reports a duplicate.
    pub inbox_unique: bool,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig { inbox_unique: true }
    }
}

/// One database operation of a consumer step.
#[derive(Clone, Copy, Debug)]
pub enum StoreOp<'a> {
    Begin,
    /// `SELECT 1 FROM processed_event WHERE event_id = ?`.
    CheckInbox {
        event: &'a Event,
    },
    /// `INSERT INTO processed_event …`, stamped with virtual time.
    InsertInbox {
        event: &'a Event,
    },
    /// Debit then credit, each a ledger row and an atomic balance update. With
    /// `fail_credit` the debit runs and the credit fails (the seeds' "applyCredit fails").
    ApplyEffect {
        event: &'a Event,
        fail_credit: bool,
    },
    Commit,
    Rollback,
}

/// What the database answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DbOutcome {
    Begun,
    /// `check_inbox` found the event: already processed.
    Found,
    NotFound,
    Inserted,
    /// The inbox `INSERT` hit the unique constraint: already processed.
    Duplicate,
    Applied,
    /// The debit ran, the credit failed (injected).
    CreditFailed,
    Committed,
    RolledBack,
}

impl DbOutcome {
    pub fn describe(self) -> &'static str {
        match self {
            DbOutcome::Begun => "BEGIN",
            DbOutcome::Found => "inbox row found: duplicate",
            DbOutcome::NotFound => "inbox row not found",
            DbOutcome::Inserted => "inbox row inserted",
            DbOutcome::Duplicate => "UNIQUE constraint failed: duplicate",
            DbOutcome::Applied => "debit and credit applied",
            DbOutcome::CreditFailed => "debit applied, credit failed (injected)",
            DbOutcome::Committed => "COMMIT",
            DbOutcome::RolledBack => "ROLLBACK",
        }
    }

    /// Whether the outcome says the event was processed before.
    pub fn is_duplicate(self) -> bool {
        matches!(self, DbOutcome::Found | DbOutcome::Duplicate)
    }
}

/// Debit and credit rows of one event in the committed ledger.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LedgerCounts {
    pub debits: u32,
    pub credits: u32,
}

/// What is committed, read back with SQL as the business would read it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CommittedState {
    /// Per `event_id`: its debit and credit rows.
    pub ledger: BTreeMap<String, LedgerCounts>,
    /// Per `event_id`: its inbox rows (more than one only without the unique constraint).
    pub inbox: BTreeMap<String, u32>,
    pub balances: BTreeMap<String, i64>,
}

#[derive(Debug, thiserror::Error)]
#[error("could not set up the SQLite database: {0}")]
pub struct StoreError(#[from] rusqlite::Error);

pub struct Store {
    conn: Connection,
}

impl Store {
    /// An in-memory database with the schema and the accounts' opening balances.
    pub fn open_in_memory(config: &StoreConfig, accounts: &[Account]) -> Result<Store, StoreError> {
        let conn = Connection::open_in_memory()?;
        let inbox_key = if config.inbox_unique {
            "PRIMARY KEY"
        } else {
            "NOT NULL"
        };
        conn.execute_batch(&format!(
            "CREATE TABLE processed_event (
                 event_id     TEXT {inbox_key},
                 event_type   TEXT NOT NULL,
                 processed_at INTEGER NOT NULL
             );
             CREATE TABLE ledger_entry (
                 entry_id     INTEGER PRIMARY KEY,
                 event_id     TEXT NOT NULL,
                 transfer_id  TEXT NOT NULL,
                 account      TEXT NOT NULL,
                 direction    TEXT NOT NULL CHECK (direction IN ('debit', 'credit')),
                 amount_minor INTEGER NOT NULL,
                 applied_at   INTEGER NOT NULL
             );
             CREATE TABLE balance_projection (
                 account       TEXT PRIMARY KEY,
                 balance_minor INTEGER NOT NULL
             );"
        ))?;
        {
            let mut insert = conn.prepare(
                "INSERT INTO balance_projection (account, balance_minor) VALUES (?1, ?2)",
            )?;
            for a in accounts {
                insert.execute(params![a.name, a.initial_balance_minor])?;
            }
        }
        Ok(Store { conn })
    }

    /// Runs one operation at virtual time `now`. SQLite errors other than the inbox's unique
    /// violation are bugs of the simulator (the schema and statements are ours), so they
    /// panic with the statement that failed.
    pub fn execute(&mut self, op: StoreOp<'_>, now: Tick) -> DbOutcome {
        match op {
            StoreOp::Begin => {
                assert!(self.conn.is_autocommit(), "BEGIN inside a transaction");
                self.batch("BEGIN");
                DbOutcome::Begun
            }
            StoreOp::CheckInbox { event } => {
                let found = self
                    .conn
                    .prepare_cached("SELECT 1 FROM processed_event WHERE event_id = ?1 LIMIT 1")
                    .and_then(|mut s| s.exists(params![event.event_id]))
                    .expect("inbox SELECT");
                if found {
                    DbOutcome::Found
                } else {
                    DbOutcome::NotFound
                }
            }
            StoreOp::InsertInbox { event } => {
                let result = self
                    .conn
                    .prepare_cached(
                        "INSERT INTO processed_event (event_id, event_type, processed_at)
                         VALUES (?1, ?2, ?3)",
                    )
                    .and_then(|mut s| {
                        s.execute(params![
                            event.event_id,
                            event.event_type.as_str(),
                            now as i64
                        ])
                    });
                match result {
                    Ok(1) => DbOutcome::Inserted,
                    Err(rusqlite::Error::SqliteFailure(e, _))
                        if e.code == ErrorCode::ConstraintViolation =>
                    {
                        DbOutcome::Duplicate
                    }
                    other => panic!("inbox INSERT: unexpected {other:?}"),
                }
            }
            StoreOp::ApplyEffect { event, fail_credit } => {
                self.post(event, "debit", &event.source, -event.amount_minor, now);
                if fail_credit {
                    return DbOutcome::CreditFailed;
                }
                self.post(event, "credit", &event.target, event.amount_minor, now);
                DbOutcome::Applied
            }
            StoreOp::Commit => {
                assert!(!self.conn.is_autocommit(), "COMMIT outside a transaction");
                self.batch("COMMIT");
                DbOutcome::Committed
            }
            StoreOp::Rollback => {
                assert!(!self.conn.is_autocommit(), "ROLLBACK outside a transaction");
                self.batch("ROLLBACK");
                DbOutcome::RolledBack
            }
        }
    }

    /// The consumer's process died: its connection's open transaction, if any, is rolled
    /// back, exactly as SQLite does when a connection goes away. Returns whether there was
    /// one.
    pub fn drop_open_transaction(&mut self) -> bool {
        if self.conn.is_autocommit() {
            return false;
        }
        self.batch("ROLLBACK");
        true
    }

    pub fn in_transaction(&self) -> bool {
        !self.conn.is_autocommit()
    }

    /// One ledger row and the matching atomic balance update.
    fn post(&self, event: &Event, direction: &str, account: &str, delta_minor: i64, now: Tick) {
        self.conn
            .prepare_cached(
                "INSERT INTO ledger_entry
                     (event_id, transfer_id, account, direction, amount_minor, applied_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    event.event_id,
                    event.transfer_id,
                    account,
                    direction,
                    delta_minor,
                    now as i64
                ])
            })
            .expect("ledger INSERT");
        let updated = self
            .conn
            .prepare_cached(
                "UPDATE balance_projection SET balance_minor = balance_minor + ?1 WHERE account = ?2",
            )
            .and_then(|mut s| s.execute(params![delta_minor, account]))
            .expect("balance UPDATE");
        assert_eq!(updated, 1, "account {account} exists in balance_projection");
    }

    fn batch(&self, sql: &str) {
        self.conn
            .execute_batch(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    /// The committed ledger rows and inbox rows of one event.
    pub fn event_rows(&self, event_id: &str) -> (u32, u32) {
        let count = |sql: &str| -> u32 {
            self.conn
                .prepare_cached(sql)
                .and_then(|mut s| s.query_row(params![event_id], |r| r.get(0)))
                .expect("row count")
        };
        (
            count("SELECT COUNT(*) FROM ledger_entry WHERE event_id = ?1"),
            count("SELECT COUNT(*) FROM processed_event WHERE event_id = ?1"),
        )
    }

    /// What is committed, as text without timestamps: two stores with the same logical
    /// state answer every later statement of a run the same way.
    pub fn logical_state(&self) -> String {
        let mut out = String::new();
        for (sql, columns) in [
            (
                "SELECT event_id, COUNT(*) FROM processed_event GROUP BY event_id ORDER BY event_id",
                2,
            ),
            (
                "SELECT event_id, direction, account, amount_minor, COUNT(*) FROM ledger_entry
                 GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4",
                5,
            ),
            (
                "SELECT account, balance_minor FROM balance_projection ORDER BY account",
                2,
            ),
        ] {
            let mut q = self.conn.prepare_cached(sql).expect("state query");
            let mut rows = q.query([]).expect("state query");
            while let Some(row) = rows.next().expect("state row") {
                for i in 0..columns {
                    let v: rusqlite::types::Value = row.get(i).expect("state column");
                    out.push_str(&format!("{v:?},"));
                }
                out.push(';');
            }
            out.push('|');
        }
        out
    }

    /// Reads what is committed. It must not be called with a transaction open, because the
    /// connection would see its own uncommitted writes.
    pub fn committed_state(&self) -> CommittedState {
        assert!(
            self.conn.is_autocommit(),
            "the checker reads committed state only"
        );
        let mut state = CommittedState::default();
        let mut q = self
            .conn
            .prepare_cached(
                "SELECT event_id,
                        SUM(direction = 'debit'),
                        SUM(direction = 'credit')
                 FROM ledger_entry GROUP BY event_id",
            )
            .expect("ledger query");
        let rows = q
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, u32>(1)?,
                    r.get::<_, u32>(2)?,
                ))
            })
            .expect("ledger query");
        for row in rows {
            let (id, debits, credits) = row.expect("ledger row");
            state.ledger.insert(id, LedgerCounts { debits, credits });
        }
        let mut q = self
            .conn
            .prepare_cached("SELECT event_id, COUNT(*) FROM processed_event GROUP BY event_id")
            .expect("inbox query");
        let rows = q
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, u32>(1)?)))
            .expect("inbox query");
        for row in rows {
            let (id, n) = row.expect("inbox row");
            state.inbox.insert(id, n);
        }
        let mut q = self
            .conn
            .prepare_cached("SELECT account, balance_minor FROM balance_projection")
            .expect("balance query");
        let rows = q
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
            .expect("balance query");
        for row in rows {
            let (account, balance) = row.expect("balance row");
            state.balances.insert(account, balance);
        }
        state
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::EventType;

    fn accounts() -> Vec<Account> {
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
            },
            &accounts(),
        )
        .unwrap()
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
                    fail_credit: false
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
                credits: 1
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
                    fail_credit: true
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
                credits: 0
            }
        );
        assert_eq!(c.balances.values().sum::<i64>(), 190_000);
    }

    #[test]
    fn the_inbox_row_carries_virtual_time() {
        let mut s = store(true);
        let e = event();
        s.execute(StoreOp::InsertInbox { event: &e }, 42);
        let at: i64 = s
            .conn
            .query_row("SELECT processed_at FROM processed_event", [], |r| r.get(0))
            .unwrap();
        assert_eq!(at, 42);
    }
}
