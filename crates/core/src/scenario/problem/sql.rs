//! What can be wrong in the scenario's `sql` checks (`scenario::validate::sql`): a SQL
//! step's form and name, a statement's text, what needs (or refuses) the scenario's own
//! schema, parameters, `duplicate_if`, check queries, and payloads.

use crate::model::{DuplicateIf, SqlRefusal, Step};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sql {
    /// A step object with neither `sql` nor `external`.
    NeitherSqlNorExternal,
    /// A SQL step with no statement, or more than `max`.
    StatementCount { count: usize, max: usize },
    /// A SQL step's name that a crash point could not write.
    InvalidStepName { name: String },
    /// A SQL step named as a built-in step.
    BuiltInStepName { name: String },
    /// More distinct SQL step names than the process can intern.
    TooManyStepNames,
    /// A SQL step whose name an earlier step (written at field `first`) defines otherwise.
    DefinedDifferently { name: String, first: String },
    /// A `begin` or `commit` step with a key that steers the flow (the field names it).
    TransactionStepFlow { step: Step },
    /// A `BEGIN` other than SQLite's deferred one (`words`: the statement, upper-case).
    TransactionNotDeferred { words: String },
    /// A `BEGIN` or `COMMIT` in a step not named after it.
    TransactionStepName { step: Step },
    /// A blank statement.
    EmptyStatement,
    /// A statement of `bytes` bytes, over `limit`.
    StatementTooLong { bytes: usize, limit: usize },
    /// A list of statements longer than `max`.
    TooManyStatements { max: usize },
    /// `check.effects_per_event` names no parameter.
    EffectsNameNoParameter,
    /// `check.effects_per_event` gives `value` (as the engine shows it) for event `event`
    /// before any delivery.
    EffectsNotZero { value: String, event: usize },
    /// A SQL step (named `step`) in a scenario without `store.schema`.
    StepWithoutSchema { step: String },
    /// A setting of the scenario's own schema in a scenario without one.
    NeedsOwnSchema,
    /// A built-in ledger step in a scenario with its own schema.
    LedgerStep { step: Step },
    /// A setting of the built-in ledger in a scenario with its own schema.
    LedgerSetting,
    /// A log's parameter (`parameter`, without `:`) on a queue broker.
    LogParameterOnQueue { parameter: String },
    /// A parameter no event or delivery has; `known` are the ones there are, and `in_step`
    /// says the statement is a step's (which may also read the results earlier steps keep).
    UnknownParameter {
        parameter: String,
        known: Vec<String>,
        in_step: bool,
    },
    /// `duplicate_if` on a step of several statements.
    DuplicateIfSeveral,
    /// `duplicate_if: rule` on a statement that cannot tell it.
    DuplicateIfUntold { rule: DuplicateIf },
    /// A check query giving `columns` columns, not one.
    CheckColumns { columns: usize },
    /// A check query that writes.
    CheckWrites,
    /// A statement the engine (or the tool's sandbox) refused to prepare: `sql` on one line,
    /// shortened, and why.
    Unprepared { sql: String, reason: SqlRefusal },
    /// More than `max` payloads.
    TooManyPayloads { max: usize },
    /// A payload with more than `max` fields.
    TooManyPayloadFields { max: usize },
    /// A payload field whose name cannot be a parameter (or is a delivery's or a log's).
    PayloadFieldName { name: String },
    /// A payload value neither an integer nor a string.
    PayloadValue,
    /// An event type blank or over `max` characters.
    EventTypeLength { max: usize },
}
