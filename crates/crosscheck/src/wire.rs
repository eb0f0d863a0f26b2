//! The line protocol between `crosscheck`'s parent (the simulator's executor, with the
//! broker, the clock and the fault plan) and its child (the process that holds the
//! consumer's connection to the database file, or to the PostgreSQL server): one JSON
//! object per line, each way, over the child's stdin and stdout.
//!
//! The child answers each operation once it is done and then blocks reading its next
//! line. That blocking is what puts a real process at a crash point: between two
//! operations, with its transaction open, it waits until the parent sends the next one
//! or kills it.

use crate::model::{Account, DuplicateIf, Event, SqlBinding, SqlEvent, SqlStep, Tick};
use crate::store::pg::link::LinkTarget;
use crate::store::pg::session::{DbError, Ran};
use crate::store::{DbOutcome, EffectArgs, StoreConfig, StoreOp};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};

/// What the child needs to open the database. Sent as the first line to every child.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// The database file (created by the parent before the first child starts).
    pub db: std::path::PathBuf,
    pub store: StoreConfig,
    pub accounts: Vec<Account>,
    /// With the scenario's own schema: the events as its check queries see them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sql_events: Vec<SqlEvent>,
    /// The run's seed: the scenario's `random()` draws from its stream.
    #[serde(default)]
    pub seed: u64,
}

/// A SQL step on the wire, with the delivery its parameters are bound from (see
/// [`crate::store::Store::execute_sql`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireSql {
    pub name: String,
    pub statements: Vec<String>,
    pub duplicate_if: Option<DuplicateIf>,
    #[serde(default)]
    pub db: u8,
    pub event: SqlEvent,
    pub delivery: u32,
    pub consumer: usize,
    #[serde(default)]
    pub log: Option<crate::model::LogPlace>,
    pub done: u8,
    /// The name its last statement's first row is kept under ([`SqlStep::into`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub into: Option<String>,
    /// The results earlier steps kept, which its statements may name (`:claim.count`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub named: Vec<(String, Option<crate::model::named::Row>)>,
}

impl WireSql {
    pub fn new(step: &SqlStep, b: &SqlBinding<'_>, done: u8) -> WireSql {
        WireSql {
            name: step.name.to_string(),
            statements: step.statements.clone(),
            duplicate_if: step.duplicate_if,
            db: step.db,
            event: b.event.clone(),
            delivery: b.delivery,
            consumer: b.consumer,
            log: b.log,
            done,
            into: step.into.map(str::to_string),
            named: (b.named.iter().flat_map(|n| n.rows()))
                .map(|(name, row)| (name.to_string(), row.clone()))
                .collect(),
        }
    }

    /// The kept results, their names interned in this process; `None` past the interner's
    /// bound.
    pub fn named(&self) -> Option<crate::model::NamedResults> {
        let mut out = crate::model::NamedResults::default();
        for (name, row) in &self.named {
            out.store(crate::model::sql::intern(name)?, row.clone());
        }
        Some(out)
    }

    /// The step again, its name interned in this process; `None` past the interner's bound.
    pub fn step(&self) -> Option<SqlStep> {
        Some(SqlStep {
            name: crate::model::sql::intern(&self.name)?,
            statements: self.statements.clone(),
            duplicate_if: self.duplicate_if,
            db: self.db,
            into: match &self.into {
                Some(name) => Some(crate::model::sql::intern(name)?),
                None => None,
            },
            // The conditions and jumps are the consumer's, in the parent.
            ..SqlStep::default()
        })
    }
}

/// A [`StoreOp`] on the wire: which operation, and what it carries (the payload as
/// received, and the effect's parameters).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum WireOp {
    Begin,
    CheckInbox { event: Event },
    InsertInbox { event: Event },
    RecordPayloadAlert { event: Event },
    ApplyEffect(EffectArgs<Event>),
    Commit,
    Rollback,
    BeginOn { db: u8 },
    CommitOn { db: u8 },
    RollbackOn { db: u8 },
    EnqueueEmail { event: Event },
}

impl From<StoreOp<'_>> for WireOp {
    fn from(op: StoreOp<'_>) -> WireOp {
        match op {
            StoreOp::Begin => WireOp::Begin,
            StoreOp::CheckInbox { event } => WireOp::CheckInbox {
                event: event.clone(),
            },
            StoreOp::InsertInbox { event } => WireOp::InsertInbox {
                event: event.clone(),
            },
            StoreOp::RecordPayloadAlert { event } => WireOp::RecordPayloadAlert {
                event: event.clone(),
            },
            StoreOp::ApplyEffect(effect) => WireOp::ApplyEffect(effect.map(Event::clone)),
            StoreOp::Commit => WireOp::Commit,
            StoreOp::Rollback => WireOp::Rollback,
            StoreOp::BeginOn(db) => WireOp::BeginOn { db },
            StoreOp::CommitOn(db) => WireOp::CommitOn { db },
            StoreOp::RollbackOn(db) => WireOp::RollbackOn { db },
            StoreOp::EnqueueEmail { event } => WireOp::EnqueueEmail {
                event: event.clone(),
            },
        }
    }
}

impl WireOp {
    /// The operation to run, borrowing what it carries.
    pub fn as_op(&self) -> StoreOp<'_> {
        match self {
            WireOp::Begin => StoreOp::Begin,
            WireOp::CheckInbox { event } => StoreOp::CheckInbox { event },
            WireOp::InsertInbox { event } => StoreOp::InsertInbox { event },
            WireOp::RecordPayloadAlert { event } => StoreOp::RecordPayloadAlert { event },
            WireOp::ApplyEffect(effect) => effect.op(),
            WireOp::Commit => StoreOp::Commit,
            WireOp::Rollback => StoreOp::Rollback,
            WireOp::BeginOn { db } => StoreOp::BeginOn(*db),
            WireOp::CommitOn { db } => StoreOp::CommitOn(*db),
            WireOp::RollbackOn { db } => StoreOp::RollbackOn(*db),
            WireOp::EnqueueEmail { event } => StoreOp::EnqueueEmail { event },
        }
    }
}

/// Parent → child.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "msg", rename_all = "snake_case")]
pub enum ToChild {
    /// The first line to every child.
    Setup(Setup),
    /// Run `op` at virtual tick `now`; the child answers [`FromChild::Answer`].
    Execute { op: WireOp, now: Tick },
    /// Run SQL step `sql` at virtual tick `now`, the connection's random streams at `rng`
    /// (where the process before this one left them); the child answers
    /// [`FromChild::SqlAnswer`].
    ExecuteSql {
        sql: WireSql,
        now: Tick,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        rng: Vec<u64>,
    },
    /// The run is over: roll back anything open, answer [`FromChild::Closed`], exit.
    Close,
    /// On PostgreSQL, the first line instead of [`ToChild::Setup`]: connect to the run's
    /// database with the run's settings; the child answers [`FromChild::Connected`]. Sent
    /// again for each further connection the consumer holds (one per database of the
    /// scenario's): the `k`-th connection is slot `k - 1`.
    Connect(LinkTarget),
    /// On PostgreSQL: run `sql` on connection `slot` (the tool's own statements first,
    /// `skip` of them); the child answers [`FromChild::Ran`].
    Statement {
        sql: String,
        skip: usize,
        #[serde(default)]
        slot: usize,
        /// The statement whose columns' types the answer carries (a kept row's).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        typed: Option<String>,
    },
}

/// Child → parent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "msg", rename_all = "snake_case")]
pub enum FromChild {
    /// The database is open (and recovered, if a killed child left it mid-transaction).
    Opened,
    /// What the database answered, and whether the connection now holds a transaction
    /// open (what a kill would leave to SQLite's recovery).
    Answer {
        outcome: DbOutcome,
        in_transaction: bool,
    },
    /// The answer to [`ToChild::Close`]: whether a transaction was open and rolled back.
    Closed { rolled_back: bool },
    /// What a SQL step came to (or SQLite's message when it failed), and whether the
    /// connection now holds a transaction open.
    SqlAnswer {
        result: Result<crate::model::SqlRan, crate::model::SqlFailure>,
        in_transaction: bool,
        /// Where the connection's random streams stand now.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        rng: Vec<u64>,
        /// The virtual-machine steps the step's statements took.
        #[serde(default)]
        vm_steps: u64,
    },
    /// On PostgreSQL: connected; the pid of the backend serving the child.
    Connected { pid: i32 },
    /// On PostgreSQL: what the statement gave, or PostgreSQL's error.
    Ran { answer: Result<Ran, DbError> },
}

/// Why a line could not be exchanged.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("the other side closed the pipe")]
    Closed,
    #[error("pipe: {0}")]
    Io(#[from] std::io::Error),
    #[error("not a message of the crosscheck line protocol: {line:?} ({error})")]
    Malformed { line: String, error: String },
}

/// Writes one message as one line and flushes it.
pub fn send<T: Serialize>(w: &mut impl Write, message: &T) -> Result<(), WireError> {
    let mut line = serde_json::to_string(message).expect("protocol messages serialize");
    line.push('\n');
    w.write_all(line.as_bytes())?;
    w.flush()?;
    Ok(())
}

/// Reads the next message; [`WireError::Closed`] at the end of the stream.
pub fn recv<T: for<'de> Deserialize<'de>>(r: &mut impl BufRead) -> Result<T, WireError> {
    let mut line = String::new();
    if r.read_line(&mut line)? == 0 {
        return Err(WireError::Closed);
    }
    decode(&line)
}

/// Parses one line (its newline optional).
pub fn decode<T: for<'de> Deserialize<'de>>(line: &str) -> Result<T, WireError> {
    let line = line.trim_end_matches(['\n', '\r']);
    serde_json::from_str(line).map_err(|e| WireError::Malformed {
        line: line.to_string(),
        error: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::EventType;

    fn event() -> Event {
        Event {
            index: 1,
            event_id: "id-1".into(),
            event_type: EventType::TransferCreated,
            transfer_id: "tr_00001".into(),
            source: "acc_00001".into(),
            target: "acc_00002".into(),
            amount_minor: 500,
        }
    }

    fn ops(e: &Event) -> Vec<StoreOp<'_>> {
        vec![
            StoreOp::Begin,
            StoreOp::CheckInbox { event: e },
            StoreOp::InsertInbox { event: e },
            StoreOp::RecordPayloadAlert { event: e },
            StoreOp::ApplyEffect(EffectArgs {
                event: e,
                fail_credit: true,
                done: 1,
                read: Some((3, -4)),
                track_transfer: true,
            }),
            StoreOp::Commit,
            StoreOp::Rollback,
            StoreOp::BeginOn(1),
            StoreOp::CommitOn(2),
            StoreOp::RollbackOn(0),
            StoreOp::EnqueueEmail { event: e },
        ]
    }

    fn round_trip<T>(messages: Vec<T>)
    where
        T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
    {
        let mut bytes = Vec::new();
        for m in &messages {
            send(&mut bytes, m).unwrap();
        }
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert_eq!(
            text.lines().count(),
            messages.len(),
            "one message, one line: {text}"
        );
        let mut r = std::io::Cursor::new(bytes);
        for m in &messages {
            assert_eq!(&recv::<T>(&mut r).unwrap(), m);
        }
        assert!(matches!(recv::<T>(&mut r), Err(WireError::Closed)));
    }

    #[test]
    fn every_parent_message_round_trips_on_one_line() {
        let e = event();
        let mut messages = vec![ToChild::Setup(Setup {
            db: "/tmp/x/consumer.sqlite".into(),
            store: StoreConfig::default(),
            accounts: vec![Account {
                name: "acc_00001".into(),
                initial_balance_minor: 7,
            }],
            sql_events: Vec::new(),
            seed: 7,
        })];
        for op in ops(&e) {
            messages.push(ToChild::Execute {
                op: op.into(),
                now: 12,
            });
        }
        messages.push(ToChild::Close);
        round_trip(messages);
    }

    #[test]
    fn every_child_message_round_trips_on_one_line() {
        round_trip(vec![
            FromChild::Opened,
            FromChild::Answer {
                outcome: DbOutcome::Busy { done: 1 },
                in_transaction: true,
            },
            FromChild::Answer {
                outcome: DbOutcome::BalancesRead {
                    source: -1,
                    target: 2,
                },
                in_transaction: false,
            },
            FromChild::Closed { rolled_back: true },
        ]);
    }

    #[test]
    fn an_operation_crosses_the_wire_unchanged() {
        let e = event();
        for op in ops(&e) {
            let wire = WireOp::from(op);
            assert_eq!(format!("{:?}", wire.as_op()), format!("{op:?}"));
        }
    }

    #[test]
    fn the_wire_forms_are_plain_json_with_a_msg_tag() {
        let mut bytes = Vec::new();
        let m = ToChild::Execute {
            op: WireOp::Commit,
            now: 4,
        };
        send(&mut bytes, &m).unwrap();
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "{\"msg\":\"execute\",\"op\":{\"op\":\"commit\"},\"now\":4}\n"
        );
        let m: FromChild =
            decode("{\"msg\":\"answer\",\"outcome\":\"committed\",\"in_transaction\":false}\r\n")
                .unwrap();
        assert_eq!(
            m,
            FromChild::Answer {
                outcome: DbOutcome::Committed,
                in_transaction: false
            }
        );
    }

    #[test]
    fn garbage_and_unknown_messages_are_errors_that_quote_the_line() {
        for bad in [
            "hello",
            "{\"msg\":\"explode\"}",
            "{\"msg\":\"execute\"}",
            "{\"msg\":\"execute\",\"op\":{\"op\":\"commit\"},\"now\":-1}",
        ] {
            match decode::<ToChild>(bad) {
                Err(WireError::Malformed { line, .. }) => assert_eq!(line, bad),
                other => panic!("{bad}: {other:?}"),
            }
        }
    }
}
