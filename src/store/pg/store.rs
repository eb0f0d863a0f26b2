//! A consumer's connection to PostgreSQL as the world's one executor sees it: the
//! [`ConsumerDb`] of a run on `store.engine: "postgres"`.
//!
//! Each statement of a SQL step is sent with the run's virtual time (the clock the
//! deterministic `now()` reads), and settled (see [`super::session`]): a statement that
//! waits for a lock is [`DbOutcome::Blocked`], the step half done; the actor's next turn
//! asks for the same statement and gets its answer once the lock holder ended. A crash
//! terminates the backend.

use super::lexer::{self, Literal};
use super::session::{DbError, Exec, RunDb};
use crate::model::handler::{Answer, Value as HandlerValue};
use crate::model::Account;
use crate::model::{
    CommittedState, DbOutcome, DuplicateIf, InvariantResult, SqlBinding, SqlEvent, SqlStep,
    SqlValue, Tick,
};
use crate::store::{ConsumerDb, CrashModel, CustomSchema, EffectMode, Store, StoreConfig, StoreOp};
use std::cell::RefCell;
use std::rc::Rc;

/// One actor's connection to the run's PostgreSQL database.
pub struct PgStore {
    pub(super) run: Rc<RefCell<RunDb>>,
    pub(super) index: usize,
    /// The scenario's own schema, or (for the built-in ledger) an empty one.
    custom: Rc<CustomSchema>,
    /// `Some` on the built-in ledger: how `apply_effect` updates the balances.
    pub(super) ledger: Option<EffectMode>,
    sql_events: Rc<Vec<SqlEvent>>,
    /// What a crash does to the open transaction (only crosscheck's test of itself keeps
    /// it).
    crash_model: CrashModel,
    /// Whether a transaction is open (BEGIN sent, no COMMIT or ROLLBACK since).
    open: bool,
    /// The virtual instant the open transaction began: `now()` inside it.
    began: Tick,
    now: Tick,
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
        .then(|| super::ledger::schema(config, accounts));
    let again = ledger.is_some() && *super::session::worker()?.ledger_built.borrow() == ledger;
    let run = RunDb::new(config.isolation.sql(), seed, connections, !again)?;
    let (custom, effect) = match (&config.custom, ledger) {
        (Some(custom), _) => {
            for (i, sql) in custom.schema.iter().chain(&custom.setup).enumerate() {
                run.worker
                    .control_batch(sql)
                    .map_err(|e| format!("building the schema, statement {i}: {e}"))?;
            }
            (Rc::new(custom.clone()), None)
        }
        (None, Some(ledger)) => {
            let build = if again {
                let resets = run.worker.ledger_resets.get() + 1;
                run.worker
                    .ledger_resets
                    .set(resets % super::ledger::VACUUM_EVERY);
                if resets == super::ledger::VACUUM_EVERY {
                    run.worker
                        .control_batch(super::ledger::VACUUM)
                        .map_err(|e| format!("vacuuming the ledger: {e}"))?;
                }
                super::ledger::reset(accounts)
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
            sql_events: Rc::clone(&sql_events),
            crash_model: config.crash_model,
            open: false,
            began: 0,
            now: 0,
        })
        .collect())
}

fn literal(v: SqlValue) -> Literal {
    match v {
        SqlValue::Integer(i) => Literal::Integer(i),
        SqlValue::Text(s) => Literal::Text(s),
    }
}

/// The tool's statement sent before a user statement: the virtual clock it reads.
fn clock(now: Tick, began: Tick) -> String {
    format!(
        "SELECT pg_catalog.set_config('ds.clock', '{now}', false), \
         pg_catalog.set_config('ds.txn', '{began}', false);\n"
    )
}

/// PostgreSQL's message with its SQLSTATE, as a failed step reports it.
pub(super) fn message(e: &DbError) -> String {
    match e.code.as_str() {
        "" => e.message.clone(),
        code => format!("{} (SQLSTATE {code})", e.message),
    }
}

impl PgStore {
    /// Hands this connection to another process from its next statement on (see
    /// [`super::link`]).
    pub fn link(&mut self, link: Box<dyn super::link::Link>) {
        self.run.borrow_mut().link(self.index, link);
    }

    /// How `apply_effect` updates the balances (on the built-in ledger).
    pub(super) fn effect(&self) -> EffectMode {
        self.ledger.unwrap_or_default()
    }

    /// Sends one statement, already bound, on this actor's backend, or asks again for the
    /// one in flight under `key`.
    pub(super) fn run_statement(&mut self, key: &str, sql: &str) -> Exec {
        self.run.borrow_mut().execute(self.index, key, sql, 0)
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
    /// connection ([`super::session::Worker::control_value`]).
    pub(super) fn committed_value(&self, sql: &str) -> Option<String> {
        let run = self.run.borrow();
        run.worker
            .control_value(sql)
            .unwrap_or_else(|e| panic!("{sql} on the control connection: {}", e.message))
    }

    /// `BEGIN`, `COMMIT` or `ROLLBACK`.
    fn control(&mut self, sql: &'static str) -> Exec {
        self.run.borrow_mut().execute(self.index, sql, sql, 0)
    }

    fn transaction(&mut self, sql: &'static str, now: Tick) -> DbOutcome {
        match (sql, self.control(sql)) {
            (_, Exec::Blocked) => DbOutcome::Blocked { done: 0 },
            ("BEGIN", Exec::Answered(Ok(_))) => {
                self.open = true;
                self.began = now;
                DbOutcome::Begun
            }
            ("COMMIT", Exec::Answered(Ok(_))) => {
                self.open = false;
                DbOutcome::Committed
            }
            // A serialization failure or a deferred constraint at COMMIT: PostgreSQL rolled
            // the transaction back; the consumer's ROLLBACK that follows finds none.
            ("COMMIT", Exec::Answered(Err(e))) => {
                self.open = false;
                match e.code.as_str() {
                    "40001" => DbOutcome::SerializationFailure,
                    _ => DbOutcome::CommitRefused,
                }
            }
            (_, Exec::Answered(_)) => {
                self.open = false;
                DbOutcome::RolledBack
            }
        }
    }

    /// The first column of the first row of check query `sql` for event `e`, read on the
    /// committed database at the latest virtual time.
    fn check_value(&self, sql: &str, e: &SqlEvent) -> Result<Option<String>, String> {
        let bound = lexer::bind(sql, &|name| e.field(name).map(literal))?;
        let run = self.run.borrow();
        let text = format!("{}{bound}", clock(self.now, self.now));
        let c = std::sync::Arc::clone(&run.worker.control);
        let r = run
            .worker
            .rt
            .block_on(async move { c.simple_query(&text).await });
        let mut rows = Vec::new();
        let mut completed = 0;
        for m in r.map_err(|e| {
            e.as_db_error()
                .map_or(e.to_string(), |d| d.message().to_string())
        })? {
            match m {
                tokio_postgres::SimpleQueryMessage::CommandComplete(_) => completed += 1,
                tokio_postgres::SimpleQueryMessage::Row(row) if completed >= 1 => {
                    rows.push(row.get(0).map(str::to_string))
                }
                _ => {}
            }
        }
        Ok(rows.into_iter().next().flatten())
    }

    fn effects_of(&self, e: &SqlEvent) -> Result<i64, String> {
        match self.check_value(&self.custom.effects_per_event, e)? {
            Some(v) => v.parse::<i64>().map_err(|_| format!("'{v}'")),
            None => Err("NULL".into()),
        }
    }

    fn table_rows(&self) -> std::collections::BTreeMap<String, i64> {
        let run = self.run.borrow();
        let names = run
            .worker
            .control_statement(&format!(
                "SELECT CASE WHEN table_schema = '{run}' THEN pg_catalog.quote_ident(table_name) \
                 ELSE pg_catalog.quote_ident(table_schema) || '.' || \
                 pg_catalog.quote_ident(table_name) END FROM information_schema.tables WHERE \
                 table_schema NOT IN ('pg_catalog', 'information_schema', '{det}') AND \
                 table_type = 'BASE TABLE' ORDER BY 1",
                run = super::session::RUN_SCHEMA,
                det = super::session::DET_SCHEMA,
            ))
            .map(|r| r.rows)
            .unwrap_or_default();
        let mut rows = std::collections::BTreeMap::new();
        for name in names
            .into_iter()
            .filter_map(|r| r.into_iter().next().flatten())
        {
            let sql = format!("SELECT count(*) FROM {name}");
            let n = run.worker.control_value(&sql).ok().flatten();
            rows.insert(name, n.and_then(|n| n.parse().ok()).unwrap_or(0));
        }
        rows
    }
}

impl ConsumerDb for PgStore {
    fn execute(&mut self, op: StoreOp<'_>, now: Tick) -> DbOutcome {
        self.now = now;
        match op {
            StoreOp::Begin | StoreOp::BeginOn(0) => self.transaction("BEGIN", now),
            StoreOp::Commit | StoreOp::CommitOn(0) => self.transaction("COMMIT", now),
            StoreOp::Rollback | StoreOp::RollbackOn(0) => self.transaction("ROLLBACK", now),
            other if self.ledger.is_some() => self.execute_ledger(other, now),
            other => panic!(
                "{other:?} on PostgreSQL with the scenario's own schema: named databases are \
                 refused when the scenario loads"
            ),
        }
    }

    fn execute_sql(
        &mut self,
        step: &SqlStep,
        b: &SqlBinding<'_>,
        done: u8,
    ) -> Result<DbOutcome, String> {
        self.now = b.now;
        let began = if self.open { self.began } else { b.now };
        for (i, sql) in step.statements.iter().enumerate().skip(usize::from(done)) {
            let bound = lexer::bind(sql, &|name| b.get(name).map(literal))?;
            let text = format!("{}{bound}", clock(b.now, began));
            let key = format!("{}#{i}", step.name);
            let answer = match self.run.borrow_mut().execute(self.index, &key, &text, 1) {
                Exec::Blocked => return Ok(DbOutcome::Blocked { done: i as u8 }),
                Exec::Answered(answer) => answer,
            };
            match answer {
                Err(e)
                    if step.duplicate_if == Some(DuplicateIf::UniqueViolation)
                        && e.is_unique_violation() =>
                {
                    return Ok(DbOutcome::Duplicate)
                }
                Err(e) => return Err(message(&e)),
                Ok(ran) => match step.duplicate_if {
                    Some(DuplicateIf::Row) if !ran.rows.is_empty() => {
                        return Ok(DbOutcome::RowFound)
                    }
                    Some(DuplicateIf::NoChange) if ran.changed == 0 => {
                        return Ok(DbOutcome::NoChange)
                    }
                    _ => {}
                },
            }
        }
        Ok(DbOutcome::Ran)
    }

    fn execute_handler_sql(
        &mut self,
        _sql: &str,
        _value: &dyn Fn(&str) -> Option<HandlerValue>,
        _row: bool,
        _now: Tick,
    ) -> Result<Answer, DbOutcome> {
        panic!("a Rust handler on PostgreSQL is refused before it runs")
    }

    fn in_transaction(&self) -> bool {
        self.open
    }

    fn drop_open_transaction(&mut self) -> bool {
        let was = std::mem::take(&mut self.open);
        if was && self.crash_model == CrashModel::KeepUncommitted {
            // The wrong model crosscheck must catch: the crash commits what was open.
            let _ = self.control("COMMIT");
        }
        self.run.borrow_mut().terminate(self.index);
        was
    }

    fn event_rows(&mut self, event_id: &str) -> (u32, u32) {
        if self.ledger.is_some() {
            return self.ledger_event_rows(event_id);
        }
        let events = Rc::clone(&self.sql_events);
        let count = events
            .iter()
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
        for e in events.iter() {
            let count = match self.effects_of(e) {
                Ok(n) if n >= 0 => n,
                got => {
                    let value = match got {
                        Ok(n) => n.to_string(),
                        Err(v) => v,
                    };
                    state.invariants.push(InvariantResult {
                        sql: self.custom.effects_per_event.clone(),
                        holds: false,
                        value: format!("{value} for {}, not a count", e.event_id),
                    });
                    0
                }
            };
            state.effects.insert(e.event_id.clone(), count);
        }
        let none = SqlEvent::default();
        for sql in &self.custom.invariants {
            let (holds, value) = match self.check_value(sql, &none) {
                Ok(Some(v)) => (v == "t" || v.parse::<i64>().is_ok_and(|n| n != 0), v),
                Ok(None) => (false, "NULL".into()),
                Err(e) => (false, e),
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
