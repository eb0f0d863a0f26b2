//! The connections of a run on PostgreSQL and the one rule that keeps them deterministic:
//! **after every statement the server is quiescent** — each statement in flight has either
//! answered or is waiting for a lock held by another of the run's transactions, as
//! PostgreSQL itself says (`pg_isolation_test_session_is_blocked`, asked from a control
//! connection, the way its isolation tester asks). Nothing is decided by a timer.
//!
//! A thread's [`Worker`] holds a current-thread tokio runtime (its tasks run only while
//! the thread waits on them: no free thread), the control connection and the scratch
//! database the thread's runs use, each run in a fresh schema `run`. A [`RunDb`] is one
//! run's connections: one backend per actor, a statement sent without waiting for its
//! answer, then [`RunDb::settle`]d.
//!
//! A deadlock is resolved by the tool ([`super::settle`]), not by PostgreSQL's detector,
//! which fires on a timer (`deadlock_timeout`): when the run's blocked statements wait on
//! each other in a cycle, the one that began waiting first is cancelled — the transaction
//! PostgreSQL's detector aborts when every session has the same `deadlock_timeout` — and
//! its answer is the deadlock error (40P01). When several statements wait, they are
//! released one at a time ([`super::park`]): PostgreSQL wakes them all at once, and they
//! would race.

use super::budget::MAX_IDLE;
pub use super::budget::{clients_per_thread, max_threads, CLIENT_BUDGET};
pub(super) use super::counts::count;
pub use super::counts::{counts, Counts};
use super::link::{Link, LinkTarget};
use super::server;
use super::wire::{answer, blocking_admin, connect, db_error, runtime, simple, Target};
pub use super::wire::{
    empty_database, search_path, use_schema, Answer, DbError, Ran, DET_SCHEMA, RUN_SCHEMA,
};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use tokio::task::JoinHandle;
use tokio_postgres::{Client, SimpleQueryMessage};

/// The savepoint a statement that may be parked is sent after (see [`super::park`]).
pub(super) const PARK_SAVEPOINT: &str = "SAVEPOINT ds_park";

/// What undoes a parked statement inside a transaction: back to [`PARK_SAVEPOINT`], written
/// beside it so that the two name the same savepoint.
pub(super) const UNDO_PARKED: &str = "ROLLBACK TO SAVEPOINT ds_park";

/// A thread's link to the server: its runtime, its scratch database and its control
/// connection.
pub struct Worker {
    pub rt: tokio::runtime::Runtime,
    pub target: Target,
    pub dbname: String,
    pub control: Arc<Client>,
    /// Connections a finished run left healthy (no transaction, nothing in flight), with
    /// their backends' pids: the next run resets and reuses them instead of starting a
    /// backend per consumer.
    idle: RefCell<Vec<(Arc<Client>, i32)>>,
    /// The built-in ledger's tables the `run` schema holds from the last run, by their
    /// definition: the next run of the same ledger empties them (`TRUNCATE`) instead of
    /// building the schema again, which took most of a small run's time. `None` after
    /// anything else was built there (a scenario's own schema may change in a run: a step
    /// can drop a trigger, so it is always built afresh).
    pub ledger_built: RefCell<Option<String>>,
    /// Resets of the ledger since its tables were last vacuumed.
    pub ledger_resets: std::cell::Cell<u32>,
}

thread_local! {
    static WORKER: RefCell<Option<Rc<Worker>>> = const { RefCell::new(None) };
}

/// This thread's worker, made on first use (the server started, a scratch database made).
pub fn worker() -> Result<Rc<Worker>, String> {
    if let Some(w) = WORKER.with(|w| w.borrow().clone()) {
        return Ok(w);
    }
    let w = Rc::new(Worker::new()?);
    WORKER.with(|slot| *slot.borrow_mut() = Some(Rc::clone(&w)));
    Ok(w)
}

/// The settings of every connection of a run: its schema searched before the
/// deterministic functions, which are searched before `pg_catalog`; no timer that could
/// decide anything; the clock in UTC.
fn run_options(isolation: &str, rng: u64, schema: &str) -> Vec<(&'static str, String)> {
    vec![
        ("search_path", search_path(schema)),
        ("default_transaction_isolation", isolation.to_string()),
        ("statement_timeout", "0".into()),
        ("lock_timeout", "0".into()),
        ("idle_in_transaction_session_timeout", "0".into()),
        ("TimeZone", "UTC".into()),
        ("DateStyle", "ISO".into()),
        ("extra_float_digits", "1".into()),
        ("ds.rng", rng.to_string()),
        ("ds.clock", "0".into()),
        ("ds.txn", "0".into()),
    ]
}

impl Worker {
    fn new() -> Result<Worker, String> {
        let target = server::target()?;
        let rt = runtime()?;
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dbname = format!("{}{}_{n}", server::SCRATCH_PREFIX, std::process::id());
        let admin = target.admin_database();
        let create = format!("CREATE DATABASE \"{dbname}\" TEMPLATE template0 STRATEGY FILE_COPY");
        blocking_admin(&target, &admin, |s| s.push(create))?;
        server::remember_scratch(&dbname);
        let control = rt.block_on(connect(
            &rt,
            &target,
            &dbname,
            &run_options("read committed", 1, RUN_SCHEMA),
        ))?;
        let w = Worker {
            rt,
            target,
            dbname,
            control: Arc::new(control),
            idle: RefCell::new(Vec::new()),
            ledger_built: RefCell::new(None),
            ledger_resets: std::cell::Cell::new(0),
        };
        w.control_batch(super::det::FUNCTIONS)
            .map_err(|e| format!("cannot install the deterministic functions: {e}"))?;
        Ok(w)
    }

    /// Runs `sql` (one or more statements) on the control connection.
    pub fn control_batch(&self, sql: &str) -> Result<Vec<SimpleQueryMessage>, String> {
        let c = Arc::clone(&self.control);
        self.rt
            .block_on(async move { c.simple_query(sql).await })
            .map_err(|e| db_error(&e).message)
    }

    /// Runs one statement on the control connection: its answer.
    pub fn control_statement(&self, sql: &str) -> Answer {
        let c = Arc::clone(&self.control);
        let r = self.rt.block_on(async move { c.simple_query(sql).await });
        answer(r, 0)
    }

    /// A new connection to this worker's database with the run's settings, reading
    /// database `schema`.
    fn session(&self, isolation: &str, rng: u64, schema: &str) -> Result<Client, String> {
        self.rt.block_on(connect(
            &self.rt,
            &self.target,
            &self.dbname,
            &run_options(isolation, rng, schema),
        ))
    }

    /// The first column of the first row `sql` gives on the control connection.
    pub fn control_value(&self, sql: &str) -> Result<Option<String>, DbError> {
        let ran = self.control_statement(sql)?;
        Ok(ran
            .rows
            .into_iter()
            .next()
            .and_then(|r| r.into_iter().next().flatten()))
    }
}

/// A statement sent and not yet answered, or answered and not yet handed to its actor.
pub(super) enum Pending {
    Running {
        task: JoinHandle<Answer>,
        /// What was asked (step and statement), so that the actor's next turn asks for
        /// the same.
        key: String,
        /// What was sent, to send it again if it is parked (see [`super::park`]).
        request: Request,
        /// Whether it can be parked: it was sent after a savepoint of its own, or outside a
        /// transaction.
        parkable: bool,
        /// The order in which the run's statements began to wait (for the deadlock rule).
        waiting_since: Option<u64>,
        /// The tool cancelled it to resolve a deadlock.
        deadlock: bool,
    },
    Answered {
        key: String,
        answer: Answer,
    },
}

/// One actor's connection to one of the run's databases.
pub(super) struct Session {
    /// The schema that is its database: [`RUN_SCHEMA`], or a named database's.
    schema: String,
    pub(super) client: Option<Arc<Client>>,
    pub(super) pid: i32,
    pub(super) pending: Option<Pending>,
    /// How many times it connected (a crash ends a connection; the next one draws its
    /// random numbers from a stream of its own).
    pub(super) incarnation: u64,
    /// With a link, the connection is another process's (see [`super::link`]), and
    /// `client` stays `None`.
    pub(super) link: Option<Box<dyn Link>>,
    /// Whether the link's process holds a connection now.
    held: bool,
    /// Whether a transaction is open on it (its `BEGIN` answered, no `COMMIT` or
    /// `ROLLBACK` since).
    pub(super) in_transaction: bool,
    /// A statement sent after a savepoint failed: its transaction is to be rolled back
    /// now, as PostgreSQL aborts a transaction whose statement fails (see
    /// [`super::park`]).
    pub(super) abort_pending: bool,
    /// Its transaction was so rolled back: until the actor ends it, its statements fail
    /// as in an aborted transaction.
    pub(super) doomed: bool,
}

/// A statement as the run sends it: the tool's own statements (`skip` of them) then the
/// actor's; with `typed`, the actor's statement prepared first for its columns' types.
#[derive(Clone, Debug)]
pub(super) struct Request {
    pub(super) key: String,
    pub(super) sql: String,
    pub(super) skip: usize,
    pub(super) typed: Option<String>,
}

/// What [`RunDb::execute`] came to.
#[derive(Debug)]
pub enum Exec {
    Answered(Answer),
    /// Waiting for a lock another transaction of the run holds.
    Blocked,
}

/// One run's connections, shared by its actors' stores: actor `a`'s to database `d` (0,
/// the main one, then the named ones) is session `a * databases + d`.
pub struct RunDb {
    pub worker: Rc<Worker>,
    isolation: String,
    seed: u64,
    pub(super) sessions: Vec<Session>,
    /// A counter of statements that began to wait.
    pub(super) waits: u64,
}

impl RunDb {
    /// A run's schema, and `connections` connections to each database of `schemas` (the
    /// main one's first), to open on first use: with `fresh`, an empty database (the
    /// caller builds the scenario's schemas in it on the control connection); without,
    /// the last run's, which the caller empties.
    pub fn new(
        isolation: &str,
        seed: u64,
        connections: usize,
        fresh: bool,
        schemas: &[String],
    ) -> Result<RunDb, String> {
        let worker = worker()?;
        let drop = if fresh {
            *worker.ledger_built.borrow_mut() = None;
            empty_database()
        } else {
            String::new()
        };
        // The control connection reads the main database again (a named database's
        // schema, where the last run or check left it, may be gone).
        let reset = format!(
            "{drop} SELECT set_config('ds.clock', '0', false), set_config('ds.txn', '0', false), \
                 set_config('ds.rng', '1', false); {}",
            use_schema(RUN_SCHEMA)
        );
        worker.control_batch(&reset)?;
        let sessions = (0..connections * schemas.len())
            .map(|i| Session {
                schema: schemas[i % schemas.len()].clone(),
                client: None,
                pid: 0,
                pending: None,
                incarnation: 0,
                link: None,
                held: false,
                in_transaction: false,
                abort_pending: false,
                doomed: false,
            })
            .collect();
        Ok(RunDb {
            worker,
            isolation: isolation.to_string(),
            seed,
            sessions,
            waits: 0,
        })
    }

    /// The connection of actor `i`, opened if it has none (at first use, or after a
    /// crash).
    fn client(&mut self, i: usize) -> Arc<Client> {
        if let Some(c) = &self.sessions[i].client {
            return Arc::clone(c);
        }
        let s = &mut self.sessions[i];
        let rng = super::det::rng_seed(self.seed, i as u64, s.incarnation);
        s.incarnation += 1;
        let schema = s.schema.clone();
        if let Some((client, pid)) = self.reused(rng, &schema) {
            count(|c| c.reused += 1);
            let s = &mut self.sessions[i];
            s.pid = pid;
            s.client = Some(Arc::clone(&client));
            return client;
        }
        count(|c| c.connections += 1);
        let client = Arc::new(
            self.worker
                .session(&self.isolation, rng, &schema)
                .expect("a connection to the run's database"),
        );
        let c = Arc::clone(&client);
        let pid = self
            .worker
            .rt
            .block_on(async move { c.simple_query("SELECT pg_backend_pid()").await });
        let pid = match answer(pid, 0) {
            Ok(r) => r.rows[0][0].as_deref().unwrap_or("0").parse().unwrap_or(0),
            Err(e) => panic!("a new connection answers: {}", e.message),
        };
        let s = &mut self.sessions[i];
        s.pid = pid;
        s.client = Some(Arc::clone(&client));
        client
    }

    /// An idle connection of an earlier run (reset when that run ended, see the `Drop` of
    /// `RunDb`), given this run's isolation level, random stream `rng` and database
    /// `schema`. `None` when none is idle or the setting fails.
    fn reused(&mut self, rng: u64, schema: &str) -> Option<(Arc<Client>, i32)> {
        let (client, pid) = self.worker.idle.borrow_mut().pop()?;
        let c = Arc::clone(&client);
        let set = format!(
            "SET default_transaction_isolation = '{}'; SELECT pg_catalog.set_config('ds.rng', \
             '{rng}', false), pg_catalog.set_config('ds.clock', '0', false), \
             pg_catalog.set_config('ds.txn', '0', false), pg_catalog.set_config('search_path', \
             '{}', false)",
            self.isolation,
            search_path(schema),
        );
        let reset = self
            .worker
            .rt
            .block_on(async move { c.simple_query(&set).await });
        reset.ok().map(|_| (client, pid))
    }

    /// Makes session `i` reach database `schema` instead, from its next connection on (a
    /// session is connected at its first statement).
    pub fn set_schema(&mut self, i: usize, schema: &str) {
        let s = &mut self.sessions[i];
        assert!(
            s.client.is_none() && s.link.is_none(),
            "set before first use"
        );
        s.schema = schema.to_string();
    }

    /// Hands actor `i`'s connection to another process, through `link`, from its next
    /// statement on.
    pub fn link(&mut self, i: usize, link: Box<dyn Link>) {
        self.sessions[i].link = Some(link);
    }

    /// Runs `sql` on actor `i`'s linked connection, which the link's process opens first
    /// if it holds none (at first use, or after a crash).
    fn execute_linked(&mut self, i: usize, sql: &str, skip: usize, typed: Option<&str>) -> Answer {
        if !self.sessions[i].held {
            let s = &mut self.sessions[i];
            let rng = super::det::rng_seed(self.seed, i as u64, s.incarnation);
            s.incarnation += 1;
            let to = LinkTarget {
                target: self.worker.target.clone(),
                dbname: self.worker.dbname.clone(),
                options: (run_options(&self.isolation, rng, &s.schema).into_iter())
                    .map(|(k, v)| (k.to_string(), v))
                    .collect(),
            };
            let link = s.link.as_mut().expect("a linked session");
            s.pid = link.open(&to).map_err(|message| DbError {
                code: String::new(),
                message,
            })?;
            s.held = true;
        }
        count(|c| c.statements += 1);
        let s = &mut self.sessions[i];
        s.link
            .as_mut()
            .expect("a linked session")
            .run(sql, skip, typed)
    }

    /// Sends `sql` on actor `i`'s connection (the tool's own statements first, `skip` of
    /// them), or, when a statement under `key` is already in flight, waits for that one;
    /// then settles the server.
    pub fn execute(&mut self, i: usize, key: &str, sql: &str, skip: usize) -> Exec {
        self.execute_with(i, key, sql, skip, None)
    }

    /// [`RunDb::execute`] for a statement whose answer is read as typed values (a Rust
    /// handler's): `statement` (the last of `sql`) is first prepared on the same
    /// connection, and the answer carries its columns' types. A connection held by another
    /// process answers without them.
    pub fn execute_typed(&mut self, i: usize, key: &str, sql: &str, statement: &str) -> Exec {
        self.execute_with(i, key, sql, 1, Some(statement.to_string()))
    }

    /// Sends `request` on actor `i`'s connection, without waiting for its answer: a
    /// statement inside a transaction while another statement waits, after a savepoint of
    /// its own, so that it can be parked; `waiting_since`: when a parked statement sent
    /// again began to wait.
    pub(super) fn send(&mut self, i: usize, request: Request, waiting_since: Option<u64>) {
        count(|c| c.statements += 1);
        // `BEGIN`, `COMMIT` and `ROLLBACK` never wait (and `ROLLBACK` must run in an aborted
        // transaction, where a savepoint fails).
        let control = matches!(request.key.as_str(), "BEGIN" | "COMMIT" | "ROLLBACK");
        let savepoint = !control && self.sessions[i].in_transaction && self.any_blocked();
        let client = self.client(i);
        let (sql, skip) = match savepoint {
            true => (
                format!("{PARK_SAVEPOINT};\n{}", request.sql),
                request.skip + 1,
            ),
            false => (request.sql.clone(), request.skip),
        };
        let typed = request.typed.clone();
        let _guard = self.worker.rt.enter();
        let task = tokio::spawn(async move {
            let types = match typed {
                Some(statement) => match client.prepare(&statement).await {
                    Ok(s) => s.columns().iter().map(|c| c.type_().oid()).collect(),
                    Err(e) => {
                        // As in `simple`: answered once the abort is done.
                        let _ = client.simple_query("").await;
                        return Err(db_error(&e));
                    }
                },
                None => Vec::new(),
            };
            let mut answer = simple(&client, &sql, skip).await;
            if let Ok(ran) = &mut answer {
                ran.types = types;
            }
            answer
        });
        let parkable = savepoint || !self.sessions[i].in_transaction;
        self.sessions[i].pending = Some(Pending::Running {
            task,
            key: request.key.clone(),
            request,
            parkable,
            waiting_since,
            deadlock: false,
        });
    }

    fn execute_with(
        &mut self,
        i: usize,
        key: &str,
        sql: &str,
        skip: usize,
        typed: Option<String>,
    ) -> Exec {
        if self.sessions[i].link.is_some() {
            return Exec::Answered(self.execute_linked(i, sql, skip, typed.as_deref()));
        }
        if self.sessions[i].doomed && self.sessions[i].pending.is_none() {
            return Exec::Answered(self.doomed_answer(i, key));
        }
        if self.sessions[i].pending.is_none() {
            let request = Request {
                key: key.to_string(),
                sql: sql.to_string(),
                skip,
                typed,
            };
            // Statements that wait now could race for what this one releases (a statement
            // inside a transaction releases nothing unless it fails: see `settle`).
            let releases = !self.sessions[i].in_transaction || key == "COMMIT" || key == "ROLLBACK";
            let parked = if releases {
                self.park_racers(i)
            } else {
                Vec::new()
            };
            self.send(i, request, None);
            self.settle();
            self.unpark(parked);
        }
        let pending_key = match &self.sessions[i].pending {
            Some(Pending::Running { key, .. } | Pending::Answered { key, .. }) => key.clone(),
            None => unreachable!("set above"),
        };
        assert_eq!(
            pending_key, key,
            "an actor asks again for the statement it waits on"
        );
        self.settle();
        match self.sessions[i].pending.take() {
            Some(Pending::Answered { answer, .. }) => {
                let s = &mut self.sessions[i];
                match key {
                    "BEGIN" => s.in_transaction |= answer.is_ok(),
                    "COMMIT" | "ROLLBACK" => s.in_transaction = false,
                    _ => {}
                }
                Exec::Answered(answer)
            }
            other => {
                self.sessions[i].pending = other;
                Exec::Blocked
            }
        }
    }

    /// Whether actor `i` has a statement waiting for a lock.
    pub fn blocked(&self, i: usize) -> bool {
        matches!(self.sessions[i].pending, Some(Pending::Running { .. }))
    }

    /// Actor `i`'s process died: its backend is terminated, so PostgreSQL rolls back what
    /// it had open, and the tool waits until the backend is gone (its locks with it).
    /// A linked connection's process is killed instead: PostgreSQL reads the end of its
    /// socket and rolls back as for any client that vanished.
    pub fn terminate(&mut self, i: usize) {
        // The statements that wait now could race for what the crash releases.
        let parked = self.park_racers(i);
        self.terminate_now(i);
        self.unpark(parked);
    }

    fn terminate_now(&mut self, i: usize) {
        let s = &mut self.sessions[i];
        s.in_transaction = false;
        s.abort_pending = false;
        s.doomed = false;
        let pid = s.pid;
        let client = if let Some(link) = &mut s.link {
            if !std::mem::take(&mut s.held) {
                return;
            }
            link.kill();
            None
        } else {
            let Some(client) = s.client.take() else {
                return;
            };
            s.pending = None;
            let _ = self
                .worker
                .control_statement(&format!("SELECT pg_catalog.pg_terminate_backend({pid})"));
            Some(client)
        };
        // Until the backend is gone, its locks are held and its transaction is open.
        let gone = format!("SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE pid = {pid}");
        while self.worker.control_value(&gone).ok().flatten().as_deref() != Some("0") {}
        drop(client);
        self.settle();
    }
}

impl Drop for RunDb {
    /// The connections left healthy go back to the worker for the next run, reset as a new
    /// one: `DISCARD ALL` (temporary tables, session settings back to the connection's own,
    /// plans, advisory locks, sequences' session state). It fails inside a transaction:
    /// such a connection is closed, so that no idle one holds a lock the next run's fresh
    /// schema would wait for.
    fn drop(&mut self) {
        for s in &mut self.sessions {
            let Some(client) = s.client.take() else {
                continue;
            };
            if s.pending.is_some() || self.worker.idle.borrow().len() >= MAX_IDLE {
                continue;
            }
            let c = Arc::clone(&client);
            let reset = self
                .worker
                .rt
                .block_on(async move { c.simple_query("DISCARD ALL").await });
            if reset.is_ok() {
                self.worker.idle.borrow_mut().push((client, s.pid));
            }
        }
    }
}
