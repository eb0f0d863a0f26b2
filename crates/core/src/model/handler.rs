//! Your consumer as Rust code (issue 15, item 3): the [`Handler`] trait a team implements,
//! the [`Context`] through which the handler does everything that touches the world, and
//! the calls and answers the simulator records.
//!
//! Every context call (`begin`, `execute`, `query_row`, `commit`, `ack`, `external_effect`)
//! is a step: a crash
//! point on both sides, named by the step name the call gives (`after:claim`) or by the
//! built-in step it is (`after:commit`, `before:ack`), repeated names numbered
//! (`after:commit#2`). The simulator stays sans-IO and deterministic without threads: a
//! handler runs on the simulator's own thread, as a replayed coroutine. When the handler
//! makes a call the simulator has not answered yet, the call returns
//! [`HandlerError::Interrupted`], which the handler propagates with `?`; the simulator
//! performs the call at the handler's next turn (or crashes the process there), and the
//! handler is run again from the start of the delivery, from a copy of the state it had
//! then, each earlier call answered from the record. So a handler must be a function of
//! its own state and of its calls' answers (no clock, no randomness, no I/O of its own),
//! which the simulator checks: a replay that asks for something else than the first run
//! did stops the run with a panic naming both calls.
//!
//! A crash drops the handler (its volatile state, a cache of seen ids included) and the
//! restarted process builds a new one from the [`HandlerFactory`], as a restarted process
//! would.
//!
//! `delivery_sim::testing::check_handler` (in the crate that runs a scenario) shows a
//! handler checked at every crash point.

pub use super::value::Value;
use super::{SqlEvent, Step};
use std::fmt;
use std::panic::RefUnwindSafe;
use std::sync::Arc;

/// A message consumer written in Rust: what it does with one delivery.
///
/// The delivery's event is in the [`Context`] (`ctx.event_id()`, `ctx.field("qty")`).
/// Return `Ok(())` when the delivery is dealt with (acked or deliberately left unacked), or
/// an error: the framework then rolls back an open transaction and, unless the handler
/// acked, rejects the delivery so that the broker redelivers it. A transaction left open on
/// `Ok` is rolled back, as a dropped `rusqlite::Transaction` is.
///
/// The handler must be `Clone` (the simulator replays it from a copy, see the module
/// documentation) and deterministic.
pub trait Handler: HandlerClone + Send + 'static {
    fn handle(&mut self, ctx: &mut Context<'_>) -> Result<(), HandlerError>;

    /// Whether the handler sends an effect outside the database
    /// ([`Context::external_effect`]: an email, a call to another service). Then the
    /// check judges that effect too, per event whose effect committed (the `email`
    /// boundary): one each, no more, no fewer. A handler that says `false` and calls
    /// `external_effect` stops the run with a panic saying so.
    fn sends_external_effect(&self) -> bool {
        false
    }
}

/// Copies a boxed handler; implemented for every `Handler + Clone`.
pub trait HandlerClone {
    fn clone_handler(&self) -> Box<dyn Handler>;
}

impl<T: Handler + Clone> HandlerClone for T {
    fn clone_handler(&self) -> Box<dyn Handler> {
        Box::new(self.clone())
    }
}

/// Builds a fresh handler: for each consumer at start, and again after each crash. (A
/// scenario stays `UnwindSafe` with one, as before: a test may catch a panic around a run.)
#[derive(Clone)]
pub struct HandlerFactory(Arc<MakeHandler>);

type MakeHandler = dyn Fn() -> Box<dyn Handler> + Send + Sync + RefUnwindSafe;

impl HandlerFactory {
    pub fn new<H: Handler>(
        make: impl Fn() -> H + Send + Sync + RefUnwindSafe + 'static,
    ) -> HandlerFactory {
        HandlerFactory(Arc::new(move || Box::new(make())))
    }

    /// A new handler, with no volatile state but what its constructor gives it.
    pub fn make(&self) -> Box<dyn Handler> {
        (self.0)()
    }
}

impl fmt::Debug for HandlerFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HandlerFactory")
    }
}

/// Two protocols are the same handler protocol only if they share the very factory.
impl PartialEq for HandlerFactory {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for HandlerFactory {}

/// What a handler asked the simulator to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Call {
    Begin,
    Commit,
    /// The handler's own rollback: like the framework's, not a crash point (a crash just
    /// before or after it is the crash after the step before it or before the next).
    Rollback,
    Ack,
    /// An effect outside the database (an email): never rolled back.
    ExternalEffect,
    /// One statement, named parameters from `params` first, then from the delivery
    /// (`:event_id`, `:event_type`, `:now`, `:delivery`, `:consumer`, the payload's fields).
    Sql {
        step: &'static str,
        sql: String,
        params: Vec<(String, Value)>,
        /// `query_row`: the first row is answered; `execute`: the rows changed.
        row: bool,
    },
}

impl Call {
    /// The step this call is, for crash points and the trace; `None` for a rollback.
    pub fn step(&self) -> Option<Step> {
        match self {
            Call::Begin => Some(Step::Begin),
            Call::Commit => Some(Step::Commit),
            Call::Rollback => None,
            Call::Ack => Some(Step::Ack),
            Call::ExternalEffect => Some(Step::ExternalEffect),
            Call::Sql { step, .. } => Some(Step::Sql(step)),
        }
    }
}

/// The simulator's answer to a call.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// `begin`, `commit`, `rollback`, `ack`.
    Done,
    /// `execute`: how many rows the statement changed.
    Changed(usize),
    /// `query_row`: the first row, if any.
    Row(Option<Vec<Value>>),
    Failed(SqlError),
}

/// Why a call failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SqlErrorKind {
    /// A `UNIQUE` or `PRIMARY KEY` constraint: with an insert-first inbox, "already
    /// processed".
    UniqueViolation,
    /// `commit` did not answer: the transaction may or may not be committed.
    CommitTimeout,
    /// The scenario's fault plan made this step fail (`faults.fail`): nothing happened.
    Injected,
    /// Any other error (SQLite's message says which).
    Other,
}

/// A failed call: its kind and SQLite's (or the simulator's) message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqlError {
    pub kind: SqlErrorKind,
    pub message: String,
}

/// A call the database refused, as the executor gets it: the kind the handler is told, and
/// why (the trace's `SqlFailed`). The handler gets a [`SqlError`] made of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailedCall {
    pub kind: SqlErrorKind,
    pub failure: super::SqlFailure,
}

/// A SQL call's answer from the database: the answer, or why it failed.
pub type CallResult = Result<Answer, FailedCall>;

impl FailedCall {
    /// A call refused for `refusal`, leaving the transaction as it was.
    pub fn of(kind: SqlErrorKind, refusal: super::SqlRefusal) -> FailedCall {
        FailedCall {
            kind,
            failure: super::SqlFailure::of(refusal),
        }
    }

    /// The error the handler gets: its kind, and the failure's fixed English.
    pub fn error(&self) -> SqlError {
        SqlError {
            kind: self.kind,
            message: self.failure.english(),
        }
    }
}

impl SqlError {
    pub fn is_unique_violation(&self) -> bool {
        self.kind == SqlErrorKind::UniqueViolation
    }
}

impl fmt::Display for SqlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Why a handler stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandlerError {
    /// The simulator stopped the handler at a call (a step boundary): propagate it with
    /// `?`. Catching it changes nothing: every later call is interrupted too, and the
    /// result of this run of the handler is not used.
    Interrupted,
    /// A call failed.
    Sql(SqlError),
    /// The handler's own reason to give up on this delivery.
    Other(String),
}

impl From<SqlError> for HandlerError {
    fn from(e: SqlError) -> HandlerError {
        HandlerError::Sql(e)
    }
}

impl fmt::Display for HandlerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandlerError::Interrupted => f.write_str("interrupted by the simulator"),
            HandlerError::Sql(e) => write!(f, "{e}"),
            HandlerError::Other(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for HandlerError {}

/// The most calls a handler may make for one delivery: a handler is replayed from the
/// start at each call, so a delivery costs the square of its calls, and a handler that
/// loops must end in a reported failure, not in an endless run. Past it a call fails
/// (never performed), and the handler's error rejects the delivery.
pub const MAX_CALLS_PER_DELIVERY: usize = 256;

/// Everything a handler may do, and the delivery it is handling.
pub struct Context<'a> {
    event: &'a SqlEvent,
    attempt: u32,
    consumer: usize,
    /// On a log broker, where the delivery's record sits.
    log: Option<super::LogPlace>,
    record: &'a [(Call, Answer)],
    /// How many recorded calls this run of the handler has made.
    replayed: usize,
    /// The first call the record does not answer: the one the simulator performs next.
    wanted: Option<Call>,
    /// A replayed call that is not the recorded one: `(recorded, asked)`.
    diverged: Option<(Call, Call)>,
}

impl<'a> Context<'a> {
    /// For the consumer that drives a handler (not for handlers themselves).
    #[doc(hidden)]
    pub fn new(
        event: &'a SqlEvent,
        attempt: u32,
        consumer: usize,
        log: Option<super::LogPlace>,
        record: &'a [(Call, Answer)],
    ) -> Context<'a> {
        Context {
            event,
            attempt,
            consumer,
            log,
            record,
            replayed: 0,
            wanted: None,
            diverged: None,
        }
    }

    pub fn event_id(&self) -> &str {
        &self.event.event_id
    }

    pub fn event_type(&self) -> &str {
        &self.event.event_type
    }

    /// A field of the event's payload (`workload.payloads`).
    pub fn field(&self, name: &str) -> Option<Value> {
        let (_, v) = self.event.payload.iter().find(|(k, _)| k == name)?;
        Some(v.clone().into())
    }

    /// Which delivery of the event this is: 1 for the first, 2 for the first redelivery.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// Which consumer process runs the handler (0-based).
    pub fn consumer(&self) -> usize {
        self.consumer
    }

    /// On a log broker (`broker.kind: log`), the record's offset in its partition, as a
    /// Kafka consumer that stores its offsets keys its dedup by; `None` on a queue.
    pub fn offset(&self) -> Option<u64> {
        self.log.map(|l| l.offset)
    }

    /// On a log broker, the record's partition; `None` on a queue.
    pub fn partition(&self) -> Option<u32> {
        self.log.map(|l| l.partition)
    }

    /// On a log broker, the topic (a run has one, `events`); `None` on a queue.
    pub fn topic(&self) -> Option<&'static str> {
        self.log.map(|_| super::sql::LOG_TOPIC)
    }

    /// On a log broker, the consumer group (a run has one, `delivery-sim`); `None` on a
    /// queue.
    pub fn group(&self) -> Option<&'static str> {
        self.log.map(|_| super::sql::LOG_GROUP)
    }

    pub fn begin(&mut self) -> Result<(), HandlerError> {
        self.call(Call::Begin).map(drop)
    }

    pub fn commit(&mut self) -> Result<(), HandlerError> {
        self.call(Call::Commit).map(drop)
    }

    pub fn rollback(&mut self) -> Result<(), HandlerError> {
        self.call(Call::Rollback).map(drop)
    }

    /// Acks the delivery to the broker.
    pub fn ack(&mut self) -> Result<(), HandlerError> {
        self.call(Call::Ack).map(drop)
    }

    /// Sends the delivery's effect outside the database (an email, a call to another
    /// service), as step `external_effect`: no transaction covers it, so a rollback or a
    /// crash after it does not take it back. The handler declares it sends one
    /// ([`Handler::sends_external_effect`]).
    pub fn external_effect(&mut self) -> Result<(), HandlerError> {
        self.call(Call::ExternalEffect).map(drop)
    }

    /// Runs one statement as step `step` (its crash points are `before:STEP` and
    /// `after:STEP`): the rows it changed. Named parameters come from `params`, then from
    /// the delivery (`:event_id`, `:now`, the payload's fields, …).
    ///
    /// # Panics
    /// When `step` cannot name a crash point (lower-case letters, digits and `_`, starting
    /// with a letter, at most 40 characters) or is a built-in step's name.
    pub fn execute(
        &mut self,
        step: &str,
        sql: &str,
        params: &[(&str, Value)],
    ) -> Result<usize, HandlerError> {
        match self.call(sql_call(step, sql, params, false))? {
            Answer::Changed(n) => Ok(n),
            other => unreachable!("execute answered with {other:?}"),
        }
    }

    /// Runs one query as step `step`: its first row, if it returned one. Parameters as for
    /// [`Context::execute`].
    pub fn query_row(
        &mut self,
        step: &str,
        sql: &str,
        params: &[(&str, Value)],
    ) -> Result<Option<Vec<Value>>, HandlerError> {
        match self.call(sql_call(step, sql, params, true))? {
            Answer::Row(row) => Ok(row),
            other => unreachable!("query_row answered with {other:?}"),
        }
    }

    fn call(&mut self, call: Call) -> Result<Answer, HandlerError> {
        if self.wanted.is_some() || self.diverged.is_some() {
            return Err(HandlerError::Interrupted);
        }
        let Some((recorded, answer)) = self.record.get(self.replayed) else {
            if self.replayed >= MAX_CALLS_PER_DELIVERY {
                return Err(HandlerError::Sql(SqlError {
                    kind: SqlErrorKind::Other,
                    message: format!(
                        "the handler made {MAX_CALLS_PER_DELIVERY} calls for this delivery, \
                         the most one delivery may make; this call was not performed"
                    ),
                }));
            }
            self.wanted = Some(call);
            return Err(HandlerError::Interrupted);
        };
        if *recorded != call {
            self.diverged = Some((recorded.clone(), call));
            return Err(HandlerError::Interrupted);
        }
        self.replayed += 1;
        match answer {
            Answer::Failed(e) => Err(HandlerError::Sql(e.clone())),
            a => Ok(a.clone()),
        }
    }

    /// What the run of the handler came to: the call it waits for, if any, and a replayed
    /// call that differed from the record.
    #[doc(hidden)]
    pub fn into_parts(self) -> (Option<Call>, Option<(Call, Call)>) {
        (self.wanted, self.diverged)
    }
}

fn sql_call(step: &str, sql: &str, params: &[(&str, Value)], row: bool) -> Call {
    assert!(
        super::sql::valid_name(step) && !Step::ALL.iter().any(|s| s.name() == step),
        "`{step}` cannot name a handler's step: a step name is lower-case letters, digits \
         and `_`, starts with a letter, has at most 40 characters, and is not a built-in \
         step's name"
    );
    let step = super::sql::intern(step).expect("fewer step names than the interning bound");
    Call::Sql {
        step,
        sql: sql.to_string(),
        params: params
            .iter()
            .map(|(k, v)| (k.trim_start_matches([':', '@', '$']).to_string(), v.clone()))
            .collect(),
        row,
    }
}
