//! Consumer protocols: the ordered steps a consumer runs for every delivery, the seven
//! built-in protocols of the course, and the rules a custom protocol must obey.

use super::policy::{ErrorPolicy, GiveUp};
use super::sql::{self, SqlStep};
use super::{Boundary, Guarantee};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// One step of a consumer protocol: one of the built-in steps, named by their `snake_case`
/// name, or a step the scenario writes in SQL ([`Step::Sql`]), named by the scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Step {
    /// Take the next ready delivery from the broker.
    Receive,
    /// Open a local database transaction.
    Begin,
    /// `SELECT` the inbox for the event id; a row means "already processed".
    CheckInbox,
    /// `INSERT` the event id into the inbox; a unique violation means "already processed".
    InsertInbox,
    /// Debit the source, credit the target, one ledger row each.
    ApplyEffect,
    /// Commit the local transaction.
    Commit,
    /// Tell the broker the delivery is done; it is never delivered again.
    Ack,
    /// A side effect outside the database (an email): recorded, never rolled back.
    ExternalEffect,
    /// `INSERT` the email to send into `email_outbox`, in the effect's transaction: the
    /// email relay sends it after the commit, never for a rolled-back effect.
    EnqueueEmail,
    /// Publish a downstream message (`TransferApplied`) to the broker's output topic; with
    /// a transactional broker it becomes visible only when the ack commits the broker's
    /// transaction.
    ProduceOutput,
    /// Producer: `BEGIN`, then `INSERT` the transfer (and, with an outbox, its outbox row).
    InsertTransfer,
    /// Producer: commit the transfer's transaction.
    CommitTransfer,
    /// Producer: publish the transfer's event to the broker (a dual write).
    Publish,
    /// Outbox relay: read the oldest unsent outbox row and publish its event.
    RelayPublish,
    /// Outbox relay: mark that row sent.
    MarkSent,
    /// Email relay: read the oldest unsent email and send it to the mail service.
    SendEmail,
    /// Email relay: mark that email sent.
    MarkEmailSent,
    /// An error policy's last resort (`on_error.then: dead_letter`): the consumer moves the
    /// delivery's message to the broker's dead-letter queue. Not a step a protocol lists.
    DeadLetter,
    /// A consumer step written in SQL by the scenario, by its (interned) name; its
    /// statements are the protocol's ([`Protocol::sql_step`]).
    Sql(&'static str),
    /// A call to the external service of this (interned) name, written
    /// `{"external": "topup"}`: recorded as the outside world saw it, never rolled back.
    /// The step is named by its service (`before:topup`).
    Call(&'static str),
}

/// A step is written as its name, as scenario files and crash points write it.
impl Serialize for Step {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl schemars::JsonSchema for Step {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Step".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "A step's name: a built-in step (`receive`, `insert_inbox`, \
                `apply_effect`, `commit`, `ack`, …) or a SQL step the scenario names."
        })
    }
}

/// Which actor runs a step. Step names are unique across actors, so a crash point such as
/// `after:publish e0 d1` names its actor without saying so.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepActor {
    Consumer,
    Producer,
    /// The producer's outbox relay.
    Relay,
    /// The consumer side's email relay.
    EmailRelay,
}

impl StepActor {
    pub fn name(self) -> &'static str {
        match self {
            StepActor::Consumer => "consumer",
            StepActor::Producer => "producer",
            StepActor::Relay => "relay",
            StepActor::EmailRelay => "email relay",
        }
    }
}

impl Step {
    /// Every step, consumer steps first (in the order the matrix shows them).
    pub const ALL: [Step; 18] = [
        Step::Receive,
        Step::Begin,
        Step::CheckInbox,
        Step::InsertInbox,
        Step::ApplyEffect,
        Step::Commit,
        Step::Ack,
        Step::ExternalEffect,
        Step::EnqueueEmail,
        Step::ProduceOutput,
        Step::InsertTransfer,
        Step::CommitTransfer,
        Step::Publish,
        Step::RelayPublish,
        Step::MarkSent,
        Step::SendEmail,
        Step::MarkEmailSent,
        Step::DeadLetter,
    ];

    /// The actor that runs this step.
    pub fn actor(self) -> StepActor {
        match self {
            Step::InsertTransfer | Step::CommitTransfer | Step::Publish => StepActor::Producer,
            Step::RelayPublish | Step::MarkSent => StepActor::Relay,
            Step::SendEmail | Step::MarkEmailSent => StepActor::EmailRelay,
            _ => StepActor::Consumer,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Step::Receive => "receive",
            Step::Begin => "begin",
            Step::CheckInbox => "check_inbox",
            Step::InsertInbox => "insert_inbox",
            Step::ApplyEffect => "apply_effect",
            Step::Commit => "commit",
            Step::Ack => "ack",
            Step::ExternalEffect => "external_effect",
            Step::EnqueueEmail => "enqueue_email",
            Step::ProduceOutput => "produce_output",
            Step::InsertTransfer => "insert_transfer",
            Step::CommitTransfer => "commit_transfer",
            Step::Publish => "publish",
            Step::RelayPublish => "relay_publish",
            Step::MarkSent => "mark_sent",
            Step::SendEmail => "send_email",
            Step::MarkEmailSent => "mark_email_sent",
            Step::DeadLetter => "dead_letter",
            Step::Sql(name) | Step::Call(name) => name,
        }
    }

    /// The built-in step called `name`, or the SQL step of that name if a scenario of this
    /// process defined one (whether this scenario's protocol has it is the caller's check).
    pub fn parse(name: &str) -> Option<Step> {
        Step::ALL
            .into_iter()
            .find(|s| s.name() == name)
            .or_else(|| sql::interned(name).map(Step::Sql))
    }

    /// Whether this is a step the scenario wrote in SQL.
    pub fn is_sql(self) -> bool {
        matches!(self, Step::Sql(_))
    }

    /// Whether this consumer step runs on a database (its answer is the store's).
    pub fn is_database_step(self) -> bool {
        matches!(
            self,
            Step::Begin
                | Step::CheckInbox
                | Step::InsertInbox
                | Step::ApplyEffect
                | Step::Commit
                | Step::EnqueueEmail
                | Step::Sql(_)
        )
    }

    /// Whether only an error policy runs this step (a protocol does not list it).
    pub fn is_policy_step(self) -> bool {
        self == Step::DeadLetter
    }

    /// The names of the consumer's steps (what a protocol may use), for error messages.
    pub fn allowed_names() -> String {
        Step::ALL
            .into_iter()
            .filter(|s| s.actor() == StepActor::Consumer && !s.is_policy_step())
            .map(Step::name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Every step name [`Step::parse`] accepts, with its actor, for crash-point errors.
    pub fn all_names() -> String {
        Step::ALL
            .into_iter()
            .map(|s| match s.actor() {
                StepActor::Consumer => s.name().to_string(),
                actor => format!("{} ({})", s.name(), actor.name()),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A validated consumer protocol. Construct it with [`Protocol::new`] (custom) or
/// [`Protocol::built_in`]; both enforce the rules of [`Protocol::validate`], so holders of
/// a `Protocol` never need to re-check them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Protocol {
    pub name: String,
    pub description: String,
    pub steps: Vec<Step>,
    /// The definition of every [`Step::Sql`] in `steps`, once per name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sql: Vec<SqlStep>,
    /// A Rust handler that runs instead of the steps (which are then `receive`, `ack`:
    /// the handler's own calls are its steps, named as it calls them).
    #[serde(skip)]
    pub handler: Option<super::handler::HandlerFactory>,
    /// The database each step runs on, by position: 0 is the main one, `k` the `k`-th of
    /// the scenario's `store.databases`. Empty: every step runs on the main database.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub step_db: Vec<u8>,
    /// The names of the databases `step_db` counts from 1 (`store.databases`, in name
    /// order), for people: a step on one is shown `remember@dedup`.
    #[serde(skip)]
    pub db_names: Vec<String>,
    /// What the consumer does when a step fails ([`ErrorPolicy`]); the default rolls back
    /// and rejects the delivery for redelivery.
    #[serde(skip_serializing_if = "ErrorPolicy::is_default")]
    pub on_error: ErrorPolicy,
}

/// Why a list of steps is not a protocol. Each variant carries the position of the
/// offending step so the scenario error can point at `protocol.steps[i]`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    #[error("a protocol needs at least one step")]
    Empty,
    #[error("a protocol has at most {max} steps, this one {len}")]
    TooLong { len: usize, max: usize },
    #[error("the first step must be `receive`, found `{found}`")]
    ReceiveNotFirst { found: Step },
    #[error(
        "step `{step}` appears twice (at {first} and {second}); `receive`, `ack` and \
         `produce_output` may appear once each (a delivery is received, acked and its output \
         produced once), other steps may repeat"
    )]
    Repeated {
        step: Step,
        first: usize,
        second: usize,
    },
    #[error("`commit` at {at} has no `begin` before it")]
    CommitWithoutBegin { at: usize },
    #[error("`begin` at {at} has no `commit` after it, so the transaction would never end")]
    BeginWithoutCommit { at: usize },
    #[error(
        "`begin` at {at} is inside the transaction opened at {open}; commit that one first \
         (SQLite has no nested transactions)"
    )]
    NestedBegin { at: usize, open: usize },
    #[error(
        "the protocol has no `apply_effect` step, no SQL step and no external call, so it has no business \
         effect to check"
    )]
    NoEffect,
    #[error(
        "`{step}` at {at} is a step of the {}, not of the consumer; the producer and the \
         relays are set up in the scenario's `producer` section",
        actor.name()
    )]
    NotAConsumerStep {
        step: Step,
        at: usize,
        actor: StepActor,
    },
    #[error("SQL step `{name}` at {at} is not defined once in the protocol")]
    UndefinedSql { at: usize, name: &'static str },
    #[error("SQL step `{name}` is defined but not used in the protocol's steps")]
    UnusedSql { name: &'static str },
    #[error(
        "`commit` at {at} closes no transaction on its database: the open one is on another \
         database (each database has its own transactions; a `commit` closes the one its \
         `db` names)"
    )]
    CommitOnOtherDatabase { at: usize },
    #[error(
        "`{step}` at {at} is not a step a protocol lists: an error policy runs it \
         (`on_error`: {{\"then\": \"dead_letter\"}})"
    )]
    PolicyStep { step: Step, at: usize },
    #[error("`enqueue_email` at {at} must be inside the transaction (after `begin`, before `commit`): the outbox row commits with the effect or not at all")]
    EnqueueOutsideTransaction { at: usize },
}

impl ProtocolError {
    /// The index into `steps` that the error is about, if it is about one step.
    pub fn position(&self) -> Option<usize> {
        match self {
            ProtocolError::Empty | ProtocolError::NoEffect | ProtocolError::UnusedSql { .. } => {
                None
            }
            ProtocolError::TooLong { max, .. } => Some(*max),
            ProtocolError::ReceiveNotFirst { .. } => Some(0),
            ProtocolError::Repeated { second, .. } => Some(*second),
            ProtocolError::CommitWithoutBegin { at }
            | ProtocolError::BeginWithoutCommit { at }
            | ProtocolError::NestedBegin { at, .. }
            | ProtocolError::NotAConsumerStep { at, .. }
            | ProtocolError::UndefinedSql { at, .. }
            | ProtocolError::CommitOnOtherDatabase { at }
            | ProtocolError::PolicyStep { at, .. }
            | ProtocolError::EnqueueOutsideTransaction { at } => Some(*at),
        }
    }
}

/// A protocol that ships with the tool, with the guarantee it is known to give against
/// single consumer crashes (the matrix checks that claim on every run). Each is a file
/// under `protocols/`, in the format of a scenario's `protocol` (its steps by name), plus
/// `crash_guarantee`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuiltIn {
    pub name: String,
    pub description: String,
    #[serde(deserialize_with = "step_names")]
    pub steps: Vec<Step>,
    pub crash_guarantee: Guarantee,
}

/// The files of the built-in protocols, compiled in. Order is the order of the
/// `protocols` listing and of the matrix columns.
const BUILT_IN_FILES: [(&str, &str); 7] = [
    (
        "ack-first",
        include_str!("../../../../protocols/ack-first.json"),
    ),
    (
        "no-dedup",
        include_str!("../../../../protocols/no-dedup.json"),
    ),
    (
        "mark-then-effect",
        include_str!("../../../../protocols/mark-then-effect.json"),
    ),
    (
        "effect-then-mark",
        include_str!("../../../../protocols/effect-then-mark.json"),
    ),
    (
        "check-then-act",
        include_str!("../../../../protocols/check-then-act.json"),
    ),
    ("inbox", include_str!("../../../../protocols/inbox.json")),
    (
        "inbox-ack-first",
        include_str!("../../../../protocols/inbox-ack-first.json"),
    ),
];

/// The built-in protocols, read from their files once per process, each checked by the
/// rules every protocol obeys ([`Protocol::validate`]).
pub fn built_ins() -> &'static [BuiltIn] {
    static ALL: std::sync::OnceLock<Vec<BuiltIn>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        BUILT_IN_FILES
            .iter()
            .map(|(file, text)| {
                let b: BuiltIn = serde_json::from_str(text)
                    .unwrap_or_else(|e| panic!("protocols/{file}.json: {e}"));
                assert_eq!(
                    b.name, *file,
                    "protocols/{file}.json names another protocol"
                );
                if let Err(e) = Protocol::validate(&b.steps) {
                    panic!("protocols/{file}.json: {e}");
                }
                b
            })
            .collect()
    })
}

/// Steps by name: the built-in steps only (a built-in protocol has no SQL step).
fn step_names<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Step>, D::Error> {
    let names = Vec::<String>::deserialize(d)?;
    names
        .iter()
        .map(|n| {
            Step::ALL
                .into_iter()
                .find(|s| s.name() == n)
                .ok_or_else(|| serde::de::Error::custom(format!("unknown step `{n}`")))
        })
        .collect()
}

/// The seeds' anti-pattern written with explicit transactions, for tests: the mark commits
/// in its own transaction, then the effect in a second one (every step but `receive`,
/// `apply_effect`, `insert_inbox` and `ack` repeated).
#[cfg(any(test, feature = "test-support"))]
pub const MARK_OWN_TRANSACTION: [Step; 8] = {
    use Step::*;
    [
        Receive,
        Begin,
        InsertInbox,
        Commit,
        Begin,
        ApplyEffect,
        Commit,
        Ack,
    ]
};

impl Protocol {
    /// The most steps a protocol may have (repeats included): each is two crash points of
    /// every delivery, and an occurrence is numbered in a byte.
    pub const MAX_STEPS: usize = 64;

    /// Builds a custom protocol, checking the rules of [`Protocol::validate`].
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        steps: Vec<Step>,
    ) -> Result<Protocol, ProtocolError> {
        Protocol::with_sql(name, description, steps, Vec::new())
    }

    /// Builds a protocol whose [`Step::Sql`] steps are defined by `sql`: every SQL step of
    /// `steps` has exactly one definition there, and every definition is used (the
    /// scenario checks names and statements before; this keeps the pairing true).
    pub fn with_sql(
        name: impl Into<String>,
        description: impl Into<String>,
        steps: Vec<Step>,
        sql: Vec<SqlStep>,
    ) -> Result<Protocol, ProtocolError> {
        Protocol::with_sql_on(name, description, steps, sql, Vec::new())
    }

    /// [`Protocol::with_sql`] with step `i` on database `step_db[i]` (see
    /// [`Protocol::validate_on`]); a SQL step's definition names the same database.
    pub fn with_sql_on(
        name: impl Into<String>,
        description: impl Into<String>,
        steps: Vec<Step>,
        sql: Vec<SqlStep>,
        step_db: Vec<u8>,
    ) -> Result<Protocol, ProtocolError> {
        Protocol::validate_on(&steps, &step_db)?;
        for (at, step) in steps.iter().enumerate() {
            if let Step::Sql(name) = step {
                if sql.iter().filter(|d| d.name == *name).count() != 1 {
                    return Err(ProtocolError::UndefinedSql { at, name });
                }
            }
        }
        if let Some(d) = sql.iter().find(|d| !steps.contains(&Step::Sql(d.name))) {
            return Err(ProtocolError::UnusedSql { name: d.name });
        }
        let db_at = |at: usize| step_db.get(at).copied().unwrap_or(0);
        for (at, step) in steps.iter().enumerate() {
            if let Step::Sql(name) = step {
                let def = sql.iter().find(|d| d.name == *name).expect("checked above");
                assert_eq!(
                    def.db,
                    db_at(at),
                    "SQL step `{name}` runs on its definition's database"
                );
            }
        }
        let step_db = if step_db.iter().all(|db| *db == 0) {
            Vec::new()
        } else {
            step_db
        };
        Ok(Protocol {
            name: name.into(),
            description: description.into(),
            steps,
            sql,
            handler: None,
            step_db,
            db_names: Vec::new(),
            on_error: ErrorPolicy::default(),
        })
    }

    /// A protocol whose consumer is the Rust handler `make` builds (see
    /// [`crate::model::handler`]); it runs on a scenario with its own schema
    /// (`store.schema`, `check.effects_per_event`).
    pub fn handler<H: super::handler::Handler>(
        name: impl Into<String>,
        make: impl Fn() -> H + Send + Sync + std::panic::RefUnwindSafe + 'static,
    ) -> Protocol {
        // A handler that sends an external effect has that step: the check then judges the
        // effect per event (the `email` boundary).
        let steps = match make().sends_external_effect() {
            true => vec![Step::Receive, Step::ExternalEffect, Step::Ack],
            false => vec![Step::Receive, Step::Ack],
        };
        Protocol {
            name: name.into(),
            description: "a Rust handler".to_string(),
            steps,
            sql: Vec::new(),
            handler: Some(super::handler::HandlerFactory::new(make)),
            step_db: Vec::new(),
            db_names: Vec::new(),
            on_error: ErrorPolicy::default(),
        }
    }

    /// The definition of SQL step `name` (a step of this protocol: validated).
    pub fn sql_step(&self, name: &str) -> &SqlStep {
        self.sql
            .iter()
            .find(|d| d.name == name)
            .expect("every SQL step of a protocol is defined (Protocol::with_sql)")
    }

    /// The database step `at` runs on (0: the main one).
    pub fn db_at(&self, at: usize) -> u8 {
        self.step_db.get(at).copied().unwrap_or(0)
    }

    /// The database the `nth` occurrence of `step` runs on (0: the main one, also for a
    /// handler's calls, which are not steps of the list).
    pub fn db_of(&self, step: Step, nth: u8) -> u8 {
        if self.step_db.is_empty() && self.on_error.step_db.is_empty() {
            return 0;
        }
        let at = self.body_position(step, nth.max(1));
        at.map_or(0, |at| self.body_db_at(at))
    }

    /// The built-in protocol called `name`, if there is one.
    pub fn built_in(name: &str) -> Option<Protocol> {
        built_ins().iter().find(|b| b.name == name).map(|b| {
            Protocol::new(&b.name, &b.description, b.steps.clone()).expect("built-ins are valid")
        })
    }

    /// All built-in protocols, in listing order.
    pub fn all_built_in() -> Vec<Protocol> {
        built_ins()
            .iter()
            .map(|b| Protocol::built_in(&b.name).expect("listed"))
            .collect()
    }

    /// The names of the built-in protocols, for error messages.
    pub fn built_in_names() -> String {
        let names: Vec<&str> = built_ins().iter().map(|b| b.name.as_str()).collect();
        names.join(", ")
    }

    /// The rules a protocol obeys: it starts with `receive`; `receive`, `ack` and
    /// `produce_output` appear at most once, other steps may repeat (a repeated step's
    /// crash points are numbered by occurrence, `after:commit#2`); every `commit` closes a
    /// `begin`, transactions do not nest and every `begin` is committed; `enqueue_email`
    /// runs inside a transaction; there is an `apply_effect` to check.
    pub fn validate(steps: &[Step]) -> Result<(), ProtocolError> {
        Protocol::validate_on(steps, &[])
    }

    /// [`Protocol::validate`] with step `i` running on database `step_db[i]` (0, the main
    /// one, past its end): each database has its own transactions, so the rules on `begin`
    /// and `commit` hold per database, and transactions on different databases may overlap.
    pub fn validate_on(steps: &[Step], step_db: &[u8]) -> Result<(), ProtocolError> {
        let first = *steps.first().ok_or(ProtocolError::Empty)?;
        if steps.len() > Protocol::MAX_STEPS {
            return Err(ProtocolError::TooLong {
                len: steps.len(),
                max: Protocol::MAX_STEPS,
            });
        }
        if let Some((at, step)) = steps
            .iter()
            .enumerate()
            .find(|(_, s)| s.actor() != StepActor::Consumer)
        {
            return Err(ProtocolError::NotAConsumerStep {
                step: *step,
                at,
                actor: step.actor(),
            });
        }
        if let Some(at) = steps.iter().position(|s| s.is_policy_step()) {
            return Err(ProtocolError::PolicyStep {
                step: steps[at],
                at,
            });
        }
        if first != Step::Receive {
            return Err(ProtocolError::ReceiveNotFirst { found: first });
        }
        for (second, step) in steps.iter().enumerate() {
            if !matches!(step, Step::Receive | Step::Ack | Step::ProduceOutput) {
                continue;
            }
            if let Some(first) = steps[..second].iter().position(|s| s == step) {
                return Err(ProtocolError::Repeated {
                    step: *step,
                    first,
                    second,
                });
            }
        }
        // The open transaction's `begin`, per database.
        let mut open: BTreeMap<u8, usize> = BTreeMap::new();
        for (at, step) in steps.iter().enumerate() {
            let db = step_db.get(at).copied().unwrap_or(0);
            match (step, open.get(&db).copied()) {
                (Step::Begin, None) => {
                    open.insert(db, at);
                }
                (Step::Begin, Some(open)) => return Err(ProtocolError::NestedBegin { at, open }),
                (Step::Commit, None) if !open.is_empty() => {
                    return Err(ProtocolError::CommitOnOtherDatabase { at })
                }
                (Step::Commit, None) => return Err(ProtocolError::CommitWithoutBegin { at }),
                (Step::Commit, Some(_)) => {
                    open.remove(&db);
                }
                (Step::EnqueueEmail, None) => {
                    return Err(ProtocolError::EnqueueOutsideTransaction { at })
                }
                _ => {}
            }
        }
        if let Some(at) = open.values().min() {
            return Err(ProtocolError::BeginWithoutCommit { at: *at });
        }
        if !(steps.iter())
            .any(|s| *s == Step::ApplyEffect || matches!(s, Step::Sql(_) | Step::Call(_)))
        {
            return Err(ProtocolError::NoEffect);
        }
        Ok(())
    }

    /// The guarantee against single crashes, if this is a built-in protocol (same name and
    /// same steps).
    pub fn known_crash_guarantee(&self) -> Option<Guarantee> {
        built_ins()
            .iter()
            .find(|b| b.name == self.name && b.steps == self.steps)
            .map(|b| b.crash_guarantee)
    }

    pub fn has(&self, step: Step) -> bool {
        self.steps.contains(&step)
    }

    /// `step` as this protocol has it. [`Step::parse`] reads a scenario's own step name as a
    /// SQL step; in a protocol that calls a service of that name it is that call.
    pub fn resolve(&self, step: Step) -> Step {
        match step {
            Step::Sql(name) if self.has(Step::Call(name)) => Step::Call(name),
            other => other,
        }
    }

    /// The external services the protocol calls (`{"external"}` steps), in name order,
    /// each once.
    pub fn calls(&self) -> Vec<&'static str> {
        let mut calls: Vec<&'static str> = (self.steps.iter())
            .filter_map(|s| match s {
                Step::Call(service) => Some(*service),
                _ => None,
            })
            .collect();
        calls.sort_unstable();
        calls.dedup();
        calls
    }

    /// Whether it has an inbox (an `insert_inbox` or `check_inbox` step): what the inbox's
    /// settings, in a file or on the command line, act on.
    pub fn has_inbox(&self) -> bool {
        self.has(Step::InsertInbox) || self.has(Step::CheckInbox)
    }

    /// Whether a run of this protocol reaches `boundary`: its step is one of the protocol's
    /// and appears at least `nth` times.
    pub fn has_boundary(&self, boundary: Boundary) -> bool {
        match boundary.step {
            Step::DeadLetter => self.on_error.then == GiveUp::DeadLetter && boundary.nth == 1,
            step => self.body_position(step, boundary.nth).is_some(),
        }
    }

    /// The `commit` that commits the effect: the first one after the first `apply_effect`.
    /// `None` when the effect is never in a transaction that commits after it.
    pub fn effect_commit(&self) -> Option<usize> {
        let effect = self.steps.iter().position(|s| *s == Step::ApplyEffect)?;
        (effect..self.steps.len()).find(|i| self.steps[*i] == Step::Commit)
    }

    /// Both boundaries of every step, in execution order, repeated steps numbered.
    pub fn boundaries(&self) -> Vec<Boundary> {
        Boundary::all_of(&self.steps)
    }

    /// For an unknown step named where this protocol's steps are meant: ` (this protocol's
    /// steps: …)` when it has SQL steps, whose names the list of built-in steps lacks.
    pub fn own_steps_hint(&self) -> String {
        match self.own_steps() {
            Some(steps) => format!(" (this protocol's steps: {steps})"),
            None => String::new(),
        }
    }

    /// The protocol's steps as [`Protocol::arrow_list`] lists them, when it has SQL steps
    /// (whose names the list of built-in steps lacks): what an unknown step's error adds.
    pub fn own_steps(&self) -> Option<String> {
        (!self.sql.is_empty()).then(|| self.arrow_list())
    }

    /// `receive → begin → …`, for people.
    pub fn arrow_list(&self) -> String {
        let step = |(at, s): (usize, &Step)| match usize::from(self.db_at(at)).checked_sub(1) {
            Some(k) if k < self.db_names.len() => format!("{}@{}", s.name(), self.db_names[k]),
            _ => s.name().to_string(),
        };
        let steps: Vec<String> = self.steps.iter().enumerate().map(step).collect();
        steps.join(" → ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Step::*;

    #[test]
    fn every_built_in_protocol_is_valid_and_named_uniquely() {
        let all = Protocol::all_built_in();
        assert_eq!(all.len(), 7);
        let mut names: Vec<_> = all.iter().map(|p| p.name.clone()).collect();
        names.dedup();
        assert_eq!(names.len(), 7);
    }

    #[test]
    fn the_inbox_protocol_inserts_first_in_the_effect_transaction_and_acks_after_commit() {
        let p = Protocol::built_in("inbox").unwrap();
        assert_eq!(
            p.steps,
            vec![Receive, Begin, InsertInbox, ApplyEffect, Commit, Ack]
        );
    }

    #[test]
    fn nonsense_protocols_are_rejected_with_the_offending_position() {
        let check = |steps: &[Step], want: ProtocolError| {
            assert_eq!(Protocol::validate(steps), Err(want));
        };
        check(&[], ProtocolError::Empty);
        check(
            &[Begin, Receive],
            ProtocolError::ReceiveNotFirst { found: Begin },
        );
        check(
            &[Receive, ApplyEffect, Commit],
            ProtocolError::CommitWithoutBegin { at: 2 },
        );
        check(
            &[Receive, Commit, Begin, ApplyEffect],
            ProtocolError::CommitWithoutBegin { at: 1 },
        );
        check(
            &[Receive, Begin, ApplyEffect],
            ProtocolError::BeginWithoutCommit { at: 1 },
        );
        check(
            &[Receive, Ack, ApplyEffect, Ack],
            ProtocolError::Repeated {
                step: Ack,
                first: 1,
                second: 3,
            },
        );
        check(&[Receive, Ack], ProtocolError::NoEffect);
        let mut long = vec![Receive, ApplyEffect];
        long.extend([ExternalEffect; 63]);
        check(&long, ProtocolError::TooLong { len: 65, max: 64 });
        long.pop();
        Protocol::validate(&long).unwrap();
        check(
            &[Receive, Receive, ApplyEffect],
            ProtocolError::Repeated {
                step: Receive,
                first: 0,
                second: 1,
            },
        );
        check(
            &[
                Receive,
                Begin,
                InsertInbox,
                Begin,
                ApplyEffect,
                Commit,
                Commit,
            ],
            ProtocolError::NestedBegin { at: 3, open: 1 },
        );
        check(
            &[Receive, Begin, ApplyEffect, Commit, Commit],
            ProtocolError::CommitWithoutBegin { at: 4 },
        );
        check(
            &[Receive, Begin, ApplyEffect, Commit, Begin, InsertInbox],
            ProtocolError::BeginWithoutCommit { at: 4 },
        );
        check(
            &[Receive, Begin, ApplyEffect, Commit, EnqueueEmail, Ack],
            ProtocolError::EnqueueOutsideTransaction { at: 4 },
        );
        assert_eq!(
            ProtocolError::Repeated {
                step: Ack,
                first: 1,
                second: 3
            }
            .position(),
            Some(3)
        );
    }

    #[test]
    fn steps_may_repeat_in_transactions_of_their_own() {
        let steps = MARK_OWN_TRANSACTION.to_vec();
        let p = Protocol::new("mark-own-tx", "", steps).unwrap();
        assert!(p.has_boundary(Boundary::after(Commit).nth(2)));
        assert!(!p.has_boundary(Boundary::after(Commit).nth(3)));
        assert!(!p.has_boundary(Boundary::after(Commit).nth(0)));
        assert!(!p.has_boundary(Boundary::before(CheckInbox)));
        assert_eq!(p.boundaries().len(), 16);
        // Two effects and two inbox checks are programs too; the checker judges them.
        Protocol::validate(&[
            Receive,
            CheckInbox,
            ApplyEffect,
            CheckInbox,
            ApplyEffect,
            Ack,
        ])
        .unwrap();
    }

    #[test]
    fn step_names_round_trip() {
        for s in Step::ALL {
            assert_eq!(Step::parse(s.name()), Some(s));
        }
        assert_eq!(Step::parse("acknowledge"), None);
    }
}

/// What the consumer does when its `COMMIT` times out, not knowing whether it happened.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CommitTimeoutStrategy {
    /// Runs the transaction again from `begin`, blindly: safe only if the transaction
    /// recognises its own earlier commit (a stable `event_id` in the inbox).
    #[default]
    Retry,
    /// Treats the delivery as done and goes on (acks): loses the event if the commit did
    /// not happen.
    Abandon,
    /// Looks the `event_id` up in the inbox (a `SELECT`): found means committed, so it goes
    /// on; absent means not committed, so it runs the transaction again.
    Lookup,
}

impl CommitTimeoutStrategy {
    pub fn name(self) -> &'static str {
        match self {
            CommitTimeoutStrategy::Retry => "retry",
            CommitTimeoutStrategy::Abandon => "abandon",
            CommitTimeoutStrategy::Lookup => "lookup",
        }
    }
}

#[cfg(test)]
mod database_tests {
    use super::*;

    /// Each database has its own transactions: they may overlap across databases, never
    /// nest on one, and a `commit` closes its own database's.
    #[test]
    fn transactions_are_paired_per_database() {
        use Step::*;
        let steps = [Receive, Begin, Begin, Sql("x"), Commit, Commit, Ack];
        assert_eq!(
            Protocol::validate_on(&steps, &[0, 0, 1, 1, 1, 0, 0]),
            Ok(())
        );
        assert_eq!(
            Protocol::validate(&steps),
            Err(ProtocolError::NestedBegin { at: 2, open: 1 })
        );
        assert_eq!(
            Protocol::validate_on(&steps, &[0, 0, 1, 1, 0, 0, 0]),
            Err(ProtocolError::CommitOnOtherDatabase { at: 5 })
        );
        let one = [Receive, Begin, Sql("x"), Commit, Ack];
        assert_eq!(
            Protocol::validate_on(&one, &[0, 1, 1, 0, 0]),
            Err(ProtocolError::CommitOnOtherDatabase { at: 3 })
        );
        assert_eq!(
            Protocol::validate_on(&one[..4], &[0, 1, 1, 1]),
            Ok(()),
            "a protocol may end without an ack"
        );
        let sql = SqlStep {
            name: "x",
            statements: vec!["SELECT 1".into()],
            duplicate_if: None,
            db: 1,
            ..SqlStep::default()
        };
        let p =
            Protocol::with_sql_on("p", "", one.to_vec(), vec![sql], vec![0, 1, 1, 1, 0]).unwrap();
        assert_eq!(
            (p.db_of(Begin, 1), p.db_of(Commit, 1), p.db_of(Ack, 1)),
            (1, 1, 0)
        );
    }
}
