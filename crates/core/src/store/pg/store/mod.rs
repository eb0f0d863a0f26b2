//! A consumer's connection to PostgreSQL as the world's one executor sees it: the
//! [`ConsumerDb`] of a run on `store.engine: "postgres"`.
//!
//! Each statement of a SQL step is sent with the run's virtual time (the clock the
//! deterministic `now()` reads), and settled (see [`crate::store::pg::session`]): a statement that
//! waits for a lock is [`DbOutcome::Blocked`], the step half done; the actor's next turn
//! asks for the same statement and gets its answer once the lock holder ended. A crash
//! terminates the backend.

use crate::store::pg::lexer::{self, Literal};
use crate::store::pg::session::{use_schema, DbError, Exec, RunDb, RUN_SCHEMA};

mod handler;
pub(super) mod ledger;
use crate::model::handler::{CallResult, Value as HandlerValue};
use crate::model::Account;
use crate::model::{CheckValue, RefusalReason, SqlFailure, SqlRefusal};
use crate::model::{
    CommittedState, DbOutcome, DuplicateIf, InvariantResult, SqlBinding, SqlEvent, SqlRan, SqlStep,
    SqlValue, Tick,
};
use crate::store::{
    ConsumerDb, CrashModel, CustomSchema, EffectMode, OutOfOrder, Store, StoreConfig, StoreOp,
};
use std::cell::RefCell;
use std::rc::Rc;

/// One actor's connections to the run's PostgreSQL databases: the main one and, with
/// `store.databases`, each named one (a schema of its own in the run's database, with its
/// own connection and its own transactions, as a database of the same server).
pub struct PgStore {
    pub(super) run: Rc<RefCell<RunDb>>,
    pub(super) index: usize,
    /// The scenario's own schema, or (for the built-in ledger) an empty one.
    custom: Rc<CustomSchema>,
    /// `Some` on the built-in ledger: how `apply_effect` updates the balances.
    pub(super) ledger: Option<EffectMode>,
    /// On the built-in ledger: what a completion of a transfer not seen created does.
    pub(super) out_of_order: OutOfOrder,
    /// The producer's (or its relay's) connection to a database of its own: its schema.
    pub(super) producer_schema: Option<&'static str>,
    sql_events: Rc<Vec<SqlEvent>>,
    /// What a crash does to the open transaction (only crosscheck's test of itself keeps
    /// it).
    crash_model: CrashModel,
    /// Per database (the main one first): whether a transaction is open (BEGIN sent, no
    /// COMMIT or ROLLBACK since), and the virtual instant it began (`now()` inside it).
    open: Vec<Option<Tick>>,
    /// A Rust handler's statement failed in the main database's open transaction:
    /// PostgreSQL aborted it, and its `COMMIT` rolls back.
    pub(super) aborted: bool,
    pub(super) now: Tick,
}

/// The schema each database of `config` lives in: the main one's, then each named
/// database's, named as it is.
pub fn schemas(config: &StoreConfig) -> Vec<String> {
    let named = config.custom.iter().flat_map(|c| &c.databases);
    std::iter::once(crate::store::pg::session::RUN_SCHEMA.to_string())
        .chain(named.map(|d| d.name.clone()))
        .collect()
}

/// The connections of one run on a fresh schema built from `config`'s (the scenario's
/// own, or the built-in ledger with `accounts`): `connections` of them, sharing one
/// [`RunDb`].
pub fn open_run(
    config: &StoreConfig,
    accounts: &[Account],
    seed: u64,
    connections: usize,
    sql_events: Rc<Vec<SqlEvent>>,
) -> Result<Vec<PgStore>, String> {
    let ledger = config
        .custom
        .is_none()
        .then(|| ledger::schema(config, accounts));
    let again =
        ledger.is_some() && *crate::store::pg::session::worker()?.ledger_built.borrow() == ledger;
    let schemas = schemas(config);
    let run = RunDb::new(config.isolation.sql(), seed, connections, !again, &schemas)?;
    let (custom, effect) = match (&config.custom, ledger) {
        (Some(custom), _) => {
            build(&run, custom)?;
            (Rc::new(custom.clone()), None)
        }
        (None, Some(ledger)) => {
            let build = if again {
                let resets = run.worker.ledger_resets.get() + 1;
                run.worker.ledger_resets.set(resets % ledger::VACUUM_EVERY);
                if resets == ledger::VACUUM_EVERY {
                    run.worker
                        .control_batch(&ledger::vacuum())
                        .map_err(|e| format!("vacuuming the ledger: {e}"))?;
                }
                ledger::reset(accounts)
            } else {
                ledger.clone()
            };
            run.worker
                .control_batch(&build)
                .map_err(|e| format!("building the ledger: {e}"))?;
            *run.worker.ledger_built.borrow_mut() = Some(ledger);
            (Rc::new(CustomSchema::default()), Some(config.effect))
        }
        (None, None) => unreachable!("the ledger is built without a schema of the scenario's"),
    };
    let run = Rc::new(RefCell::new(run));
    Ok((0..connections)
        .map(|index| PgStore {
            run: Rc::clone(&run),
            index,
            custom: Rc::clone(&custom),
            ledger: effect,
            out_of_order: config.out_of_order,
            producer_schema: None,
            sql_events: Rc::clone(&sql_events),
            crash_model: config.crash_model,
            open: vec![None; schemas.len()],
            aborted: false,
            now: 0,
        })
        .collect())
}

/// Builds the scenario's databases on the control connection: the main one's schema and
/// setup in `run`, then each named database's in a schema of its own; the control
/// connection reads `run` again after.
fn build(run: &RunDb, custom: &CustomSchema) -> Result<(), String> {
    let w = &run.worker;
    for (i, sql) in custom.schema.iter().chain(&custom.setup).enumerate() {
        w.control_batch(sql)
            .map_err(|e| format!("building the schema, statement {i}: {e}"))?;
    }
    for d in &custom.databases {
        let name = &d.name;
        let create = format!("CREATE SCHEMA \"{name}\"; {}", use_schema(name));
        w.control_batch(&create)
            .map_err(|e| format!("making database {name}: {e}"))?;
        for (i, sql) in d.schema.iter().chain(&d.setup).enumerate() {
            w.control_batch(sql)
                .map_err(|e| format!("building database {name}, statement {i}: {e}"))?;
        }
    }
    if !custom.databases.is_empty() {
        w.control_batch(&use_schema(RUN_SCHEMA))
            .map_err(|e| format!("reading the main database again: {e}"))?;
    }
    Ok(())
}

/// The schema database `db` of `custom` lives in (0: the main one, in [`RUN_SCHEMA`]).
fn schema_of(custom: &CustomSchema, db: u8) -> &str {
    match usize::from(db).checked_sub(1) {
        None => RUN_SCHEMA,
        Some(k) => &custom.databases[k].name,
    }
}

fn literal(v: SqlValue) -> Literal {
    match v {
        SqlValue::Integer(i) => Literal::Integer(i),
        SqlValue::Text(s) => Literal::Text(s),
    }
}

/// The tool's statement sent before a user statement: the virtual clock it reads.
pub(super) fn clock(now: Tick, began: Tick) -> String {
    format!(
        "SELECT pg_catalog.set_config('ds.clock', '{now}', false), \
         pg_catalog.set_config('ds.txn', '{began}', false);\n"
    )
}

/// PostgreSQL's refusal of a step's or a handler's statement: its message and SQLSTATE
/// (its English is [`message`]).
pub(super) fn refusal(e: &DbError) -> SqlRefusal {
    SqlRefusal::of(RefusalReason::Engine {
        engine: crate::model::Engine::Postgres,
        message: e.message.clone(),
        sqlstate: Some(e.code.clone()).filter(|c| !c.is_empty()),
        quoted: false,
    })
}

/// A statement naming a parameter nothing gives a value for.
pub(super) fn unbound(n: lexer::NotBound) -> SqlRefusal {
    SqlRefusal::of(RefusalReason::Unbound { name: n.0 })
}

/// PostgreSQL's message with its SQLSTATE, as a failed step reports it.
pub(super) fn message(e: &DbError) -> String {
    match e.code.as_str() {
        "" => e.message.clone(),
        code => format!("{} (SQLSTATE {code})", e.message),
    }
}

impl PgStore {
    /// The run's session of this actor's connection to database `db` (0: the main one).
    pub(super) fn session(&self, db: u8) -> usize {
        self.index * self.open.len() + usize::from(db)
    }

    /// How many databases the actor has a connection to (the main one, then the named).
    pub(super) fn databases(&self) -> usize {
        self.open.len()
    }

    /// When the transaction open on database `db` began, if one is.
    pub(super) fn began(&self, db: u8) -> Option<Tick> {
        self.open[usize::from(db)]
    }

    /// Hands this actor's connections (one per database) to another process from their
    /// next statement on, through a link `link` makes for each (see [`crate::store::pg::link`]).
    pub fn link(&mut self, link: impl Fn() -> Box<dyn crate::store::pg::link::Link>) {
        for db in 0..self.databases() as u8 {
            let session = self.session(db);
            self.run.borrow_mut().link(session, link());
        }
    }

    /// How `apply_effect` updates the balances (on the built-in ledger).
    pub(super) fn effect(&self) -> EffectMode {
        self.ledger.unwrap_or_default()
    }

    /// Sends one statement, already bound, on this actor's backend, or asks again for the
    /// one in flight under `key`.
    pub(super) fn run_statement(&mut self, key: &str, sql: &str) -> Exec {
        let main = self.session(0);
        self.run.borrow_mut().execute(main, key, sql, 0)
    }

    /// The rows the tool's own query `sql` gives on the control connection (what is
    /// committed); its failure is a bug of ours.
    pub(super) fn control_rows(&self, sql: &str) -> Vec<Vec<Option<String>>> {
        let run = self.run.borrow();
        run.worker
            .control_statement(sql)
            .map(|r| r.rows)
            .unwrap_or_else(|e| panic!("{sql} on the control connection: {}", e.message))
    }

    /// The first column of the first row of the tool's own query `sql`, read on the control
    /// connection ([`crate::store::pg::session::Worker::control_value`]).
    pub(super) fn committed_value(&self, sql: &str) -> Option<String> {
        let run = self.run.borrow();
        run.worker
            .control_value(sql)
            .unwrap_or_else(|e| panic!("{sql} on the control connection: {}", e.message))
    }

    /// `BEGIN`, `COMMIT` or `ROLLBACK` on database `db`.
    fn control(&mut self, db: u8, sql: &'static str) -> Exec {
        let session = self.session(db);
        self.run.borrow_mut().execute(session, sql, sql, 0)
    }

    fn transaction(&mut self, db: u8, sql: &'static str, now: Tick) -> DbOutcome {
        let answer = self.control(db, sql);
        let aborted =
            db == 0 && !matches!(answer, Exec::Blocked) && std::mem::take(&mut self.aborted);
        let open = &mut self.open[usize::from(db)];
        match (sql, answer) {
            (_, Exec::Blocked) => DbOutcome::Blocked { done: 0 },
            ("BEGIN", Exec::Answered(Ok(_))) => {
                *open = Some(now);
                DbOutcome::Begun
            }
            // PostgreSQL answers a COMMIT of an aborted transaction with ROLLBACK.
            ("COMMIT", Exec::Answered(Ok(_))) if aborted => {
                *open = None;
                DbOutcome::RolledBack
            }
            ("COMMIT", Exec::Answered(Ok(_))) => {
                *open = None;
                DbOutcome::Committed
            }
            // A serialization failure or a deferred constraint at COMMIT: PostgreSQL rolled
            // the transaction back; the consumer's ROLLBACK that follows finds none.
            ("COMMIT", Exec::Answered(Err(e))) => {
                *open = None;
                match e.code.as_str() {
                    "40001" => DbOutcome::SerializationFailure,
                    _ => DbOutcome::CommitRefused,
                }
            }
            (_, Exec::Answered(_)) => {
                *open = None;
                DbOutcome::RolledBack
            }
        }
    }

    /// The consumer's `ROLLBACK` with no database named: every transaction it has open
    /// rolled back (the main database's `ROLLBACK` sent when none is, as after a `COMMIT`
    /// PostgreSQL refused).
    fn rollback_every(&mut self, now: Tick) -> DbOutcome {
        let open: Vec<u8> = (0..self.open.len() as u8)
            .filter(|db| self.open[usize::from(*db)].is_some())
            .collect();
        if open.is_empty() {
            return self.transaction(0, "ROLLBACK", now);
        }
        for db in open {
            self.transaction(db, "ROLLBACK", now);
        }
        DbOutcome::RolledBack
    }

    /// The first column of the first row of check query `sql` for event `e`, read on the
    /// committed database `db` at the latest virtual time.
    fn check_value(&self, db: u8, sql: &str, e: &SqlEvent) -> Result<Option<String>, SqlFailure> {
        let bound = lexer::bind(sql, &|name| e.field(name).map(literal))
            .map_err(|n| SqlFailure::of(unbound(n)))?;
        let run = self.run.borrow();
        // A named database's check reads its schema; the control connection reads the main
        // database again after (the tool's own reads name its tables unqualified).
        let (enter, skip) = match db {
            0 => (String::new(), 1),
            _ => (use_schema(schema_of(&self.custom, db)), 2),
        };
        let text = format!("{enter}{}{bound}", clock(self.now, self.now));
        let c = std::sync::Arc::clone(&run.worker.control);
        let ran = (run.worker.rt)
            .block_on(async move { crate::store::pg::wire::simple(&c, &text, skip).await });
        if db != 0 {
            (run.worker.control_batch(&use_schema(RUN_SCHEMA)))
                .unwrap_or_else(|e| panic!("reading the main database again: {e}"));
        }
        // A check's failure gives PostgreSQL's message without its SQLSTATE.
        let ran = ran.map_err(|e| {
            SqlFailure::of(refusal(&DbError {
                code: String::new(),
                ..e
            }))
        })?;
        Ok(ran
            .rows
            .into_iter()
            .next()
            .and_then(|r| r.into_iter().next().flatten()))
    }

    /// What `check.effects_per_event` counts for `e`, or what it gave that is not a number.
    fn effects_of(&self, e: &SqlEvent) -> Result<i64, CheckValue> {
        let db = self.custom.effects_db;
        match self.check_value(db, &self.custom.effects_per_event, e) {
            Ok(Some(v)) => v
                .parse::<i64>()
                .map_err(|_| CheckValue::Read(format!("'{v}'"))),
            Ok(None) => Err(CheckValue::Read("NULL".into())),
            Err(f) => Err(CheckValue::Failed(f)),
        }
    }

    /// Every table of every schema and its committed row count: a table of the main
    /// database by its name, any other as `schema.table` (a named database's as
    /// `name.table`, as on SQLite).
    fn table_rows(&self) -> std::collections::BTreeMap<String, i64> {
        let run = self.run.borrow();
        let names = run
            .worker
            .control_statement(&format!(
                "SELECT CASE WHEN table_schema = '{run}' THEN pg_catalog.quote_ident(table_name) \
                 ELSE pg_catalog.quote_ident(table_schema) || '.' || \
                 pg_catalog.quote_ident(table_name) END, pg_catalog.quote_ident(table_schema) \
                 || '.' || pg_catalog.quote_ident(table_name) FROM information_schema.tables \
                 WHERE table_schema NOT IN ('pg_catalog', 'information_schema', '{det}') AND \
                 table_type = 'BASE TABLE' ORDER BY 1",
                run = crate::store::pg::session::RUN_SCHEMA,
                det = crate::store::pg::session::DET_SCHEMA,
            ))
            .map(|r| r.rows)
            .unwrap_or_else(|e| panic!("the list of tables: {}", e.message));
        let mut rows = std::collections::BTreeMap::new();
        for row in names {
            let [Some(name), Some(qualified)] = &row[..] else {
                panic!("a table's name is never NULL")
            };
            let sql = format!("SELECT count(*) FROM {qualified}");
            let n =
                (run.worker.control_value(&sql)).unwrap_or_else(|e| panic!("{sql}: {}", e.message));
            rows.insert(name.clone(), n.and_then(|n| n.parse().ok()).unwrap_or(0));
        }
        rows
    }
}

impl ConsumerDb for PgStore {
    fn execute(&mut self, op: StoreOp<'_>, now: Tick) -> DbOutcome {
        self.now = now;
        match op {
            StoreOp::Begin => self.transaction(0, "BEGIN", now),
            StoreOp::BeginOn(db) => self.transaction(db, "BEGIN", now),
            StoreOp::Commit => self.transaction(0, "COMMIT", now),
            StoreOp::CommitOn(db) => self.transaction(db, "COMMIT", now),
            StoreOp::Rollback => self.rollback_every(now),
            StoreOp::RollbackOn(db) => self.transaction(db, "ROLLBACK", now),
            other if self.ledger.is_some() => self.execute_ledger(other, now),
            other => panic!(
                "{other:?} on PostgreSQL with the scenario's own schema: only the built-in \
                 ledger has it"
            ),
        }
    }

    fn execute_sql(
        &mut self,
        step: &SqlStep,
        b: &SqlBinding<'_>,
        done: u8,
    ) -> Result<SqlRan, SqlFailure> {
        self.now = b.now;
        let began = self.open[usize::from(step.db)].unwrap_or(b.now);
        let session = self.session(step.db);
        let last = step.statements.len() - 1;
        for (i, sql) in step.statements.iter().enumerate().skip(usize::from(done)) {
            let bound = lexer::bind(sql, &|name| b.value(name).map(handler::literal))
                .map_err(|n| SqlFailure::of(unbound(n)))?;
            let text = format!("{}{bound}", clock(b.now, began));
            let key = format!("{}#{i}", step.name);
            let keep = step.into.is_some() && i == last;
            let mut run = self.run.borrow_mut();
            let exec = match keep {
                true => run.execute_typed(session, &key, &text, &bound),
                false => run.execute(session, &key, &text, 1),
            };
            drop(run);
            let answer = match exec {
                Exec::Blocked => return Ok(DbOutcome::Blocked { done: i as u8 }.into()),
                Exec::Answered(answer) => answer,
            };
            let ran = match answer {
                Err(e) => {
                    // An error in a transaction aborts it: if a step's handler catches the
                    // error, the transaction's COMMIT rolls it back.
                    if step.db == 0 && self.open[0].is_some() {
                        self.aborted = true;
                    }
                    if step.duplicate_if == Some(DuplicateIf::UniqueViolation)
                        && e.is_unique_violation()
                    {
                        return Ok(DbOutcome::Duplicate.into());
                    }
                    return Err(SqlFailure::of(refusal(&e)));
                }
                Ok(ran) => ran,
            };
            match step.duplicate_if {
                Some(DuplicateIf::Row) if !ran.rows.is_empty() => {
                    return Ok(DbOutcome::RowFound.into())
                }
                Some(DuplicateIf::NoChange) if ran.changed == 0 => {
                    return Ok(DbOutcome::NoChange.into())
                }
                _ if keep => return Ok(kept(ran)),
                _ => {}
            }
        }
        Ok(DbOutcome::Ran.into())
    }

    fn execute_handler_sql(
        &mut self,
        sql: &str,
        value: &dyn Fn(&str) -> Option<HandlerValue>,
        row: bool,
        now: Tick,
    ) -> Result<CallResult, DbOutcome> {
        self.handler_statement(sql, value, row, now)
    }

    fn in_transaction(&self) -> bool {
        self.open.iter().any(Option::is_some)
    }

    fn open_databases(&self) -> Vec<u8> {
        (0..self.open.len() as u8)
            .filter(|db| self.open[usize::from(*db)].is_some())
            .collect()
    }

    fn drop_open_transaction(&mut self) -> bool {
        self.aborted = false;
        let mut was = false;
        for db in 0..self.open.len() as u8 {
            let open = self.open[usize::from(db)].take().is_some();
            if open && self.crash_model == CrashModel::KeepUncommitted {
                // The wrong model crosscheck must catch: the crash commits what was open.
                let _ = self.control(db, "COMMIT");
            }
            let session = self.session(db);
            self.run.borrow_mut().terminate(session);
            was |= open;
        }
        was
    }

    fn event_rows(&mut self, event_id: &str) -> (u32, u32) {
        if self.ledger.is_some() {
            return self.ledger_event_rows(event_id);
        }
        let events = Rc::clone(&self.sql_events);
        let count = (events.iter())
            .filter(|_| !self.custom.effects_per_event.is_empty())
            .find(|e| e.event_id == event_id)
            .and_then(|e| self.effects_of(e).ok())
            .map_or(0, |n| u32::try_from(n.max(0)).unwrap_or(u32::MAX));
        (count, 0)
    }

    fn committed_state(&mut self) -> CommittedState {
        if self.ledger.is_some() {
            return self.ledger_state();
        }
        let mut state = CommittedState {
            custom: true,
            ..CommittedState::default()
        };
        state.tables = self.table_rows();
        let events = Rc::clone(&self.sql_events);
        // An effect that is an external call has no query: the checker counts the calls.
        let counted = !self.custom.effects_per_event.is_empty();
        for e in events.iter().filter(|_| counted) {
            let count = match self.effects_of(e) {
                Ok(n) if n >= 0 => n,
                got => {
                    let got = match got {
                        Ok(n) => CheckValue::Read(n.to_string()),
                        Err(v) => v,
                    };
                    state.invariants.push(InvariantResult {
                        sql: self.custom.effects_per_event.clone(),
                        holds: false,
                        value: CheckValue::NotACount {
                            event_id: e.event_id.clone(),
                            got: Box::new(got),
                        },
                    });
                    0
                }
            };
            state.effects.insert(e.event_id.clone(), count);
        }
        let none = SqlEvent::default();
        for (i, sql) in self.custom.invariants.iter().enumerate() {
            let db = self.custom.invariant_db(i);
            let (holds, value) = match self.check_value(db, sql, &none) {
                Ok(Some(v)) => {
                    let holds = v == "t" || v.parse::<i64>().is_ok_and(|n| n != 0);
                    (holds, CheckValue::Read(v))
                }
                Ok(None) => (false, CheckValue::Read("NULL".into())),
                Err(f) => (false, CheckValue::Failed(f)),
            };
            state.invariants.push(InvariantResult {
                sql: sql.clone(),
                holds,
                value,
            });
        }
        state
    }

    fn sql_vm_steps(&self) -> u64 {
        0
    }

    fn local(&self) -> Option<&Store> {
        None
    }

    fn fingerprint_server(
        &self,
        whole: bool,
        random: bool,
        h: &mut crate::sim::StateHasher,
    ) -> bool {
        PgStore::fingerprint_server(self, whole, random, h)
    }

    fn local_mut(&mut self) -> Option<&mut Store> {
        None
    }
}

/// The answer of a step's last statement with `into`: its first row, typed, by column.
fn kept(ran: crate::store::pg::session::Ran) -> SqlRan {
    let types = ran.types;
    let row = ran.rows.into_iter().next().map(|r| {
        let values = handler::typed(r, &types);
        ran.names.into_iter().zip(values).collect()
    });
    SqlRan {
        outcome: DbOutcome::Ran,
        row,
    }
}
