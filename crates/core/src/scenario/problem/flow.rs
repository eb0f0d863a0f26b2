//! What can be wrong in a protocol's branches and values (`scenario::validate::flow`): a
//! SQL step's `into`, `when`, `duplicate_if: {"when"}`, `goto` and `on_error`.

use crate::model::{ConditionError, Step};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Flow {
    /// A value, as written, that cannot be a result's or a step's name.
    BadName { value: String },
    /// More distinct names than the process can intern.
    TooManyNames,
    /// A condition, as written (trimmed), that does not parse.
    BadCondition {
        condition: String,
        error: ConditionError,
    },
    /// A `result.column`, as written, naming a result no step keeps; `known` are the
    /// results kept.
    UnknownResult {
        written: String,
        result: String,
        known: Vec<String>,
    },
    /// A `result.column`, as written, reading a result a later step keeps.
    KeptLater { written: String, result: String },
    /// A column the kept result does not have.
    NoSuchColumn {
        result: String,
        column: String,
        columns: Vec<String>,
    },
    /// `into` on a step whose last statement returns no rows.
    IntoWithoutRows,
    /// A `goto` to no step of the protocol.
    GotoNowhere { target: String },
    /// A `goto` to a step written `times` times.
    GotoAmbiguous { target: String, times: usize },
    /// A `goto` to a later step, at `protocol.steps[at]`.
    GotoForward { target: String, at: usize },
    /// A loop that would run `step`, which a delivery runs once, again.
    LoopRunsOnceStep { target: String, step: Step },
    /// A loop that leaves the transactions otherwise than it found them.
    LoopUnbalanced { target: String },
    /// An error handler going on at a step not written once.
    ContinueNotOnce { target: String },
    /// An error handler going on at a step that is not after its own.
    ContinueNotAfter { target: String },
    /// An error handler going on where the transactions are not as it leaves them
    /// (`rollback` says whether it rolls back).
    ContinueTransactions { target: String, rollback: bool },
}
