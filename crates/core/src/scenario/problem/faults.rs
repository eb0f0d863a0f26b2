//! What can be wrong in the scenario's `faults` checks (`scenario::validate::faults`).

use crate::model::{PointError, Step};
use crate::scenario::Unreached;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Faults {
    /// More planned crashes than the bound.
    TooManyCrashes { max: u32 },
    /// More commit timeouts than the bound.
    TooManyCommitTimeouts { max: u32 },
    /// A list of faults longer than its bound.
    TooManyEntries { len: usize, max: usize },
    /// A crash point (or a step with its occurrence) that does not parse; `own_steps` is
    /// the protocol's steps when it has SQL steps, which the list of built-in steps lacks.
    BadPoint {
        error: PointError,
        own_steps: Option<String>,
    },
    /// An occurrence of a step the run never reaches (boxed: the largest payload here, it
    /// would make every scenario error larger).
    Unreached(Box<Unreached>),
    /// A republished copy beyond those the workload publishes.
    CopyNeverPublished { copy: u32, copies: usize },
    /// A failed step given both `times` and `until_tick`.
    TimesAndUntilTick,
    /// A step to fail, as written, that names no step.
    UnknownFailStep {
        at: String,
        own_steps: Option<String>,
    },
    /// A step to fail that is not the consumer's.
    FailNotConsumer { step: Step },
    /// `receive` told to fail.
    ReceiveCannotFail,
    /// A step to stall that is not the consumer's.
    StallNotConsumer { step: Step },
    /// A commit timeout's `at`, as written, that is not a commit.
    NotACommit { at: String },
}
