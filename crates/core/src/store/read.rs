//! Reading the committed database as the business would: the checker's state, the
//! narration's views, the exploration's digest, and the raw-SQLite baseline's replay.

use super::*;

impl Store {
    /// The committed ledger rows and inbox rows of one event.
    pub fn event_rows(&mut self, event_id: &str) -> (u32, u32) {
        if self.custom.is_some() {
            return (self.own_effects_of(event_id), 0);
        }
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
            custom,
            sql_events: _, // Configuration: the same for every run of a scenario.
            rolled_back_by_sqlite,
            // Never digested: a run with named databases has no fingerprint at all (see
            // `World::fingerprint`), so every schedule of it is run.
            others: _,
            others_wrote: _,
            // The random streams a scenario's statements draw from: where each stands
            // decides what they draw next.
            sandboxes,
            now: _, // The digest is relative to `now` (the caller feeds it when it matters).
            writes_rows: _, // What SQLite saw of each statement: the same in every run.
        } = self;
        h.value(rolled_back_by_sqlite);
        let positions: Vec<u128> = sandboxes.iter().map(Sandbox::rng_position).collect();
        h.value(&positions);
        // A scenario's own statements may read any column, `*_at` ones included.
        let own_schema = custom.is_some();
        let conn = self.conn();
        assert!(
            conn.is_autocommit() && !wrote_in_transaction,
            "only a database with no open transaction on this connection is fingerprinted"
        );
        fingerprint_schema(conn, h);
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
            let mut q = table_scan(conn, &table);
            let columns: Vec<String> = q.column_names().iter().map(|c| c.to_string()).collect();
            let mut rows = q.query([]).expect("a table scan");
            while let Some(row) = rows.next().expect("a row") {
                h.write_u8(0xfe);
                for (i, name) in columns.iter().enumerate() {
                    let v: Value = row.get(i).expect("a column");
                    if name.ends_with("_at") && !own_schema {
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
            !self.in_transaction(),
            "the checker reads committed state only"
        );
        self.read_state()
    }

    /// For narration during a run: what changes when this connection writes a row or ends
    /// a transaction (its count of changed rows, and whether it is outside a transaction).
    /// The committed state changes only after some connection's mark did.
    pub fn change_mark(&self) -> (u64, bool) {
        let changes = self.connections().map(Connection::total_changes).sum();
        (changes, !self.in_transaction())
    }

    /// For narration during a run: the committed state read through this connection, or
    /// `None` when it has a transaction open (it would see its own writes). The reads are
    /// not logged with the run's statements.
    pub fn committed_snapshot(&mut self) -> Option<CommittedState> {
        // With a named database's transaction open too: its connection would see its own
        // writes (and the database may have no other connection to read through).
        if self.in_transaction() {
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
    pub(super) fn read_state(&mut self) -> CommittedState {
        let mut state = CommittedState::default();
        if self.custom.is_some() {
            self.read_custom(&mut state);
            return state;
        }
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

/// Feeds the database's schema: every table, index, trigger and view with its SQL, in
/// the order SQLite keeps them (which is the order triggers on one table fire in). A step
/// may drop or create a trigger, an index or a view: two databases with the same rows and
/// another schema do not have the same future.
fn fingerprint_schema(conn: &Connection, h: &mut StateHasher) {
    #[cfg(any(test, feature = "test-support"))]
    if h.omit_schema {
        return;
    }
    h.section("schema");
    let mut q = conn
        .prepare_cached("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY rowid")
        .expect("the schema query");
    let mut rows = q.query([]).expect("the schema query");
    while let Some(row) = rows.next().expect("a schema row") {
        let object: (String, String, String, Option<String>) = (
            row.get(0).expect("type"),
            row.get(1).expect("name"),
            row.get(2).expect("tbl_name"),
            row.get(3).expect("sql"),
        );
        h.value(&object);
    }
}

/// Every row of `table` in a stable order: with its rowid, in rowid order; a `WITHOUT ROWID`
/// table (a scenario's own schema may have one) has none, and is read in the order of all
/// its columns, which is as much a function of its rows.
fn table_scan<'c>(conn: &'c Connection, table: &str) -> rusqlite::CachedStatement<'c> {
    let quoted = table.replace('"', "\"\"");
    if let Ok(q) = conn.prepare_cached(&format!("SELECT rowid, * FROM \"{quoted}\" ORDER BY rowid"))
    {
        return q;
    }
    let columns = conn
        .prepare(&format!("SELECT * FROM \"{quoted}\""))
        .expect("a table of the schema")
        .column_count();
    let order: Vec<String> = (1..=columns).map(|i| i.to_string()).collect();
    conn.prepare_cached(&format!(
        "SELECT * FROM \"{quoted}\" ORDER BY {}",
        order.join(", ")
    ))
    .expect("a table scan")
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
