//! The consumer's connection when it is real on PostgreSQL: [`PgChild`], a child process
//! (the binary's hidden `__consumer` mode) holding the connection to the run's database,
//! through which the run's [`crate::store::pg::PgStore`] sends consumer 0's statements.
//!
//! The parent's store builds every statement, as in the simulated run; the child only
//! holds the socket. A crash kills it with SIGKILL, mid-transaction or not: PostgreSQL
//! reads the end of the connection and rolls back what was open, as for any client that
//! vanished (the simulated run terminates the backend instead, with
//! `pg_terminate_backend`). The checker reads what PostgreSQL committed, on the parent's
//! control connection.

use super::*;
use crate::store::pg::link::{Link, LinkTarget};
use crate::store::pg::session::{Answer, DbError};
use std::cell::RefCell;
use std::rc::Rc;

/// The first failure of the process or its pipes, shared with the caller, who reports it:
/// the run it spoiled is never compared.
pub(super) type Failure = Rc<RefCell<Option<RealError>>>;

/// Consumer 0's connection, held by a child process.
pub(super) struct PgChild {
    exe: PathBuf,
    child: Option<ChildProcess>,
    failure: Failure,
}

impl PgChild {
    pub(super) fn new(exe: &Path, failure: Failure) -> PgChild {
        PgChild {
            exe: exe.to_path_buf(),
            child: None,
            failure,
        }
    }

    fn connect(&mut self, to: &LinkTarget) -> Result<i32, RealError> {
        let mut child = ChildProcess::start(&self.exe)?;
        child.send(&ToChild::Connect(to.clone()))?;
        match child.recv()? {
            FromChild::Connected { pid } => {
                self.child = Some(child);
                Ok(pid)
            }
            other => Err(RealError::Protocol(format!(
                "expected connected, got {other:?}"
            ))),
        }
    }

    fn exchange(&mut self, sql: &str, skip: usize) -> Result<Answer, RealError> {
        let child = (self.child.as_mut())
            .ok_or_else(|| RealError::Protocol("a statement with no process".into()))?;
        child.send(&ToChild::Statement {
            sql: sql.to_string(),
            skip,
        })?;
        match child.recv()? {
            FromChild::Ran { answer } => Ok(answer),
            other => Err(RealError::Protocol(format!("expected ran, got {other:?}"))),
        }
    }

    /// Keeps `e` if it is the first failure, and answers as a lost connection does.
    fn failed(&mut self, e: RealError) -> DbError {
        let message = e.to_string();
        self.failure.borrow_mut().get_or_insert(e);
        DbError {
            code: String::new(),
            message,
        }
    }
}

impl Link for PgChild {
    fn open(&mut self, to: &LinkTarget) -> Result<i32, String> {
        if let Some(e) = self.failure.borrow().as_ref() {
            return Err(e.to_string());
        }
        self.connect(to).map_err(|e| self.failed(e).message)
    }

    fn run(&mut self, sql: &str, skip: usize) -> Answer {
        if let Some(e) = self.failure.borrow().as_ref() {
            return Err(DbError {
                code: String::new(),
                message: e.to_string(),
            });
        }
        self.exchange(sql, skip)
            .unwrap_or_else(|e| Err(self.failed(e)))
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            if let Err(e) = child.kill() {
                self.failed(e);
            }
        }
    }
}

impl Drop for PgChild {
    /// The run is over: the process is told to close, and ends its connection.
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            if let Err(e) = child.close() {
                self.failure.borrow_mut().get_or_insert(e);
            }
        }
    }
}

/// Runs `s` (one consumer on PostgreSQL) with consumer 0's connection held by `exe
/// __consumer`: the run's result, or the first failure of its processes.
pub(super) fn real_on_postgres(s: &Scenario, exe: &Path) -> Result<RunResult, RealError> {
    let failure: Failure = Rc::default();
    let accounts = s.workload.accounts();
    let events = Rc::new(s.sql_events(&s.events()));
    let mut stores = crate::store::pg::open_run(&s.store, &accounts, s.seed, 1, events)
        .map_err(RealError::Postgres)?;
    let mut store = stores.pop().expect("one connection was opened");
    store.link(Box::new(PgChild::new(exe, Rc::clone(&failure))));
    let result = crate::world::run_on(s, Box::new(store));
    let failed = failure.borrow_mut().take();
    match failed {
        Some(e) => Err(e),
        None => Ok(result),
    }
}
