//! The consumer's connection when it is real: [`RemoteDb`], a child process holding a
//! connection to the database file, driven by the simulator's executor through the same
//! [`ConsumerDb`] trait as the in-memory store.

use super::*;
use crate::model::CommittedState;
use crate::store::{ConsumerDb, DbOutcome, StoreOp};

/// A connection held by a real process. A crash kills that process with SIGKILL; the next
/// operation starts a new one, which opens (and so recovers) the file.
///
/// The executor's calls cannot fail, so a failure of the process or the pipes (never an
/// outcome of the run: those are answers) is kept, every later operation is answered
/// [`DbOutcome::Busy`] without touching anything, and [`RemoteDb::finish`] reports it:
/// the run it spoiled is never compared.
pub(super) struct RemoteDb<'a> {
    exe: &'a Path,
    setup: Setup,
    /// The process holding the connection; `None` between a kill and the next operation.
    child: Option<ChildProcess>,
    /// Whether the connection holds a transaction open, as the process last said.
    in_transaction: bool,
    error: Option<RealError>,
    /// Where the connection's random streams stand (each process goes on from there).
    rng: Vec<u64>,
    /// The virtual-machine steps the scenario's statements took, over every process.
    vm_steps: u64,
    /// The latest virtual time an operation ran at: the clock of the reads.
    now: Tick,
}

impl<'a> RemoteDb<'a> {
    /// Starts the first process on the file `setup` names (which must exist).
    pub(super) fn open(exe: &'a Path, setup: Setup) -> Result<RemoteDb<'a>, RealError> {
        let child = ChildProcess::spawn(exe, &setup)?;
        Ok(RemoteDb {
            exe,
            setup,
            child: Some(child),
            in_transaction: false,
            error: None,
            rng: Vec::new(),
            vm_steps: 0,
            now: 0,
        })
    }

    /// Ends the run's last process, if any, and says whether anything failed on the way.
    pub(super) fn finish(&mut self) -> Result<(), RealError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        match self.child.take() {
            Some(mut child) => child.close().map(|_| ()),
            None => Ok(()),
        }
    }

    fn try_execute(&mut self, op: StoreOp<'_>, now: Tick) -> Result<DbOutcome, RealError> {
        let op = op.into();
        self.try_exchange(ToChild::Execute { op, now })?
            .map(|ran| ran.outcome)
            .map_err(|e| RealError::Protocol(format!("an operation failed: {}", e.english())))
    }

    /// Sends one operation (starting the process if a crash killed the last one) and
    /// takes its answer: the outcome, or a SQL step's failure.
    fn try_exchange(
        &mut self,
        m: ToChild,
    ) -> Result<Result<crate::model::SqlRan, crate::model::SqlFailure>, RealError> {
        if self.child.is_none() {
            // The process after a crash: it opens the file the killed one left behind.
            self.child = Some(ChildProcess::spawn(self.exe, &self.setup)?);
        }
        let child = self.child.as_mut().expect("started above");
        child.send(&m)?;
        match child.recv()? {
            FromChild::Answer {
                outcome,
                in_transaction,
            } => {
                self.in_transaction = in_transaction;
                Ok(Ok(outcome.into()))
            }
            FromChild::SqlAnswer {
                result,
                in_transaction,
                rng,
                vm_steps,
            } => {
                self.in_transaction = in_transaction;
                self.rng = rng;
                self.vm_steps += vm_steps;
                Ok(result)
            }
            other => Err(RealError::Protocol(format!(
                "expected an answer, got {other:?}"
            ))),
        }
    }

    /// A read of what the file has committed, on a connection of this process's own (the
    /// database process may be between a kill and its successor).
    fn read<T>(&mut self, read: impl FnOnce(&mut Store) -> T, nothing: T) -> T {
        if self.error.is_some() {
            return nothing;
        }
        match Store::open_file(&self.setup.db, &self.setup.store, &self.setup.accounts) {
            Ok(mut store) => {
                store.set_sql_events(std::rc::Rc::new(self.setup.sql_events.clone()));
                store.set_clock(self.now);
                read(&mut store)
            }
            Err(e) => {
                self.error = Some(e.into());
                nothing
            }
        }
    }
}

impl ConsumerDb for RemoteDb<'_> {
    fn execute(&mut self, op: StoreOp<'_>, now: Tick) -> DbOutcome {
        self.now = now;
        if self.error.is_some() {
            return DbOutcome::Busy { done: 0 };
        }
        self.try_execute(op, now).unwrap_or_else(|e| {
            self.error = Some(e);
            DbOutcome::Busy { done: 0 }
        })
    }

    fn execute_sql(
        &mut self,
        step: &crate::model::SqlStep,
        binding: &crate::model::SqlBinding<'_>,
        done: u8,
    ) -> Result<crate::model::SqlRan, crate::model::SqlFailure> {
        if self.error.is_some() {
            return Ok(DbOutcome::Busy { done: 0 }.into());
        }
        let sql = super::wire::WireSql::new(step, binding, done);
        let now = binding.now;
        self.now = now;
        let rng = self.rng.clone();
        self.try_exchange(ToChild::ExecuteSql { sql, now, rng })
            .unwrap_or_else(|e| {
                self.error = Some(e);
                Ok(DbOutcome::Busy { done: 0 }.into())
            })
    }

    /// A handler is Rust code in the caller's process: the consumer process crosscheck
    /// starts runs a scenario file's steps only, so a handler's run stops with this error.
    fn execute_handler_sql(
        &mut self,
        _sql: &str,
        _value: &dyn Fn(&str) -> Option<crate::model::handler::Value>,
        _row: bool,
        _now: crate::model::Tick,
    ) -> Result<crate::model::handler::CallResult, DbOutcome> {
        self.error.get_or_insert(RealError::Protocol(
            "crosscheck runs a scenario file's steps; a Rust handler is not one".to_string(),
        ));
        Err(DbOutcome::Busy { done: 0 })
    }

    fn in_transaction(&self) -> bool {
        self.in_transaction
    }

    /// The consumer crashed (or the run stopped): SIGKILL its database process, whatever
    /// it holds. What the file keeps is SQLite's business from here.
    fn drop_open_transaction(&mut self) -> bool {
        let had = std::mem::take(&mut self.in_transaction);
        if let Some(mut child) = self.child.take() {
            if let Err(e) = child.kill() {
                self.error.get_or_insert(e);
            }
        }
        had
    }

    fn event_rows(&mut self, event_id: &str) -> (u32, u32) {
        self.read(|s| s.event_rows(event_id), (0, 0))
    }

    fn committed_state(&mut self) -> CommittedState {
        self.read(Store::committed_state, CommittedState::default())
    }

    fn sql_vm_steps(&self) -> u64 {
        self.vm_steps
    }

    fn local(&self) -> Option<&Store> {
        None
    }

    fn local_mut(&mut self) -> Option<&mut Store> {
        None
    }
}
