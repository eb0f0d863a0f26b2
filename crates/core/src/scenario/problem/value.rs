//! What can be wrong with one value, whatever part of the format it is in: out of its
//! bounds, or naming an event that does not exist.

use crate::model::{Step, StepActor};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A number outside `min..=max`.
    OutOfRange { value: i128, min: i128, max: i128 },
    /// An event index past the workload's events.
    NoSuchEvent { event: u64, events: usize },
    /// A delivery attempt numbered 0.
    DeliveryZero,
    /// A setting that needs a step the scenario never runs.
    MissingStep {
        step: Step,
        /// Who runs the step, when not the consumer: the scenario runs no such actor.
        actor: Option<StepActor>,
        protocol: String,
        /// The protocol's steps, as `receive → begin → …`.
        steps: String,
        consequence: Consequence,
    },
}

/// What a setting whose step is missing would mean.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Consequence {
    /// Nothing more to say.
    Plain,
    /// An invalid payload would never be refused.
    InvalidNeverRefused,
    /// The crash point, as written, would never be reached.
    NeverReached { at: String },
    /// No commit could time out.
    NoCommitTimeout,
}
