//! The database process of `crosscheck`: the hidden `__consumer` mode of the binary.
//! On PostgreSQL it holds the consumer's connection to the server instead, and runs the
//! statements the parent sends (see [`crate::store::pg::link`]).
//!
//! It holds the consumer's connection to a real SQLite file ([`Store::open_file`]) and runs
//! the operations the parent's executor sends, one at a time, answering each with the
//! database's answer. Between two operations it blocks reading its next line, transaction
//! open or not; a crash of the consumer is the parent killing it there with SIGKILL, so
//! what survives is what SQLite's recovery keeps of a process that vanished mid-
//! transaction. It exits only when its stdin closes or the parent says `close`.

use super::wire::{self, FromChild, ToChild, WireError};
use crate::store::pg::link::{Held, LinkTarget};
use crate::store::Store;
use std::io::{BufRead, Write};

/// Runs the database process over stdin and stdout until the parent closes it.
pub fn main() -> std::process::ExitCode {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    match serve(&mut stdin.lock(), &mut stdout.lock()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("crosscheck database process: {e}");
            std::process::ExitCode::from(3)
        }
    }
}

/// What went wrong in the database process (never an injected fault: those are the
/// parent's).
#[derive(Debug, thiserror::Error)]
pub enum ChildError {
    #[error("{0}")]
    Wire(#[from] WireError),
    #[error("could not open the database: {0}")]
    Store(#[from] crate::store::StoreError),
    #[error("the parent broke the protocol: {0}")]
    Protocol(String),
    #[error("PostgreSQL: {0}")]
    Postgres(String),
}

/// Serves one process: setup, open, then operations until `close` or the end of input.
pub fn serve(r: &mut impl BufRead, w: &mut impl Write) -> Result<(), ChildError> {
    let setup = match wire::recv(r)? {
        ToChild::Setup(s) => s,
        ToChild::Connect(to) => return serve_postgres(&to, r, w),
        other => {
            return Err(ChildError::Protocol(format!(
                "expected setup, got {other:?}"
            )))
        }
    };
    let mut store = Store::open_file(&setup.db, &setup.store, &setup.accounts)?;
    store.seed_sql(setup.seed, 0);
    wire::send(w, &FromChild::Opened)?;
    while let Some(message) = next(r)? {
        match message {
            ToChild::Execute { op, now } => {
                let outcome = store.execute(op.as_op(), now);
                let in_transaction = store.in_transaction();
                wire::send(
                    w,
                    &FromChild::Answer {
                        outcome,
                        in_transaction,
                    },
                )?;
            }
            ToChild::ExecuteSql { sql, now, rng } => {
                let step = sql
                    .step()
                    .ok_or_else(|| ChildError::Protocol("too many SQL step names".into()))?;
                let named = (sql.named())
                    .ok_or_else(|| ChildError::Protocol("too many result names".into()))?;
                let binding = crate::model::SqlBinding {
                    event: &sql.event,
                    now,
                    delivery: sql.delivery,
                    consumer: sql.consumer,
                    log: sql.log,
                    named: Some(&named),
                };
                store.set_sql_rng_positions(&rng);
                let before = store.sql_vm_steps();
                let result = store.execute_sql(&step, &binding, sql.done);
                let in_transaction = store.in_transaction();
                wire::send(
                    w,
                    &FromChild::SqlAnswer {
                        result,
                        in_transaction,
                        rng: store.sql_rng_positions(),
                        vm_steps: store.sql_vm_steps() - before,
                    },
                )?;
            }
            ToChild::Close => {
                let rolled_back = store.drop_open_transaction();
                wire::send(w, &FromChild::Closed { rolled_back })?;
                return Ok(());
            }
            ToChild::Setup(_) | ToChild::Connect(_) => {
                return Err(ChildError::Protocol("a second setup".into()));
            }
            ToChild::Statement { .. } => {
                return Err(ChildError::Protocol("a statement to a SQLite file".into()));
            }
        }
    }
    Ok(())
}

/// The parent's next message; `None` when it went away (the child then exits as a process
/// whose input closed does).
fn next(r: &mut impl BufRead) -> Result<Option<ToChild>, ChildError> {
    match wire::recv(r) {
        Ok(m) => Ok(Some(m)),
        Err(WireError::Closed) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Serves one process on PostgreSQL: connect, then the statements the parent sends, each
/// answered when PostgreSQL answered it, until `close` or the end of input. The parent
/// builds the run's statements (the store's logic is its own); this process only holds
/// the connections (one per database the consumer writes to), so that a crash is a client
/// vanishing with all of them.
fn serve_postgres(
    to: &LinkTarget,
    r: &mut impl BufRead,
    w: &mut impl Write,
) -> Result<(), ChildError> {
    let mut held = Vec::new();
    connect(&mut held, to, w)?;
    while let Some(message) = next(r)? {
        match message {
            ToChild::Connect(to) => connect(&mut held, &to, w)?,
            ToChild::Statement {
                sql,
                skip,
                slot,
                typed,
            } => {
                let h = (held.get(slot))
                    .ok_or_else(|| ChildError::Protocol(format!("no connection {slot}")))?;
                let answer = h.run(&sql, skip, typed.as_deref());
                wire::send(w, &FromChild::Ran { answer })?;
            }
            // Whatever is open, PostgreSQL rolls back when the connection closes.
            ToChild::Close => {
                wire::send(w, &FromChild::Closed { rolled_back: false })?;
                return Ok(());
            }
            other => {
                return Err(ChildError::Protocol(format!(
                    "expected a statement, got {other:?}"
                )))
            }
        }
    }
    Ok(())
}

/// Opens one more connection, slot `held.len()`, and tells the parent its backend's pid.
fn connect(held: &mut Vec<Held>, to: &LinkTarget, w: &mut impl Write) -> Result<(), ChildError> {
    let (h, pid) = Held::connect(to).map_err(ChildError::Postgres)?;
    held.push(h);
    wire::send(w, &FromChild::Connected { pid })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DbOutcome, Event};
    use crate::scenario::Scenario;
    use crate::store::StoreConfig;
    use crate::wire::{Setup, WireOp};

    fn setup(dir: &std::path::Path, accounts: &[crate::model::Account]) -> Setup {
        let db = dir.join("consumer.sqlite");
        drop(Store::open_file(&db, &StoreConfig::default(), accounts).unwrap());
        Setup {
            db,
            store: StoreConfig::default(),
            accounts: accounts.to_vec(),
            sql_events: Vec::new(),
            seed: 0,
        }
    }

    fn lines(messages: &[ToChild]) -> Vec<u8> {
        let mut bytes = Vec::new();
        for m in messages {
            wire::send(&mut bytes, m).unwrap();
        }
        bytes
    }

    fn answers(out: &[u8]) -> Vec<FromChild> {
        let mut r = std::io::Cursor::new(out);
        let mut all = Vec::new();
        while let Ok(m) = wire::recv(&mut r) {
            all.push(m);
        }
        all
    }

    fn first_event() -> (Vec<crate::model::Account>, Event) {
        let s = Scenario::new(crate::model::Protocol::built_in("inbox").unwrap()).with_events(1);
        (s.workload.accounts(), s.events().remove(0))
    }

    #[test]
    fn it_answers_every_operation_and_says_whether_a_transaction_is_open() {
        let dir = tempfile::tempdir().unwrap();
        let (accounts, event) = first_event();
        let input = lines(&[
            ToChild::Setup(setup(dir.path(), &accounts)),
            ToChild::Execute {
                op: WireOp::Begin,
                now: 1,
            },
            ToChild::Execute {
                op: WireOp::InsertInbox {
                    event: event.clone(),
                },
                now: 2,
            },
            ToChild::Execute {
                op: WireOp::Commit,
                now: 3,
            },
            ToChild::Execute {
                op: WireOp::InsertInbox { event },
                now: 4,
            },
            ToChild::Close,
        ]);
        let mut out = Vec::new();
        serve(&mut std::io::Cursor::new(input), &mut out).unwrap();
        let answer = |outcome, in_transaction| FromChild::Answer {
            outcome,
            in_transaction,
        };
        assert_eq!(
            answers(&out),
            [
                FromChild::Opened,
                answer(DbOutcome::Begun, true),
                answer(DbOutcome::Inserted, true),
                answer(DbOutcome::Committed, false),
                answer(DbOutcome::Duplicate, false),
                FromChild::Closed { rolled_back: false },
            ]
        );
    }

    #[test]
    fn a_closed_input_ends_it_and_a_broken_protocol_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let (accounts, _) = first_event();
        let mut out = Vec::new();
        let input = lines(&[ToChild::Setup(setup(dir.path(), &accounts))]);
        serve(&mut std::io::Cursor::new(input), &mut out).unwrap();
        let input = lines(&[ToChild::Close]);
        assert!(matches!(
            serve(&mut std::io::Cursor::new(input), &mut Vec::new()),
            Err(ChildError::Protocol(_))
        ));
    }
}
