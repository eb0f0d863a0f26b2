//! What the world's executor needs of a consumer's connection, as a trait: the in-process
//! [`Store`] of a simulated run, or `crosscheck`'s real process on a database file, which
//! a crash kills with SIGKILL. One executor drives both.

use super::{CommittedState, DbOutcome, Store, StoreOp};
use crate::model::handler::{CallResult, Value as HandlerValue};
use crate::model::{SqlBinding, SqlFailure, SqlRan, SqlStep, Tick};

/// A consumer's connection to the consumers' database.
pub trait ConsumerDb {
    /// Runs one operation of the consumer's protocol at virtual time `now`.
    fn execute(&mut self, op: StoreOp<'_>, now: Tick) -> DbOutcome;

    /// Runs one of the scenario's SQL steps (see [`Store::execute_sql`]): its outcome (and
    /// the row its `into` keeps), or why the step failed.
    fn execute_sql(
        &mut self,
        step: &SqlStep,
        binding: &SqlBinding<'_>,
        done: u8,
    ) -> Result<SqlRan, SqlFailure>;

    /// Runs one statement of a Rust handler (see [`Store::execute_handler_sql`]).
    fn execute_handler_sql(
        &mut self,
        sql: &str,
        value: &dyn Fn(&str) -> Option<HandlerValue>,
        row: bool,
        now: Tick,
    ) -> Result<CallResult, DbOutcome>;

    /// Whether a transaction is open on the connection.
    fn in_transaction(&self) -> bool;

    /// The databases it has a transaction open on (0: the main one, `k`: the `k`-th of
    /// `store.databases`).
    fn open_databases(&self) -> Vec<u8> {
        if self.in_transaction() {
            vec![0]
        } else {
            Vec::new()
        }
    }

    /// The process holding the connection died: its open transaction, if any, is gone, as
    /// SQLite rolls back a connection that goes away. Returns whether there was one.
    fn drop_open_transaction(&mut self) -> bool;

    /// The committed (ledger, inbox) rows of `event_id`, read on this connection.
    fn event_rows(&mut self, event_id: &str) -> (u32, u32);

    /// Everything committed, as the checker reads it.
    fn committed_state(&mut self) -> CommittedState;

    /// The SQLite virtual-machine steps the scenario's statements took on this connection
    /// so far (see [`Store::sql_vm_steps`]).
    fn sql_vm_steps(&self) -> u64;

    /// The store itself, when it runs in this process: what only a simulated run reads
    /// (exploration's fingerprints, `explain`'s snapshots, the statement log). `None` for
    /// a connection in another process, which no exploration or explanation runs on.
    fn local(&self) -> Option<&Store>;

    fn local_mut(&mut self) -> Option<&mut Store>;

    /// On PostgreSQL, whose state is the server's: feeds `h` with this connection's
    /// session state (with `random`, its random stream) and, with `whole`, the run's
    /// database (see [`super::pg::digest`]); `false` when it cannot be read without
    /// changing the run, or (the default) by a connection that is not PostgreSQL's in this
    /// process.
    fn fingerprint_server(
        &self,
        _whole: bool,
        _random: bool,
        _h: &mut crate::sim::StateHasher,
    ) -> bool {
        false
    }
}

impl ConsumerDb for Store {
    fn execute(&mut self, op: StoreOp<'_>, now: Tick) -> DbOutcome {
        Store::execute(self, op, now)
    }

    fn execute_sql(
        &mut self,
        step: &SqlStep,
        binding: &SqlBinding<'_>,
        done: u8,
    ) -> Result<SqlRan, SqlFailure> {
        Store::execute_sql(self, step, binding, done)
    }

    fn execute_handler_sql(
        &mut self,
        sql: &str,
        value: &dyn Fn(&str) -> Option<HandlerValue>,
        row: bool,
        now: Tick,
    ) -> Result<CallResult, DbOutcome> {
        Store::execute_handler_sql(self, sql, value, row, now)
    }

    fn in_transaction(&self) -> bool {
        Store::in_transaction(self)
    }

    fn drop_open_transaction(&mut self) -> bool {
        Store::drop_open_transaction(self)
    }

    fn event_rows(&mut self, event_id: &str) -> (u32, u32) {
        Store::event_rows(self, event_id)
    }

    fn committed_state(&mut self) -> CommittedState {
        Store::committed_state(self)
    }

    fn sql_vm_steps(&self) -> u64 {
        Store::sql_vm_steps(self)
    }

    fn local(&self) -> Option<&Store> {
        Some(self)
    }

    fn local_mut(&mut self) -> Option<&mut Store> {
        Some(self)
    }
}

/// A connection lent to the executor: the caller keeps it, to ask it afterwards what
/// happened (`crosscheck` asks its real process whether anything failed).
impl<T: ConsumerDb + ?Sized> ConsumerDb for &mut T {
    fn execute(&mut self, op: StoreOp<'_>, now: Tick) -> DbOutcome {
        (**self).execute(op, now)
    }

    fn execute_sql(
        &mut self,
        step: &SqlStep,
        binding: &SqlBinding<'_>,
        done: u8,
    ) -> Result<SqlRan, SqlFailure> {
        (**self).execute_sql(step, binding, done)
    }

    fn execute_handler_sql(
        &mut self,
        sql: &str,
        value: &dyn Fn(&str) -> Option<HandlerValue>,
        row: bool,
        now: Tick,
    ) -> Result<CallResult, DbOutcome> {
        (**self).execute_handler_sql(sql, value, row, now)
    }

    fn in_transaction(&self) -> bool {
        (**self).in_transaction()
    }

    fn open_databases(&self) -> Vec<u8> {
        (**self).open_databases()
    }

    fn drop_open_transaction(&mut self) -> bool {
        (**self).drop_open_transaction()
    }

    fn event_rows(&mut self, event_id: &str) -> (u32, u32) {
        (**self).event_rows(event_id)
    }

    fn committed_state(&mut self) -> CommittedState {
        (**self).committed_state()
    }

    fn sql_vm_steps(&self) -> u64 {
        (**self).sql_vm_steps()
    }

    fn local(&self) -> Option<&Store> {
        (**self).local()
    }

    fn local_mut(&mut self) -> Option<&mut Store> {
        (**self).local_mut()
    }
}
