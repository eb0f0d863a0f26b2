//! The consumer's connections when they are real on PostgreSQL: a child [`Process`] (the
//! binary's hidden `__consumer` mode) holding its connection to each of the run's
//! databases ([`PgChild`] each), through which the run's [`crate::store::pg::PgStore`]
//! sends consumer 0's statements.
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

/// The child process holding consumer 0's connections (one per database of the
/// scenario's), shared by the run's sessions of that consumer through a [`PgChild`] each.
pub(super) struct Process {
    exe: PathBuf,
    child: Option<ChildProcess>,
    /// How many connections the running process holds: the next one's slot.
    connections: usize,
    failure: Failure,
}

impl Process {
    pub(super) fn new(exe: &Path, failure: Failure) -> Rc<RefCell<Process>> {
        Rc::new(RefCell::new(Process {
            exe: exe.to_path_buf(),
            child: None,
            connections: 0,
            failure,
        }))
    }

    /// One more connection to `to`, the process started first if none runs (at first use,
    /// or after a crash killed it): its slot and its backend's pid.
    fn connect(&mut self, to: &LinkTarget) -> Result<(usize, i32), RealError> {
        if self.child.is_none() {
            self.child = Some(ChildProcess::start(&self.exe)?);
            self.connections = 0;
        }
        let child = self.child.as_mut().expect("started above");
        child.send(&ToChild::Connect(to.clone()))?;
        match child.recv()? {
            FromChild::Connected { pid } => {
                self.connections += 1;
                Ok((self.connections - 1, pid))
            }
            other => Err(RealError::Protocol(format!(
                "expected connected, got {other:?}"
            ))),
        }
    }

    fn exchange(
        &mut self,
        slot: usize,
        sql: &str,
        skip: usize,
        typed: Option<&str>,
    ) -> Result<Answer, RealError> {
        let child = (self.child.as_mut())
            .ok_or_else(|| RealError::Protocol("a statement with no process".into()))?;
        child.send(&ToChild::Statement {
            sql: sql.to_string(),
            skip,
            slot,
            typed: typed.map(str::to_string),
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

    fn first_failure(&self) -> Option<String> {
        self.failure.borrow().as_ref().map(ToString::to_string)
    }
}

impl Drop for Process {
    /// The run is over: the process is told to close, and ends its connections.
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            if let Err(e) = child.close() {
                self.failure.borrow_mut().get_or_insert(e);
            }
        }
    }
}

/// One of consumer 0's connections, held by the shared [`Process`].
pub(super) struct PgChild {
    process: Rc<RefCell<Process>>,
    /// Its slot in the running process, once connected.
    slot: usize,
}

impl PgChild {
    pub(super) fn new(process: &Rc<RefCell<Process>>) -> PgChild {
        PgChild {
            process: Rc::clone(process),
            slot: 0,
        }
    }
}

impl Link for PgChild {
    fn open(&mut self, to: &LinkTarget) -> Result<i32, String> {
        let mut p = self.process.borrow_mut();
        if let Some(e) = p.first_failure() {
            return Err(e);
        }
        match p.connect(to) {
            Ok((slot, pid)) => {
                self.slot = slot;
                Ok(pid)
            }
            Err(e) => Err(p.failed(e).message),
        }
    }

    fn run(&mut self, sql: &str, skip: usize, typed: Option<&str>) -> Answer {
        let mut p = self.process.borrow_mut();
        if let Some(message) = p.first_failure() {
            return Err(DbError {
                code: String::new(),
                message,
            });
        }
        p.exchange(self.slot, sql, skip, typed)
            .unwrap_or_else(|e| Err(p.failed(e)))
    }

    /// Kills the process, and with it every connection it holds (a second kill of the
    /// same crash, for another of its connections, finds it gone).
    fn kill(&mut self) {
        let mut p = self.process.borrow_mut();
        if let Some(mut child) = p.child.take() {
            if let Err(e) = child.kill() {
                p.failed(e);
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
    let process = Process::new(exe, Rc::clone(&failure));
    store.link(|| Box::new(PgChild::new(&process)));
    let result = crate::world::run_on(s, Box::new(store));
    drop(process);
    let failed = failure.borrow_mut().take();
    match failed {
        Some(e) => Err(e),
        None => Ok(result),
    }
}
